"""The goal resolver: the definition a published task means, byte-exact round trips.

The golden file below is our own, written in the shape of the published 08-StepLength
task: a top-level goal function and a homonym nested inside ``main()``, plus the
module-level ``if``/``try`` redefinitions and nested classes real repositories have.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from lmr_author.cst import (
    AmbiguousFunctionError,
    FunctionNotFoundError,
    extract_function,
    list_functions,
    locate_function,
    mask_function,
    splice_function,
)

GOLDEN = """\
import sys
from typing import TYPE_CHECKING


def build_prompt(demo, x, method, trigger):
    demo = str(demo)
    if method == "zero_shot":
        k = x + " " + trigger
    elif method == "few_shot":
        k = demo + x
    else:
        raise ValueError("method is not properly defined ...")
    return k

sys.stdout.reconfigure(encoding="utf-8")

def main():
    args = {"method": "zero_shot"}

    for step in range(2):
        if step:
            # The published file redefines the goal's name in here, with another signature.
            def build_prompt(demo, x, args):
                return demo + x + args["method"]

            print(build_prompt("d", "x", args))


try:
    from fastjson import loads
except ImportError:
    def loads(text):
        return text


if TYPE_CHECKING:
    def scale(x: float) -> float: ...
else:
    def scale(x):
        return 2 * x


def clip(x):
    return max(0, x)


if sys.version_info < (3, 8):
    def clip(x):
        return x


class Inner:
    def step(self):
        return "top-level Inner"


class Outer:
    class Inner:
        def step(self):
            return "Outer.Inner"

    def run(self):
        class Inner:
            def step(self):
                return "local Inner"

        return Inner().step()


if __name__ == "__main__":
    main()
"""

#: The published masked file's shape: the goal keeps its signature and final return.
PUBLISHED_MASKED = GOLDEN.replace(
    """\
    demo = str(demo)
    if method == "zero_shot":
        k = x + " " + trigger
    elif method == "few_shot":
        k = demo + x
    else:
        raise ValueError("method is not properly defined ...")
    return k
