"""function-not-found, ambiguous-function, syntax-error, not-masked and outside-diff."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.validate.samples import GOLDEN, MASKED, REPO

MakeTask = Callable[..., Path]
GOAL = f"{REPO}/trainers.py"
GOLDEN_FILE = "golden_files/trainers_golden.py"


def impl0(data: dict) -> dict:
    return data["implementations"][0]


# -- function-not-found ---------------------------------------------------------------
def test_goal_function_missing_from_golden(make_task: MakeTask, findings: Callable) -> None:
    golden = GOLDEN.replace("def preference_loss(", "def preference_loss_v2(")
    [found] = findings(make_task(files={GOLDEN_FILE: golden}), "function-not-found")
    assert found.file == GOLDEN_FILE and "golden file" in found.message
    assert "preference_loss_v2" in found.hint  # did you mean


def test_goal_function_missing_from_goal_file(make_task: MakeTask, findings: Callable) -> None:
    goal = MASKED.replace("def preference_loss(", "def other_loss(")
    [found] = findings(make_task(files={GOAL: goal}), "function-not-found")
    assert found.file == GOAL


def test_class_name_is_respected(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["class_name"] = "Trainer"

    found = findings(make_task(info=edit), "function-not-found")
    assert {f.file for f in found} == {GOLDEN_FILE, GOAL}
    assert all("'Trainer.preference_loss'" in f.message for f in found)


def test_method_goal_function_is_found(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        impl0(data)["class_name"] = "Trainer"
        impl0(data)["goal_function"] = "step"

    golden = GOLDEN
    masked = GOLDEN.replace("        return helper(x) * 2", "        pass  # masked")
    found = findings(make_task(info=edit, files={GOAL: masked, GOLDEN_FILE: golden}))
    assert [f.rule for f in found] == ["test-missing-target"]  # the test calls the loss


def test_present_goal_function_is_quiet(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "function-not-found") == []


def test_ambiguous_goal_function(make_task: MakeTask, findings: Callable) -> None:
    golden = GOLDEN + "\n\ndef preference_loss(a, b):\n    return 0.0\n"
    [found] = findings(make_task(files={GOLDEN_FILE: golden}), "ambiguous-function")
    assert found.severity == "warning" and "2 times" in found.message


def test_nested_homonym_is_not_the_goal(make_task: MakeTask, findings: Callable) -> None:
    # The published 08-StepLength shape: main() defines its own copy of the goal's name.
    nested = (
        "\n\ndef main():\n    def preference_loss(a):\n        return a\n"
        "    return preference_loss(1)\n"
    )
    task = make_task(files={GOLDEN_FILE: GOLDEN + nested, GOAL: MASKED + nested})
    assert findings(task, "ambiguous-function") == []
    assert findings(task, "not-masked") == []
    assert findings(task, "outside-diff") == []


def test_a_class_named_as_its_own_goal_says_what_to_write(
    make_task: MakeTask, findings: Callable
) -> None:
    def edit(data: dict) -> None:  # the published 21-TimeMixer shape
        impl0(data)["class_name"] = impl0(data)["goal_function"] = "Trainer"

    found = findings(make_task(info=edit), "function-not-found")
    assert {f.file for f in found} == {GOLDEN_FILE, GOAL}
    for finding in found:
        assert "class `Trainer` as its own goal function" in finding.hint
        assert "(its methods: step)" in finding.hint and '"goal_function"' in finding.hint


# -- syntax-error ---------------------------------------------------------------------
def test_golden_file_does_not_parse(make_task: MakeTask, findings: Callable) -> None:
    golden = GOLDEN.replace("def helper(x):", "def helper(x)")
    [found] = findings(make_task(files={GOLDEN_FILE: golden}), "syntax-error")
    assert found.file == GOLDEN_FILE and found.where == "line 4"


def test_binary_goal_file(make_task: MakeTask, findings: Callable) -> None:
    task = make_task(files={GOAL: b"\x7fELF\x00\x01\x02binary"})
    [found] = findings(task, "syntax-error")
    assert "binary" in found.message
    assert findings(task, "internal-error") == []


def test_unit_test_does_not_parse(make_task: MakeTask, findings: Callable) -> None:
    task = make_task(files={f"{REPO}/unit_test/unit_test_1.py": "def main(:\n"})
    [found] = findings(task, "syntax-error")
    assert found.file.endswith("unit_test_1.py")


def test_parseable_files_are_quiet(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "syntax-error") == []


# -- not-masked -----------------------------------------------------------------------
def test_goal_function_not_masked(make_task: MakeTask, findings: Callable) -> None:
    [found] = findings(make_task(files={GOAL: GOLDEN}), "not-masked")
    assert found.file == GOAL and found.where == "lines 8-11"


def test_not_masked_even_when_only_comments_differ(make_task: MakeTask, findings: Callable) -> None:
    goal = GOLDEN.replace("    margin = beta", "    # the margin\n    margin = beta")
    assert len(findings(make_task(files={GOAL: goal}), "not-masked")) == 1


def test_masked_function_is_quiet(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "not-masked") == []


# -- outside-diff ---------------------------------------------------------------------
def test_code_changed_outside_the_goal_function(make_task: MakeTask, findings: Callable) -> None:
    goal = MASKED.replace("return x + 1", "return x + 2")
    [found] = findings(make_task(files={GOAL: goal}), "outside-diff")
    assert found.severity == "error" and found.where == "line 5"
    assert "golden line 5" in found.message


def test_lines_added_outside(make_task: MakeTask, findings: Callable) -> None:
    goal = MASKED.replace("import math\n", "import math\nimport os\nimport sys\n")
    [found] = findings(make_task(files={GOAL: goal}), "outside-diff")
    assert found.where == "lines 2-3"


def test_lines_removed_outside(make_task: MakeTask, findings: Callable) -> None:
    goal = MASKED.replace("import math\n", "")
    [found] = findings(make_task(files={GOAL: goal}), "outside-diff")
    assert "missing" in found.message and "golden line 1" in found.message


def test_only_comments_differ_outside_is_a_warning(make_task: MakeTask, findings: Callable) -> None:
    goal = MASKED.replace("class Trainer:", "# the trainer\nclass Trainer:")
    [found] = findings(make_task(files={GOAL: goal}), "outside-diff")
    assert found.severity == "warning"


def test_trailing_comments_of_a_masked_function_belong_to_it(
    make_task: MakeTask, findings: Callable
) -> None:
    goal = MASKED.replace(
        "    raise NotImplementedError\n",
        "    raise NotImplementedError\n    # step 1: margin\n    # step 2: log-sigmoid\n",
    )
    assert findings(make_task(files={GOAL: goal}), "outside-diff") == []


def test_blank_lines_and_trailing_spaces_do_not_count(
    make_task: MakeTask, findings: Callable
) -> None:
    goal = MASKED.replace("import math\n", "import math   \n\n\n").replace("\n", "\r\n")
    assert findings(make_task(files={GOAL: goal}), "outside-diff") == []


def test_two_goal_functions_in_one_file(make_task: MakeTask, findings: Callable) -> None:
    def edit(data: dict) -> None:
        data["implementations"].append(
            dict(
                impl0(data),
                index=2,
                goal_function="helper",
                unit_test_file=impl0(data)["unit_test_file"],
            )
        )

    goal = MASKED.replace("    return x + 1", "    pass")
    task = make_task(info=edit, files={GOAL: goal})
    assert findings(task, "outside-diff") == []
    assert findings(task, "not-masked") == []


def test_identical_outside_is_quiet(make_task: MakeTask, findings: Callable) -> None:
    assert findings(make_task(), "outside-diff") == []
