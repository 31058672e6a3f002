"""The appendix D prompt, its ablation settings, the token budget and its truncation order."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from lmr_author.domain.task import load_task, save_task
from lmr_author.generation.prompt import (
    PromptInputs,
    PromptTooLongError,
    Setting,
    Snippet,
    build_prompt,
    estimate_tokens,
    load_inputs,
    load_template,
    references_start,
)
from lmr_author.util.errors import UserError

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmark"

GOAL = "def loss(x):\n    pass\n\n\ndef other():\n    return 1\n\n"
PAPER = {"1": "Title\nAbstract.", "2": "Method: loss = -log sigmoid(x)."}
INPUTS = PromptInputs(
    item="01-Toy#1",
    method_name="loss",
    instruction="Implement loss as in Eq. 1.\n",
    goal_source=GOAL,
    paper=PAPER,
    snippets=(Snippet("util.py", "def sigmoid(x):\n    ...\n"), Snippet("b.py", "B = 2\n")),
)
PAPER_JSON = json.dumps(PAPER, indent=2)

#: Appendix D with its placeholders filled, in the line layout of the published script.
APPENDIX_D = f"""\
You are a code assistant.
Below is the entire Python source file.
Please implement only the function/method named loss.
Return only its def line and indented body--no fences or explanations.

=== FILE BEGIN ===
def loss(x):
    pass


def other():
    return 1
=== FILE END ===

Paper (JSON):
{PAPER_JSON}

Instruction:
Implement loss as in Eq. 1.

Related code for reference:
# Path: util.py
def sigmoid(x):
    ...

# Path: b.py
B = 2

