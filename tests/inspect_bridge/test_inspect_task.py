"""The Inspect task without an engine: its samples are generate's prompts and prepare's
workspaces, the mock model replays a predictions file exactly, names and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match

from lmr_author.cli import main
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.eval_loop import read_predictions
from lmr_author.generation.prompt import Setting
from lmr_author.generation.runner import GenerateConfig, plan_generation
from lmr_author.inspect_bridge.logs import write_eval_output
from lmr_author.inspect_bridge.replay import replay_model, replay_system
from lmr_author.inspect_bridge.samples import ItemMeta, agent_samples, prompting_samples
from lmr_author.inspect_bridge.sandbox import LmrSandboxConfig
from lmr_author.inspect_bridge.scorer import system_name
from lmr_author.inspect_bridge.task import lmr_bench
from lmr_author.util.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"
PREDICTIONS = SAMPLE / "submissions" / "predictions.jsonl"


@pytest.mark.parametrize("setting", list(Setting))
def test_prompting_samples_are_the_prompts_generate_sends(setting: Setting, tmp_path: Path) -> None:
    benchmark = load_benchmark(SAMPLE)
    samples = prompting_samples(benchmark, setting, 120_000)
    config = GenerateConfig.of(model="m", api_key="k", setting=setting)
    plan = plan_generation(benchmark.tasks, config, tmp_path / "p.jsonl")
    expected = {r.item: r.prompt.text for r in plan.requests}
    assert {str(s.id): s.input for s in samples} == expected
    assert len(samples) == sum(len(t.implementations) for t in benchmark.tasks)


def test_a_small_budget_cuts_the_prompt_as_generate_does() -> None:
    benchmark = load_benchmark(SAMPLE, ["01-DPO"])
    (full,) = prompting_samples(benchmark, Setting.FULL, None)
    (cut,) = prompting_samples(benchmark, Setting.FULL, 2000)
    assert len(str(cut.input)) < len(str(full.input))
    assert cut.metadata and cut.metadata["truncations"]


def test_agent_samples_are_prepared_workspaces_with_their_instruction() -> None:
    benchmark = load_benchmark(SAMPLE, ["01-DPO", "02-BLEU"])
    samples = agent_samples(benchmark, Setting.PAPER_AND_GOAL_FILE, {"memory_mb": 512})
    assert [s.id for s in samples] == [
        f"{t.name}#{i.index}" for t in benchmark.tasks for i in t.implementations
    ]
    for sample in samples:
        config = sample.sandbox.config  # type: ignore[union-attr]
        assert isinstance(config, LmrSandboxConfig) and config.memory_mb == 512
        root = Path(config.workspace)
        instruction = (root / "INSTRUCTION.md").read_text(encoding="utf-8")
        assert instruction in str(sample.input)
        meta = ItemMeta.of(sample.metadata or {})
        entry = meta.entry()
        # paper-and-goal-file: the goal file and nothing else of the repository.
        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        assert files == sorted(["INSTRUCTION.md", "paper.pdf", entry.goal_file])


def test_replay_answers_each_prompt_with_the_systems_prediction() -> None:
    benchmark = load_benchmark(SAMPLE)
    samples = prompting_samples(benchmark, Setting.FULL, 120_000)
    model = replay_model(PREDICTIONS, "wrong-logic", samples)
    wanted = {
        f"{p.task}#{p.implementation}": p.source
        for p in read_predictions(PREDICTIONS)
        if p.system == "wrong-logic"
    }

    async def answers() -> dict[str, str]:
        found = {}
        for sample in reversed(samples):  # any order: answers follow the prompt
            output = await model.generate([ChatMessageUser(content=str(sample.input))])
            found[str(sample.id)] = output.completion
        return found

    assert anyio.run(answers) == wanted


def test_replay_needs_one_system_named() -> None:
    assert replay_system(PREDICTIONS, "correct") == "correct"
    with pytest.raises(UserError, match="correct, subtle-bug, wrong-logic"):
        replay_system(PREDICTIONS, None)
    with pytest.raises(UserError, match="not 'nobody'"):
        replay_system(PREDICTIONS, "nobody")


def test_system_names_follow_generate_and_its_samples() -> None:
    def state(model: str, epoch: int) -> Any:
        return SimpleNamespace(model=model, epoch=epoch)

    assert system_name(state("openai/gpt-4o", 1), None, 1) == "openai_gpt-4o"
    assert system_name(state("openai/gpt-4o", 1), "mine", 1) == "mine"
    assert system_name(state("m", 1), "mine", 3) == "mine+s1"
    assert system_name(state("m", 2), "mine", 1) == "mine+s2"  # --epochs on the CLI
    with pytest.raises(UserError, match="path-safe"):
        system_name(state("m", 1), "../x", 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"solver": "chain"}, "unknown solver"),
        ({"setting": "paper"}, "unknown setting"),
        ({"solver": "agent", "replay": str(PREDICTIONS)}, "prompting only"),
        ({"tasks": "99-None"}, "99-None"),
    ],
)
def test_bad_task_arguments_are_user_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(UserError, match=message):
        lmr_bench(benchmark=str(SAMPLE), **args)


def _other_log(tmp_path: Path) -> Path:
    """A real Inspect log of a task that is not lmr_bench."""

    def answer(*_: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="x")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    task = Task(dataset=[Sample(input="q", target="x")], scorer=match())
    model = get_model("mockllm/model", custom_outputs=answer, memoize=False)
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    return Path(log.location)


def test_logs_of_other_tasks_and_other_files_are_user_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(UserError, match="no lmr-author runs"):
        write_eval_output(_other_log(tmp_path), tmp_path / "out")
    bogus = tmp_path / "results.json"
    bogus.write_text(json.dumps({"runs": []}))
    with pytest.raises(UserError, match="not a readable Inspect log"):
        write_eval_output(bogus, tmp_path / "out2")
    assert main(["report", str(bogus), "--no-human"]) == 2
    assert "not a readable Inspect log" in capsys.readouterr().err
