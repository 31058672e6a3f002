"""Our test harness, shipped into every test container, and reading what it reports.

``supervise.py`` (PID 1 of the container, never runs candidate code) and
``runtest.py`` (runs the unit test file and records each test) are standard-library
scripts copied by `archive` into ``HARNESS_DIR``, owned by root and read-only, outside
the repository. In an isolated run (`lmr_author.sandbox.isolation`) the test's process
stands ``proxy.py`` in for the goal function, and ``candidate.py`` runs the candidate
in a container of its own; ``crossing.py`` is what passes between them. The verdict
comes from the one line the supervisor writes to stdout with the run's nonce
(`parse_report`), never from the exit status or from files the candidate can write.
See docs/threat-model.md.
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

from lmr_author.sandbox.harness.crossing import safe_text

HARNESS_DIR = PurePosixPath("/opt/lmr-harness")
#: Folder (owned by the test user, 0700) holding the nonce until the supervisor takes it.
NONCE_DIR = PurePosixPath("/opt/lmr-run")
NONCE_FILE = NONCE_DIR / "nonce"
MARKER = "@@lmr-harness@@"
_FILES = ("supervise.py", "runtest.py", "crossing.py", "proxy.py", "candidate.py")
#: What the candidate's container gets of the harness (nothing of the test's side).
_CANDIDATE_FILES = ("crossing.py", "candidate.py")
#: Outcomes a test record may carry; anything else is garbage (forged).
OUTCOMES = frozenset(
    ("passed", "failed", "errored", "skipped", "expected failure", "unexpected success")
)


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
    return _tar(_FILES, nonce=(nonce, uid, gid), extra=extra)


def candidate_archive(extra: list[tuple[str, bytes, int]]) -> bytes:
    """The tar for the candidate's container: the candidate's half of the harness and
    ``extra`` root-owned files (the candidate's goal file, emptied test files)."""
    return _tar(_CANDIDATE_FILES, nonce=None, extra=extra)


def candidate_sources() -> tuple[tuple[str, bytes], ...]:
    """The candidate's half of the harness (name, bytes), for runtimes that bind."""
    return tuple(item for item in _sources() if item[0] in _CANDIDATE_FILES)


def _tar(
    names: tuple[str, ...],
    *,
    nonce: tuple[str, int, int] | None,
    extra: list[tuple[str, bytes, int]],
) -> bytes:
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
            if name in names:
                add_file(str(HARNESS_DIR / name), data, 0o444, (0, 0))
        if nonce is not None:
            value, uid, gid = nonce
            add_dir(NONCE_DIR, 0o700, (uid, gid))
            add_file(str(NONCE_FILE), value.encode("ascii") + b"\n", 0o400, (uid, gid))
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
    isolate: dict[str, Any] | None = None,
    user: tuple[int, int] | None = None,
) -> list[str]:
    """The container's command: the supervisor with its options as one JSON argument.

    ``isolate`` (`Isolation.harness_options`): the test's process gets the proxy.
    ``user`` (uid, gid): the supervisor runs as root and the test as this user.
    """
    test: dict[str, Any] = {"test_file": test_file, "preload": preload}
    if isolate is not None:
        test["isolate"] = isolate
    if user is not None:
        test["user"] = list(user)
    options = {
        "nonce_file": nonce_file,
        "cwd": workdir,
        "timeout_s": timeout_s,
        "log_dir": log_dir,
        "outputs_dir": outputs_dir,
        "test": test,
    }
    return ["python", "-I", "-S", str(HARNESS_DIR / "supervise.py"), json.dumps(options)]


def candidate_command(options: dict[str, Any]) -> list[str]:
    """The command of a candidate's process apart (``candidate.py``, site packages on)."""
    return ["python", "-I", str(HARNESS_DIR / "candidate.py"), json.dumps(options)]


@dataclass(frozen=True)
class TestRecord:
    """One test as the harness recorded it."""

    __test__ = False

    id: str
    outcome: str
    detail: str = ""
    #: The exception that reached the test's records, as the test's process had it:
    #: its type's name, whether a builtin, its message, and when the proxy raised it for
    #: the candidate, the type the candidate named (then the message is its text).
    exception: RecordedException | None = None


@dataclass(frozen=True)
class RecordedException:
    """An exception as the test's process recorded it (see `TestRecord.exception`)."""

    type: str
    builtin: bool
    message: str
    #: None: the test's own (or a library's); else raised by the proxy for the
    #: candidate: what the candidate said it raised ("" for our words about its answer).
    candidate: str | None = None


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
    #: In an isolated run: what could not cross between the test's process and the
    #: candidate's (`proxy.py` says it), and how many times the proxy was installed.
    crossings: list[str] = field(default_factory=list)
    proxied: int | None = None
    #: Isolated: repository files the test's process read, and those the candidate's
    #: process says it read (relative to the repository; see `crossing.ReadFiles`).
    read: list[str] = field(default_factory=list)
    candidate_read: list[str] = field(default_factory=list)
    #: Isolated: the inputs the candidate's calls changed in place, as put back.
    changed: list[str] = field(default_factory=list)


