"""What the golden code does under the harness: the proof every candidate is held to.

A candidate passes only when the harness records as many tests as the golden code does
(and, for a legacy test, as many "Passed" lines): a candidate that stops the test file
early, or removes tests, cannot pass with fewer. The proof also says where candidates
run: in a process of their own (`lmr_author.sandbox.isolation`) when the golden code
passes so, else in the test's process, with why (`prove`). It is made by running the
golden goal file (``validate --run`` does it as part of its proof; ``eval`` does it once
when no proof is kept) and kept in the user cache under a key that hashes the task image
tag (which hashes every file of the task folder), the golden file, the test file and the
harness itself, so any change to them proves again. The cache is ours, not the task's:
writing a proof into the task folder would change the image's content hash.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lmr_author.domain.task import Implementation, Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox import harness, isolation
from lmr_author.sandbox.decision import LOG_PROTOCOLS, Expected
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.needs import missing_resource, unmet_hardware
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import Runner, RunSpec
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.locations import cache_dir

_LOCK = threading.Lock()
_LOCKS: dict[str, threading.Lock] = {}
#: Proof keys whose golden code failed in this process (nothing kept on disk): the
#: other candidates of the implementation do not run it again.
_FAILED: set[Path] = set()


@dataclass(frozen=True)
class Proof:
    """What the golden code does, per test file, and where candidates run."""

    expected: dict[str, Expected]
    #: Candidates run in a process of their own; if not, why not.
    isolated: bool = True
    not_isolated_why: str = ""
    #: Repository files the golden run's tests read and its goal code did not: the
    #: tests' own data (fixtures kept beside the code), which candidates cannot read.
    test_reads: tuple[str, ...] = ()


def prove(run_golden: Callable[[bool], ImplementationRun]) -> ImplementationRun:
    """The golden run that proves an implementation: isolated (``run_golden(True)``)
    when the golden code passes so; else, when it passes in the test's process
    (``run_golden(False)``), that run, saying why the goal cannot cross. A golden run
    that fails both ways is returned as it ran in the test's process, as published
    harnesses run it."""
    isolated = run_golden(True)
    if isolated.passed or isolated.infra_error is not None or not isolated.isolated:
        return isolated
    in_process = run_golden(False)
    crossed = isolated.crossings
    why = "; ".join(crossed) if crossed else f"it fails only when isolated ({isolated.reason})"
    return dataclasses.replace(in_process, not_isolated_why=why)


#: Why the golden code of a proof key (which includes GPUs and model cache) cannot run
#: here, so that the other candidates of the task do not run it again in this process.
_NOT_RUNNABLE: dict[str, str] = {}


def proof_key(
    task: Task, impl: Implementation, image: ImageRef, limits: Limits | None = None
) -> str:
    """The content hash a proof is kept under.

    A proof made with GPUs or a model cache holds only with them: without, the golden
    code may not run at all, and candidates must not be held to it (nor failed by it).
    """
    digest = hashlib.sha256()
    # What the candidate may not see (the isolation plan's rules) decides the proof too.
    plan_rules = hashlib.sha256(Path(isolation.__file__).read_bytes()).hexdigest()
    parts = [b"golden-proof/1", image.tag.encode(), harness.version().encode()]
    parts.append(plan_rules.encode())
    parts.append(impl.unit_test_file.encode())
    if limits is not None and (limits.gpus or limits.hf_cache):
        parts.append(f"gpus={limits.gpus};hf-cache={limits.hf_cache}".encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    for path in (impl.golden_path, impl.unit_test_path):
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"<missing>")
    return digest.hexdigest()


def _path(key: str, folder: Path | None) -> Path:
    return (folder or cache_dir("golden-proofs")) / f"{key}.json"


def load_proof(key: str, *, folder: Path | None = None) -> Proof | None:
    """The kept proof of ``key``: per test file, what the golden code does."""
    try:
        data = json.loads(_path(key, folder).read_text(encoding="utf-8"))
        expected = {
            str(test_file): Expected(
                tests=int(entry["tests"]),
                legacy_passed=None
                if entry.get("legacy_passed") is None
                else int(entry["legacy_passed"]),
            )
            for test_file, entry in data["test_files"].items()
        }
        isolated = data["isolated"]
        if not isinstance(isolated, bool):
            return None
        reads = data.get("test_reads", [])
        if not isinstance(reads, list) or not all(isinstance(path, str) for path in reads):
            return None
        return Proof(expected, isolated, str(data.get("not_isolated_why", "")), tuple(reads))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_proof(key: str, run: ImplementationRun, *, folder: Path | None = None) -> bool:
    """Keep what a passing golden run recorded; False (nothing kept) if it did not pass."""
    if not run.passed:
        return False
    entries = {
        verdict.test_file: {
            "tests": verdict.tests_run,
            "legacy_passed": (verdict.legacy_passed if verdict.protocol in LOG_PROTOCOLS else None),
            "protocol": verdict.protocol,
        }
        for verdict in run.verdicts
    }
    proof = {
        "key": key,
        "test_files": entries,
        "isolated": run.isolated,
        "not_isolated_why": run.not_isolated_why,
        "test_reads": list(run.test_reads),
    }
    atomic_write_json(_path(key, folder), proof)
    return True


def proof_for(
    task: Task,
    impl: Implementation,
    image: ImageRef,
    run_golden: Callable[[bytes, bool], ImplementationRun],
    *,
    limits: Limits | None = None,
    folder: Path | None = None,
) -> Proof | None:
    """The proof of ``impl``, running the golden code (``run_golden(source, isolated)``)
    once if none is kept.

    None when the golden code does not pass (then there is nothing to hold candidates
    to; ``validate --run`` reports that task as broken).
    """
    key = proof_key(task, impl, image, limits)
    return _proof_under(key, impl, run_golden, folder, limits)


def _proof_under(
    key: str,
    impl: Implementation,
    run_golden: Callable[[bytes, bool], ImplementationRun],
    folder: Path | None = None,
    limits: Limits | None = None,
) -> Proof | None:
    """`proof_for` with its proof key already computed (it hashes files).

    A golden run that fails for want of a GPU, a model or data makes the key "not
    runnable here" (`_NOT_RUNNABLE`) before any other candidate of it may go on.
    """
    with _LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        found = load_proof(key, folder=folder)
        if found is not None or _path(key, folder) in _FAILED:
            return found
        try:
            golden = impl.golden_path.read_bytes()
        except OSError:
            return None
        proven = prove(lambda isolated: run_golden(golden, isolated))
        if not save_proof(key, proven, folder=folder):
            _FAILED.add(_path(key, folder))
            if (reason := missing_resource(impl, proven, limits or Limits())) is not None:
                with _LOCK:
                    _NOT_RUNNABLE[key] = reason
            return None
        return load_proof(key, folder=folder)


def run_against_golden_counts(spec: RunSpec, runner: Runner) -> ImplementationRun:
    """Run ``spec`` with ``runner``, held to the golden code's test counts (proven once,
    then kept); what the spec says it is held to is replaced by the proof."""
    task, impl, image, limits = spec.task, spec.impl, spec.image, spec.limits
    if (declared := unmet_hardware(task, limits)) is not None:
        # Declared by the task, not learned from a run: no container starts.
        return ImplementationRun(verdicts=[], image_id=image.image_id, infra_error=declared)
    key = proof_key(task, impl, image, limits)
    if (known := _NOT_RUNNABLE.get(key)) is not None:
        return ImplementationRun(verdicts=[], image_id=image.image_id, infra_error=known)

    def run_golden(source: bytes, isolated: bool) -> ImplementationRun:
        golden = dataclasses.replace(spec.held_to(None), candidate=source, isolated=isolated)
        [outcome] = runner.run_all([golden])
        return outcome

    proof = _proof_under(key, impl, run_golden, limits=limits)
    if proof is None and (known := _NOT_RUNNABLE.get(key)) is not None:
        # The golden code fails here for want of a GPU, a model or data: no candidate
        # can pass, and that is the machine's doing, not the candidate's.
        return ImplementationRun(verdicts=[], image_id=image.image_id, infra_error=known)
    # A broken task (no proof): its candidates run isolated, held to nothing.
    [outcome] = runner.run_all([spec.held_to(proof)])
    if proof is not None and proof.not_isolated_why and not outcome.isolated:
        outcome = dataclasses.replace(outcome, not_isolated_why=proof.not_isolated_why)
    return outcome
