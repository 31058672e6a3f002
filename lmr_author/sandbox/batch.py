"""Many candidates of one implementation in one container: for mutants, never for hostile code.

A normal run (`runner.run_tests`) gives every candidate a fresh container, and its test
process imports torch before it forks the candidate's. A mutation test runs tens of
mutants of the golden goal function, which we made and which forge nothing: here they
share one container per test file, whose test process imports the shared libraries
once and forks a fresh test process per mutant (``harness/zygote.py`` says what each
gets and what it does not share). Each mutant's test and candidate processes run apart,
as their users, as in a normal run, and its verdict is made from its own report by the
same `file_verdict`.

So that a mutant's verdict is what a normal run of it gives, whatever the batch could
not decide as a normal run would is run the normal way, one container each: a slot
with no result (the batch's test process or the container ended), one that a kill
(memory, SIGKILL) decided, and every candidate of an implementation whose candidates
cannot run forked (in the test's process, under Apptainer). An engine failure runs
the whole batch the normal way, whose runs retry and report it.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from lmr_author.runtime.engine import current_runtime
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox import harness, isolation, provisions
from lmr_author.sandbox.container_life import (
    RUN_GID,
    RUN_UID,
    put_archive_retrying,
    read_stream,
    run_labels,
    sandbox_container,
)
from lmr_author.sandbox.decision import Observed, choose_protocol, file_verdict
from lmr_author.sandbox.harness.zygote import OUTPUT_MARK
from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import (
    ENGINE_SLACK_S,
    FORK_CAPABILITIES,
    MAX_LOG_CHARS,
    MAX_REPORT_BYTES,
    await_end,
    preload_of,
    run_tests,
    test_files_of,
    test_place,
)

if TYPE_CHECKING:
    import docker

#: Where each candidate's goal file is staged (``<n>.py``), and the batch's options.
CANDIDATES = PurePosixPath("/opt/lmr-candidate")
BATCH_FILE = harness.NONCE_DIR / "batch.json"


def why_not_batched(spec: RunSpec) -> str | None:
    """Why ``spec``'s candidates cannot share a container; None when they can."""
    if current_runtime().runs_from_sif:
        return "Apptainer cannot fork a candidate's process in the test's container"
    if not spec.isolated or isolation.not_isolatable(spec.task, spec.impl) is not None:
        return "its candidates run in the test's process, each at the goal file's path"
    return None


def _alike(specs: Sequence[RunSpec]) -> bool:
    """Whether ``specs`` differ in their candidate (and label) only."""
    first = specs[0]
    keys = ("task", "impl", "image", "limits", "protocol", "expected", "isolated", "test_reads")
    return all(getattr(spec, key) == getattr(first, key) for spec in specs for key in keys)


def run_batched(
    specs: Sequence[RunSpec],
    *,
    client: docker.DockerClient | None = None,
    on_done: Callable[[int], None] | None = None,
) -> list[ImplementationRun]:
    """Run ``specs`` (candidates of one implementation, alike but for the candidate; not
    hostile) in one container per test file; their outcomes, in order. What the batch
    cannot decide as a normal run would runs the normal way (see the module).
    ``on_done(index)``: a spec's last test file has a result (as the container goes)."""
    if not specs:
        return []
    if not _alike(specs):
        raise ValueError("a batch holds candidates of one implementation, alike but for them")
    if why_not_batched(specs[0]) is not None:
        return [run_tests(spec, client=client) for spec in specs]
    if client is None:
        from lmr_author.runtime.engine import get_client

        client = get_client()
    first = specs[0]
    begun = time.monotonic()
    verdicts: list[list[TestVerdict] | None] = [[] for _ in specs]
    files = test_files_of(first.impl)
    for test_file in files:
        last = test_file == files[-1]
        try:
            slots = _run_slots(client, specs, test_file, on_done if last else None)
        except InfraError:
            slots = [None] * len(specs)  # the engine's: the normal runs say it, or pass
        for number, slot in enumerate(slots):
            kept = verdicts[number]
            if slot is None or kept is None:
                verdicts[number] = None
                continue
            observed, plan, protocol = slot
            wanted = (first.expected or {}).get(test_file)
            kept.append(
                file_verdict(first.task, test_file, observed, protocol, first.limits, wanted, plan)
            )
    share = (time.monotonic() - begun) / len(specs)
    outcomes = []
    for spec, found in zip(specs, verdicts, strict=True):
        if found is None:
            outcomes.append(run_tests(spec, client=client))
            continue
        outcomes.append(
            ImplementationRun(
                verdicts=found, image_id=first.image.image_id, wall_s=share, isolated=True
            )
        )
    return outcomes


