"""Splicing models' answers into masked files: before/after pairs of dedented sources."""

from __future__ import annotations

from textwrap import dedent

import pytest

from lmr_author.cst.extract import extract_function
from lmr_author.cst.mask import mask_function
from lmr_author.cst.splice import SpliceError, splice_function
from lmr_author.util.errors import UserError

MASKED_METHOD = dedent(
    '''\
    import torch  # header comment


    class Trainer:
        """A trainer."""

        def existing(self):
            return 1

        def loss(self, a, b):  # goal
            """Compute the loss."""
            # TODO: Implement this function
            return losses

        # trailing comment
    '''
)

SPLICED_METHOD = dedent(
    '''\
    import torch  # header comment


    class Trainer:
        """A trainer."""

        def existing(self):
            return 1

        def loss(self, a, b):  # goal
            losses = a - b
            return losses

        # trailing comment
    '''
)

BARE = "def loss(self, a, b):  # goal\n    losses = a - b\n    return losses\n"


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(BARE, id="bare-def"),
        pytest.param(f"Here you go:\n\n```python\n{BARE}```\n\nIt subtracts.", id="fenced"),
        pytest.param(f"~~~py\n{BARE}~~~\n", id="tilde-fence"),
        pytest.param(f"Sure! The implementation is:\n\n{BARE}\nThis is all.\n", id="prose"),
        pytest.param(dedent(BARE).replace("\n", "\n    ").join(["    ", ""]), id="indented"),
        pytest.param(
            "class Trainer:\n    def loss(self, a, b):  # goal\n"
            "        losses = a - b\n        return losses\n",
            id="with-class",
        ),
        pytest.param(
            MASKED_METHOD.replace(
                '        """Compute the loss."""\n        # TODO: Implement this function\n',
                "        losses = a - b\n",
            ),
            id="whole-file",
        ),
        pytest.param(BARE.replace("\n", "\r\n"), id="crlf-answer"),
    ],
)
def test_answer_shapes(answer: str) -> None:
    assert splice_function(MASKED_METHOD, answer, "loss", "Trainer") == SPLICED_METHOD


def test_body_indented_deeper_than_needed_is_accepted() -> None:
    answer = (
        "def loss(self, a, b):  # goal\n            losses = a - b\n            return losses\n"
    )
    spliced = splice_function(MASKED_METHOD, answer, "loss", "Trainer")
    assert "    def loss(self, a, b):  # goal\n                losses = a - b\n" in spliced


def test_helpers_are_kept_before_the_goal_function() -> None:
    masked = dedent(
        """\
        import math


        def goal(x):
            # TODO: Implement this function
            pass
        """
    )
    answer = dedent(
        """\
        ```python
        import math

        def goal(x):
            return _square(x) + _twice(x)

        def _square(x):
            return x * x

        def _twice(x):
            return 2 * x
        ```
        """
    )
    assert splice_function(masked, answer, "goal") == dedent(
        """\
        import math


        def _square(x):
            return x * x


        def _twice(x):
            return 2 * x


        def goal(x):
            return _square(x) + _twice(x)
        """
    )


def test_module_level_helpers_of_a_method_go_before_its_class() -> None:
    answer = dedent(
        """\
        def loss(self, a, b):
            return _diff(a, b)

        def _diff(a, b):
            return a - b

        def _scaled(self, a):
            return a
        """
    )
    assert splice_function(MASKED_METHOD, answer, "Trainer.loss") == dedent(
        '''\
        import torch  # header comment


        def _diff(a, b):
            return a - b


        class Trainer:
            """A trainer."""

            def existing(self):
                return 1

            def _scaled(self, a):
                return a

            def loss(self, a, b):
                return _diff(a, b)

            # trailing comment
        '''
    )


def test_methods_the_class_already_has_are_not_duplicated() -> None:
    answer = dedent(
        """\
        class Trainer:
            def existing(self):
                return 99

            def extra(self):
                return 2

            def loss(self, a, b):
                return self.extra()
        """
    )
    spliced = splice_function(MASKED_METHOD, answer, "loss", "Trainer")
    assert spliced.count("def existing") == 1 and "return 99" not in spliced
    assert "    def extra(self):\n        return 2\n\n    def loss(self, a, b):\n" in spliced


