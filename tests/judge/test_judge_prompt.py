"""The judge prompt: the default template (paper appendix C) and users' own templates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lmr_author.domain.task import load_task
from lmr_author.judge.prompt import build_prompt, load_template
from lmr_author.util.errors import UserError
from tests.support.eval_output import write_task

GOLDEN_CLASS = '''class Loss:
    """A loss."""

    def other(self):
        return 0

    def forward(self, x):
        return x * 2
'''


def _impl(tmp_path: Path):  # type: ignore[no-untyped-def]
    return load_task(write_task(tmp_path / "bench")).implementation(1)


def test_default_template_follows_appendix_c(tmp_path: Path) -> None:
    template = load_template()
    golden = tmp_path / "bench/01-Toy/golden_files/toy_golden.py"
    impl = _impl(tmp_path)
    prompt = build_prompt(
        template,
        impl,
        task_name="01-Toy",
        golden_source=golden.read_text(),
        candidate_source="def scale(values, factor):\n    return values\n",
        scope="file",
    )
    (message,) = prompt.messages
    text = message["content"]
    assert text.startswith("Instruction: Implement scale in toy.py")
    for part in (
        "Golden Reference (golden_files/toy_golden.py)",
        "Agent Implementation (toy.py)",
        "1. Incorrect Logic",
        "2. Logic Correct but Subtle Errors",
        "3. Completely Correct",
        '"category"',
        '"rationale"',
        "return values",
    ):
        assert part in text
    assert len(prompt.sha256) == 64


def test_function_scope_keeps_class_context(tmp_path: Path) -> None:
    impl = _impl(tmp_path)
    impl.goal_function, impl.class_name = "forward", "Loss"
    prompt = build_prompt(
        load_template(),
        impl,
        task_name="01-Toy",
        golden_source=GOLDEN_CLASS,
        candidate_source=GOLDEN_CLASS.replace("x * 2", "x * 3"),
        scope="function",
    )
    text = prompt.messages[0]["content"]
    assert prompt.scope == "function"
    assert "class Loss" in text and "x * 3" in text and "x * 2" in text
    assert "def other" not in text


def test_custom_template(tmp_path: Path) -> None:
    custom = tmp_path / "mine.md"
    custom.write_text("Task {{ task }} costs $5.\n{{ goal_function }}\n---\n{{ goal_code }}\n")
    prompt = build_prompt(
        load_template(custom),
        _impl(tmp_path),
        task_name="01-Toy",
        golden_source="",
        candidate_source="x = 1\n",
        scope="file",
    )
    assert prompt.messages[0]["content"] == "Task 01-Toy costs $5.\nscale\n---\nx = 1\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{{ goal_code }}\n{{ golden_code }}\n{{ golden }}", "line 3.*unknown variable golden"),
        ("{{ goal_code }} costs {% if %}", "line 1.*not valid Jinja2"),
        ("only {{ instruction }}", "never shows the candidate"),
        ("$goal_code, as before", "never shows the candidate.*write {{ goal_code }} for"),
    ],
)
def test_bad_templates(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.md"
    path.write_text(text)
    with pytest.raises(UserError) as caught:
        load_template(path)
    assert re.search(message, " ".join(caught.value.render().split()), re.DOTALL)


def test_missing_template(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="does not exist"):
        load_template(tmp_path / "nope.md")


#: Code and instructions full of what a template language could read as its own syntax.
HOSTILE = '''class Loss:
    """Costs $5, or $$10; {{ not_a_variable }} {% if x %} {# note #} ${goal_code}."""

    def other(self):
        return {"a": {"b": 1}}

    def forward(self, x):
        return f"{x!r} ü \\t"  # {{{{

'''
#: sha256 of the prompts (messages) the shipped template gave before it became Jinja2
#: (string.Template): judgments keep their prompt hash, so none turns stale.
BEFORE = {
    ("file", "plain"): "7a9b8b843941b45fb449c9030720b77d6a54f98ec2947b1e8fb408edf96837ea",
    ("file", "hostile"): "c09be825fc3f74ef3a13cebd31abd632e37f9807b5b7f897e4c8d80cd0dd63a5",
    ("function", "plain"): "453af5f92202c33bc4ef37cf9f2a3936fa3be983fa7b7d39f0428a9010c39c1e",
    ("function", "hostile"): "9df2e997b2ebea8df5a2905f64135de48557e3d4be5c6a92770fc2f34d24d5f8",
}


@pytest.mark.parametrize(("scope", "inputs"), sorted(BEFORE))
def test_the_shipped_template_renders_the_prompts_it_rendered_before(
    tmp_path: Path, scope: str, inputs: str
) -> None:
    impl = _impl(tmp_path)
    impl.goal_function, impl.class_name = "forward", "Loss"
    source = GOLDEN_CLASS if inputs == "plain" else HOSTILE
    if inputs == "hostile":
        impl.instruction = "Write {{ goal_code }} for $instruction, {%- raw %} and $$.\n\n"
    prompt = build_prompt(
        load_template(),
        impl,
        task_name="01-Toy",
        golden_source=source,
        candidate_source=source.replace("x * 2", "x * 3").replace("ü", "ö"),
        scope=scope,
    )
    assert prompt.scope == scope
    assert prompt.sha256 == BEFORE[scope, inputs]
