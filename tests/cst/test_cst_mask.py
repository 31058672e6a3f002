"""Masking: before/after pairs of dedented sources, plus byte-level edge cases."""

from __future__ import annotations

from textwrap import dedent

import pytest

from lmr_author.cst import AmbiguousFunctionError, FunctionNotFoundError
from lmr_author.cst.mask import mask_class, mask_function, mask_functions
from lmr_author.util.errors import UserError


def assert_masks(
    before: str, after: str, function: str, class_name: str = "", **kw: object
) -> None:
    assert mask_function(dedent(before), function, class_name, **kw) == dedent(after)  # type: ignore[arg-type]


def test_lmr_style_keeps_docstring_comments_and_final_return_of_names() -> None:
    assert_masks(
        '''\
        import torch  # keep me

        # comment above the function
        @torch.no_grad()  # decorator comment
        def preference_loss(chosen, rejected, beta: float = 0.1):  # signature comment
            """DPO loss.

            Returns the losses and rewards.
            """
            # compute the logits
            logits = chosen - rejected
            losses = -torch.nn.functional.logsigmoid(beta * logits)
            return losses, chosen, rejected


        def after():
            pass
        ''',
        '''\
        import torch  # keep me

        # comment above the function
        @torch.no_grad()  # decorator comment
        def preference_loss(chosen, rejected, beta: float = 0.1):  # signature comment
            """DPO loss.

            Returns the losses and rewards.
            """
            # TODO: Implement this function
            return losses, chosen, rejected


        def after():
            pass
        ''',
        "preference_loss",
    )


def test_lmr_style_without_a_names_return_uses_pass() -> None:
    assert_masks(
        """\
        def f(x):
            return x + 1
        """,
        """\
        def f(x):
            # TODO: Implement this function
            pass
        """,
        "f",
    )


def test_todo_style_raises_not_implemented() -> None:
    assert_masks(
        '''\
        class Trainer:
            def loss(self, a):
                """Doc."""
                y = a * 2
                return y
        ''',
        '''\
        class Trainer:
            def loss(self, a):
                """Doc."""
                # TODO: Implement this function
                raise NotImplementedError
        ''',
        "loss",
        "Trainer",
        style="todo",
    )


def test_one_line_function_becomes_a_block() -> None:
    assert_masks(
        """\
        def f(x): 'doc'; return x  # note
        y = 1
        """,
        """\
        def f(x):  # note
            'doc'
            # TODO: Implement this function
            return x
        y = 1
        """,
        "f",
    )


def test_nested_functions_go_with_the_body_and_async_is_kept() -> None:
    assert_masks(
        """\
        async def outer(a):
            def inner(b):
                return b
            result = inner(a)
            return result
        """,
        """\
        async def outer(a):
            # TODO: Implement this function
            return result
        """,
        "outer",
    )


def test_qualified_name_and_nested_class() -> None:
    before = """\
        class Outer:
            class Inner:
                def m(self):
                    return 1
        """
    after = """\
        class Outer:
            class Inner:
                def m(self):
                    # TODO: Implement this function
                    pass
        """
    assert_masks(before, after, "Outer.Inner.m")
    assert_masks(before, after, "m", "Inner")
    assert_masks(before, after, "m", "Outer.Inner")


def test_whole_class_masks_every_direct_method() -> None:
    before = dedent(
        """\
        class Model:
            scale = 2

            def forward(self, x):
                h = x * self.scale
                return h

            @property
            def size(self):
                return 3


        def untouched():
            return 0
        """
    )
    after = dedent(
        """\
        class Model:
            scale = 2

            def forward(self, x):
                # TODO: Implement this function
                return h

            @property
            def size(self):
                # TODO: Implement this function
                pass


        def untouched():
            return 0
        """
    )
    assert mask_function(before, "Model") == after
    assert mask_class(before, "Model") == after


def test_several_functions_in_one_pass() -> None:
    before = dedent(
        """\
        def a():
            return 1
        class C:
            def b(self):
                return 2
        def c():
            return 3
        """
    )
    after = dedent(
        """\
        def a():
            # TODO: Implement this function
            pass
        class C:
            def b(self):
                # TODO: Implement this function
                pass
        def c():
            return 3
        """
    )
    assert mask_functions(before, ["a", "C.b"]) == after
    assert mask_functions(before, [("a", ""), ("b", "C")]) == after


def test_bytes_with_crlf_bom_and_encoding_cookie_stay_byte_identical_outside() -> None:
    before = (
        b"\xef\xbb\xbf# -*- coding: utf-8 -*-\r\n"
        b"X = '\xc3\xa9'  # caf\xc3\xa9\r\n"
        b"def f(a):\r\n"
        b"\t'''Doc.'''\r\n"
        b"\tb = a\r\n"
        b"\treturn b\r\n"
        b"\x0c\r\n"
        b"Y = 2"
    )
    after = (
        b"\xef\xbb\xbf# -*- coding: utf-8 -*-\r\n"
        b"X = '\xc3\xa9'  # caf\xc3\xa9\r\n"
        b"def f(a):\r\n"
        b"\t'''Doc.'''\r\n"
        b"\t# TODO: Implement this function\r\n"
        b"\treturn b\r\n"
        b"\x0c\r\n"
        b"Y = 2"
    )
    assert mask_function(before, "f") == after


