"""What the golden code does under the harness: the proof every candidate is held to.

A candidate passes only when the harness records as many tests as the golden code does
(and, for a legacy test, as many "Passed" lines): a candidate that stops the test file
early, or removes tests, cannot pass with fewer. The proof also says where candidates
run and what their calls may change (`prove`):

* **isolated**: the golden code passes with the goal in a process of its own
  (`lmr_author.sandbox.isolation`); candidates run so, and a candidate's call may change
  in place only the inputs the golden calls change (``Expected.changed``).
* **in the test's process**: the isolated golden run failed *because a value could not
  cross* (the channel's own record of what could not: `ImplementationRun.crossings`)
  and the golden code passes in the test's process. That choice is the golden code's,
  kept with why, and shown wherever such runs are counted.
* **not proven**: the isolated golden run timed out, ran out of memory, was killed or
  failed with nothing that could not cross (an isolated-only difference of the
  environment), and did so again when retried; or the engine failed. Nothing is kept:
  every candidate of the implementation is an infrastructure error of this eval, named,
  and the next eval proves again. Never a downgrade to the test's process.
* **the golden code fails** its tests both ways: the task is broken (``validate --run``
  says so); its candidates are infrastructure errors too, never scored held to nothing.

Proofs are made by running the golden goal file (``validate --run`` does it as part of
its proof; ``eval`` does it once when none is kept) and kept in the user cache under a
key that holds everything a proof depends on (`proof_key`). The cache is ours, not the
task's: writing a proof into the task folder would change the image's content hash.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from lmr_author.domain.task import Implementation, Task
from lmr_author.images.task_images import ImageRef
from lmr_author.sandbox import harness, isolation
from lmr_author.sandbox.decision import LOG_PROTOCOLS, Expected, ended_by_a_limit
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.needs import missing_resource, unmet_hardware
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.sandbox.run_spec import Runner, RunSpec
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.locations import cache_dir

#: What proving an implementation can end in (see the module's docstring).
ProofState = Literal["isolated", "in-process", "not-proven", "golden-fails", "infra"]
#: Kept proofs only (the others are said for this eval and proven again next time).
KEPT_STATES = ("isolated", "in-process")
#: How many times an isolated golden run that did not pass for want of time, memory or
#: a like reason is run before the proof is given up for this eval.
ISOLATED_ATTEMPTS = 2
_FORMAT = "golden-proof/2"

_LOCK = threading.Lock()
_LOCKS: dict[str, threading.Lock] = {}
#: Proof keys that could not be proven in this process (not proven, the golden code
#: fails, a resource is missing): why, so the other candidates of the implementation do
#: not run the golden code again. Never kept on disk: the next eval proves again.
_UNPROVEN: dict[str, str] = {}


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


@dataclass(frozen=True)
class Proving:
    """How proving one implementation ended: the deciding golden run, and what it proves."""

    state: ProofState
    #: The golden run that decides (the isolated one, or the one in the test's process).
    run: ImplementationRun
    #: Why the proof is in the test's process, not proven, or fails (empty: isolated).
    why: str = ""

    @property
    def kept(self) -> bool:
        return self.state in KEPT_STATES


def prove(run_golden: Callable[[bool], ImplementationRun]) -> Proving:
    """Prove an implementation with its golden code: isolated (``run_golden(True)``),
    and in the test's process (``run_golden(False)``) only to tell a value that could
    not cross (then candidates run there too) or a broken golden from an isolated-only
    failure (never a proof of its own). See the module's docstring for the states."""
    isolated = run_golden(True)
    attempts = 1
    # Out of time or memory, or killed: the machine's doing as likely as the code's.
    while isolated.infra_error is None and _ended_by_a_limit(isolated):
        if attempts >= ISOLATED_ATTEMPTS:
            return Proving("not-proven", isolated, _not_proven_why(isolated, None, attempts))
        isolated, attempts = run_golden(True), attempts + 1
    if isolated.infra_error is not None:
        return Proving("infra", isolated, isolated.infra_error)
    if isolated.passed:
        if isolated.isolated:
            return Proving("isolated", isolated)
        return Proving("in-process", isolated, isolated.not_isolated_why)
    if not isolated.isolated:
        # The task's files rule isolation out (`isolation.not_isolatable`): this run was
        # in the test's process already.
        return Proving("golden-fails", isolated, isolated.reason)
    in_process = run_golden(False)
    if in_process.infra_error is not None:
        return Proving("infra", in_process, in_process.infra_error)
    if not in_process.passed:
        return Proving("golden-fails", in_process, in_process.reason)
    if crossed := isolated.crossings:
        # The channel's own record of what could not cross: the one reason to run
        # candidates in the test's process.
        why = "; ".join(crossed)
        return Proving("in-process", dataclasses.replace(in_process, not_isolated_why=why), why)
    # It passes in the test's process and failed isolated with nothing that could not
    # cross: an isolated-only difference. Tried again before giving up for this eval.
    while attempts < ISOLATED_ATTEMPTS:
        isolated, attempts = run_golden(True), attempts + 1
        if isolated.infra_error is not None:
            return Proving("infra", isolated, isolated.infra_error)
        if isolated.passed:
            return Proving("isolated", isolated)
    return Proving("not-proven", isolated, _not_proven_why(isolated, in_process, attempts))


