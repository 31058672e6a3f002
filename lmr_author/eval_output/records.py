"""The run record: one implementation of one task tested for one system, and its store.

``run.json`` is the commit marker of a run: it is removed before a run's files are
rewritten and written atomically after them, so a ``run.json`` that exists always
describes the files next to it, and an interrupted write leaves no record at all.
Where the files are is `lmr_author.eval_output.layout`'s business.

A record verifies (`verify_run`): it carries the SHA-256 of every file it points at
(``files``: candidate, prediction, logs) and of its own fields (``record_sha256``: the
record without that field, canonical JSON), so a deleted log, a damaged candidate or a
verdict edited by hand is found by whoever reads it; resume runs such a run again and
the readers (report, judge, review) leave it out, saying which and why. Records of the
first format (``schema_version`` 1, no digests) are still read, unverified, and are
rewritten in the new format when their run is written again. The digests catch damage
and edits, not a forger who recomputes them (no secret key is involved).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.domain.item_key import ItemKey
from lmr_author.domain.verdicts import counts_for_accuracy
from lmr_author.eval_output.layout import (
    CANDIDATE_FILE,
    LOGS_DIR,
    PREDICTION_FILE,
    RUN_FILE,
    RUNS_DIR,
    candidate_file,
    file_sha256,
    log_name,
    run_dir,
)
from lmr_author.util.atomic import atomic_write_bytes, atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json

SCHEMA_VERSION = 1
#: The format of run.json: 2 added ``files`` and ``record_sha256`` (digests).
RUN_SCHEMA_VERSION = 2
#: The field of run.json that holds the digest of the rest of it.
RECORD_DIGEST = "record_sha256"

#: Reason of the run of an implementation that the submission has no candidate for.
NO_SUBMISSION = "no submission"


@dataclass
class TestRecord:
    """The verdict of one unit test file of a run."""

    test_file: str
    verdict: str
    reason: str
    duration_s: float
    log_file: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestRecord:
        return cls(
            test_file=str(data.get("test_file", "")),
            verdict=str(data.get("verdict", "")),
            reason=str(data.get("reason", "")),
            duration_s=float(data.get("duration_s", 0.0)),
            log_file=str(data.get("log_file", "")),
        )


@dataclass
class RunRecord:
    """One run: a system's candidate for one implementation, tested in the task's image."""

    run_key: str
    system: str
    task: str
    implementation: int
    category: str | None
    goal_file: str
    goal_function: str
    class_name: str
    candidate_sha256: str | None
    image_id: str
    verdict: str
    reason: str = ""
    tests: list[TestRecord] = field(default_factory=list)
    started_at: str = ""
    duration_s: float = 0.0
    #: Where and in what the tests ran (not part of the run key's inputs beyond what
    #: the sandbox settings hold): docker, podman or apptainer; local or slurm.
    runtime: str = "docker"
    executor: str = "local"
    #: Whether the candidate ran in a process of its own (None: no candidate ran, or a
    #: record from before isolation), and why not when it did not.
    isolated: bool | None = None
    not_isolated_why: str = ""
    #: Slurm runs: seconds between submission and a worker starting it (queue time),
    #: apart from ``duration_s``; None for local runs (and records from before).
    queued_s: float | None = None
    #: Path relative to the run folder -> SHA-256 of every file the record points at.
    files: dict[str, str] = field(default_factory=dict)
    schema_version: int = RUN_SCHEMA_VERSION
    #: What `load_run` found wrong with the record itself (not written).
    problems: list[str] = field(default_factory=list, compare=False)

    @property
    def counted(self) -> bool:
        """Whether the run counts toward accuracy (infrastructure failures do not)."""
        return counts_for_accuracy(self.verdict)

    @property
    def key(self) -> ItemKey:
        return ItemKey(self.system, self.task, self.implementation)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("problems")
        ordered = {"schema_version": data.pop("schema_version")}
        ordered.update(data)
        ordered[RECORD_DIGEST] = record_digest(ordered)
        return ordered

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        candidate = data.get("candidate_sha256")
        return cls(
            schema_version=int(data.get("schema_version", SCHEMA_VERSION)),
            queued_s=float(data["queued_s"]) if data.get("queued_s") is not None else None,
            files={str(k): str(v) for k, v in (data.get("files") or {}).items()},
            run_key=str(data["run_key"]),
            system=str(data["system"]),
            task=str(data["task"]),
            implementation=int(data["implementation"]),
            category=data.get("category") if isinstance(data.get("category"), str) else None,
            goal_file=str(data.get("goal_file", "")),
            goal_function=str(data.get("goal_function", "")),
            class_name=str(data.get("class_name", "")),
            candidate_sha256=candidate if isinstance(candidate, str) else None,
            image_id=str(data.get("image_id", "")),
            verdict=str(data["verdict"]),
            reason=str(data.get("reason", "")),
            tests=[TestRecord.from_json(t) for t in data.get("tests", []) if isinstance(t, dict)],
            started_at=str(data.get("started_at", "")),
            duration_s=float(data.get("duration_s", 0.0)),
            runtime=str(data.get("runtime", "docker")),
            executor=str(data.get("executor", "local")),
            isolated=data.get("isolated") if isinstance(data.get("isolated"), bool) else None,
            not_isolated_why=str(data.get("not_isolated_why", "")),
        )


def record_digest(data: dict[str, Any]) -> str:
    """SHA-256 of a record's JSON without its digest field (sorted keys, compact)."""
    fields = {key: value for key, value in data.items() if key != RECORD_DIGEST}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _record_problems(data: dict[str, Any]) -> list[str]:
    """What is wrong with a record's own fields: a changed field, a missing digest."""
    version = data.get("schema_version", SCHEMA_VERSION)
    if version == SCHEMA_VERSION and RECORD_DIGEST not in data and "files" not in data:
        return []  # the first format: no digests to check
    if not isinstance(version, int) or version > RUN_SCHEMA_VERSION:
        return [f"its schema_version {version!r} is not one this lmr-author writes"]
    stored = data.get(RECORD_DIGEST)
    if not isinstance(stored, str):
        return ["it has no digest of its own fields (record_sha256)"]
    if stored != record_digest(data):
        return [
            "its fields were changed after it was written (verdict, reason, tests... no "
            "longer match its record_sha256)"
        ]
    return []


