"""One evaluation per output folder; a dead one holds nothing; a write killed at any
rename leaves no record that lies, and its temporary files go at the next start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lmr_author.eval_loop import Submission, run_evaluation
from lmr_author.eval_output import find_run, run_dir, verify_run
from lmr_author.eval_output.lock import output_lock, remove_interrupted_writes
from lmr_author.util.errors import UserError
from tests.eval_loop.evaltasks import CORRECT, LocalBackend, make_benchmark, make_folder_submission

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_evaluation_is_refused_naming_the_first(tmp_path: Path) -> None:
    bench = make_benchmark(tmp_path)
    sub = make_folder_submission(tmp_path / "subs", "correct", {"01-Add": CORRECT})
    out = tmp_path / "out"
    out.mkdir()
    backend = LocalBackend()
    with output_lock(out), pytest.raises(UserError) as refused:
        run_evaluation(bench, [Submission(sub)], out, backend=backend)
    text = str(refused.value)
    assert "another evaluation is writing this output folder" in text
    assert f"pid {os.getpid()} on host" in text and "started 20" in text
    assert backend.ran == [] and not (out / "runs").exists()
    run_evaluation(bench, [Submission(sub)], out, backend=LocalBackend())  # free again


def test_a_killed_holder_holds_nothing(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path\n"
            "from lmr_author.eval_output.lock import output_lock\n"
            "with output_lock(Path(sys.argv[1])):\n"
            "    print('held', flush=True); time.sleep(60)\n",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    with pytest.raises(UserError, match=f"pid {holder.pid} on host"), output_lock(tmp_path):
        pass
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with output_lock(tmp_path):  # the kernel released it
        pass


#: Saves one run (candidate, two logs, run.json) and results.json, SIGKILLed at rename N.
KILLED_AT_RENAME = textwrap.dedent(
    """\
    import os, signal, sys
    from pathlib import Path
    from lmr_author.eval_output import RunRecord, TestRecord, save_run
    from lmr_author.util.atomic import atomic_write_json

    out, stop = Path(sys.argv[1]), int(sys.argv[2])
    calls = [0]
    real = os.replace

    def replace(src, dst):
        calls[0] += 1
        if calls[0] == stop:
            os.kill(os.getpid(), signal.SIGKILL)
        real(src, dst)

    os.replace = replace
    tests = [TestRecord(f"unit_test/unit_test_{i}.py", "pass", "", 0.1, "") for i in (1, 2)]
    record = RunRecord("a" * 64, "sys", "01-Add", 1, None, "calc.py", "add", "", "b" * 64,
                       "sha256:1", "pass", tests=tests)
    save_run(out, record, candidate=b"x = 1\\n",
             logs={t.test_file: "ok\\n" for t in tests})
    atomic_write_json(out / "results.json", {"done": True})
    """
)


@pytest.mark.parametrize("rename", [1, 2, 3, 4, 5])
def test_sigkill_at_each_rename_leaves_no_lying_record_and_no_temporary_file(
    tmp_path: Path, rename: int
) -> None:
    """Renames: candidate.py, the two logs, run.json, results.json."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED_AT_RENAME, str(tmp_path), str(rename)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == -signal.SIGKILL
    left = sorted(p.name for p in tmp_path.rglob(".*.tmp"))
    assert len(left) == 1, left  # the write that was cut
    record = find_run(tmp_path, "sys", "01-Add", 1)
    if rename <= 4:
        assert record is None  # no run.json: the next eval runs it again
    else:
        assert record is not None and verify_run(tmp_path, record) == []
    with output_lock(tmp_path):
        removed = remove_interrupted_writes(tmp_path)
    assert [p.name for p in removed] == left
    assert not list(tmp_path.rglob(".*.tmp"))
    assert run_dir(tmp_path, "sys", "01-Add", 1).is_dir()
