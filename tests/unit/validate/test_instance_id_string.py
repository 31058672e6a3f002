"""A published info.json spells instance_id as a string ("29"): a warning with --fix,
read as the number, never a reason not to run the task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.task import load_task
from tests.support.published_task import write_published_task


def test_a_digit_string_instance_id_is_a_fixable_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_dir = write_published_task(tmp_path, "29-Sophia")
    info = json.loads((task_dir / "info.json").read_text())
    info["instance_id"] = "29"
    (task_dir / "info.json").write_text(json.dumps(info))
    assert load_task(task_dir).instance_id == 29

    main(["validate", str(task_dir), "--json"])
    findings = json.dumps(json.loads(capsys.readouterr().out))
    assert "instance-id-string" in findings
    assert '"schema"' not in findings  # not an error that would stop --run

    main(["validate", str(task_dir), "--fix"])
    capsys.readouterr()
    assert json.loads((task_dir / "info.json").read_text())["instance_id"] == 29


def test_other_strings_stay_schema_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task_dir = write_published_task(tmp_path, "30-Odd")
    info = json.loads((task_dir / "info.json").read_text())
    info["instance_id"] = "twenty-nine"
    (task_dir / "info.json").write_text(json.dumps(info))
    main(["validate", str(task_dir), "--json"])
    findings = json.dumps(json.loads(capsys.readouterr().out))
    assert '"schema"' in findings and "instance-id-string" not in findings