def verify_run(output: Path, record: RunRecord) -> list[str]:
    """Why the stored run ``record`` cannot be trusted (empty: it verifies): its own
    fields changed, or a file it points at is missing or not the one written."""
    problems = list(record.problems)
    folder = run_dir(output, record.system, record.task, record.implementation)
    for relative, digest in sorted(record.files.items()):
        path = folder / relative
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            problems.append(f"{relative} is missing")
            continue
        except OSError as error:
            problems.append(f"{relative} cannot be read ({error.strerror or error})")
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            problems.append(f"{relative} is not the file that was written (its digest differs)")
    if record.schema_version >= RUN_SCHEMA_VERSION:
        named = {test.log_file for test in record.tests if test.log_file}
        for relative in sorted(named - set(record.files)):
            problems.append(f"{relative} has no digest in the record")
    return problems


def save_run(
    output: Path,
    record: RunRecord,
    *,
    candidate: bytes | None,
    prediction: str | None = None,
    logs: dict[str, str] | None = None,
) -> Path:
    """Write one run's files, ``run.json`` last and atomically; return the run folder.

    ``logs`` maps test file -> log text; each test record's ``log_file`` is set to the
    log's path relative to the run folder.
    """
    folder = run_dir(output, record.system, record.task, record.implementation)
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (folder / RUN_FILE).unlink()
    for stale in (CANDIDATE_FILE, PREDICTION_FILE):
        with contextlib.suppress(FileNotFoundError):
            (folder / stale).unlink()
    shutil.rmtree(folder / LOGS_DIR, ignore_errors=True)
    record.files = {}
    record.schema_version = RUN_SCHEMA_VERSION
    record.problems = []

    def write(relative: str, data: bytes) -> None:
        atomic_write_bytes(folder / relative, data)
        record.files[relative] = hashlib.sha256(data).hexdigest()

    if candidate is not None:
        write(CANDIDATE_FILE, candidate)
    if prediction is not None:
        write(PREDICTION_FILE, prediction.encode("utf-8"))
    for test in record.tests:
        text = (logs or {}).get(test.test_file)
        if text is None:
            test.log_file = ""
            continue
        relative = f"{LOGS_DIR}/{log_name(test.test_file)}"
        write(relative, text.encode("utf-8"))
        test.log_file = relative
    atomic_write_json(folder / RUN_FILE, record.to_json())
    return folder


