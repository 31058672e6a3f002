"""The rule registry: stable kebab-case ids, and a good task triggers none of them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.validate.rules import all_rules

RULE_IDS = [r.id for r in all_rules()]


def test_ids_are_unique_kebab_case() -> None:
    assert len(RULE_IDS) == len(set(RULE_IDS))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", rule_id) for rule_id in RULE_IDS)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_good_task_triggers_no_rule(
    rule_id: str, make_task: Callable[..., Path], findings: Callable
) -> None:
    assert findings(make_task(), rule_id) == []


def test_list_rules_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--list-rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == RULE_IDS
