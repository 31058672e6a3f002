"""The files one remote run exchanges through the shared folder: request in, result out.

A request names the task folder, the implementation, the candidate file (with its
SHA-256), the backend's configuration and what the submitter expects (image id and
settings, the two run-key parts a node could see differently). A result is the
`ImplementationRun` the node returned. Both are JSON written atomically; a malformed
result is an infrastructure error, never a verdict.

Two kinds of run: ``scored`` (``eval``: the node's `DockerBackend.run`, held to the
golden counts) and ``raw`` (``validate --run`` and mutants: `run_tests` with the
request's ``limits`` and ``expected`` counts, no candidate file for a masked run). The
kind was added without a new `WIRE_VERSION`: a request without it is a scored one, and
an older worker refuses a request with fields it does not know (it cannot misread one).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox.decision import Expected
from lmr_author.sandbox.harness.crossing import safe_text
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun, Phase, TestVerdict
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.util.atomic import atomic_write_json

WIRE_VERSION = 2
SCORED = "scored"
RAW = "raw"


@dataclass(frozen=True)
class Request:
    """One (task, implementation, candidate) to run on a node."""

    task_path: str
    implementation: int
    #: None (raw runs only): the image's masked goal file.
    candidate_path: str | None
    candidate_sha256: str | None
    runtime: str
    base_image: str | None
    timeout_s: float | None
    protocol: str
    image_id: str
    settings: dict[str, Any]
    result_path: str
    #: ``--gpus`` and the ``--hf-cache`` hub folder (a path the nodes share), if given.
    gpus: str | None = None
    hf_cache: str | None = None
    kind: str = SCORED
    #: Raw runs: the container's limits (`Limits` fields) and the golden counts per test.
    limits: dict[str, Any] | None = None
    expected: dict[str, dict[str, Any]] | None = None
    #: ``--images DIR``: where a node lacking ``image_id`` loads it from (shared folder).
    images: str | None = None
    #: ``--registry``: where a node lacking ``image_id`` pulls it from (by its id tag).
    registry: str | None = None
    #: The repository folder inside the image: an Apptainer node without a Docker engine
    #: runs the image's SIF from the shared cache, and cannot ask an engine for it.
    workdir: str | None = None
    #: Raw runs: the candidate in a process of its own (else in the test's), and the
    #: files the golden proof saw only the tests read.
    isolated: bool = True
    test_reads: list[str] | None = None

    def raw_limits(self) -> Limits:
        return Limits(**(self.limits or {}))

    def raw_spec(self, task: Task, image: ImageRef, candidate: bytes | None) -> RunSpec:
        """The raw run this request carries (`raw_request_fields` read back)."""
        expected = None
        if self.expected is not None:
            expected = {name: Expected(**counts) for name, counts in self.expected.items()}
        return RunSpec(
            task,
            task.implementation(self.implementation),
            candidate,
            image,
            self.raw_limits(),
            protocol=self.protocol,
            expected=expected,
            isolated=self.isolated,
            test_reads=tuple(self.test_reads or ()),
        )

    def save(self, path: Path) -> None:
        atomic_write_json(path, {"wire_version": WIRE_VERSION, **asdict(self)})

    @classmethod
    def load(cls, path: Path) -> Request:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.pop("wire_version", None) != WIRE_VERSION:
            raise ValueError(f"{path}: not a request of this lmr-author version")
        return cls(**data)


def raw_settings(limits: Limits, protocol: str, runtime: str) -> dict[str, Any]:
    """What a raw run's outcome depends on besides its files (checked again on the node)."""
    from lmr_author.sandbox import harness

    return {
        "harness": harness.version(),
        "protocol": protocol,
        "limits": asdict(limits),
        "runtime": runtime,
    }


def raw_request_fields(spec: RunSpec) -> dict[str, Any]:
    """A raw run's spec as a request's fields (the candidate travels as a file)."""
    expected = None
    if spec.expected is not None:
        expected = {name: asdict(counts) for name, counts in spec.expected.items()}
    return {
        "kind": RAW,
        "protocol": spec.protocol,
        "limits": asdict(spec.limits),
        "expected": expected,
        "isolated": spec.isolated,
        "test_reads": list(spec.test_reads),
    }


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class RemoteRun(ImplementationRun):
    """A node's outcome as the submitter reads it: the run, and when the worker ran it
    (Unix times; None from a worker that did not say), and its time in the queue."""

    started_unix: float | None = None
    finished_unix: float | None = None
    queued_s: float | None = None


