"""Inspect's mock model answering with a predictions file's functions (no endpoint needed).

``-T replay=PREDICTIONS.jsonl`` gives the task Inspect's ``mockllm/model`` whose answer
to each prompt is the ``source`` that one system's line of the file holds for that
prompt's implementation, byte for byte, so `lmr-author eval` of the same file and the
Inspect eval score the very same candidates. An implementation without a line gets an
empty answer (which cannot be spliced: a failure, as ``eval`` counts a missing one).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

from lmr_author.eval_loop import read_predictions
from lmr_author.util.errors import UserError


def replay_system(path: Path, system: str | None) -> str:
    """The system to replay: ``system``, or the file's only one."""
    systems = list(dict.fromkeys(p.system for p in read_predictions(path)))
    if system is None and len(systems) == 1:
        return systems[0]
    if system in systems:
        return system
    raise UserError(
        f"the predictions file holds the systems {', '.join(systems)}"
        + ("" if system is None else f", not {system!r}"),
        file=path,
        hint="Choose one with -T system=NAME (one Inspect eval scores one system).",
    )


def replay_model(path: Path, system: str, samples: Sequence[Sample]) -> Model:
    """``mockllm/model`` answering each sample's prompt with ``system``'s prediction."""
    by_item = {
        (p.task, p.implementation): p.source for p in read_predictions(path) if p.system == system
    }
    answers: dict[str, str] = {}
    for sample in samples:
        meta = sample.metadata or {}
        answers[str(sample.input)] = by_item.get(
            (str(meta.get("task")), int(meta.get("implementation", 0))), ""
        )

    def answer(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        content = answers.get(messages[-1].text, "") if messages else ""
        output = ModelOutput.from_content(model="mockllm/model", content=content)
        # Counted here: the mock model would otherwise fetch a tokenizer from the network.
        tokens = len(content) // 4
        output.usage = ModelUsage(input_tokens=0, output_tokens=tokens, total_tokens=tokens)
        return output

    return get_model("mockllm/model", custom_outputs=answer, memoize=False)
