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
