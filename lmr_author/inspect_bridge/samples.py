"""The dataset of an LMR-style benchmark in Inspect: one sample per implementation.

A prompting sample's input is the appendix-D prompt `lmr-author generate` sends
(`lmr_author.generation.prompt`, same setting, same token budget and cuts). An agent
sample's input is the workspace's ``INSTRUCTION.md``, and its sandbox is the
``lmr-author`` provider configured with the workspace `lmr-author prepare` writes
(`lmr_author.workspaces.prepare`, into a folder that lives as long as the process).
An implementation whose prompt or workspace cannot be made is left out with a warning,
as ``generate`` and ``prepare`` leave it out.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.util import SandboxEnvironmentSpec

from lmr_author.domain.benchmark import Benchmark
from lmr_author.domain.task import Implementation, Task
from lmr_author.generation.prompt import Setting, build_prompt, load_inputs
from lmr_author.inspect_bridge.container import WORKSPACE
from lmr_author.inspect_bridge.sandbox import PROVIDER, LmrSandboxConfig
from lmr_author.util.errors import UserError
from lmr_author.workspaces.manifest import INSTRUCTION_FILE, WorkspaceEntry

logger = logging.getLogger(__name__)

#: Prepared workspaces of this process's agent tasks, removed when it exits.
_PREPARED: list[tempfile.TemporaryDirectory[str]] = []


@dataclass(frozen=True)
class ItemMeta:
    """What a scorer needs to know about a sample (kept in the sample's metadata)."""

    task_dir: str
    task: str
    implementation: int
    setting: str
    workspace: dict[str, Any] | None = None  # the WorkspaceEntry of an agent sample

    def to_json(self) -> dict[str, Any]:
        return {
            "task_dir": self.task_dir,
            "task": self.task,
            "implementation": self.implementation,
            "setting": self.setting,
            "workspace": self.workspace,
        }

    @classmethod
    def of(cls, metadata: dict[str, Any]) -> ItemMeta:
        return cls(
            task_dir=str(metadata["task_dir"]),
            task=str(metadata["task"]),
            implementation=int(metadata["implementation"]),
            setting=str(metadata["setting"]),
            workspace=metadata.get("workspace"),
        )

    def entry(self) -> WorkspaceEntry:
        data = dict(self.workspace or {})
        return WorkspaceEntry(**{**data, "files": dict(data.get("files", {}))})


def sample_id(task: Task, impl: Implementation) -> str:
    """``01-DPO#1``: the item as `lmr-author` names it everywhere."""
    return f"{task.name}#{impl.index}"


def prompting_samples(
    benchmark: Benchmark, setting: Setting, max_prompt_tokens: int | None
) -> list[Sample]:
    """One sample per implementation, its input the prompt `generate` would send."""
    samples: list[Sample] = []
    for task in benchmark.tasks:
        for impl in task.implementations:
            try:
                inputs = load_inputs(task, impl)
                prompt = build_prompt(inputs, setting, max_tokens=max_prompt_tokens)
            except UserError as error:
                logger.warning("%s left out: %s", sample_id(task, impl), error.render())
                continue
            meta = ItemMeta(str(task.path), task.name, impl.index, str(setting))
            samples.append(
                Sample(
                    id=sample_id(task, impl),
                    input=prompt.text,
                    metadata={
                        **meta.to_json(),
                        "category": impl.category,
                        "truncations": [cut.describe() for cut in prompt.truncations],
                    },
                )
            )
    return samples


def agent_samples(benchmark: Benchmark, setting: Setting, sandbox: dict[str, Any]) -> list[Sample]:
    """One sample per implementation, in the workspace `prepare` writes for it.

    ``sandbox`` holds the limits of `LmrSandboxConfig` (base image, memory, ...).
    """
    from lmr_author.workspaces.prepare import prepare_workspaces

    folder = tempfile.TemporaryDirectory(prefix="lmr-inspect-workspaces-")
    _PREPARED.append(folder)
    manifest = prepare_workspaces(
        benchmark.tasks,
        setting,
        Path(folder.name) / "prepared",
        benchmark=benchmark.path,
        on_skipped=lambda line: logger.warning("left out: %s", line),
    )
    by_name = {task.name: task for task in benchmark.tasks}
    samples: list[Sample] = []
    for entry in manifest.workspaces:
        task = by_name[entry.task]
        impl = task.implementation(entry.implementation)
        root = Path(folder.name) / "prepared" / entry.path
        instruction = (root / INSTRUCTION_FILE).read_text(encoding="utf-8")
        meta = ItemMeta(str(task.path), task.name, impl.index, str(setting), entry.to_json())
        config = LmrSandboxConfig(task_dir=str(task.path), workspace=str(root), **sandbox)
        samples.append(
            Sample(
                id=sample_id(task, impl),
                input=f"Your workspace is {WORKSPACE} (the current folder of every command); "
                f"it holds {INSTRUCTION_FILE}, which says:\n\n{instruction}",
                metadata={**meta.to_json(), "category": impl.category},
                sandbox=SandboxEnvironmentSpec(type=PROVIDER, config=config),
            )
        )
    return samples
