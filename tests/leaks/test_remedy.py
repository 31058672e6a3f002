"""validate --fix on copies: what is mechanical is repaired, and no other byte moves."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from lmr_author.validate.fixes import apply_fixes
from tests.leaks.support import FIXTURES, GOLDEN, RENAMED, copies_of, notebook, published_task, repo


def _hashes(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_fix_deletes_bytecode_and_build_copies_and_masks_a_copy(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    cache = repo(task) / "__pycache__"
    cache.mkdir()
    shutil.copy(FIXTURES / "golden.cpython-310.pyc", cache / "metrics.cpython-310.pyc")
    (repo(task) / "build" / "lib").mkdir(parents=True)
    (repo(task) / "build" / "lib" / "metrics.py").write_text(GOLDEN)
    other = "import math\r\n\r\n# keep me\r\n" + RENAMED.replace("\n", "\r\n") + "\r\nX = 1\r\n"
    (repo(task) / "scoring.py").write_bytes(other.encode())
    (repo(task) / "explore.ipynb").write_text(notebook(GOLDEN))
    before = _hashes(task)

    changes = apply_fixes(task)

    assert sorted((c.rule, c.where) for c in changes) == [
        ("answer-leak", "scorer/__pycache__/metrics.cpython-310.pyc"),
        ("answer-leak", "scorer/build/lib/metrics.py"),
        ("answer-leak", "scorer/scoring.py"),
    ]
    after = _hashes(task)
    gone = set(before) - set(after)
    assert gone == {"scorer/__pycache__/metrics.cpython-310.pyc", "scorer/build/lib/metrics.py"}
    changed = {name for name in after if after[name] != before[name]}
    assert changed == {"scorer/scoring.py"}
    masked = (repo(task) / "scoring.py").read_bytes().decode()
    # Every line outside the masked method is byte for byte what it was (CRLF kept).
    assert masked.startswith("import math\r\n\r\n# keep me\r\nclass Scorer:\r\n")
    assert masked.endswith("\r\nX = 1\r\n")
    assert "zip(xs, ws)" not in masked and "TODO" in masked
    # What is not mechanical stays, with its finding.
    assert [(c.kind, c.fix) for c in copies_of(task) if c.level] == [("notebook", "")]


def test_fix_leaves_a_copy_nested_in_a_function_and_copies_in_goal_files(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    nested = "def main():\n" + "".join("    " + line + "\n" for line in RENAMED.splitlines())
    (repo(task) / "run.py").write_text(nested)
    goal = repo(task) / "metrics.py"
    goal.write_text(goal.read_text() + "\n\n" + RENAMED)
    before = _hashes(task)
    assert [c.rule for c in apply_fixes(task)] == []
    assert _hashes(task) == before
    assert {c.file for c in copies_of(task) if c.level} == {"scorer/run.py", "scorer/metrics.py"}
