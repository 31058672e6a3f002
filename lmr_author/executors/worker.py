"""Run requests on a node: ``python -m lmr_author.executors.worker --array FOLDER COUNT
BUDGET_S`` (an array element: claims run after run of its array, `claims`), or one
request: ``python -m lmr_author.executors.worker REQUEST.json``.

The same `DockerBackend` the local executor uses, with the submitter's configuration
(a raw run of ``validate``: the same `run_tests`, with the request's limits). A run
that wants GPUs gets the job's own (`gres.container_gpus`); a node lacking the run's
image loads it from ``--images DIR`` (`images.ensure_loaded`).
Before running, it checks that the node sees the run as the submitter keyed it (same
image id, same settings); otherwise the result is an infrastructure error, so a
verdict is never stored under a key it does not belong to. SIGTERM (scancel) ends the
run through its ``finally`` blocks, which remove its container.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

from lmr_author.domain.task import Task, load_task
from lmr_author.eval_loop.backend import DockerBackend, PreparedImage
from lmr_author.executors.cgroups import container_parent, own_job_cgroups
from lmr_author.executors.claims import claim_next
from lmr_author.executors.gres import container_gpus
from lmr_author.executors.images import ensure_loaded
from lmr_author.executors.slurm.cli import time_left_s
from lmr_author.executors.wire import (
    RAW,
    SCORED,
    Request,
    raw_settings,
    save_infra_error,
    save_result,
    sha256,
)
from lmr_author.images.registry import pull_image
from lmr_author.images.task_images import ImageRef, image_by_id
from lmr_author.runtime.engine import (
    current_runtime,
    selected_runtime,
    use_cgroup_parent,
    use_runtime,
)
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.run_cgroup import use_job_cgroups
from lmr_author.sandbox.run_result import ImplementationRun


def run_request(request: Request) -> ImplementationRun | str:
    """The run's outcome, or why it could not be run faithfully here."""
    use_runtime(request.runtime)
    # Apptainer's runs in a child of this job's cgroup, with their limits (`run_cgroup`).
    use_job_cgroups(own_job_cgroups(os.environ) if current_runtime().runs_from_sif else None)
    candidate: bytes | None = None
    if request.candidate_path is not None:
        candidate = Path(request.candidate_path).read_bytes()
        if sha256(candidate) != request.candidate_sha256:
            return "the candidate file in the shared folder changed after submission"
    if request.kind == RAW:
        return _run_raw(request, candidate)
    if request.kind != SCORED or candidate is None:
        return f"not a run this worker knows ({request.kind}, candidate {request.candidate_path})"
    backend = DockerBackend(
        base_image=request.base_image,
        timeout_s=request.timeout_s,
        protocol=request.protocol,
        gpus=request.gpus,
        hf_cache=request.hf_cache,
    )
    try:
        if backend.settings() != request.settings:
            return "this node's sandbox settings (harness, limits) differ from the submitter's"
        task = load_task(request.task_path)
        image = _keyed_image(backend, task, request)
        if isinstance(image, str):
            return image
        gpus = container_gpus(task.hardware, request.gpus, os.environ, task=task.name)
        runs = backend
        if gpus != request.gpus:  # the job's own GPUs; the run key keeps the request's
            runs = DockerBackend(
                base_image=request.base_image,
                timeout_s=request.timeout_s,
                protocol=request.protocol,
                gpus=gpus,
                hf_cache=request.hf_cache,
                client=backend.run_client(),
            )
        outcome = runs.run(task, task.implementation(request.implementation), candidate, image)
        if not isinstance(outcome, ImplementationRun):
            return "the sandbox returned no run"
        return outcome
    finally:
        backend.close()


def _run_raw(request: Request, candidate: bytes | None) -> ImplementationRun | str:
    """``validate``'s run: the tests with the request's limits and expected counts."""
    from lmr_author.sandbox.runner import run_tests

    limits = request.raw_limits()
    if raw_settings(limits, request.protocol, selected_runtime()) != request.settings:
        return "this node's sandbox settings (harness, limits) differ from the submitter's"
    backend = DockerBackend(base_image=request.base_image)
    try:
        task = load_task(request.task_path)
        image = _keyed_image(backend, task, request)
        if isinstance(image, str):
            return image
        gpus = container_gpus(task.hardware, limits.gpus, os.environ, task=task.name)
        spec = request.raw_spec(task, image, candidate)  # the job's GPUs; keys the request's
        spec = dataclasses.replace(spec, limits=dataclasses.replace(limits, gpus=gpus))
        return run_tests(spec, client=backend.run_client())
    finally:
        backend.close()


