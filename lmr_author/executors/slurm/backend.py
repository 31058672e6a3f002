"""``--executor slurm``: runs as elements of Slurm job arrays, read back into the caller.

`SlurmBackend` wraps the local `DockerBackend`: its settings (so the run key) and its
prepared images are the local ones; only running differs. Each run writes a request
into the shared folder (under the results folder, so on a shared file system);
``start_runs`` hands every run of an evaluation over at once and the `Poller` submits
them as ONE ``sbatch --array`` per distinct `Resources` (a task's GPUs, `gres.gres_for`,
split CPU and GPU runs) of as many workers as runs may be in flight, each claiming run
after run; the scheduler, not this process, decides when they run. ``run_raw``
(`SlurmRunner`) sends ``validate``'s raw runs the same way, a whole batch at once (all
mutants of an implementation: one array). ``interrupt`` (the
first Ctrl-C) cancels the jobs with ``scancel``: runs whose result is there are kept,
the others end with `RunCancelled` (not written; they run again on resume).

Plain sbatch/squeue/scancel rather than submitit: submitit pickles a Python callable
into the shared folder and unpickles its result, which would make the shared folder a
code-execution path into the submitter; our JSON request/result (`wire`) is data only.
"""

from __future__ import annotations

import dataclasses
import secrets
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, wait
from pathlib import Path
from typing import Any

from lmr_author.domain.task import Implementation, Task
from lmr_author.eval_loop.backend import (
    DockerBackend,
    ImplementationResult,
    PreparedImage,
    RunCancelled,
)
from lmr_author.executors.gres import GpuType, gres_for, unrequested_memory
from lmr_author.executors.slurm.pending import Pending
from lmr_author.executors.slurm.poller import Poller, Progress
from lmr_author.executors.slurm.sbatch import SbatchOptions
from lmr_author.executors.wire import Request, raw_request_fields, raw_settings, sha256
from lmr_author.images.task_images import ImageRef
from lmr_author.runtime.engine import current_runtime, selected_runtime
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_spec import RunSpec

#: One scored run as the evaluation pool hands it over.
RunItem = tuple[Task, Implementation, bytes, PreparedImage]


