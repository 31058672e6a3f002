"""Tokens and functions of any text: what copies are compared by."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from lmr_author.leaks.code_tokens import functions_of, has_words, normalized, stable_words, tokens
from tests.leaks.support import GOLDEN, RENAMED


def _body(text: str, qualname: str) -> tuple[str, ...]:
    found = tokens(text)
    [unit] = [f for f in functions_of(found) if f.qualname == qualname]
    return normalized(found[unit.start : unit.end])


def test_renamed_reformatted_commented_copy_normalizes_alike() -> None:
    assert _body(GOLDEN, "weighted_mean") == _body(RENAMED, "Scorer.combine")


def test_a_changed_operator_or_attribute_shows() -> None:
    changed = GOLDEN.replace("v * w", "v + w")
    assert _body(GOLDEN, "weighted_mean") != _body(changed, "weighted_mean")
    found = tokens("def f(x):\n    return x.logsigmoid()\n")
    assert "logsigmoid" in normalized(found)


def test_self_attributes_read_as_names() -> None:
    method = "def f(self, x):\n    return self.beta * x\n"
    function = "def f(x):\n    return beta * x\n"
    assert normalized(tokens(method)) == normalized(tokens(function))


def test_functions_end_where_their_indentation_ends() -> None:
    text = textwrap.dedent(
        """\
        import os

        def first(a,
        b):
            x = (1 +
        2)
            def inner():
                return '''
        not code'''
            return x

        class K:
            @property
            def prop(self):
                return 1

        async def later():
            await first(1, 2)
        """
    )
    found = {f.qualname: (f.line, f.end_line) for f in functions_of(tokens(text))}
    assert found == {
        "first": (3, 10),
        "first.inner": (7, 9),
        "K.prop": (14, 15),  # from its def line: that is what masking is given
        "later": (17, 18),
    }


def test_flat_text_ends_a_function_at_the_next_def() -> None:
    text = "def a(x):\nreturn x\ndef b(y):\nreturn y\nsome prose here\n"
    found = [(f.name, f.line, f.end_line) for f in functions_of(tokens(text), flat=True)]
    assert found == [("a", 1, 2), ("b", 3, 5)]


def test_stable_words_are_attributes_and_calls() -> None:
    found = tokens("def f(x):\n    y = torch.relu(x)\n    return helper(y) + x.mean\n")
    assert stable_words(found) == {"torch", "relu", "helper", "mean"} - {"torch"}
    assert has_words("relu helper mean", {"relu", "helper", "mean"}, 0.6)
    assert not has_words("nothing", {"relu", "helper", "mean"}, 0.6)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_tokenizes_without_raising(text: str) -> None:
    found = tokens(text)
    for unit in functions_of(found) + functions_of(found, flat=True):
        normalized(found[unit.start : unit.end])
