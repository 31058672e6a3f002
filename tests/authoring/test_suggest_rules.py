"""Rules of the goal ranking, each by a ranking it changes: acronyms the paper spells out,
examples that are no definitions, docstrings, and the strings of prompts and messages."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lmr_author.authoring.suggest import suggest_goals
from lmr_author.authoring.suggest.quantities import acronym_aliases, defined_quantities


def _repo(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _first(root: Path, paper: dict[str, str]) -> tuple[str, str]:
    top = suggest_goals(root, paper, limit=3)[0]
    return top.goal_file, top.goal_function


SEARCH_PAPER = {
    "1": "Tree Search for Dialogue Planning\nAbstract\nWe plan a dialogue by a tree search.\n",
    "2": "3\nMethod\nSelection. The action with the highest Predictor Upper Confidence Tree\n"
    "Bound (PUCT) is selected to traverse the tree:\n"
    "PUCT(s, a) = Q(s, a) + c P(s, a) sqrt(N(s)) / (1 + N(s, a)) (1)\n\n"
    "Expansion. A leaf node of the tree is expanded: each action of the node gets its "
    "prior, and the node joins the tree.\n",
}
SELECT = """
def pick(q, p, n, visits, moves):
    best, best_uct = None, -1e9
    for a in moves:
        uct = q[a] + 1.5 * p[a] * n ** 0.5 / (1 + visits[a])
        if uct > best_uct:
            best, best_uct = a, uct
    return best, best_uct
"""
EXPAND = """
def expand(node, prior):
    for action, value in prior.items():
        node.children[action] = value * 1.0
    return node
"""


def test_code_naming_an_acronym_s_base_computes_what_the_paper_spells_out() -> None:
    aliases = acronym_aliases([SEARCH_PAPER["2"]])
    assert aliases["puct"] == {"predictor", "upper", "confidence", "tree", "bound"}
    assert aliases["uct"] == aliases["puct"]  # UCT: PUCT without its qualifier
    assert {"puct", "uct"} <= defined_quantities([SEARCH_PAPER["2"]]).keys()
    assert "kl" not in acronym_aliases(["the Adam (Adam) optimizer"])  # a name, not spelt out


def test_the_function_computing_the_spelt_out_acronym_ranks_first(tmp_path: Path) -> None:
    # expand carries more of the paper's words; pick computes the paper's PUCT as `uct`
    repo = _repo(tmp_path, {"select.py": SELECT, "expand.py": EXPAND})
    assert _first(repo, SEARCH_PAPER) == ("select.py", "pick")


GAP_PAPER = {
    "1": "Group Gaps in Ratings\nAbstract\nWe measure how ratings differ between groups.\n",
    "2": "3\nMethod\nWe query the model with a prompt about a pair of persons, e.g.\n"
    'query = "How angry is the person?"\n'
    "The group gap is the mean rating of pairs of the same group minus the mean rating "
    "of the other pairs:\ngap = mean same − mean other (1)\n",
}
GAP = """
def pair_difference(matrix, same):
    inside = matrix[same].mean()
    outside = matrix[~same].mean()
    return inside - outside
"""
QUERY = """
def query(ask, persons, same):
    ratings = [ask(person) for person in persons]
    inside = [r for r, s in zip(ratings, same) if s]
    mean = sum(inside) / len(inside)
    return mean
"""


def test_an_example_s_text_defines_no_quantity(tmp_path: Path) -> None:
    assert "query" not in defined_quantities([GAP_PAPER["2"]])
    assert "gap" in defined_quantities([GAP_PAPER["2"]])
    # query would return a quantity the paper "defines" by quoting an example's prompt
    repo = _repo(tmp_path, {"gap.py": GAP, "query.py": QUERY})
    assert _first(repo, GAP_PAPER) == ("gap.py", "pair_difference")


MARGIN_PAPER = {
    "1": "Contrastive Margins for Preference Optimization\nAbstract\n"
    "We propose MarginPO, a margin loss for preference optimization.\n",
    "2": "3\nMethod\nThe MarginPO loss of a chosen and a rejected response is\n"
    "L = -log sigmoid(beta (logp_chosen - logp_rejected) - gamma) (2)\n"
    "where beta scales the log-probability margin and gamma is a target margin.\n",
}
DESCRIBED = """
def pair_value(a, b, s, t):
    \"\"\"The preference margin of the chosen over the rejected response, scaled by beta,
    less the target margin gamma.

    a, b: log-probabilities of the chosen and of the rejected response; s: beta, the
    scale of the margin; t: gamma, the target margin.
    \"\"\"
    d = s * (a - b)
    d = d - t
    d = d * 1.0
    return d
"""
CODED = """
def margin_shift(chosen, rejected, beta):
    d = chosen - rejected
    d = d * beta
    return d
"""


def test_a_docstring_counts_as_the_function_s_own_words(tmp_path: Path) -> None:
    # margin_shift is named after the paper's margin; pair_value's docstring says it all
    repo = _repo(tmp_path, {"described.py": DESCRIBED, "coded.py": CODED})
    assert _first(repo, MARGIN_PAPER) == ("described.py", "pair_value")


PROMPT_BUILDER = """
def build_request(a, b, c):
    return (
        f"MarginPO preference optimization: compute the MarginPO loss, the log-probability "
        f"margin of the chosen response {a} over the rejected response {b}, scaled by beta "
        f"{c}, less the target margin gamma, under a log sigmoid."
    )
"""
COMPUTED = """
import math


def margin(x, y, s):
    d = x - y
    return s * d
"""


def test_the_words_of_a_prompt_are_not_the_function_s_own(tmp_path: Path) -> None:
    # the prompt quotes nearly all of the method; margin computes a part of it
    repo = _repo(tmp_path, {"prompt.py": PROMPT_BUILDER, "margin.py": COMPUTED})
    assert _first(repo, MARGIN_PAPER) == ("margin.py", "margin")
