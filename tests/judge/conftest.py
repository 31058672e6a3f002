"""Fixtures of the judge tests: a real local chat-completions server and configs for it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_ROOT = Path(__file__).resolve().parents[2]
if str(_ROOT) not in sys.path:  # so that `tests.support` imports under plain `pytest`
    sys.path.insert(0, str(_ROOT))

from lmr_author.judge.config import JudgeConfig  # noqa: E402
from tests.support.openai_server import OpenAIServer  # noqa: E402


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def make_config(server: OpenAIServer) -> Callable[..., JudgeConfig]:
    """A JudgeConfig pointing at the test server, with fast back-off."""

    def make(**overrides: Any) -> JudgeConfig:
        options: dict[str, Any] = {
            "api_key": "test-key",
            "base_url": server.base_url,
            "model": "judge-model",
            "concurrency": 4,
            "timeout_s": 5.0,
            "max_attempts": 3,
            "backoff_initial_s": 0.01,
            "backoff_max_s": 0.05,
        }
        options.update(overrides)
        return JudgeConfig.of(**options)

    return make
