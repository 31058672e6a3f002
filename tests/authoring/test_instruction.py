from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.authoring.instruction import draft_instruction
from lmr_author.util.errors import UserError


def test_draft_names_function_file_signature_summary_and_retrieval(toy_repo: Path) -> None:
    draft = draft_instruction(toy_repo, "toy/losses.py", "margin_loss")
    assert draft.signature == "def margin_loss(chosen, rejected, beta=0.1)"
    assert draft.summary == "Logistic loss on the margin between chosen and rejected scores."
    assert "`margin_loss`" in draft.text and "toy/losses.py" in draft.text
    assert draft.summary in draft.text
    assert draft.retrieval_candidates == ["toy/utils.py"]


def test_method_draft_mentions_the_class(toy_repo: Path) -> None:
    draft = draft_instruction(toy_repo, "toy/losses.py", "score", "Scorer")
    assert "`Scorer` class" in draft.text
    assert draft.signature == "def score(self, values)"
    assert draft.retrieval_candidates == []


def test_unknown_function_is_a_user_error(toy_repo: Path) -> None:
    with pytest.raises(UserError, match="no function 'nope'"):
        draft_instruction(toy_repo, "toy/losses.py", "nope")


DOCUMENTED = '''\
import typing


@typing.overload
def gps_loss(a: float, b: float) -> float: ...


def gps_loss(a, b, alpha=1.0, beta=2.0):
    """Gumbel prior similarity between two point sets, as a loss.

    The distance of each point to its nearest neighbour in the other
    set is modelled with a Gumbel distribution; the loss is the
    negative log-likelihood.

    Steps:
    - pairwise distances, clamped at 1e-7;
    - the minimum over the other set;
    1. then the Gumbel transform.

    Args:
        a: the first set, (batch, points, features).
        b: the second set, same shape.
        alpha: the Gumbel scale.

    Returns:
        The mean loss over the batch, times 100.

    Example:
        >>> gps_loss(x, x)
        0.0
    """
    return 0.0
'''


def test_the_docstring_keeps_its_paragraphs_lists_and_parameters(tmp_path: Path) -> None:
    (tmp_path / "gps.py").write_text(DOCUMENTED)
    draft = draft_instruction(tmp_path, "gps.py", "gps_loss")
    assert draft.signature == "def gps_loss(a, b, alpha=1.0, beta=2.0)"  # not the stub's
    assert draft.text == (
        "Implement the `gps_loss` function in gps.py based on the method described in "
        "paper.pdf and the code repository.\n\n"
        "Gumbel prior similarity between two point sets, as a loss.\n\n"
        "The distance of each point to its nearest neighbour in the other set is modelled "
        "with a Gumbel distribution; the loss is the negative log-likelihood.\n\n"
        "Steps:\n"
        "- pairwise distances, clamped at 1e-7;\n"
        "- the minimum over the other set;\n"
        "1. then the Gumbel transform.\n\n"
        "Args:\n"
        "    a: the first set, (batch, points, features).\n"
        "    b: the second set, same shape.\n"
        "    alpha: the Gumbel scale.\n\n"
        "Returns:\n"
        "    The mean loss over the batch, times 100.\n\n"
        "Example:\n"
        "    >>> gps_loss(x, x)\n"
        "    0.0"
    )
    assert draft.summary == "Gumbel prior similarity between two point sets, as a loss."


def test_a_numpy_style_section_and_a_line_pick(tmp_path: Path) -> None:
    source = (
        "def f(x):\n"
        '    """Scale x.\n\n    Parameters\n    ----------\n    x : float\n'
        '        The value.\n    """\n    return x\n\n\n'
        "def f(x, y):\n    return x + y\n"
    )
    (tmp_path / "m.py").write_text(source)
    first = draft_instruction(tmp_path, "m.py", "f", line=2)
    assert first.text.endswith("Scale x.\n\nParameters\n----------\nx : float\n    The value.")
    second = draft_instruction(tmp_path, "m.py", "f", line=12)
    assert second.signature == "def f(x, y)"