def load_run(path: Path) -> RunRecord:
    """Read one ``run.json``; raise `UserError` naming the file if it is not a run record."""
    hint = "Delete the run folder; the next 'lmr-author eval' runs it again."
    if not path.exists():
        raise UserError("no such run record", file=path)
    data = load_json(path, what="run record", hint=hint)
    try:
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        record = RunRecord.from_json(data)
        record.problems = _record_problems(data)
        return record
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as error:
        raise UserError(f"not a run record ({error!r})", file=path, hint=hint) from None


def find_run(output: Path, system: str, task: str, implementation: int) -> RunRecord | None:
    """The stored record of one run slot, or None when absent or unreadable."""
    path = run_dir(output, system, task, implementation) / RUN_FILE
    if not path.is_file():
        return None
    try:
        return load_run(path)
    except UserError:
        return None


def scan_runs(output_dir: Path) -> tuple[list[RunRecord], list[str]]:
    """Like `load_runs`, but an unreadable run, or one that does not verify
    (`verify_run`), is a line in the second list, not a record nor an error.

    For readers that should go on past one broken run (report, the judge, the agreement).
    """
    root = Path(output_dir) / RUNS_DIR
    records: list[RunRecord] = []
    problems: list[str] = []
    for path in sorted(root.glob(f"*/*/*/{RUN_FILE}")):
        try:
            record = load_run(path)
        except UserError as error:
            problems.append(f"{error}; run skipped")
            continue
        damage = verify_run(Path(output_dir), record)
        if damage:
            problems.append(
                f"{path}: the run record does not verify: {'; '.join(damage)}; run skipped "
                "('lmr-author eval' runs it again)"
            )
            continue
        records.append(record)
    records.sort(key=lambda r: (r.system, r.task, r.implementation))
    return records, problems


def load_runs(output_dir: Path) -> list[RunRecord]:
    """Every run record under ``output_dir/runs``, sorted by system, task, implementation."""
    root = Path(output_dir) / RUNS_DIR
    if not root.is_dir():
        return []
    records = [load_run(path) for path in root.glob(f"*/*/*/{RUN_FILE}")]
    records.sort(key=lambda r: (r.system, r.task, r.implementation))
    return records


@dataclass(frozen=True)
class StoredRun:
    """A run as its readers (judge, review, agreement) see it: record, folder, candidate."""

    record: RunRecord
    folder: Path
    #: ``candidate.py``, or ``prediction.py`` when the prediction could not be spliced.
    candidate_path: Path
    #: The candidate's identity: run.json's hash, or the file's when run.json has none.
    candidate_sha256: str

    @property
    def key(self) -> ItemKey:
        return self.record.key

    @property
    def system(self) -> str:
        return self.record.system

    @property
    def task(self) -> str:
        return self.record.task

    @property
    def implementation(self) -> int:
        return self.record.implementation

    @property
    def verdict(self) -> str:
        return self.record.verdict

    @property
    def run_path(self) -> Path:
        return self.folder / RUN_FILE


def stored_run(output: Path, record: RunRecord) -> StoredRun:
    """`StoredRun` of a record read from ``output``."""
    folder = run_dir(output, record.system, record.task, record.implementation)
    candidate = candidate_file(folder)
    digest = record.candidate_sha256 or file_sha256(candidate)
    return StoredRun(record, folder, candidate, digest)


def scan_stored_runs(output_dir: Path) -> tuple[list[StoredRun], list[str]]:
    """`scan_runs` as `StoredRun`s: every readable run, and one line per unreadable one."""
    records, problems = scan_runs(output_dir)
    return [stored_run(output_dir, record) for record in records], problems