def parse_report(stdout: str, nonce: str) -> HarnessReport:
    """The supervisor's result line from the container's stdout, checked against ``nonce``.

    Only the supervisor can write to stdout; still, anything but exactly one line with
    the right nonce is no report (and so no pass). The records inside came from the
    test's process, where (in a run that is not isolated) the candidate runs too: every
    field is checked before use, and one that is off is garbage, which fails the run.
    Nothing in it can raise here.
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
    if not secrets.compare_digest(got_nonce.encode(), nonce.encode()):
        return HarnessReport(found=False, problem="a harness report with a wrong nonce (forged)")
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return HarnessReport(found=False, problem="the harness report is cut or garbled")
    if not isinstance(data, dict):
        return HarnessReport(found=False, problem="the harness report is garbled")
    report = HarnessReport(
        found=True,
        exit_status=_integer(data.get("exit_status")),
        timed_out=data.get("timed_out") is True,
        overflow=data.get("report_overflow") is True,
        legacy_log=_mapping(data.get("legacy_log")),
        outputs=_mapping(data.get("outputs")),
        duration_s=_seconds(data.get("duration_s")),
        harness_error=safe_text(data.get("harness_error"), 2000),
    )
    records = data.get("records")
    for record in records if isinstance(records, list) else []:
        if report.ended or not _take_record(report, record):
            report.garbage += 1  # nothing may follow the end record; nothing else is ours
    return report


def _take_record(report: HarnessReport, record: Any) -> bool:
    """Add one record of the test's process to ``report``; False if it is not one."""
    if not isinstance(record, dict):
        return False
    event = record.get("event")
    if event == "test":
        test_id, outcome, detail = record.get("id"), record.get("outcome"), record.get("detail")
        if not isinstance(test_id, str) or outcome not in OUTCOMES:
            return False
        detail = safe_text(detail[-4000:] if isinstance(detail, str) else "")
        exception = record.get("exception")
        recorded = None if exception is None else _exception(exception)
        if exception is not None and recorded is None:
            return False
        report.records.append(
            TestRecord(
                id=safe_text(test_id, 500), outcome=outcome, detail=detail, exception=recorded
            )
        )
        return True
    if event == "crossing":
        where, detail = record.get("where"), record.get("detail")
        if not isinstance(where, str) or not isinstance(detail, str):
            return False
        if len(report.crossings) < 20:
            report.crossings.append(f"{safe_text(where, 40)}: {safe_text(detail, 600)}")
        return True
    if event != "end":
        return False
    tampered, logged, proxied = record.get("tampered"), record.get("logged"), record.get("proxied")
    if not isinstance(tampered, list) or not all(isinstance(item, str) for item in tampered):
        return False
    if logged is not None:
        if not isinstance(logged, dict):
            return False
        counts = {word: logged.get(word) for word in ("Passed", "Failed")}
        if not all(type(n) is int and 0 <= n < 1 << 31 for n in counts.values()):
            return False
        report.logged = {word: int(n) for word, n in counts.items() if n is not None}
    if proxied is not None and (type(proxied) is not int or proxied < 0):
        return False
    read = [_relative_paths(record.get(key)) for key in ("read", "candidate_read")]
    if None in read:
        return False
    changed = record.get("changed")
    if changed is not None and (
        not isinstance(changed, list)
        or len(changed) > 500
        or not all(isinstance(name, str) and 0 < len(name) <= 200 for name in changed)
    ):
        return False
    report.changed = [safe_text(name, 200) for name in changed or []]
    report.ended = True
    report.read, report.candidate_read = read[0] or [], read[1] or []
    report.tampered = [safe_text(item, 200) for item in tampered[:50]]
    report.proxied = proxied
    return True


def _exception(value: Any) -> RecordedException | None:
    """A record's exception, checked field by field; None when malformed."""
    if not isinstance(value, dict):
        return None
    kind, builtin, message = value.get("type"), value.get("builtin"), value.get("message")
    candidate = value.get("candidate")
    if not isinstance(kind, str) or not isinstance(message, str) or type(builtin) is not bool:
        return None
    if candidate is not None and not isinstance(candidate, str):
        return None
    return RecordedException(
        type=safe_text(kind, 100),
        builtin=builtin,
        message=safe_text(message, 2000),
        candidate=None if candidate is None else safe_text(candidate, 100),
    )


def _relative_paths(value: Any) -> list[str] | None:
    """Paths inside the repository as the harness reports them; None when malformed."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 500:
        return None
    paths = []
    for item in value:
        if not isinstance(item, str) or not item or len(item) > 500:
            return None
        path = PurePosixPath(item)
        if path.is_absolute() or ".." in path.parts:
            return None
        paths.append(safe_text(item))
    return paths


def _integer(value: Any) -> int | None:
    return value if type(value) is int and abs(value) < 1 << 31 else None


def _seconds(value: Any) -> float | None:
    if type(value) in (int, float) and 0 <= value < 1e9:
        return float(value)
    return None


def _mapping(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None