def _ended_by_a_limit(run: ImplementationRun) -> bool:
    return any(ended_by_a_limit(verdict) for verdict in run.verdicts)


def _not_proven_why(
    isolated: ImplementationRun, in_process: ImplementationRun | None, tries: int
) -> str:
    where = "" if in_process is None else ", and passes in the test's process"
    return (
        f"not proven: the golden code's isolated run did not pass in {tries} tries "
        f"({isolated.verdict}: {isolated.reason}) with nothing that could not cross{where}; "
        "its candidates are not scored in this eval, and the next eval proves it again"
    )


def proof_key(
    task: Task,
    impl: Implementation,
    image: ImageRef,
    limits: Limits | None = None,
    *,
    protocol: str = "auto",
) -> str:
    """The content hash a proof is kept under: everything a proof depends on.

    The task image (its tag hashes every file of the task folder; its id what runs), the
    golden and test files, the harness and the isolation plan's rules, the verdict
    protocol, every limit (a golden run proven with more time or memory says nothing of
    less), the runtime, and the GPUs and model cache (by the revisions it holds).
    """
    from lmr_author.runtime.engine import current_runtime
    from lmr_author.sandbox import provisions

    limits = limits or Limits()
    digest = hashlib.sha256()
    # What the candidate may not see (the isolation plan's rules) decides the proof too.
    plan_rules = hashlib.sha256(Path(isolation.__file__).read_bytes()).hexdigest()
    settings = {
        "limits": {
            "memory_mb": limits.memory_mb,
            "cpus": limits.cpus,
            "pids": limits.pids,
            "timeout_s": limits.timeout_s,
            "network": limits.network,
        },
        "protocol": protocol,
        "runtime": current_runtime().name,
        **provisions.settings(limits.gpus, limits.hf_cache),
    }
    parts = [_FORMAT.encode(), image.tag.encode(), image.image_id.encode()]
    parts += [harness.version().encode(), plan_rules.encode(), impl.unit_test_file.encode()]
    parts.append(json.dumps(settings, sort_keys=True, default=str).encode())
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
        if data.get("format") != _FORMAT or data.get("key") != key:
            return None
        expected = {
            str(test_file): _expected(entry) for test_file, entry in data["test_files"].items()
        }
        isolated = data["isolated"]
        why = data.get("not_isolated_why", "")
        # A proof in the test's process always says why (what could not cross).
        if not isinstance(isolated, bool) or not isinstance(why, str) or (not isolated and not why):
            return None
        reads = data.get("test_reads", [])
        if not isinstance(reads, list) or not all(isinstance(path, str) for path in reads):
            return None
        return Proof(expected, isolated, why, tuple(reads))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _expected(entry: dict[str, object]) -> Expected:
    legacy = entry.get("legacy_passed")
    changed = entry["changed"]
    if not isinstance(changed, list) or not all(isinstance(name, str) for name in changed):
        raise ValueError("changed is a list of input names")
    return Expected(
        tests=int(str(entry["tests"])),
        legacy_passed=None if legacy is None else int(str(legacy)),
        changed=tuple(changed),
    )