def _keyed_image(backend: DockerBackend, task: Task, request: Request) -> ImageRef | str:
    """The task's image on this node, or why it is not the one the run was keyed with."""
    if (from_sif := _sif_image(request)) is not None:
        return from_sif  # Apptainer: the SIF named by the id is the image; no engine needed
    try:
        client = backend.client()
    except InfraError as error:
        if not current_runtime().runs_from_sif:
            raise
        from lmr_author.sandbox.apptainer import default_cache_folder

        raise InfraError(
            f"no SIF of image {request.image_id[:19]} in {default_cache_folder()}, and no "
            f"Docker engine on this node to convert it ({error.message})",
            hint="Run eval --runtime apptainer with a --sif-cache folder the nodes share: "
            "it converts every image there before submitting.",
        ) from None
    # The test's container under this job's cgroup, where the engine allows (`cgroups`).
    use_cgroup_parent(container_parent(client, os.environ))
    if request.images is not None:  # before prepare, which would build another image
        ensure_loaded(client, request.image_id, Path(request.images))
    # The very image, by its id: recomputing its content tag here would depend on this
    # node's base images, which a node that only loaded task images lacks.
    image: PreparedImage | None = image_by_id(client, task, request.image_id)
    if image is None and request.registry is not None:
        image = pull_image(client, request.registry, task, request.image_id)
    if image is None:
        image = backend.prepare(task)  # an engine the submitter shares, or builds alike
    if not isinstance(image, ImageRef) or image.image_id != request.image_id:
        return (
            f"this node's image of task {task.name} is not the one the run was keyed "
            f"with ({request.image_id[:19]})"
        )
    return image


def _sif_image(request: Request) -> ImageRef | None:
    """Under Apptainer, the run's image when its SIF is in the shared cache already."""
    from lmr_author.sandbox.apptainer import SifCache, default_cache_folder

    if not current_runtime().runs_from_sif or request.workdir is None:
        return None
    if SifCache(default_cache_folder()).cached(request.image_id) is None:
        return None
    return ImageRef(
        tag=request.image_id, image_id=request.image_id, built=False, workdir=request.workdir
    )


def _terminate(_signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(143)


def run_file(path: Path) -> int:
    """Run the request at ``path`` and write its result: 0 when it ran, 1 when the
    outcome is an infrastructure error."""
    request = Request.load(path)
    result = Path(request.result_path)
    started = time.time()  # the run's own start: the time before it was in the queue
    try:
        outcome = run_request(request)
    except SystemExit:
        raise  # cancelled: no result, the submitter knows it cancelled
    except InfraError as error:  # e.g. a GPU task in a job without GPUs
        save_infra_error(result, str(error))
        return 1
    except Exception as error:  # any failure here is the infrastructure's
        save_infra_error(result, f"the worker on the node failed: {error}")
        return 1
    if isinstance(outcome, str):
        save_infra_error(result, outcome)
        return 1
    save_result(result, outcome, started_unix=started, finished_unix=time.time())
    return 0


def run_array(folder: Path, count: int, budget_s: float, environ: Mapping[str, str]) -> int:
    """One element of an array: claim run after run of ``folder`` and run each, until
    none is free or this job's walltime has less than ``budget_s`` left. The first
    run is always taken: the job asked for a walltime that holds one."""
    job, element = environ.get("SLURM_ARRAY_JOB_ID", ""), environ.get("SLURM_ARRAY_TASK_ID", "")
    if not element.isdigit():
        print("not an element of a Slurm job array (no SLURM_ARRAY_TASK_ID)", file=sys.stderr)
        return 2
    name = f"{job}_{element}"
    left = time_left_s(job, element)
    deadline = None if left is None else time.monotonic() + left
    ran = 0
    while deadline is None or not ran or time.monotonic() + budget_s <= deadline:
        index = claim_next(folder, count, int(element) % max(1, count), name)
        if index is None:
            break
        ran += 1
        try:
            run_file(folder / f"{index}.json")
        except (OSError, ValueError, TypeError) as error:  # settled meanwhile (Ctrl-C)
            print(f"run {index}: no request to run ({error})", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, _terminate)
    if len(args) == 4 and args[0] == "--array" and args[2].isdigit():
        return run_array(Path(args[1]), int(args[2]), float(args[3]), os.environ)
    if len(args) != 1:
        print(
            "usage: python -m lmr_author.executors.worker REQUEST.json\n"
            "       python -m lmr_author.executors.worker --array FOLDER COUNT BUDGET_S",
            file=sys.stderr,
        )
        return 2
    return run_file(Path(args[0]))


if __name__ == "__main__":
    sys.exit(main())
