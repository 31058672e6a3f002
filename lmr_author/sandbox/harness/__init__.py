"""Our test harness, shipped into every test container, and reading what it reports.

``supervise.py`` (PID 1 of the container, never runs candidate code) and
``runtest.py`` (runs the unit test file and records each test) are standard-library
scripts copied by `archive` into ``HARNESS_DIR``, owned by root and read-only, outside
the repository. The verdict comes from the one line the supervisor writes to stdout
with the run's nonce (`parse_report`), never from the exit status or from files the
candidate can write. See docs/threat-model.md.
"""

from __future__ import annotations

import hashlib
import io
import json
import secrets
import tarfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

HARNESS_DIR = PurePosixPath("/opt/lmr-harness")
#: Folder (owned by the test user, 0700) holding the nonce until the supervisor takes it.
NONCE_DIR = PurePosixPath("/opt/lmr-run")
NONCE_FILE = NONCE_DIR / "nonce"
MARKER = "@@lmr-harness@@"
_FILES = ("supervise.py", "runtest.py")


@cache
def _sources() -> tuple[tuple[str, bytes], ...]:
    here = Path(__file__).resolve().parent
    return tuple((name, (here / name).read_bytes()) for name in _FILES)


def sources() -> tuple[tuple[str, bytes], ...]:
    """The harness's files (name, bytes), for runtimes that bind instead of copying."""
    return _sources()


def version() -> str:
    """A hash of the harness's own files: verdicts and proofs depend on it."""
    digest = hashlib.sha256()
    for name, data in _sources():
        digest.update(name.encode() + b"\0" + data)
    return digest.hexdigest()[:16]


def new_nonce() -> str:
    return secrets.token_hex(16)


def archive(*, nonce: str, uid: int, gid: int, extra: list[tuple[str, bytes, int]]) -> bytes:
    """One tar for ``put_archive`` at ``/``: the harness (root, 0444/0555), the nonce
    (test user, 0400 in a 0700 folder) and ``extra`` root-owned 0444 files (path, data,
    mode)."""
    buffer = io.BytesIO()
    now = int(time.time())

    def add_dir(path: PurePosixPath, mode: int, owner: tuple[int, int]) -> None:
        info = tarfile.TarInfo(str(path).lstrip("/"))
        info.type = tarfile.DIRTYPE
        info.mode = mode
        info.uid, info.gid = owner
        info.mtime = now
        tar.addfile(info)

    def add_file(path: str, data: bytes, mode: int, owner: tuple[int, int]) -> None:
        info = tarfile.TarInfo(path.lstrip("/"))
        info.size = len(data)
        info.mode = mode
        info.uid, info.gid = owner
        info.mtime = now
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(fileobj=buffer, mode="w") as tar:
        add_dir(HARNESS_DIR, 0o555, (0, 0))
        for name, data in _sources():
            add_file(str(HARNESS_DIR / name), data, 0o444, (0, 0))
        add_dir(NONCE_DIR, 0o700, (uid, gid))
        add_file(str(NONCE_FILE), nonce.encode("ascii") + b"\n", 0o400, (uid, gid))
        for path, data, mode in extra:
            add_file(path, data, mode, (0, 0))
    return buffer.getvalue()


def command(
    *,
    test_file: str,
    workdir: str,
    timeout_s: float,
    log_dir: str | None,
    outputs_dir: str | None,
    preload: list[str],
    nonce_file: str = str(NONCE_FILE),
) -> list[str]:
    """The container's command: the supervisor with its options as one JSON argument."""
    options = {
        "nonce_file": nonce_file,
        "cwd": workdir,
        "timeout_s": timeout_s,
        "log_dir": log_dir,
        "outputs_dir": outputs_dir,
        "test": {"test_file": test_file, "preload": preload},
    }
    return ["python", "-I", "-S", str(HARNESS_DIR / "supervise.py"), json.dumps(options)]


@dataclass(frozen=True)
class TestRecord:
    """One test as the harness recorded it."""

    __test__ = False

    id: str
    outcome: str
    detail: str = ""


@dataclass
class HarnessReport:
    """What the supervisor reported, or why there is no trustworthy report."""

    found: bool
    problem: str = ""
    exit_status: int | None = None
    timed_out: bool = False
    records: list[TestRecord] = field(default_factory=list)
    ended: bool = False
    tampered: list[str] = field(default_factory=list)
    garbage: int = 0
    overflow: bool = False
    legacy_log: dict[str, Any] | None = None
    #: "Passed"/"Failed" counted in the messages the test handed to logging.
    logged: dict[str, int] | None = None
    outputs: dict[str, Any] | None = None
    duration_s: float | None = None
    harness_error: str = ""


def parse_report(stdout: str, nonce: str) -> HarnessReport:
    """The supervisor's result line from the container's stdout, checked against ``nonce``.

    Only the supervisor can write to stdout; still, anything but exactly one line with
    the right nonce is no report (and so no pass).
    """
    found: list[str] = []
    for line in stdout.splitlines():
        if line.startswith(MARKER):
            found.append(line)
    if not found:
        return HarnessReport(found=False, problem="the harness reported nothing")
    if len(found) > 1:
        return HarnessReport(found=False, problem="more than one harness report (forged?)")
    _, _, rest = found[0].partition(" ")
    got_nonce, _, payload = rest.partition(" ")
    if not secrets.compare_digest(got_nonce, nonce):
        return HarnessReport(found=False, problem="a harness report with a wrong nonce (forged)")
    try:
        data = json.loads(payload)
    except ValueError:
        return HarnessReport(found=False, problem="the harness report is cut or garbled")
    if not isinstance(data, dict):
        return HarnessReport(found=False, problem="the harness report is garbled")
    report = HarnessReport(
        found=True,
        exit_status=data.get("exit_status"),
        timed_out=bool(data.get("timed_out")),
        overflow=bool(data.get("report_overflow")),
        legacy_log=data.get("legacy_log"),
        outputs=data.get("outputs"),
        duration_s=data.get("duration_s"),
        harness_error=str(data.get("harness_error") or ""),
    )
    for record in data.get("records") or []:
        if not isinstance(record, dict):
            report.garbage += 1
            continue
        event = record.get("event")
        if report.ended:
            report.garbage += 1  # nothing may follow the end record
        elif event == "test":
            report.records.append(
                TestRecord(
                    id=str(record.get("id", "")),
                    outcome=str(record.get("outcome", "")),
                    detail=str(record.get("detail", ""))[-2000:],
                )
            )
        elif event == "end":
            report.ended = True
            report.tampered = [str(item) for item in record.get("tampered") or []]
            logged = record.get("logged")
            if isinstance(logged, dict):
                report.logged = {
                    word: int(logged[word])
                    for word in ("Passed", "Failed")
                    if isinstance(logged.get(word), int)
                }
        else:
            report.garbage += 1
    return report
