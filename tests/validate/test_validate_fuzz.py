"""Whatever a task folder holds, validation gives findings, never a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmr_author.cli import main
from lmr_author.domain.task import TaskLoadError, load_task
from lmr_author.validate.static import validate_task
from tests.support.unprivileged import shared_tmp_dir, unprivileged
from tests.validate.samples import REPO, base_info, build_task

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
INFO_KEYS = [*base_info("x"), "repo_commit"]
IMPL_KEYS = [*base_info("x")["implementations"][0], "retrieval_content"]


def check(task: Path) -> None:
    report = validate_task(task)
    assert not [f for f in report.findings if f.rule == "internal-error"], report.findings
    for finding in report.findings:
        assert finding.severity in {"error", "warning"} and finding.message


@FUZZ
@given(raw=st.binary(max_size=300))
def test_any_bytes_as_info_json(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check(build_task(Path(folder), raw_info=raw))


@FUZZ
@given(document=json_values)
def test_any_json_as_info_json(document: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        check(build_task(Path(folder), raw_info=json.dumps(document)))


@FUZZ
@given(
    top=st.dictionaries(st.sampled_from(INFO_KEYS), json_values, max_size=3),
    impl=st.dictionaries(st.sampled_from(IMPL_KEYS), json_values, max_size=3),
    dropped=st.sets(st.sampled_from(IMPL_KEYS), max_size=3),
)
def test_wrong_types_in_info_json(top: dict, impl: dict, dropped: set) -> None:
    def edit(data: dict) -> None:
        data.update(top)
        entries = data.get("implementations")
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            entries[0].update(impl)
            for key in dropped:
                entries[0].pop(key, None)

    with tempfile.TemporaryDirectory() as folder:
        task = build_task(Path(folder), info=edit)
        check(task)
        try:
            load_task(task)  # the model either loads or says why, as a UserError
        except TaskLoadError as error:
            assert error.file and error.message


@FUZZ
@given(
    golden=st.binary(max_size=200) | st.text(max_size=200),
    goal=st.binary(max_size=200) | st.text(max_size=200),
    test=st.binary(max_size=200) | st.text(max_size=200),
    dockerfile=st.binary(max_size=200) | st.text(max_size=200),
)
def test_any_content_in_task_files(
    golden: bytes | str, goal: bytes | str, test: bytes | str, dockerfile: bytes | str
) -> None:
    files = {
        "golden_files/trainers_golden.py": golden,
        f"{REPO}/trainers.py": goal,
        f"{REPO}/unit_test/unit_test_1.py": test,
        "Dockerfile": dockerfile,
    }
    with tempfile.TemporaryDirectory() as folder:
        check(build_task(Path(folder), files=files))


def test_fifo_files_do_not_block(tmp_path: Path) -> None:
    task = build_task(tmp_path, files={f"{REPO}/trainers.py": None})
    os.mkfifo(task / REPO / "trainers.py")
    os.mkfifo(task / REPO / "unit_test" / "fixture.npy")
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(validate_task(task)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert result, "validation blocked on a FIFO"
    rules = {f.rule for f in result[0].findings}
    assert "missing-path" in rules and "internal-error" not in rules


def test_unreadable_files(capsys: pytest.CaptureFixture[str]) -> None:
    with shared_tmp_dir() as root:
        task = build_task(root)
        assert main(["validate", str(task)]) == 0  # imports everything while still root
        capsys.readouterr()
        (task / "golden_files" / "trainers_golden.py").chmod(0)
        with unprivileged():
            assert main(["validate", str(task)]) == 1
        assert "unreadable-file" in capsys.readouterr().out
        (task / "info.json").chmod(0)
        with unprivileged():
            assert main(["validate", str(task)]) == 1


def test_unreadable_files_as_another_user() -> None:
    """As root, switch the effective user to 'nobody' to see real permission errors."""
    if os.geteuid() != 0:
        pytest.skip("covered by test_unreadable_files")
    import pwd

    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no 'nobody' user")
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        task = build_task(root)
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (task / "golden_files" / "trainers_golden.py").chmod(0)
        (task / REPO / "unit_test" / "data").mkdir()
        (task / REPO / "unit_test" / "data").chmod(0)  # the walk cannot enter it
        if any(not p.stat().st_mode & 0o001 for p in root.parents):
            pytest.skip("the temporary folder is not reachable by 'nobody'")
        validate_task(task)  # import everything while still root
        os.setegid(nobody.pw_gid)
        os.seteuid(nobody.pw_uid)
        try:
            report = validate_task(task)
        finally:
            os.seteuid(0)
            os.setegid(0)
        (task / "info.json").chmod(0)
        os.setegid(nobody.pw_gid)
        os.seteuid(nobody.pw_uid)
        try:
            unreadable_info = validate_task(task)
        finally:
            os.seteuid(0)
            os.setegid(0)
    rules = [f.rule for f in report.findings]
    assert "unreadable-file" in rules and "internal-error" not in rules
    assert [f.rule for f in unreadable_info.findings] == ["unreadable-file"]


TASK_FILES = [
    "info.json",
    "Dockerfile",
    "golden_files/trainers_golden.py",
    f"{REPO}/trainers.py",
    f"{REPO}/unit_test/unit_test_1.py",
    f"{REPO}/paper.pdf",
    "golden_files",
    REPO,
    f"{REPO}/unit_test",
]


def mutate(path: Path, change: str, task: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if change == "folder":
        path.mkdir()
    elif change == "dangling-link":
        path.symlink_to(task / "nowhere")
    elif change == "loop-link":
        path.symlink_to(path)
    elif change == "empty":
        path.write_bytes(b"")


@FUZZ
@given(
    changes=st.lists(
        st.tuples(
            st.sampled_from(TASK_FILES),
            st.sampled_from(["delete", "folder", "dangling-link", "loop-link", "empty"]),
        ),
        max_size=4,
    )
)
def test_missing_and_strange_files(changes: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        task = build_task(Path(folder))
        for relative, change in changes:
            with contextlib.suppress(OSError):  # a change made impossible by an earlier one
                mutate(task / relative, change, task)
        check(task)
        # 2 only when nothing is left that looks like a task (usage error, no traceback).
        assert main(["validate", "--json", str(task)]) in {0, 1, 2}
