"""validate knows info.json ``hardware``: a bad value is one finding, an undeclared GPU a hint.

The hint comes only from the golden run (the author's code) failing with needs.py's GPU
rule, and ``validate --run --fix`` then declares ``{"gpus": 1}``, never a memory size.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.domain.task import load_task
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.validate.findings import Finding
from lmr_author.validate.fixes import apply_run_fixes
from lmr_author.validate.rules_run import RULE_INFRA, RULE_UNDECLARED_GPU, undeclared_gpu_findings
from lmr_author.validate.static import TaskReport

MakeTask = Callable[..., Path]

GPU_LOG = (
    "Traceback (most recent call last):\nAssertionError: Torch not compiled with CUDA enabled\n"
)


def _run(verdict: str, log: str) -> ImplementationRun:
    test = TestVerdict(
        test_file="unit_test/unit_test_1.py",
        verdict=verdict,  # type: ignore[arg-type]
        reason="",
        duration_s=0.1,
        log=log,
        exit_code=1,
    )
    return ImplementationRun(verdicts=[test], image_id="sha256:x")


def _declaring(hardware: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["hardware"] = hardware

    return edit


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ("a string", "$.hardware"),
        ({"gpus": -1}, "$.hardware.gpus"),
        ({"gpus": 1, "gpu_memory_gb": "24GB"}, "$.hardware.gpu_memory_gb"),
        ({"gpu_memory_gb": 24}, "$.hardware"),  # the schema accepts it, the loader does not
        ({"gpus": 1, "vram": 24}, "$.hardware"),
    ],
)
def test_a_bad_value_is_one_error_finding_with_its_path(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str], value: Any, where: str
) -> None:
    task = make_task(info=_declaring(value))
    assert main(["validate", "--json", str(task)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    found = json.loads(captured.out)["tasks"][0]["findings"]
    about = [f for f in found if "hardware" in f["where"] or "hardware" in f["message"]]
    assert len(about) == 1, found
    assert about[0]["severity"] == "error" and about[0]["where"] == where
    assert about[0]["file"] == "info.json"
    # The text report prints it as a finding too.
    assert main(["validate", str(task)]) == 1
    text = capsys.readouterr().out
    assert f"info.json ({where})" in text and "Traceback" not in text


def test_a_declared_gpu_is_no_finding(make_task: MakeTask, findings: Callable[..., Any]) -> None:
    task = make_task(info=_declaring({"gpus": 2, "gpu_memory_gb": 40}))
    assert findings(task) == []


def test_a_golden_run_that_needs_an_undeclared_gpu_hints_at_the_key(make_task: MakeTask) -> None:
    task = load_task(make_task())
    impl = task.implementations[0]
    (hint,) = undeclared_gpu_findings(task, impl, _run("error", GPU_LOG))
    assert hint.rule == RULE_UNDECLARED_GPU and hint.severity == "warning"
    assert hint.file == "info.json" and "Torch not compiled with CUDA enabled" in hint.message
    assert '"hardware": {"gpus": 1}' in hint.hint and "--fix" in hint.hint


def test_no_hint_without_the_evidence_or_when_declared(make_task: MakeTask) -> None:
    task = load_task(make_task())
    impl = task.implementations[0]
    assert undeclared_gpu_findings(task, impl, _run("fail", "AssertionError: 4 != 5")) == []
    assert undeclared_gpu_findings(task, impl, _run("pass", GPU_LOG)) == []
    declared = load_task(make_task("02-GPU", info=_declaring({"gpus": 1})))
    gpu_run = _run("error", GPU_LOG)
    assert undeclared_gpu_findings(declared, declared.implementations[0], gpu_run) == []


def _hinted(task_dir: Path) -> TaskReport:
    task = load_task(task_dir)
    hints = undeclared_gpu_findings(task, task.implementations[0], _run("error", GPU_LOG))
    other = Finding(RULE_INFRA, "error", "not runnable here: needs a GPU")
    return TaskReport(task_dir, [*hints, other])


def test_fix_declares_one_gpu_and_keeps_the_rest(make_task: MakeTask) -> None:
    task_dir = make_task()
    before = json.loads((task_dir / "info.json").read_text())
    report = _hinted(task_dir)
    (change,) = apply_run_fixes(report)
    assert change.rule == RULE_UNDECLARED_GPU and change.where == "$.hardware"
    after = json.loads((task_dir / "info.json").read_text())
    assert after == {**before, "hardware": {"gpus": 1}}
    assert list(after)[: len(before)] == list(before)
    assert load_task(task_dir).hardware.gpus == 1
    assert [f.rule for f in report.findings] == [RULE_INFRA]  # the hint is repaired


def test_fix_does_nothing_without_a_hint_or_over_a_declaration(make_task: MakeTask) -> None:
    plain = make_task()
    text = (plain / "info.json").read_text()
    assert apply_run_fixes(TaskReport(plain, [Finding(RULE_INFRA, "error", "x")])) == []
    assert (plain / "info.json").read_text() == text
    declared = make_task("02-GPU", info=_declaring({"gpus": 2, "gpu_memory_gb": 40}))
    report = _hinted(plain)
    report.path = declared  # declared since the run: the author's word stands
    assert apply_run_fixes(report) == []
    assert json.loads((declared / "info.json").read_text())["hardware"]["gpus"] == 2


def test_validate_lists_what_each_task_needs(
    make_task: MakeTask, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bench = tmp_path / "bench"
    make_task("01-CPU", parent=bench)
    make_task("02-GPU", parent=bench, info=_declaring({"gpus": 2, "gpu_memory_gb": 40}))
    assert main(["validate", str(bench)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("02-GPU") and "needs 2 GPUs with 40 GB each" in line for line in lines
    )
    assert not any(line.startswith("01-CPU") and "GPU" in line for line in lines)
    assert lines[-1].endswith("; 1 needs a GPU")
    assert max(len(line) for line in lines) <= 80
    assert main(["validate", "--json", str(bench)]) == 0
    document = json.loads(capsys.readouterr().out)
    tasks = {task["task"]: task for task in document["tasks"]}
    assert "hardware" not in tasks["01-CPU"]
    assert tasks["02-GPU"]["hardware"] == {"gpus": 2, "gpu_memory_gb": 40}
    assert document["summary"]["tasks_needing_gpu"] == 1