def test_latin1_cookie_is_honoured() -> None:
    before = b"# -*- coding: latin-1 -*-\ndef f():\n    return '\xe9'\nZ = '\xe9'\n"
    after = (
        b"# -*- coding: latin-1 -*-\ndef f():\n    # TODO: Implement this function\n"
        b"    pass\nZ = '\xe9'\n"
    )
    assert mask_function(before, "f") == after


def test_function_at_end_of_file_without_newline() -> None:
    assert mask_function("def f():\n    x = 1\n    return x", "f") == (
        "def f():\n    # TODO: Implement this function\n    return x"
    )


def test_str_with_bom_is_kept() -> None:
    masked = mask_function("\ufeffdef f():\n    return 1\n", "f", style="todo")
    assert masked.startswith("\ufeffdef f():\n")


@pytest.mark.parametrize(
    "source",
    [
        # redefinition under TYPE_CHECKING
        """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            def f(x: int) -> int: ...
        else:
            def f(x):
                return x
        """,
        # overloads
        """\
        from typing import overload
        @overload
        def f(x: int) -> int: ...
        @overload
        def f(x: str) -> str: ...
        def f(x):
            return x
        """,
    ],
)
def test_ambiguous_names_ask_for_line(source: str) -> None:
    with pytest.raises(AmbiguousFunctionError) as info:
        mask_function(dedent(source), "f")
    message = str(info.value)
    assert "--line" in message and "line 3" in message
    assert len(info.value.candidates) >= 2
    lines = dedent(source).splitlines(keepends=True)
    masked = mask_function(dedent(source), "f", line=len(lines))  # the last definition
    assert masked.splitlines(keepends=True)[:-2] == lines[:-1]
    assert masked.splitlines()[-2].strip() == "# TODO: Implement this function"


def test_property_setter_is_ambiguous() -> None:
    source = dedent(
        """\
        class A:
            @property
            def v(self):
                return self._v

            @v.setter
            def v(self, value):
                self._v = value
        """
    )
    with pytest.raises(
        AmbiguousFunctionError, match=r"`A\.v` at line 3 @property, `A\.v` at line 7 @v\.setter"
    ):
        mask_function(source, "v", "A")
    masked = mask_function(source, "v", "A", line=8)
    assert "return self._v" in masked and "self._v = value" not in masked


def test_missing_function_suggests_close_names() -> None:
    with pytest.raises(FunctionNotFoundError, match="Did you mean preference_loss"):
        mask_function("def preference_loss():\n    pass\n", "preference_los", filename="t.py")


def test_line_outside_every_definition() -> None:
    with pytest.raises(FunctionNotFoundError, match="spans line 9"):
        mask_function("def f():\n    pass\n", "f", line=9)


def test_unparsable_file_and_bad_style_are_user_errors() -> None:
    with pytest.raises(UserError, match=r"t\.py \(line 1\): the file does not parse"):
        mask_function("def f(:\n", "f", filename="t.py")
    with pytest.raises(UserError, match="unknown mask style"):
        mask_function("def f():\n    pass\n", "f", style="fancy")


def test_body_statements_libcst_cannot_parse_are_masked_anyway() -> None:
    # libcst rejects a parenthesized annotated target; the mask drops it, so it never
    # reaches libcst.
    assert_masks(
        '''\
        def f2bad():
            """Doc."""
            (no_such_global): int
            print(no_such_global)
        ''',
        '''\
        def f2bad():
            """Doc."""
            # TODO: Implement this function
            pass
        ''',
        "f2bad",
    )


def test_long_function_is_masked_from_its_kept_lines_only() -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(3000))
    source = (
        f"@dec\ndef f(a,\n      b):  # c\n    # lead\n    '''Doc.'''\n{body}    return x1, x2\n"
    )
    assert mask_function(source, "f") == (
        "@dec\ndef f(a,\n      b):  # c\n    # lead\n    '''Doc.'''\n"
        "    # TODO: Implement this function\n    return x1, x2\n"
    )


def test_form_feed_before_a_method_is_kept() -> None:
    source = (
        "class A:\n\x0c    def f(self):\n        x = 1\n        return x\n"
        "\x0c\n    def g(self):\n        pass\n"
    )
    assert mask_function(source, "A.f") == (
        "class A:\n\x0c    def f(self):\n        # TODO: Implement this function\n"
        "        return x\n\x0c\n    def g(self):\n        pass\n"
    )
