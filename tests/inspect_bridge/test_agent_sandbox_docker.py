"""The lmr-author sandbox provider, for real: the agent's container is a test container
kept running (unprivileged user, no network, read-only image, tmpfs workspace), and an
agent driven by Inspect's mock model through it is scored as ``collect`` + ``eval``."""

from __future__ import annotations

import os
import shlex
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.util import SandboxUserUnsupportedError

from lmr_author.domain.benchmark import load_benchmark
from lmr_author.generation.prompt import Setting
from lmr_author.inspect_bridge.samples import agent_samples
from lmr_author.inspect_bridge.sandbox import LmrSandboxConfig, LmrSandboxEnvironment
from lmr_author.inspect_bridge.task import lmr_bench
from lmr_author.runtime import OWNER_LABEL, TASK_LABEL

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"
CORRECT = SAMPLE / "submissions" / "correct" / "01-DPO" / "dpo-numpy" / "dpo" / "losses.py"
#: Prints the errno of a TCP connection attempt to an address outside the container.
NET_PROBE = (
    "import errno, socket\n"
    "s = socket.socket(); s.settimeout(3)\n"
    "try:\n    s.connect(('10.255.255.1', 80)); print('CONNECTED')\n"
    "except OSError as e:\n    print('NET', errno.errorcode.get(e.errno, e.errno))\n"
)


def _ours(docker_client: Any) -> list[Any]:
    """Containers of this process's 01-DPO agents (other workers' are theirs)."""
    found = docker_client.api.containers(all=True, filters={"label": [f"{TASK_LABEL}=01-DPO"]})
    return [c for c in found if (c.get("Labels") or {}).get(OWNER_LABEL) == str(os.getpid())]


def _config(setting: Setting) -> LmrSandboxConfig:
    benchmark = load_benchmark(SAMPLE, ["01-DPO"])
    (sample,) = agent_samples(benchmark, setting, {})
    config = sample.sandbox.config  # type: ignore[union-attr]
    assert isinstance(config, LmrSandboxConfig)
    return config


@asynccontextmanager
async def _sandbox(config: LmrSandboxConfig) -> AsyncIterator[LmrSandboxEnvironment]:
    await LmrSandboxEnvironment.task_init("t", config)
    environments = await LmrSandboxEnvironment.sample_init("t", config, {})
    environment = environments["default"]
    assert isinstance(environment, LmrSandboxEnvironment)
    try:
        yield environment
    finally:
        await LmrSandboxEnvironment.sample_cleanup("t", config, environments, False)


@pytest.fixture
def full_workspace(docker_client: Any) -> Iterator[LmrSandboxConfig]:
    yield _config(Setting.FULL)
    assert _ours(docker_client) == [], "the agent's container outlived its sample"


def test_the_agent_runs_unprivileged_without_network_in_its_workspace(
    full_workspace: LmrSandboxConfig, docker_client: Any
) -> None:
    async def check() -> None:
        async with _sandbox(full_workspace) as box:
            assert (await box.exec(["id", "-u"])).stdout.strip() == "65534"
            probe = await box.exec(["python3", "-c", NET_PROBE])
            assert probe.stdout.strip() == "NET ENETUNREACH", probe
            interfaces = await box.exec(["ls", "/sys/class/net"])
            assert interfaces.stdout.split() == ["lo"]
            with pytest.raises(SandboxUserUnsupportedError):
                await box.exec(["id"], user="root")
            denied = await box.exec(["sh", "-c", "touch /usr/lib/x || echo DENIED"])
            assert "DENIED" in denied.stdout
            listing = await box.exec(["ls"])
            assert sorted(listing.stdout.split()) == ["INSTRUCTION.md", "dpo-numpy", "paper.pdf"]
            # The agent's own folder, where its commands start, and stdin that reaches them.
            assert (await box.exec(["pwd"])).stdout.strip() == "/workspace"
            fed = await box.exec(["python3", "-"], input="print(6 * 7)")
            assert fed.stdout.strip() == "42"
            await box.write_file("notes/a.txt", "hello\r\n")
            assert await box.read_file("notes/a.txt") == "hello\r\n"
            await box.exec(["ln", "-s", "/etc/passwd", "link"])
            with pytest.raises(FileNotFoundError):
                await box.read_file("link")
            with pytest.raises(TimeoutError):
                await box.exec(["sleep", "60"], timeout=2)
            assert _ours(docker_client) != []

    anyio.run(check)


def test_a_setting_without_the_repository_hides_the_image_copy_too(docker_client: Any) -> None:
    config = _config(Setting.PAPER_ONLY)

    async def check() -> None:
        async with _sandbox(config) as box:
            listing = await box.exec(["sh", "-c", "ls -A /workspace; ls -A /workspace/*/ || :"])
            assert sorted(listing.stdout.split()) == ["INSTRUCTION.md", "paper.pdf"]

    anyio.run(check)
    assert _ours(docker_client) == []


def _agent_steps() -> Any:
    """The mock agent: looks around, writes the correct function with the python tool,
    then submits."""
    code = f"open('dpo-numpy/dpo/losses.py', 'w').write({CORRECT.read_text()!r})"
    steps = [
        ("bash", {"command": f"id -u; python3 -c {shlex.quote(NET_PROBE)}"}),
        ("python", {"code": code}),
        ("submit", {"answer": "done"}),
    ]

    def answer(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        turn = sum(1 for message in messages if message.role == "assistant")
        name, arguments = steps[min(turn, len(steps) - 1)]
        output = ModelOutput.for_tool_call("mockllm/model", name, arguments)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return answer


def test_an_agent_in_the_sandbox_is_scored_as_collect_and_eval_score_it(
    tmp_path: Path, docker_client: Any
) -> None:
    task = lmr_bench(
        benchmark=str(SAMPLE),
        solver="agent",
        tasks="01-DPO",
        system="mock-agent",
        output=str(tmp_path / "runs"),
        timeout=60,
    )
    model = get_model("mockllm/model", custom_outputs=_agent_steps(), memoize=False)
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    tools = [m.text for m in sample.messages if m.role == "tool"]
    assert "65534" in tools[0].split() and "NET ENETUNREACH" in tools[0]
    score = sample.scores["lmr_verdict"]  # type: ignore[index]
    run = score.metadata["lmr_run"]  # type: ignore[index]
    assert (score.value, run["verdict"], run["system"]) == ("C", "pass", "mock-agent")
    assert (tmp_path / "runs" / "runs" / "mock-agent" / "01-DPO" / "1" / "run.json").is_file()
    assert _ours(docker_client) == []
