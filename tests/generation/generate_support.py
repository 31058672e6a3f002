"""A local OpenAI-compatible server that answers the generation prompt like a model would."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.openai_server import RecordedRequest, Reply

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"

_NAMED = re.compile(r"implement only the function/method named (\w+)")


def correct_sources() -> dict[str, str]:
    """goal function -> the sample `correct` system's source of it."""
    by_function: dict[str, str] = {}
    for line in (SAMPLE / "submissions" / "predictions.jsonl").read_text().splitlines():
        data = json.loads(line)
        if data["system"] != "correct":
            continue
        info = json.loads((SAMPLE / data["task"] / "info.json").read_text())
        impl = info["implementations"][data["implementation"] - 1]
        by_function[impl["goal_function"]] = data["source"]
    return by_function


def answering(sources: dict[str, str], *, fenced: bool = True):  # type: ignore[no-untyped-def]
    """A server default: the correct function for the name the prompt asks for."""

    def reply(request: RecordedRequest) -> Reply:
        name = _NAMED.search(request.prompt)
        source = sources[name.group(1)] if name else "no idea"
        text = f"```python\n{source}```" if fenced else source
        return Reply(content=text, usage={"prompt_tokens": 1000, "completion_tokens": 50})

    return reply