"""


def test_full_setting_is_appendix_d() -> None:
    prompt = build_prompt(INPUTS)
    assert prompt.text == APPENDIX_D
    assert prompt.setting is Setting.FULL
    assert prompt.estimated_tokens == estimate_tokens(APPENDIX_D)
    assert prompt.truncations == () and not prompt.truncated
    assert prompt.messages == [{"role": "user", "content": APPENDIX_D}]


def test_full_setting_without_snippets_has_no_related_code_block() -> None:
    text = build_prompt(replace(INPUTS, snippets=())).text
    assert text == APPENDIX_D.split("\nRelated code for reference:")[0]


def test_paper_and_goal_file_drops_the_snippets() -> None:
    text = build_prompt(INPUTS, Setting.PAPER_AND_GOAL_FILE).text
    assert text == APPENDIX_D.split("\nRelated code for reference:")[0]


def test_paper_only_drops_the_file_and_the_snippets() -> None:
    text = build_prompt(INPUTS, Setting("paper-only")).text
    assert text == (
        "You are a code assistant.\n"
        "Please implement only the function/method named loss.\n"
        "Return only its def line and indented body--no fences or explanations.\n"
        "\n"
        f"Paper (JSON):\n{PAPER_JSON}\n\nInstruction:\nImplement loss as in Eq. 1.\n"
    )
    assert "FILE BEGIN" not in text and "sigmoid(x):" not in text


def test_estimate_is_characters_over_four_plus_a_quarter() -> None:
    assert estimate_tokens("x" * 400) == 125
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1


LONG_PAPER = {
    "1": "Title\nIntro " + "a" * 100,
    "2": "Method " + "b" * 100,
    "3": "Experiments " + "c" * 100,
    "4": "Conclusion " + "d" * 50 + "\n7 References\n[1] Someone. " + "e" * 50,
    "5": "[9] More references " + "f" * 100,
    "6": "A Appendix " + "g" * 100,
}


def sized(paper: dict[str, str], snippets: tuple[Snippet, ...] = INPUTS.snippets) -> int:
    """The size, in characters, of the untruncated prompt of ``paper`` and ``snippets``."""
    prompt = build_prompt(replace(INPUTS, paper=paper, snippets=snippets), count_tokens=len)
    return len(prompt.text)


def test_references_start_finds_the_heading() -> None:
    page, offset = references_start(LONG_PAPER) or ("", -1)
    assert page == "4" and LONG_PAPER["4"][offset:].startswith("7 References")
    assert references_start({"1": "no heading; see the references below"}) is None


@pytest.mark.parametrize(
    ("kept", "expected"),
    [
        ({"1", "2", "3", "4", "5"}, [("drop-page", "page 6")]),
        ({"1", "2", "3", "4"}, [("drop-page", "page 6"), ("drop-page", "page 5")]),
        (
            {"1", "2", "3", "4-cut"},
            [("drop-page", "page 6"), ("drop-page", "page 5"), ("cut-page", "page 4")],
        ),
        (
            {"1", "2"},
            [
                ("drop-page", "page 6"),
                ("drop-page", "page 5"),
                ("cut-page", "page 4"),
                ("drop-page", "page 4"),
                ("drop-page", "page 3"),
            ],
        ),
    ],
)
def test_truncation_order_over_the_paper(kept: set[str], expected: list[tuple[str, str]]) -> None:
    paper = {k: v for k, v in LONG_PAPER.items() if k in kept}
    if "4-cut" in kept:
        paper["4"] = LONG_PAPER["4"].split("7 References")[0]
    paper = {k: paper[k] for k in sorted(paper)}
    budget = sized(paper)
    inputs = replace(INPUTS, paper=LONG_PAPER)
    prompt = build_prompt(inputs, max_tokens=budget, count_tokens=len)
    assert [(a.kind, a.target) for a in prompt.truncations] == expected
    assert prompt.text == build_prompt(replace(INPUTS, paper=paper), count_tokens=len).text
    assert prompt.estimated_tokens == len(prompt.text) <= budget
    assert sum(a.tokens_saved for a in prompt.truncations) == sized(LONG_PAPER) - len(prompt.text)
    assert prompt.truncations[0].describe().startswith("page 6 dropped (-")


def test_snippets_go_last_first_after_the_paper() -> None:
    budget = sized({"1": LONG_PAPER["1"]}, INPUTS.snippets[:1])
    prompt = build_prompt(replace(INPUTS, paper=LONG_PAPER), max_tokens=budget, count_tokens=len)
    assert [(a.kind, a.target) for a in prompt.truncations][-2:] == [
        ("drop-page", "page 2"),
        ("drop-snippet", "b.py"),
    ]
    assert "# Path: util.py" in prompt.text and "# Path: b.py" not in prompt.text


def test_the_goal_file_and_instruction_are_never_cut() -> None:
    floor = sized({"1": LONG_PAPER["1"]}, ())
    prompt = build_prompt(replace(INPUTS, paper=LONG_PAPER), max_tokens=floor, count_tokens=len)
    assert GOAL.rstrip() in prompt.text and "Implement loss as in Eq. 1." in prompt.text
    with pytest.raises(
        PromptTooLongError,
        match=r"01-Toy#1: the full prompt needs about \d+ tokens even after 8 cuts",
    ):
        build_prompt(replace(INPUTS, paper=LONG_PAPER), max_tokens=floor - 1, count_tokens=len)


def test_a_prompt_within_budget_is_untouched() -> None:
    prompt = build_prompt(INPUTS, max_tokens=10**6)
    assert prompt.text == APPENDIX_D and not prompt.truncated


def test_paper_without_references_loses_its_last_pages_first() -> None:
    paper = {"1": "a" * 50, "2": "b" * 50, "3": "c" * 50}
    prompt = build_prompt(
        replace(INPUTS, paper=paper),
        max_tokens=sized({"1": "a" * 50, "2": "b" * 50}),
        count_tokens=len,
    )
    assert [(a.kind, a.target) for a in prompt.truncations] == [("drop-page", "page 3")]


def test_load_inputs_from_a_sample_task() -> None:
    task = load_task(BENCHMARK / "05-RoPE")
    impl = task.implementations[0]
    inputs = load_inputs(task, impl)
    assert inputs.item == "05-RoPE#1"
    assert inputs.method_name == "apply"
    assert inputs.goal_source == (task.repo_dir / "rope/rotary.py").read_text(encoding="utf-8")
    assert [s.path for s in inputs.snippets] == ["rope/attention.py"]
    assert inputs.paper == json.loads(task.paper_json_path.read_text(encoding="utf-8"))
    text = build_prompt(inputs).text
    assert "# Path: rope/attention.py\n" in text and "class RotaryEmbedding" in text


@pytest.mark.parametrize(
    ("path", "needle"),
    [("missing.py", "is not a file"), ("../info.json", "not inside"), ("rope", "is not a file")],
)
def test_bad_retrieval_paths_are_user_errors(tmp_path: Path, path: str, needle: str) -> None:
    shutil.copytree(BENCHMARK / "05-RoPE", tmp_path / "05-RoPE")
    task = load_task(tmp_path / "05-RoPE")
    task.implementations[0].retrieval_context = [path]
    save_task(task)
    task = load_task(tmp_path / "05-RoPE")
    with pytest.raises(UserError, match=needle) as caught:
        load_inputs(task, task.implementations[0])
    assert caught.value.where == "$.implementations[0].retrieval_context[0]"


def test_templates_are_checked(tmp_path: Path) -> None:
    assert load_template().path.name == "generation_prompt.md"
    bad = tmp_path / "t.md"
    bad.write_text("{{ method_name }} {{ paper }}", encoding="utf-8")
    with pytest.raises(UserError, match="unknown variable paper"):
        load_template(bad)
    bad.write_text("{{ method_name }}\n{% if x %}", encoding="utf-8")
    with pytest.raises(UserError, match="not valid Jinja2") as caught:
        load_template(bad)
    assert caught.value.where == "line 2"
    bad.write_text("{{ instruction }}", encoding="utf-8")
    with pytest.raises(UserError, match="never names the goal function"):
        load_template(bad)
    with pytest.raises(UserError, match="does not exist"):
        load_template(tmp_path / "none.md")


def test_a_custom_template_is_used(tmp_path: Path) -> None:
    custom = tmp_path / "t.md"
    custom.write_text(
        "Write {{ method_name }} ({{ setting }}).\n{{ paper_json }}", encoding="utf-8"
    )
    text = build_prompt(INPUTS, Setting.PAPER_ONLY, template=load_template(custom)).text
    assert text == f"Write loss (paper-only).\n{PAPER_JSON}"


def test_a_page_that_opens_with_the_references_is_dropped_whole() -> None:
    paper = {"1": "Intro α " + "a" * 50, "2": "References\n[1] " + "r" * 50, "3": "Appendix"}
    prompt = build_prompt(
        replace(INPUTS, paper=paper), max_tokens=sized({"1": paper["1"]}), count_tokens=len
    )
    assert [(a.kind, a.target) for a in prompt.truncations] == [
        ("drop-page", "page 3"),
        ("drop-page", "page 2"),
    ]
    assert "Intro α" in prompt.text  # the paper's text is kept as UTF-8, not \\u escapes
