"""Inputs the user may not read: a task folder, a label file, a results file.

Root reads everything, so the commands run as 'nobody' (see tests/support/unprivileged);
each runs once as root first, so that its lazy imports are loaded before the switch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.judge.prompt import default_template_path
from tests.support.eval_output import RunSpec, build_eval_output, write_task
from tests.support.fuzz import Outcome, assert_refused, run_cli
from tests.support.unprivileged import shared_tmp_dir, unprivileged


def _as_nobody(argv: list[str], locked: Path) -> Outcome:
    run_cli(argv)  # warm the imports as root
    locked.chmod(0)
    try:
        with unprivileged():
            return run_cli(argv)
    finally:
        locked.chmod(0o755 if locked.is_dir() else 0o644)


def _open_up(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.mark.parametrize("command", ["eval", "sandbox"])
def test_an_unreadable_task_folder(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with shared_tmp_dir() as root:
        monkeypatch.setenv("LMR_AUTHOR_CACHE_DIR", str(root / "cache"))
        task = write_task(root / "bench")
        predictions = root / "p.jsonl"
        predictions.write_text(json.dumps({"task": "01-Toy", "implementation": 1}) + "\n")
        _open_up(root)
        argv = (
            ["eval", str(root / "bench"), "-s", str(predictions), "-o", str(root / "out")]
            if command == "eval"
            else ["sandbox", "build", str(task)]
        )
        outcome = _as_nobody(argv, task)
        assert_refused(outcome, task / "info.json")
        assert "Permission denied" in outcome.err


@pytest.mark.parametrize("command", ["labels", "agreement", "judge"])
def test_an_unreadable_input_file(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with shared_tmp_dir() as root:
        monkeypatch.setenv("LMR_AUTHOR_CACHE_DIR", str(root / "cache"))
        monkeypatch.setenv("LMR_AUTHOR_DATA_DIR", str(root / "data"))
        labels = root / "labels.json"
        labels.write_text("[]")
        output = build_eval_output(root / "e", [RunSpec("a")])
        # The package itself may sit where 'nobody' cannot reach (a clone under /root):
        # the judge reads its prompt template from a copy that 'nobody' can read.
        template = root / "judge_prompt.md"
        template.write_text(default_template_path().read_text(encoding="utf-8"))
        _open_up(root)
        argv, locked = {
            "labels": (["labels", "import", str(labels)], labels),
            "agreement": (["agreement", "--human", str(labels)], labels),
            "judge": (
                [
                    *("judge", str(output), "--dry-run", "--template", str(template)),
                    *("--base-url", "http://127.0.0.1:9/v1"),
                ],
                output / "results.json",
            ),
        }[command]
        outcome = _as_nobody(argv, locked)
        assert_refused(outcome, locked)
        assert "Permission denied" in outcome.err
