"""The files one remote run exchanges through the shared folder: request in, result out.

A request names the task folder, the implementation, the candidate file (with its
SHA-256), the backend's configuration and what the submitter expects (image id and
settings, the two run-key parts a node could see differently). A result is the
`ImplementationRun` the node's `DockerBackend` returned. Both are JSON written
atomically; a malformed result is an infrastructure error, never a verdict.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lmr_author.atomic import atomic_write_json
from lmr_author.sandbox.results import ImplementationRun, TestVerdict

WIRE_VERSION = 1


@dataclass(frozen=True)
class Request:
    """One (task, implementation, candidate) to run on a node."""

    task_path: str
    implementation: int
    candidate_path: str
    candidate_sha256: str
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

    def save(self, path: Path) -> None:
        atomic_write_json(path, {"wire_version": WIRE_VERSION, **asdict(self)})

    @classmethod
    def load(cls, path: Path) -> Request:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.pop("wire_version", None) != WIRE_VERSION:
            raise ValueError(f"{path}: not a request of this lmr-author version")
        return cls(**data)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save_result(path: Path, run: ImplementationRun) -> None:
    """Write the node's outcome (atomically: the submitter polls for the file)."""
    data = {
        "wire_version": WIRE_VERSION,
        "image_id": run.image_id,
        "infra_error": run.infra_error,
        "wall_s": run.wall_s,
        "verdicts": [asdict(verdict) for verdict in run.verdicts],
    }
    atomic_write_json(path, data)


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
        return ImplementationRun(
            verdicts=verdicts,
            image_id=str(data["image_id"]),
            infra_error=None if infra is None else str(infra),
            wall_s=float(data["wall_s"]),
        )
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"unreadable result {path}: {error}") from None


_VERDICT_FIELDS = {
    "test_file": str,
    "verdict": str,
    "reason": str,
    "duration_s": float,
    "log": str,
}


def _verdict(item: dict[str, Any]) -> TestVerdict:
    for name, kind in _VERDICT_FIELDS.items():
        if not isinstance(item[name], kind | int if kind is float else kind):
            raise ValueError(f"field {name} is not a {kind.__name__}")
    return TestVerdict(**item)
