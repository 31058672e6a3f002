"""The judge's chat client: `lmr_author.llm.ChatClient` asking for the judgment shape.

Retries, back-off, the circuit breaker, token counts and error wording are the shared
client's (``lmr_author/llm``); this module adds only what the judge asks for: the
structured-output schema of a judgment, used unless the config turns it off.
"""

from __future__ import annotations

from typing import Any

from lmr_author.judge.config import JudgeConfig
from lmr_author.llm.client import ChatClient, Completion, LLMError, LLMFatalError, ServiceDown
from lmr_author.llm.usage import Usage

__all__ = [
    "ANSWER_SCHEMA",
    "RESPONSE_FORMAT",
    "Completion",
    "JudgeClient",
    "JudgeFatalError",
    "JudgeRequestError",
    "ServiceDown",
    "Usage",
]

#: The answer shape asked for when the server supports structured output.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "category": {"type": "integer", "enum": [1, 2, 3]},
        "rationale": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["category", "rationale"],
    "additionalProperties": False,
}
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "judgment", "strict": True, "schema": ANSWER_SCHEMA},
}

#: The judge's names for the shared client's errors.
JudgeRequestError = LLMError
JudgeFatalError = LLMFatalError


class JudgeClient(ChatClient):
    """A `ChatClient` configured from a `JudgeConfig`, asking for structured judgments."""

    def __init__(self, config: JudgeConfig) -> None:
        super().__init__(config.llm)
        self.config = config
        self.structured_ok = config.structured

    def complete(  # type: ignore[override]
        self, messages: list[dict[str, str]]
    ) -> Completion:
        """Ask once (with retries) for a judgment; see `ChatClient.complete`."""
        return super().complete(messages, response_format=RESPONSE_FORMAT)