def test_crlf_tab_file_gets_its_own_line_endings_and_indentation() -> None:
    masked = b"class A:\r\n\tdef f(self):\r\n\t\t# TODO: Implement this function\r\n\t\tpass\r\n"
    answer = "def f(self):\n    if True:\n        return 1\n"
    assert splice_function(masked, answer, "f", "A") == (
        b"class A:\r\n\tdef f(self):\r\n\t    if True:\r\n\t        return 1\r\n"
    )


def test_multiline_strings_are_not_reindented() -> None:
    answer = 'def loss(self, a, b):\n    text = """\nfirst\n  second\n"""\n    return text\n'
    spliced = splice_function(MASKED_METHOD, answer, "loss", "Trainer")
    assert '        text = """\nfirst\n  second\n"""\n        return text\n' in spliced


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("def loss(self, a, b:\n    return 1\n", r"does not parse \(line 1"),
        ("```python\nx = 1\n\ndef y(:\n```", r"does not parse \(line 4"),
        ("def other(self):\n    return 1\n", r"does not define `loss`\. It defines: other\."),
        ("I cannot do that.", "does not parse"),
        ("   \n", "is empty"),
    ],
)
def test_bad_answers_are_splice_errors(answer: str, message: str) -> None:
    with pytest.raises(SpliceError, match=message) as info:
        splice_function(MASKED_METHOD, answer, "loss", "Trainer")
    assert isinstance(info.value, UserError)


def test_round_trip_of_mask_and_extract() -> None:
    golden = MASKED_METHOD.replace(
        '        """Compute the loss."""\n        # TODO: Implement this function\n',
        '        """Compute the loss."""\n        # the real body\n        losses = (a -\n  b)\n',
    )
    masked = mask_function(golden, "loss", "Trainer")
    assert masked == MASKED_METHOD
    assert (
        splice_function(masked, extract_function(golden, "loss", "Trainer"), "Trainer.loss")
        == golden
    )


def test_result_that_would_not_parse_is_refused() -> None:
    # Parses once dedented, but its body is left of its def at the method's level.
    answer = "    def loss(self, a, b):\n  return 1\n"
    with pytest.raises(SpliceError, match=r"would not parse once spliced: .*\(line 2 of"):
        splice_function(MASKED_METHOD, answer, "loss", "Trainer", filename="m.py")


def test_decorators_are_kept_unless_the_answer_brings_its_own() -> None:
    masked = dedent(
        """\
        class A:
            @staticmethod
            # a comment between
            def f(x):
                # TODO: Implement this function
                pass
        """
    )
    assert splice_function(masked, "def f(x):\n    return x\n", "A.f") == dedent(
        """\
        class A:
            @staticmethod
            # a comment between
            def f(x):
                return x
        """
    )
    assert splice_function(masked, "@classmethod\ndef f(cls):\n    return cls\n", "A.f") == (
        dedent(
            """\
            class A:
                @classmethod
                def f(cls):
                    return cls
            """
        )
    )


def test_null_bytes_are_user_errors() -> None:
    with pytest.raises(SpliceError, match="does not parse"):
        splice_function(MASKED_METHOD, "def loss(self):\0\n    pass\n", "Trainer.loss")
    with pytest.raises(UserError, match="null byte"):
        splice_function(MASKED_METHOD + "\0", BARE, "Trainer.loss")


def test_characters_the_file_encoding_cannot_hold() -> None:
    masked = b"# -*- coding: latin-1 -*-\ndef f():\n    pass\n"
    assert splice_function(masked, "def f():\n    return 'é'\n", "f").endswith(b"'\xe9'\n")
    with pytest.raises(UserError, match=r"m\.py \(line 3\): .*'→'.*iso-8859-1"):
        splice_function(masked, "def f():\n    return '→'\n", "f", filename="m.py")


def test_markdown_fences_inside_a_docstring_do_not_split_the_code() -> None:
    golden = dedent(
        '''\
        def on(selector):
            """Decorator.

            ```python
            @on("#quit")
            def quit_button(self):
                pass
            ```
            """
            return selector
        '''
    )
    masked = mask_function(golden, "on")
    assert splice_function(masked, extract_function(golden, "on"), "on") == golden


def test_the_last_block_defining_the_function_wins() -> None:
    answer = (
        "The masked function was:\n```python\ndef loss(self, a, b):\n    pass\n```\n"
        "My implementation:\n```python\ndef loss(self, a, b):  # goal\n    losses = a - b\n"
        "    return losses\n```\nUsage:\n```python\nprint(Trainer().loss(1, 2))\n```\n"
    )
    assert splice_function(MASKED_METHOD, answer, "Trainer.loss") == SPLICED_METHOD