def _run_slots(
    client: docker.DockerClient,
    specs: Sequence[RunSpec],
    test_file: str,
    on_done: Callable[[int], None] | None = None,
) -> list[tuple[Observed, isolation.Isolation, str] | None]:
    """Run ``test_file`` for every candidate of ``specs`` in one container: per
    candidate, what its slot observed (with its plan and protocol), or None when the
    slot must run the normal way. ``on_done(index)`` as each slot's result is written."""
    import docker.errors
    import requests

    first = specs[0]
    task, impl, image, limits = first.task, first.impl, first.image, first.limits
    protocol = choose_protocol(impl, test_file, first.protocol)
    wanted = (first.expected or {}).get(test_file)
    place = test_place(client, image, test_file, limits, {}, protocol)
    preload = preload_of(impl, test_file)
    plans: list[isolation.Isolation] = []
    slots: list[dict[str, object]] = []
    extra: list[tuple[str, bytes, int]] = []
    for number, spec in enumerate(specs):
        plan = isolation.plan(
            task,
            impl,
            image.workdir,
            staged=spec.candidate is not None,
            test_reads=tuple(spec.test_reads),
            memory_mb=limits.memory_mb,
            changed=None if wanted is None else wanted.changed,
        )
        if spec.candidate is not None:
            source = str(CANDIDATES / f"{number}.py")
            plan = dataclasses.replace(plan, source_path=source)
            extra.append((source, spec.candidate, 0o444))
        plans.append(plan)
        test = harness.test_options(test_file, preload, plan.harness_options(), (RUN_UID, RUN_GID))
        slots.append({"test": test, "log_dir": place.log_dir, "outputs_dir": place.outputs_dir})
    nonces = [harness.new_nonce() for _ in specs]
    batch = {"output_tail": MAX_LOG_CHARS, "slots": slots}
    extra.append((str(BATCH_FILE), json.dumps(batch).encode(), 0o400))
    command = harness.supervisor_command(
        {
            "batch_file": str(BATCH_FILE),
            "nonce_file": str(harness.NONCE_FILE),
            "cwd": image.workdir,
            "timeout_s": limits.timeout_s,
        }
    )
    total = dataclasses.replace(limits, timeout_s=limits.timeout_s * len(specs))
    report_cap = MAX_REPORT_BYTES * len(specs)
    try:
        if limits.hf_cache is not None:  # as a normal run checks it (once per engine)
            provisions.ensure_visible(client, image.image_id or image.tag, limits.hf_cache)
        with sandbox_container(
            client,
            image=image,
            command=command,
            workdir=image.workdir,
            environment=place.environment,
            user="0:0",
            limits=limits,
            tmpfs=place.scratch,
            labels=run_labels(task.name, total.timeout_s + ENGINE_SLACK_S),
            capabilities=FORK_CAPABILITIES,
            log_size_mb=(report_cap + 2 * MAX_LOG_CHARS * len(specs) >> 20) + 40,
        ) as container:
            staged = harness.archive(nonce="\n".join(nonces), uid=0, gid=0, extra=extra)
            put_archive_retrying(container, staged)
            container.start()
            follower = _follow(container, nonces, on_done)
            await_end(client, container, total, test_file)
            if follower is not None:
                follower.join(timeout=10.0)
            stdout = read_stream(container, stdout=True, cap=report_cap, tail=False)
            stderr = read_stream(container, stdout=False, cap=report_cap, tail=False)
    except (docker.errors.DockerException, requests.RequestException) as error:
        raise InfraError(f"the container engine failed while running a batch: {error}") from None
    found: list[tuple[Observed, isolation.Isolation, str] | None] = []
    for nonce, plan in zip(nonces, plans, strict=True):
        report = harness.parse_report(_report_lines(stdout, nonce), nonce)
        decided_by_a_kill = report.oom_killed or (report.exit_status == -9 and not report.timed_out)
        if not report.found or report.batch_lost or decided_by_a_kill:
            found.append(None)
            continue
        observed = Observed(
            exit_code=report.exit_status,
            output=_output_of(stderr, nonce),
            report=report,
            duration_s=report.duration_s or 0.0,
            timed_out=False,
            oom_killed=False,
        )
        found.append((observed, plan, protocol))
    return found


#: What a result line holds when its slot runs again the normal way (`_run_slots`).
_AGAIN = (b'"batch_lost"', b'"oom_killed":true', b'"exit_status":-9')


def _follow(
    container: Any, nonces: list[str], on_done: Callable[[int], None] | None
) -> threading.Thread | None:
    """Tell ``on_done`` of each slot as its result line appears (progress only: the
    verdicts are read from the whole output once the container has ended)."""
    if on_done is None:
        return None
    numbers = {nonce: number for number, nonce in enumerate(nonces)}
    prefix = harness.MARKER.encode() + b" "

    def follow() -> None:
        pending = b""
        try:
            for chunk in container.logs(stdout=True, stderr=False, stream=True, follow=True):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if not line.startswith(prefix) or any(word in line for word in _AGAIN):
                        continue  # not a result, or one a normal run decides instead
                    number = numbers.get(line[len(prefix) :].split(b" ", 1)[0].decode())
                    if number is not None:
                        on_done(number)
        except Exception:  # the engine's trouble: the run itself says it
            return

    thread = threading.Thread(target=follow, name="batch-progress", daemon=True)
    thread.start()
    return thread


def _report_lines(stdout: str, nonce: str) -> str:
    """The harness's result lines of the slot whose nonce is ``nonce``."""
    prefix = f"{harness.MARKER} {nonce} "
    return "\n".join(line for line in stdout.splitlines() if line.startswith(prefix))


def _output_of(stderr: str, nonce: str) -> str:
    """The slot's output, as the host keeps a normal run's (its tail, marked when cut)."""
    begin = f"\n{OUTPUT_MARK} {nonce} begin "
    start = stderr.find(begin)
    if start < 0:
        return ""
    head_end = stderr.find("\n", start + len(begin))
    end = stderr.find(f"\n{OUTPUT_MARK} {nonce} end\n", head_end)
    if head_end < 0 or end < 0:
        return ""
    cut = stderr[start + len(begin) : head_end].strip()
    text = stderr[head_end + 1 : end]
    return "[... output cut ...]\n" + text if cut not in ("", "0") else text