class SlurmBackend:
    """A `Backend` whose runs execute as Slurm job-array elements (see the module doc)."""

    #: What run.json records as where a run executed.
    executor = "slurm"

    def __init__(
        self,
        inner: DockerBackend,
        shared: Path,
        *,
        gres: str | None = None,
        gpu_types: Sequence[GpuType] = (),
        options: SbatchOptions | None = None,
        images: Path | None = None,
        registry: str | None = None,
        retries: int = 2,
        poll_s: float = 0.25,
        python: str = sys.executable,
        on_progress: Callable[[Progress], None] | None = None,
        on_note: Callable[[str], None] | None = None,
        command: str = "eval",
    ) -> None:
        self.inner = inner
        #: ``--gres`` for every run (the user's), else each task's GPUs (`gres_for`).
        self.gres = gres
        self.gpu_types = tuple(gpu_types)
        self.options = options or SbatchOptions()
        self._noted: set[str] = set()
        #: Said once per occasion (e.g. a task's GPU memory that Slurm is not asked for).
        self.on_note = on_note
        #: Where nodes lacking a run's image load it from (``sandbox save``'s folder).
        self.images = None if images is None else Path(images).resolve()
        #: Where nodes lacking a run's image pull it from (``sandbox push``'s registry).
        self.registry = registry
        #: Unique per evaluation: the jobs' name, and the shared folder's subfolder.
        self.token = f"lmr-{command}-{secrets.token_hex(4)}"
        self.folder = Path(shared).resolve() / self.token
        self.poller = Poller(
            self.token,
            self.folder,
            python=python,
            options=self.options,
            retries=retries,
            poll_s=poll_s,
            on_progress=on_progress,
            on_note=on_note,
        )
        self._lock = threading.Lock()
        self._serial = 0

    # The run key and images are the local backend's: an executor changes neither.
    def settings(self) -> dict[str, Any]:
        return self.inner.settings()

    def prepare(self, task: Task) -> PreparedImage:
        return self.inner.prepare(task)

    def sweep_orphans(self) -> list[str]:
        return self.inner.sweep_orphans()

    def check_tasks(self, tasks: Sequence[Task]) -> None:
        """Before any image is built: each GPU request the tasks declare (``"hardware":
        {"gpus": N}`` in info.json) as its arrays would carry it, through ``sbatch
        --test-only``; a refused one is a `UserError` naming the task."""
        from lmr_author.executors.slurm.check import check_options
        from lmr_author.util.errors import UserError

        limits = self.inner.limits()
        declared: dict[str, str] = {}
        for task in tasks:
            try:
                gres = self._gres(task)
            except InfraError:
                continue  # no --gpu-types type fits: each run says so itself
            if gres is not None and gres != self.gres:  # --gres was checked with the rest
                declared.setdefault(gres, task.name)
        for gres, task_name in declared.items():
            resources = self.options.resources(
                cpus=limits.cpus, memory_mb=limits.memory_mb, timeout_s=limits.timeout_s, gres=gres
            )
            try:
                check_options(self.options, resources, defaults="the defaults")
            except UserError as error:
                raise UserError(
                    f"{error.message} (the GPUs task {task_name} declares in its info.json, "
                    '"hardware")',
                    hint="Give --gres SPEC for a request your cluster takes, --gpu-types to "
                    "name its GPU types, or leave the GPU tasks out (--task).",
                ) from None

    def run(
        self, task: Task, implementation: Implementation, candidate: bytes, image: PreparedImage
    ) -> ImplementationResult:
        [future] = self.start_runs([(task, implementation, candidate, image)])
        return self._wait([future])[0].result()

    def start_runs(self, items: Sequence[RunItem]) -> list[Future[ImplementationResult]]:
        """Every run of ``items`` submitted together (as few arrays as their resources
        allow); each future completes as its result is read back."""
        limits = self.inner.limits()
        pendings: list[Pending] = []
        futures: list[Future[ImplementationResult]] = []
        for task, implementation, candidate, image in items:
            try:
                pending = self._pending(
                    task,
                    implementation,
                    candidate,
                    image.image_id,
                    workdir=image.workdir if isinstance(image, ImageRef) else None,
                    settings=self.settings(),
                    limits=limits,
                    gpus=self.inner.gpus,
                    hf_cache=self.inner.hf_cache,
                )
            except InfraError as error:  # e.g. no --gpu-types type has the memory
                failed: Future[ImplementationResult] = Future()
                failed.set_exception(error)
                futures.append(failed)
                continue
            pendings.append(pending)
            futures.append(pending.future)
        self.poller.add(pendings)
        return futures

    def run_raw(self, runs: Sequence[RunSpec]) -> list[ImplementationResult | BaseException]:
        """``validate``'s runs (`run_tests` on the node), submitted together; in order."""
        prepared: list[Pending | InfraError] = []
        for run in runs:
            try:
                prepared.append(
                    self._pending(
                        run.task,
                        run.impl,
                        run.candidate,
                        run.image.image_id,
                        workdir=run.image.workdir,
                        settings=raw_settings(run.limits, run.protocol, selected_runtime()),
                        limits=run.limits,
                        gpus=run.limits.gpus,
                        hf_cache=run.limits.hf_cache,
                        raw=run,
                    )
                )
            except InfraError as error:  # e.g. no --gpu-types type has the memory
                prepared.append(error)
        pendings = [item for item in prepared if isinstance(item, Pending)]
        self.poller.add(pendings)
        done = iter(self._wait([pending.future for pending in pendings]))
        outcomes: list[ImplementationResult | BaseException] = []
        for item in prepared:
            if isinstance(item, Pending):
                future = next(done)
                failed = future.exception()
                outcomes.append(failed if failed is not None else future.result())
            else:
                outcomes.append(item)
        return outcomes

    def _pending(
        self,
        task: Task,
        implementation: Implementation,
        candidate: bytes | None,
        image_id: str,
        *,
        workdir: str | None = None,
        settings: dict[str, Any],
        limits: Limits,
        gpus: str | None,
        hf_cache: str | None,
        raw: RunSpec | None = None,
    ) -> Pending:
        """Write one run's candidate and request into the shared folder: a scored run
        (the node's backend holds it to the golden counts), or the ``raw`` run as given."""
        gres = self._gres(task)
        if self.poller.cancelled:
            raise RunCancelled
        with self._lock:
            self._serial += 1
            name = f"r{self._serial}"
        runs = self.folder / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        candidate_path = None
        if candidate is not None:
            candidate_path = runs / f"{name}.candidate"
            candidate_path.write_bytes(candidate)
        request = Request(
            task_path=str(task.path),
            implementation=implementation.index,
            candidate_path=None if candidate_path is None else str(candidate_path),
            candidate_sha256=None if candidate is None else sha256(candidate),
            runtime=selected_runtime(),
            base_image=self.inner.base_image,
            timeout_s=self.inner.timeout_s,
            protocol=self.inner.protocol,
            image_id=image_id,
            workdir=workdir,
            settings=settings,
            result_path=str(runs / f"{name}.result.json"),
            gpus=gpus,
            hf_cache=hf_cache,
            images=None if self.images is None else str(self.images),
            registry=self.registry,
        )
        if raw is not None:
            request = dataclasses.replace(request, **raw_request_fields(raw))
        # Under Apptainer an isolated run is two containers with the limit each, and inside
        # a job's cgroup both count against the job (`lmr_author.sandbox.run_cgroup`).
        containers = 2 if request.isolated and current_runtime().runs_from_sif else 1
        resources = self.options.resources(
            cpus=limits.cpus,
            memory_mb=limits.memory_mb * containers,
            timeout_s=limits.timeout_s,
            gres=gres,
        )
        pending = Pending(
            request, runs / f"{name}.request.json", resources, candidate_path, limits.timeout_s
        )
        request.save(pending.request_path)
        return pending

    def _gres(self, task: Task) -> str | None:
        """This task's ``--gres``; says once per task what Slurm is not asked for."""
        hardware = task.hardware
        note = unrequested_memory(hardware, user_gres=self.gres, gpu_types=self.gpu_types)
        if note is not None and self.on_note is not None:
            with self._lock:
                first = task.name not in self._noted
                self._noted.add(task.name)
            if first:
                self.on_note(f"{task.name} {note}")
        return gres_for(hardware, user_gres=self.gres, gpu_types=self.gpu_types)

    def _wait(
        self, futures: list[Future[ImplementationResult]]
    ) -> list[Future[ImplementationResult]]:
        """``futures`` once all are done; an abandoned wait (Ctrl-C, SIGTERM, SIGHUP)
        cancels the jobs before it goes on."""
        try:
            wait(futures)
        except BaseException:
            self.interrupt()
            raise
        return futures

    def interrupt(self) -> None:
        """Cancel every job of this evaluation (scancel); finished runs are kept."""
        self.poller.interrupt()

    def kill_running(self) -> int:
        self.interrupt()
        return 0

    def close(self) -> None:
        self.poller.close()
        self.inner.close()
