"""The seam between the evaluation loop and the Docker sandbox.

`run_evaluation` talks to a `Backend`: build (or find) a task's image once, then run one
candidate's unit tests in it. `DockerBackend` is the real one, built on
`lmr_author.sandbox`; tests of the pool, resume and results logic pass their own backend
(dependency injection, not patching), and the Docker tests use the real one.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from lmr_author.domain.task import Implementation, Task

if TYPE_CHECKING:
    from lmr_author.sandbox.limits import Limits


class RunCancelled(Exception):
    """A run the backend cancelled (Ctrl-C on a cluster): not written, runs again on resume."""


class TestFileResult(Protocol):
    """The verdict of one unit test file (`lmr_author.sandbox.runner.TestVerdict`)."""

    @property
    def test_file(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def log(self) -> str: ...
    @property
    def legacy_log(self) -> str | None: ...
    @property
    def protocol(self) -> str: ...


class ImplementationResult(Protocol):
    """One implementation's test run (`lmr_author.sandbox.runner.ImplementationRun`)."""

    @property
    def verdicts(self) -> Sequence[TestFileResult]: ...
    @property
    def infra_error(self) -> object: ...
    @property
    def isolated(self) -> bool: ...
    @property
    def not_isolated_why(self) -> str: ...


class PreparedImage(Protocol):
    """A task's image, ready to run candidates (`lmr_author.images.task_images.ImageRef`)."""

    @property
    def image_id(self) -> str: ...


class Backend(Protocol):
    """Builds task images and runs candidates; exceptions are infrastructure failures."""

    def settings(self) -> dict[str, Any]:
        """What, besides the candidate and the image, decides a verdict (part of run keys)."""
        ...

    def prepare(self, task: Task) -> PreparedImage:
        """The task's image, built if needed; raise when it cannot be had."""
        ...

    def run(
        self, task: Task, implementation: Implementation, candidate: bytes, image: PreparedImage
    ) -> ImplementationResult:
        """Run ``implementation``'s unit tests with ``candidate`` as the goal file."""
        ...


class DockerBackend:
    """The real backend: `lmr_author.sandbox` images and runner against a Docker engine."""

    def __init__(
        self,
        *,
        base_image: str | None = None,
        timeout_s: float | None = None,
        rebuild: bool = False,
        protocol: str = "auto",
        gpus: str | None = None,
        hf_cache: str | None = None,
        client: Any = None,
    ) -> None:
        """``gpus`` and ``hf_cache`` (the hub folder): see `lmr_author.sandbox.provisions`."""
        self.base_image = base_image
        self.gpus = gpus
        self.hf_cache = hf_cache
        self.timeout_s = timeout_s
        self.rebuild = rebuild
        self.protocol = protocol
        self._client = client
        self._lock = threading.Lock()
        self._limits: Limits | None = None

    def client(self) -> Any:
        """One engine client shared by all workers (created on first use)."""
        with self._lock:
            if self._client is None:
                from lmr_author.runtime.engine import get_client

                self._client = get_client()
            return self._client

    def run_client(self) -> Any:
        """The client runs use: none under Apptainer unless one exists already (a node
        may run cached SIFs without any engine; the runner makes one if it must)."""
        from lmr_author.runtime.engine import current_runtime

        if current_runtime().runs_from_sif:
            with self._lock:
                return self._client
        return self.client()

    def limits(self) -> Limits:
        if self._limits is None:
            from lmr_author.sandbox.limits import Limits

            limits = Limits(gpus=self.gpus, hf_cache=self.hf_cache)
            if self.timeout_s is not None:
                limits = dataclasses.replace(limits, timeout_s=float(self.timeout_s))
            self._limits = limits
        return self._limits

    def settings(self) -> dict[str, Any]:
        from lmr_author.runtime.engine import current_runtime
        from lmr_author.sandbox import harness, provisions

        limits = dataclasses.asdict(self.limits())
        # Absent unless given, so that run keys made before they existed stay valid.
        given = provisions.settings(limits.pop("gpus"), limits.pop("hf_cache"))
        settings: dict[str, Any] = {
            "protocol": self.protocol,
            "limits": limits,
            "harness": harness.version(),
            **given,
            **current_runtime().settings(),
        }
        return settings

    def prepare(self, task: Task) -> PreparedImage:
        """The task's image; a preparation that failed because the engine stopped
        answering is tried once more when it answers again (`await_engine`)."""
        try:
            return self._prepare(task)
        except Exception:  # the engine's silence shows as InfraError or the SDK's own
            if not self._engine_came_back():
                raise
        return self._prepare(task)

    def _engine_came_back(self) -> bool:
        """After a failure: True when the engine was silent and answers again within
        the back-off window; False when it answers at once (the failure was not its
        silence) or stays silent."""
        from lmr_author.runtime import reachability

        with self._lock:
            client = self._client
        if client is None or reachability.await_engine(client, window_s=0.0, fresh=True):
            return False
        return reachability.await_engine(client, fresh=True)

    def _prepare(self, task: Task) -> PreparedImage:
        from lmr_author.images.task_images import ensure_image
        from lmr_author.runtime.engine import current_runtime

        image: PreparedImage = ensure_image(
            task, client=self.client(), base_image=self.base_image, rebuild=self.rebuild
        )
        if current_runtime().runs_from_sif:
            from lmr_author.images.task_images import ImageRef
            from lmr_author.sandbox.apptainer_run import sif_of

            if isinstance(image, ImageRef):
                sif_of(image)  # once, before any run (and any Slurm job)
        return image

    def run(
        self, task: Task, implementation: Implementation, candidate: bytes, image: PreparedImage
    ) -> ImplementationResult:
        from lmr_author.images.task_images import ImageRef
        from lmr_author.sandbox.golden import run_against_golden_counts
        from lmr_author.sandbox.run_spec import RunSpec
        from lmr_author.sandbox.runner import LocalRunner

        if not isinstance(image, ImageRef):
            raise TypeError(f"DockerBackend runs images it prepared, not {image!r}")
        spec = RunSpec(
            task, implementation, candidate, image, self.limits(), protocol=self.protocol
        )
        runner = LocalRunner(self.run_client())
        outcome: ImplementationResult = run_against_golden_counts(spec, runner)
        return outcome

    def sweep_orphans(self) -> list[str]:
        """Remove the run containers of evaluations that died; their names.

        An unreachable engine removes nothing here: each run then says so itself.
        """
        from lmr_author.runtime.infra_error import InfraError
        from lmr_author.sandbox.housekeeping import remove_orphans

        try:
            return remove_orphans(client=self.client()).removed
        except InfraError:
            return []

    def kill_running(self) -> int:
        """Kill this process's run containers at once (a second Ctrl-C)."""
        from lmr_author.sandbox.housekeeping import kill_own_runs

        return kill_own_runs(client=self.client())

    def close(self) -> None:
        """Remove what the engine kept from us mid-run (it stalled or dropped the
        connection: `container_life.remove_lost`), then close the client."""
        from lmr_author.sandbox.container_life import remove_lost

        with self._lock:
            if self._client is not None:
                remove_lost(self._client)
                self._client.close()
                self._client = None