def save_result(
    path: Path,
    run: ImplementationRun,
    *,
    started_unix: float | None = None,
    finished_unix: float | None = None,
) -> None:
    """Write the node's outcome (atomically: the submitter polls for the file), with
    when the worker started and finished it."""
    data = {
        "started_unix": started_unix,
        "finished_unix": finished_unix,
        "wire_version": WIRE_VERSION,
        "image_id": run.image_id,
        "infra_error": run.infra_error,
        "wall_s": run.wall_s,
        "isolated": run.isolated,
        "not_isolated_why": run.not_isolated_why,
        "verdicts": [asdict(verdict) for verdict in run.verdicts],
    }
    # Into the existing folder only: a worker that outlived its evaluation (cancelled
    # as it finished) must not recreate the shared folder the submitter has removed.
    try:
        fd, scratch = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except FileNotFoundError:
        return  # nobody reads it any more
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise


def save_infra_error(path: Path, message: str) -> None:
    save_result(path, ImplementationRun(verdicts=[], image_id="", infra_error=message))


def load_result(path: Path) -> ImplementationRun:
    """The outcome a node wrote; `ValueError` when the file is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("wire_version") != WIRE_VERSION:
            raise ValueError("another wire version")
        verdicts = [_verdict(item) for item in data["verdicts"]]
        infra = data["infra_error"]
        isolated = data["isolated"]
        if not isinstance(isolated, bool):
            raise ValueError("isolated is not a boolean")
        run = ImplementationRun(
            verdicts=verdicts,
            image_id=str(data["image_id"]),
            infra_error=None if infra is None else str(infra),
            wall_s=float(data["wall_s"]),
            isolated=isolated,
            not_isolated_why=str(data["not_isolated_why"]),
        )
        started, finished = data.get("started_unix"), data.get("finished_unix")
        if started is None or finished is None:
            return run  # a worker that did not say when it ran the run
        return RemoteRun(
            **{f.name: getattr(run, f.name) for f in fields(ImplementationRun)},
            started_unix=float(started),
            finished_unix=float(finished),
        )
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"unreadable result {path}: {error}") from None


#: Each field's types; the counts matter: a raw golden run's are kept as the proof.
_VERDICT_FIELDS: dict[str, tuple[type, ...]] = {
    "test_file": (str,),
    "verdict": (str,),
    "reason": (str,),
    "duration_s": (float, int),
    "log": (str,),
    "exit_code": (int, type(None)),
    "legacy_log": (str, type(None)),
    "protocol": (str,),
    "tests_run": (int,),
    "tests": (int,),
    "tests_failed": (int,),
    "legacy_passed": (int, type(None)),
    "isolated": (bool,),
    "crossings": (list,),
    "test_reads": (list,),
    "changed_inputs": (list,),
    "phases": (list,),
    "cpu_s": (float, int, type(None)),
}


def _verdict(item: dict[str, Any]) -> TestVerdict:
    for name, kinds in _VERDICT_FIELDS.items():
        value = item[name]  # every field: a node writes them all
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            raise ValueError(f"field {name} is not a {kinds[0].__name__}")
    if not all(isinstance(text, str) for text in item["crossings"]):
        raise ValueError("field crossings is not a list of strings")
    texts = {name: safe_text(item[name]) for name in ("reason", "log") if item[name]}
    if item["legacy_log"] is not None:
        texts["legacy_log"] = safe_text(item["legacy_log"])
    crossings = tuple(safe_text(text) for text in item["crossings"])
    if not all(isinstance(path, str) for path in item["test_reads"]):
        raise ValueError("field test_reads is not a list of strings")
    reads = tuple(item["test_reads"])
    if not all(isinstance(name, str) for name in item["changed_inputs"]):
        raise ValueError("field changed_inputs is not a list of strings")
    changed = tuple(item["changed_inputs"])
    phases = tuple(_phase(phase) for phase in item["phases"])
    cpu = None if item["cpu_s"] is None else float(item["cpu_s"])
    return TestVerdict(
        **{
            **item,
            **texts,
            "crossings": crossings,
            "test_reads": reads,
            "changed_inputs": changed,
            "phases": phases,
            "cpu_s": cpu,
        }
    )


def _phase(item: object) -> Phase:
    """One timed phase as a node wrote it (``asdict`` of a `Phase`)."""
    if not isinstance(item, dict) or set(item) != {"name", "seconds", "inner"}:
        raise ValueError("field phases is not a list of phases")
    name, seconds, inner = item["name"], item["seconds"], item["inner"]
    if not isinstance(name, str) or not isinstance(inner, bool):
        raise ValueError("field phases is not a list of phases")
    if isinstance(seconds, bool) or not isinstance(seconds, (float, int)):
        raise ValueError("field phases is not a list of phases")
    return Phase(name=safe_text(name), seconds=float(seconds), inner=inner)
