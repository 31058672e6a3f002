"""Mutants of a goal function: each operator as a before/after pair; only the goal changes."""

from __future__ import annotations

import textwrap

import pytest

from lmr_author.mutation.mutants import mutants_of


def _changes(source: str, function: str = "goal", class_name: str = "") -> dict[str, str]:
    """description -> the one changed line of each mutant."""
    text = textwrap.dedent(source)
    found = {}
    for mutant in mutants_of(text.encode(), function, class_name):
        changed = mutant.source.decode()
        assert changed != text
        lines = [b for a, b in zip(text.splitlines(), changed.splitlines(), strict=True) if a != b]
        assert len(lines) == 1, mutant.diff
        found[mutant.description] = lines[0].strip()
    return found


@pytest.mark.parametrize(
    ("body", "description", "after"),
    [
        ("return a < b", "LessThan -> GreaterThanEqual", "return a >= b"),
        ("return a == b", "Equal -> NotEqual", "return a != b"),
        ("return a - b", "Subtract -> Add", "return a + b"),
        ("return a * b", "drop the right operand of Multiply", "return a"),
        ("return a + 2", "2 -> 3", "return a + 3"),
        ("return a * 0.5", "0.5 -> 1.0", "return a * 1.0"),
        ("return a and b", "and -> or", "return a or b"),
        ("return pow(a, b)", "swap the first two arguments", "return pow(b, a)"),
        ("return a[:b]", "off by one: upper bound + 1", "return a[:b + 1]"),
        ("return not a", "drop not", "return a"),
    ],
)
def test_each_operator(body: str, description: str, after: str) -> None:
    changes = _changes(f"def goal(a, b):\n    {body}\n")
    assert changes[description] == after


def test_a_different_local_is_returned() -> None:
    changes = _changes("def goal(a):\n    x = a + 1\n    y = x * 2\n    return y\n")
    assert changes["return x instead of y"] == "return x"


def test_only_the_goal_body_changes_not_its_signature_nor_other_functions() -> None:
    source = """\
    def other(a):
        return a + 1

    class Model:
        def goal(self, a, beta=0.1):
            return a - beta

    def goal(a):
        return a * 3
    """
    changes = _changes(source, "goal", "Model")
    assert set(changes.values()) == {"return a + beta", "return a"}


def test_symmetric_calls_are_not_swapped() -> None:
    assert _changes("def goal(a, b):\n    return max(a, b)\n") == {}


def test_mutants_option_needs_run(capsys: pytest.CaptureFixture[str]) -> None:
    from lmr_author.cli import main

    assert main(["validate", "--mutants", "benchmark/01-DPO"]) == 2
    assert "--mutants needs --run" in capsys.readouterr().err