""",
    "    return k\n",
    1,
)

GOAL = GOLDEN[GOLDEN.index("def build_prompt") : GOLDEN.index("\nsys.stdout")]


def test_the_fixture_has_the_published_shape() -> None:
    names = [info.qualname for info in list_functions(GOLDEN)]
    assert names.count("build_prompt") == 1 and "main.build_prompt" in names
    assert PUBLISHED_MASKED != GOLDEN and PUBLISHED_MASKED.count("def build_prompt") == 2


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_top_level_goal_masks_splices_and_extracts_byte_exactly(newline: str) -> None:
    golden = GOLDEN.replace("\n", newline).encode()
    published = PUBLISHED_MASKED.replace("\n", newline).encode()
    goal = GOAL.replace("\n", newline).encode()

    extracted = extract_function(golden, "build_prompt")
    assert extracted.encode() == goal

    masked = mask_function(golden, "build_prompt")
    todo = b"    # TODO: Implement this function" + newline.encode()
    # Our stub is the published one plus the TODO line, at the top-level definition;
    # the nested homonym inside main() is untouched.
    assert masked == published.replace(b"    return k", todo + b"    return k", 1)

    assert splice_function(published, extracted, "build_prompt") == golden
    assert splice_function(masked, extracted, "build_prompt") == golden


def test_a_model_answer_lands_on_the_top_level_definition() -> None:
    answer = "```python\ndef build_prompt(demo, x, method, trigger):\n    return x\n```\n"
    spliced = splice_function(PUBLISHED_MASKED, answer, "build_prompt")
    assert spliced == PUBLISHED_MASKED.replace(
        "    return k\n\nsys.stdout", "    return x\n\nsys.stdout", 1
    )
    assert 'return demo + x + args["method"]' in spliced


def test_line_chooses_the_nested_homonym() -> None:
    nested_line = GOLDEN.splitlines().index("            def build_prompt(demo, x, args):") + 1
    info = locate_function(list_functions(GOLDEN), "build_prompt", line=nested_line + 1)
    assert info.qualname == "main.build_prompt"
    body = extract_function(GOLDEN, "build_prompt", line=nested_line)
    assert body.startswith("            def build_prompt(demo, x, args):")
    masked = mask_function(GOLDEN, "build_prompt", line=nested_line)
    assert masked.count("# TODO") == 1 and "raise ValueError" in masked
    assert splice_function(masked, body, "build_prompt", line=nested_line) == GOLDEN


def test_a_single_fallback_under_try_is_the_goal() -> None:
    info = locate_function(list_functions(GOLDEN), "loads")
    assert info.conditional and info.qualname == "loads"
    assert (
        splice_function(mask_function(GOLDEN, "loads"), extract_function(GOLDEN, "loads"), "loads")
        == GOLDEN
    )


def test_unconditional_definition_beats_a_variant_under_if() -> None:
    info = locate_function(list_functions(GOLDEN), "clip")
    assert not info.conditional
    assert extract_function(GOLDEN, "clip") == "def clip(x):\n    return max(0, x)\n"


def test_two_variants_at_the_same_level_need_line() -> None:
    with pytest.raises(AmbiguousFunctionError) as caught:
        mask_function(GOLDEN, "scale", filename="goal.py")
    message = str(caught.value)
    first = GOLDEN.splitlines().index("    def scale(x: float) -> float: ...") + 1
    assert f"`scale` at line {first}, `scale` at line {first + 2}" in message
    assert "--line N" in message and "goal.py" in message
    assert [info.def_line for info in caught.value.candidates] == [first, first + 2]
    assert "return 2 * x" in extract_function(GOLDEN, "scale", line=first + 3)


def test_a_nested_homonym_alone_is_still_found() -> None:
    source = "def outer():\n    def helper():\n        return 1\n    return helper()\n"
    assert locate_function(list_functions(source), "helper").qualname == "outer.helper"


def test_homonyms_nested_in_methods_do_not_compete() -> None:
    source = dedent(
        """\
        class A:
            def m(self):
                def f():
                    return 1
                return f()

        def f():
            return 2
        """
    )
    assert extract_function(source, "f") == "def f():\n    return 2\n"


@pytest.mark.parametrize(
    ("class_name", "expected"),
    [
        ("Inner", "top-level Inner"),  # the shallowest class of that name
        ("Outer.Inner", "Outer.Inner"),  # its qualified path
        ("Outer.run.Inner", "local Inner"),
    ],
)
def test_methods_of_nested_classes(class_name: str, expected: str) -> None:
    assert f'return "{expected}"' in extract_function(GOLDEN, "step", class_name)
    masked = mask_function(GOLDEN, "step", class_name)
    assert masked.count(f'return "{expected}"') == 0
    assert (
        splice_function(masked, extract_function(GOLDEN, "step", class_name), "step", class_name)
        == GOLDEN
    )


def test_two_nested_classes_of_one_name_are_told_apart_by_path() -> None:
    source = dedent(
        """\
        class A:
            class Config:
                def load(self):
                    return "A"

        class B:
            class Config:
                def load(self):
                    return "B"
        """
    )
    with pytest.raises(AmbiguousFunctionError) as caught:
        extract_function(source, "load", "Config")
    assert "`A.Config.load` at line 3, `B.Config.load` at line 8" in str(caught.value)
    assert "(A.Config or B.Config)" in str(caught.value)
    assert 'return "B"' in extract_function(source, "load", "B.Config")


def test_a_class_named_as_its_own_goal_function_is_refused_clearly() -> None:
    source = dedent(
        """\
        class Mixing:
            def __init__(self):
                self.layers = []

            def forward(self, x):
                return x
        """
    )
    with pytest.raises(FunctionNotFoundError) as caught:
        mask_function(source, "Mixing", "Mixing", filename="model.py")
    message = str(caught.value)
    assert "class `Mixing` as its own goal function" in message
    assert "__init__, forward" in message and '"goal_function"' in message
