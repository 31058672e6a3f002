"""Goal suggestions: the quantities a paper defines, and the function that computes them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lmr_author.authoring.suggest import suggest_goals
from lmr_author.authoring.suggest.code_facts import _source_words
from lmr_author.authoring.suggest.paper_text import paper_profile
from lmr_author.authoring.suggest.quantities import defined_quantities, symbol_aliases


def test_definitions_are_found_in_pdf_text_and_latex_but_settings_and_options_are_not() -> None:
    pdf = (
        "the action with the highest PUCT is selected:\n"
        "PUCT(s, a) = Q(s, a) + c sqrt N(s) (1)\n"
        "We summarise the groups with a gap score δ.\n"
        "δ =\n1\n#same\nX\nM_ij\n"
        "sampled at temperature τ = 1.0 for m times.\n"
    )
    latex = (
        "\\[\n rho ( { K})=o ( {1}{ n} ),\n\\]\n"
        "options [\n  backgroundcolor=white,\n  basicstyle=small]\n"
        "if a == b then\n"
    )
    defined = defined_quantities([pdf, latex])
    assert {"puct", "delta", "rho"} <= defined.keys()
    # a setting, a key of LaTeX's options and a comparison define nothing
    assert not {"tau", "temperature", "backgroundcolor", "basicstyle"} & defined.keys()


def test_a_symbol_is_named_by_the_words_the_paper_writes_before_it_twice() -> None:
    texts = [
        "Empathy Gap Score (δ). To summarize, we compute the gap δ over pairs.",
        "The learning rate η is small; we keep η fixed.",
    ]
    aliases = symbol_aliases(texts, {"delta"})
    assert aliases["delta"] == {"gap"}  # "score" and "empathy" only once
    assert "eta" not in aliases  # "rate η" once, "keep η" once


def test_code_facts_say_what_a_function_assigns_and_returns() -> None:
    code = textwrap.dedent(
        """
        def get_gap(matrix,
                    beta=0.1):
            self.delta, count = 1, 2
            total += matrix
            if a == b:
                pass
            return delta
        """
    )
    found = _source_words(code)
    computed, returned = found.computed, found.returned
    assert computed == {"delta", "total"}  # not beta: a parameter; not count: a constant
    assert returned == {"delta"}
    commented = textwrap.dedent(
        """
        def pick(q, n):
            # the PUCT bound
            bound = q + n
            value = q * 2  # running value
            fetched = lookup(q)
            return (best_action, bound)
        """
    )
    found = _source_words(commented)
    computed, returned = found.computed, found.returned
    # an assignment from a call fetches: it computes nothing
    assert computed == {"puct", "bound", "running", "value", "best", "action"}
    assert returned == {"best", "action", "bound"}


PAPER = {
    "1": "Group Gaps in Ratings\nAbstract\nWe measure how ratings differ between groups.\n",
    "2": "3\nMethod\nWe compare the ratings of pairs of the same group with the others.\n"
    "The group gap δ is the mean rating of pairs of the same group minus the mean rating "
    "of the other pairs:\nδ =\nmean same − mean other (1)\n"
    "A positive group gap δ means a bias towards the own group.\n",
}
BODY = """(matrix, same):
    inside = matrix[same].mean()
    outside = matrix[~same].mean()
    {name} = inside - outside
    return {name}
"""


def _repo(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).write_text(text, encoding="utf-8")
    return root


def test_the_function_that_returns_the_defined_quantity_ranks_first(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        {
            "a.py": "def summarize" + BODY.format(name="group_gap"),
            "b.py": "def summarize" + BODY.format(name="delta"),
            "c.py": "def compare" + BODY.format(name="result"),
        },
    )
    named_once = {**PAPER, "2": PAPER["2"].replace("positive group gap δ", "positive δ")}
    profile = paper_profile(named_once)
    assert "delta" in profile.defined and not profile.aliases
    found = suggest_goals(repo, named_once, limit=3)
    assert (found[0].goal_file, found[0].goal_function) == ("b.py", "summarize")
    # a.py's words match the paper better: only what b.py computes puts it first
    assert "gap" in found[1].terms and "gap" not in found[0].terms


def test_the_function_that_computes_a_named_symbol_carries_its_name(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"a.py": "def summarize" + BODY.format(name="delta")})
    assert paper_profile(PAPER).aliases["delta"] == {"group", "gap"}
    (found,) = suggest_goals(repo, PAPER, limit=3)
    assert "gap" in found.terms  # the symbol's name joins the words of its function
