"""`prepare` and `collect`: workspaces per setting, only the goal function is taken, every
other change is listed, symlinks are never followed."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.eval_loop.submissions import Submission, load_candidates, systems_of
from lmr_author.generation.prompt import Setting
from lmr_author.util.errors import UserError
from lmr_author.workspaces import (
    MANIFEST_FILE,
    collect_workspaces,
    load_manifest,
    prepare_workspaces,
)
from tests.eval_loop.evaltasks import GOLDEN, MASKED, make_benchmark

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"
CORRECT = SAMPLE / "submissions" / "correct"


def _calc_bench(tmp_path: Path) -> Path:
    bench = make_benchmark(tmp_path, ("01-Calc",))
    (bench / "01-Calc" / "repo" / "paper.pdf").write_bytes(b"%PDF-1.4 not really\n")
    (bench / "01-Calc" / "repo" / "unit_test" / "fixtures").mkdir()
    (bench / "01-Calc" / "repo" / "unit_test" / "fixtures" / "case.json").write_text("[1]\n")
    return bench


def _prepare(bench: Path, out: Path, setting: Setting = Setting.FULL) -> None:
    prepare_workspaces(load_benchmark(bench).tasks, setting, out, benchmark=bench)


def _collect(bench: Path, ws: Path, out: Path):  # type: ignore[no-untyped-def]
    manifest = load_manifest(ws)
    return collect_workspaces(ws, manifest, load_benchmark(bench).tasks, "agent", out)


@pytest.mark.parametrize("setting", list(Setting))
def test_prepare_gives_what_each_setting_gives(tmp_path: Path, setting: Setting) -> None:
    out = tmp_path / "ws"
    _prepare(SAMPLE, out, setting)
    manifest = load_manifest(out)
    assert manifest.setting == str(setting)
    assert len(manifest.workspaces) == 8
    entry = next(e for e in manifest.workspaces if e.task == "05-RoPE")
    root = out / entry.path
    assert (root / "paper.pdf").read_bytes() == (
        SAMPLE / "05-RoPE" / "rope-attention" / "paper.pdf"
    ).read_bytes()
    instruction = (root / "INSTRUCTION.md").read_text()
    assert "`apply` of the class `RotaryEmbedding`" in instruction
    assert "rope-attention/rope/rotary.py" in instruction
    present = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    # every file written is in the manifest with its hash, and nothing else is there
    assert present == sorted(entry.files)
    for name, digest in entry.files.items():
        assert hashlib.sha256((root / name).read_bytes()).hexdigest() == digest
    repo_files = [p for p in present if p.startswith("rope-attention/")]
    if setting is Setting.FULL:
        assert "rope-attention/unit_test/unit_test_1.py" in repo_files
        assert "rope-attention/paper.pdf" not in repo_files  # the paper is at the top
    elif setting is Setting.PAPER_AND_GOAL_FILE:
        assert repo_files == ["rope-attention/rope/rotary.py"]
    else:
        assert repo_files == []
        assert "Create `rope-attention/rope/rotary.py`" in instruction


def test_prepare_refuses_a_folder_with_work_in_it(tmp_path: Path) -> None:
    out = tmp_path / "ws"
    out.mkdir()
    (out / "agent-notes.txt").write_text("keep me")
    with pytest.raises(UserError, match="not empty"):
        _prepare(SAMPLE, out)


def test_collected_correct_code_equals_the_correct_submission(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _prepare(SAMPLE, ws)
    for entry in load_manifest(ws).workspaces:
        shutil.copy(CORRECT / entry.task / entry.goal_file, ws / entry.path / entry.goal_file)
    report = _collect(SAMPLE, ws, tmp_path / "sub")
    assert report.collected == 8 and report.changes == []
    for relative in report.written:
        assert (tmp_path / "sub" / relative).read_bytes() == (CORRECT / relative).read_bytes()
    assert len(report.written) == 8


def test_only_the_goal_function_is_taken_and_other_changes_are_listed(tmp_path: Path) -> None:
    bench = _calc_bench(tmp_path)
    ws = tmp_path / "ws"
    _prepare(bench, ws)
    add_ws, mul_ws = ws / "01-Calc" / "1" / "repo", ws / "01-Calc" / "2" / "repo"
    # workspace 1 writes add, and also "fixes" mul wrongly and edits a test and a fixture
    (add_ws / "calc.py").write_text(
        MASKED.replace("raise NotImplementedError", "return a + b", 1).replace(
            "raise NotImplementedError", "return 0"
        )
    )
    test = add_ws / "unit_test" / "unit_test_1.py"
    test.write_text("print('Test Passed')\n")
    (add_ws / "unit_test" / "fixtures" / "case.json").write_text("[2]\n")
    (add_ws / "unit_test" / "unit_test_2.py").unlink()
    (add_ws / "helper.py").write_text("X = 1\n")
    # workspace 2 writes mul only
    (mul_ws / "calc.py").write_text(
        MASKED.replace("raise NotImplementedError\n\n\ndef mul", "x\n\n\ndef mul").replace(
            "raise NotImplementedError", "return a * b"
        )
    )
    report = _collect(bench, ws, tmp_path / "sub")
    collected = (tmp_path / "sub" / "01-Calc" / "repo" / "calc.py").read_text()
    assert collected == GOLDEN  # add from workspace 1, mul from workspace 2, nothing else
    changes = {(c.implementation, c.path, c.change, c.kind) for c in report.changes}
    assert changes == {
        (1, "repo/calc.py", "outside-goal-function", "goal-file"),
        (1, "repo/unit_test/unit_test_1.py", "modified", "test"),
        (1, "repo/unit_test/unit_test_2.py", "deleted", "test"),
        (1, "repo/unit_test/fixtures/case.json", "modified", "fixture"),
        (1, "repo/helper.py", "added", "other"),
        (2, "repo/calc.py", "outside-goal-function", "goal-file"),
    }
    saved = json.loads((tmp_path / "sub" / "lmr-collect.json").read_text())
    assert len(saved["changes"]) == 6 and saved["system"] == "agent"


def test_symlinks_are_listed_never_followed(tmp_path: Path) -> None:
    bench = _calc_bench(tmp_path)
    ws = tmp_path / "ws"
    _prepare(bench, ws)
    secret = tmp_path / "secret.py"
    secret.write_text(GOLDEN)
    add_ws, mul_ws = ws / "01-Calc" / "1" / "repo", ws / "01-Calc" / "2" / "repo"
    (add_ws / "calc.py").unlink()
    os.symlink(secret, add_ws / "calc.py")  # a symlinked goal file: that item's error
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "calc.py").write_text(GOLDEN)
    shutil.rmtree(mul_ws)
    os.symlink(outside, mul_ws)  # a symlinked folder on the way to the goal file
    os.symlink(tmp_path, add_ws / "up")  # a symlink to a folder: listed, not entered
    report = _collect(bench, ws, tmp_path / "sub")
    reasons = {item.implementation: item.reason for item in report.errors}
    assert "symlink" in reasons[1]
    assert "not a plain folder" in reasons[2]
    assert report.written == []  # nothing collected: no goal file written
    assert ("repo/up", "symlink") in {(c.path, c.change) for c in report.changes}
    assert not any("secret" in c.path or "elsewhere" in c.path for c in report.changes)


def test_paper_only_takes_the_function_the_agent_wrote(tmp_path: Path) -> None:
    bench = _calc_bench(tmp_path)
    ws = tmp_path / "ws"
    _prepare(bench, ws, Setting.PAPER_ONLY)
    (ws / "01-Calc" / "1" / "repo").mkdir(parents=True)
    (ws / "01-Calc" / "1" / "repo" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (ws / "01-Calc" / "2" / "repo").mkdir(parents=True)
    (ws / "01-Calc" / "2" / "repo" / "calc.py").write_text(
        "import math\n\n\ndef mul(a, b):\n    return a * b\n"
    )
    report = _collect(bench, ws, tmp_path / "sub")
    assert (tmp_path / "sub" / "01-Calc" / "repo" / "calc.py").read_text() == GOLDEN
    assert [(c.implementation, c.change) for c in report.changes] == [(2, "outside-goal-function")]


def test_a_benchmark_changed_since_prepare_is_refused(tmp_path: Path) -> None:
    bench = _calc_bench(tmp_path)
    ws = tmp_path / "ws"
    _prepare(bench, ws)
    (bench / "01-Calc" / "repo" / "calc.py").write_text(MASKED + "\n# changed\n")
    with pytest.raises(UserError, match="changed since the workspaces were prepared"):
        _collect(bench, ws, tmp_path / "sub")


def test_a_broken_manifest_is_a_user_error(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _prepare(SAMPLE, ws)
    data = json.loads((ws / MANIFEST_FILE).read_text())
    data["workspaces"][0]["path"] = "../../etc"
    (ws / MANIFEST_FILE).write_text(json.dumps(data))
    with pytest.raises(UserError, match="leaves the prepared folder"):
        load_manifest(ws)
    with pytest.raises(UserError, match="no workspace manifest"):
        load_manifest(tmp_path)


def test_commands_round_trip_with_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _calc_bench(tmp_path)
    ws, sub = tmp_path / "ws", tmp_path / "sub"
    assert main(["prepare", str(bench), "--setting", "paper-and-goal-file", "--out", str(ws)]) == 0
    only_add = MASKED.replace("raise NotImplementedError", "return a + b", 1)
    only_mul = MASKED.replace(
        "raise NotImplementedError\n\n\ndef mul(a, b):\n    raise NotImplementedError",
        "raise NotImplementedError\n\n\ndef mul(a, b):\n    return a * b",
    )
    (ws / "01-Calc" / "1" / "repo" / "calc.py").write_text(only_add)
    (ws / "01-Calc" / "2" / "repo" / "calc.py").write_text(only_mul)
    assert main(["collect", str(ws), "--system", "agent", "--out", str(sub)]) == 0
    assert (sub / "01-Calc" / "repo" / "calc.py").read_text() == GOLDEN
    (ws / "01-Calc" / "1" / "repo" / "notes.md").write_text("tried things\n")
    capsys.readouterr()
    assert main(["collect", str(ws), "--system", "agent", "--out", str(sub), "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["changes"][0]["path"] == "repo/notes.md"
    assert main(["collect", str(ws), "--system", "bad/name", "--out", str(sub)]) == 2


def test_collecting_again_replaces_the_earlier_submission(tmp_path: Path) -> None:
    bench = _calc_bench(tmp_path)
    ws, sub = tmp_path / "ws", tmp_path / "sub"
    _prepare(bench, ws)
    for index in (1, 2):
        (ws / "01-Calc" / str(index) / "repo" / "calc.py").write_text(GOLDEN)
    _collect(bench, ws, sub)
    assert (sub / "01-Calc" / "repo" / "calc.py").is_file()
    for index in (1, 2):  # now neither workspace has anything to collect
        (ws / "01-Calc" / str(index) / "repo" / "calc.py").write_text("def add(:\n")
    report = _collect(bench, ws, sub)
    assert report.collected == 0
    assert not (sub / "01-Calc" / "repo" / "calc.py").exists()  # not scored as before
    other = tmp_path / "other"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    with pytest.raises(UserError, match="not written by 'lmr-author collect'"):
        _collect(bench, ws, other)


def test_a_workspace_replaced_by_a_symlink_is_that_items_error(tmp_path: Path) -> None:
    bench = _calc_bench(tmp_path)
    ws = tmp_path / "ws"
    _prepare(bench, ws)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(ws / "01-Calc" / "1", elsewhere)
    (elsewhere / "repo" / "calc.py").write_text(GOLDEN)
    shutil.rmtree(ws / "01-Calc" / "1")
    os.symlink(elsewhere, ws / "01-Calc" / "1")
    report = _collect(bench, ws, tmp_path / "sub")
    reasons = {item.implementation: item.reason for item in report.errors}
    assert "not a plain folder" in reasons[1]
    assert 2 not in reasons  # the other workspace is collected (unchanged)


def test_eval_names_a_collected_submission_by_the_system_collect_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _calc_bench(tmp_path)
    ws, sub = tmp_path / "ws", tmp_path / "subs"
    _prepare(bench, ws)
    capsys.readouterr()
    assert main(["collect", str(ws), "--system", "agentx", "--out", str(sub)]) == 0
    # The printed hint is a command that works as it stands: no --system in it.
    hint = capsys.readouterr().err.split("score it with: ", 1)[1].strip()
    argv = shlex.split(hint)
    assert argv[:2] == ["lmr-author", "eval"] and "--system" not in argv
    assert Path(argv[2]) == bench and Path(argv[4]) == sub
    tasks = load_benchmark(bench).tasks
    assert systems_of(load_candidates(Submission(sub), tasks)) == ["agentx"]
    # --system still wins over the record.
    assert systems_of(load_candidates(Submission(sub, "other"), tasks)) == ["other"]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("{not json", "invalid JSON"),
        ('{"setting": "full"}', "names no system"),
        ('{"system": "bad/name"}', "not path-safe"),
        (None, "is a symlink"),
    ],
)
def test_a_bad_collect_record_is_a_user_error(
    tmp_path: Path, record: str | None, message: str
) -> None:
    bench = _calc_bench(tmp_path)
    ws, sub = tmp_path / "ws", tmp_path / "subs"
    _prepare(bench, ws)
    _collect(bench, ws, sub)
    path = sub / "lmr-collect.json"
    path.unlink()
    if record is None:  # read as data: a symlink is never followed
        secret = tmp_path / "secret.json"
        secret.write_text('{"system": "leaked"}')
        path.symlink_to(secret)
    else:
        path.write_text(record)
    with pytest.raises(UserError, match=message) as caught:
        load_candidates(Submission(sub), load_benchmark(bench).tasks)
    assert "lmr-collect.json" in str(caught.value)
    # Naming the system by hand does not read the record at all.
    assert systems_of(load_candidates(Submission(sub, "agentx"), load_benchmark(bench).tasks))


def test_a_tasks_declared_hardware_is_not_given_to_the_agent(tmp_path: Path) -> None:
    """Where the tests run is the scorer's business: no workspace file carries it."""
    bench = _calc_bench(tmp_path)
    info = bench / "01-Calc" / "info.json"
    data = json.loads(info.read_text())
    data["hardware"] = {"gpus": 1, "gpu_memory_gb": 24}
    info.write_text(json.dumps(data))
    out = tmp_path / "ws"
    _prepare(bench, out)
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written and not [p for p in written if p.name == "info.json"]
    assert not [p for p in written if b"gpu_memory_gb" in p.read_bytes()]