def save_proof(key: str, proving: Proving, *, folder: Path | None = None) -> bool:
    """Keep what a proof made (isolated or in the test's process); False (nothing kept)
    for any other state: those are said for this eval and proven again next time."""
    run = proving.run
    if not proving.kept or not run.passed:
        return False
    if proving.state == "in-process" and not proving.why:
        return False  # a downgrade is kept only with its why
    entries = {
        verdict.test_file: {
            "tests": verdict.tests_run,
            "legacy_passed": (verdict.legacy_passed if verdict.protocol in LOG_PROTOCOLS else None),
            "protocol": verdict.protocol,
            "changed": list(verdict.changed_inputs),
        }
        for verdict in run.verdicts
    }
    proof = {
        "format": _FORMAT,
        "key": key,
        "test_files": entries,
        "isolated": proving.state == "isolated",
        "not_isolated_why": proving.why if proving.state == "in-process" else "",
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
    protocol: str = "auto",
    folder: Path | None = None,
) -> Proof | str:
    """The proof of ``impl``, running the golden code (``run_golden(source, isolated)``)
    once if none is kept; else why there is none (an infrastructure error for every
    candidate of ``impl`` in this eval)."""
    key = proof_key(task, impl, image, limits, protocol=protocol)
    return _proof_under(key, impl, run_golden, folder, limits)


def _proof_under(
    key: str,
    impl: Implementation,
    run_golden: Callable[[bytes, bool], ImplementationRun],
    folder: Path | None = None,
    limits: Limits | None = None,
) -> Proof | str:
    """`proof_for` with its proof key already computed (it hashes files)."""
    with _LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        found = load_proof(key, folder=folder)
        if found is not None:
            return found
        with _LOCK:
            if (known := _UNPROVEN.get(key)) is not None:
                return known
        try:
            golden = impl.golden_path.read_bytes()
        except OSError as error:
            return f"the golden file cannot be read ({error.strerror}), so nothing is proven"
        proving = prove(lambda isolated: run_golden(golden, isolated))
        if save_proof(key, proving, folder=folder):
            kept = load_proof(key, folder=folder)
            if kept is not None:
                return kept
        why = unproven_reason(impl, proving, limits or Limits())
        if proving.state != "infra":
            # An engine failure is tried again by the next candidate; anything else
            # would fail the same way in this eval.
            with _LOCK:
                _UNPROVEN[key] = why
        return why


def unproven_reason(impl: Implementation, proving: Proving, limits: Limits) -> str:
    """Why candidates of ``impl`` are not scored, when ``proving`` kept no proof."""
    if (missing := missing_resource(impl, proving.run, limits)) is not None:
        return missing
    if proving.state == "infra":
        return f"the golden proof could not run: {proving.why}"
    if proving.state == "golden-fails":
        return (
            "the golden code does not pass this task's tests "
            f"({proving.run.verdict}: {proving.why}), so no candidate can be held to it; "
            "'lmr-author validate --run' names the fault"
        )
    if proving.state == "not-proven":
        return proving.why
    return f"the golden proof was not kept ({proving.state})"


def run_against_golden_counts(spec: RunSpec, runner: Runner) -> ImplementationRun:
    """Run ``spec`` with ``runner``, held to the golden proof (proven once, then kept);
    what the spec says it is held to is replaced by the proof. Without a proof (not
    proven, the golden code fails, a resource is missing) the candidate does not run:
    an infrastructure error of this eval, saying why."""
    task, impl, image, limits = spec.task, spec.impl, spec.image, spec.limits
    if (declared := unmet_hardware(task, limits)) is not None:
        # Declared by the task, not learned from a run: no container starts.
        return ImplementationRun(verdicts=[], image_id=image.image_id, infra_error=declared)

    def run_golden(source: bytes, isolated: bool) -> ImplementationRun:
        golden = dataclasses.replace(spec.held_to(None), candidate=source, isolated=isolated)
        [outcome] = runner.run_all([golden])
        return outcome

    key = proof_key(task, impl, image, limits, protocol=spec.protocol)
    proof = _proof_under(key, impl, run_golden, limits=limits)
    if isinstance(proof, str):
        return ImplementationRun(
            verdicts=[], image_id=image.image_id, infra_error=f"not scored: {proof}"
        )
    [outcome] = runner.run_all([spec.held_to(proof)])
    if proof.not_isolated_why and not outcome.isolated:
        outcome = dataclasses.replace(outcome, not_isolated_why=proof.not_isolated_why)
    return outcome
