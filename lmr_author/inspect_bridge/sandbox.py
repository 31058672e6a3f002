"""The ``lmr-author`` sandbox provider of Inspect: an agent works inside the task's image.

Inspect's own ``docker`` provider runs compose projects with the image's user and
network; this one runs lmr-author's container instead (`lmr_author.inspect_bridge.
container`): the task's image built by `lmr_author.images.task_images`, the test limits
(`lmr_author.sandbox.limits.Limits`), the unprivileged user, no network, tmpfs
scratch, run labels for orphan removal. A command asked to run as any other user is
refused (`SandboxUserUnsupportedError`), root included. Each sample's configuration
names its task folder and its prepared workspace (`lmr_author.workspaces.prepare`),
which is copied into ``/workspace`` at the start.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Literal, overload

import anyio
from inspect_ai.util import (
    ExecResult,
    OutputLimitExceededError,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from pydantic import BaseModel

from lmr_author.inspect_bridge.container import (
    AGENT_USERS,
    AgentContainer,
    AgentLimits,
    max_exec_output,
    workspace_archive,
)
from lmr_author.sandbox.limits import Limits

PROVIDER = "lmr-author"
#: Inspect's default cap on what `read_file` returns.
MAX_READ_BYTES = 100 << 20


class LmrSandboxConfig(BaseModel, frozen=True):
    """One sample's sandbox: its task, its prepared workspace and the limits."""

    task_dir: str
    workspace: str
    base_image: str | None = None
    memory_mb: int = Limits.memory_mb
    cpus: float = Limits.cpus
    pids: int = Limits.pids
    workspace_mb: int = AgentLimits.workspace_mb
    lifetime_s: float = AgentLimits.lifetime_s

    def limits(self) -> AgentLimits:
        base = Limits(memory_mb=self.memory_mb, cpus=self.cpus, pids=self.pids, network=False)
        return AgentLimits(base, workspace_mb=self.workspace_mb, lifetime_s=self.lifetime_s)


_client_lock = threading.Lock()
_client: Any = None


def _engine() -> Any:
    """One engine client for the process (the runtime `lmr-author` selected: docker or
    podman; Apptainer has no engine to keep a container in)."""
    global _client
    from lmr_author.runtime.engine import current_runtime, get_client
    from lmr_author.util.errors import UserError

    if current_runtime().runs_from_sif:
        raise UserError(
            "the lmr-author sandbox of Inspect needs a container engine (docker or podman)",
            hint="Run the agent solver with --runtime docker or podman.",
        )
    with _client_lock:
        if _client is None:
            _client = get_client()
        return _client


def _config(config: SandboxEnvironmentConfigType | None) -> LmrSandboxConfig:
    if isinstance(config, LmrSandboxConfig):
        return config
    raise ValueError(
        "the lmr-author sandbox is configured per sample by the lmr_author/lmr_bench task "
        f"(got {config!r}); use that task, or give an LmrSandboxConfig"
    )


def _image(config: LmrSandboxConfig) -> Any:
    from lmr_author.domain.task import load_task
    from lmr_author.images.task_images import ensure_image

    task = load_task(Path(config.task_dir))
    return ensure_image(task, client=_engine(), base_image=config.base_image)


@sandboxenv(name=PROVIDER)
class LmrSandboxEnvironment(SandboxEnvironment):
    """One agent container of one sample."""

    def __init__(self, container: AgentContainer) -> None:
        super().__init__()
        self.container = container

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return LmrSandboxConfig(**config)

    @classmethod
    def default_concurrency(cls) -> int | None:
        import os

        return max(1, os.cpu_count() or 1)

    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        # Build (or find) the task's image before the first sample needs it.
        await anyio.to_thread.run_sync(_image, _config(config))

    @classmethod
    async def sample_init(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        metadata: dict[str, str],
    ) -> dict[str, SandboxEnvironment]:
        chosen = _config(config)

        def start() -> AgentContainer:
            image = _image(chosen)
            name = Path(chosen.task_dir).name
            container = AgentContainer(_engine(), name, image, chosen.limits())
            try:
                container.unpack(workspace_archive(Path(chosen.workspace)))
            except BaseException:
                container.close()
                raise
            return container

        container = await anyio.to_thread.run_sync(start)
        return {"default": cls(container)}

    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for environment in environments.values():
            if isinstance(environment, LmrSandboxEnvironment):
                await anyio.to_thread.run_sync(environment.container.close)

    @classmethod
    async def cli_cleanup(cls, id: str | None) -> None:
        """``inspect sandbox cleanup lmr-author``: the containers of dead evaluations."""
        from lmr_author.sandbox.housekeeping import remove_orphans

        await anyio.to_thread.run_sync(lambda: remove_orphans(client=_engine()))

    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        if user not in AGENT_USERS:
            raise SandboxUserUnsupportedError(
                f"the lmr-author sandbox runs every command as its unprivileged user, "
                f"not as {user!r}"
            )
        stdin = input.encode("utf-8") if isinstance(input, str) else input

        def run() -> Any:
            return self.container.run(
                cmd, stdin=stdin, cwd=cwd, env=env, timeout_s=timeout, cap=max_exec_output()
            )

        done = await anyio.to_thread.run_sync(run)
        if done.timed_out:
            raise TimeoutError(f"the command did not finish within {timeout} s")
        return ExecResult(
            success=done.returncode == 0,
            returncode=done.returncode,
            stdout=done.stdout.decode("utf-8", "replace"),
            stderr=done.stderr.decode("utf-8", "replace"),
        )

    async def write_file(self, file: str, contents: str | bytes) -> None:
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        await anyio.to_thread.run_sync(self.container.write, file, data)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        try:
            data = await anyio.to_thread.run_sync(
                lambda: self.container.read(file, cap=MAX_READ_BYTES)
            )
        except OverflowError:
            raise OutputLimitExceededError(f"{MAX_READ_BYTES >> 20} MiB", None) from None
        # newline="" semantics: the bytes are decoded as they are, CRLF kept.
        return data.decode("utf-8") if text else data
