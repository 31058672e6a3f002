"""One chat-completions request, with retries, back-off, a time-out and token counts.

The official ``openai`` client does the HTTP; its own retries are switched off
(``max_retries=0``) so that every retry is decided and counted here, by ``tenacity``:
exponential back-off (honouring ``Retry-After``) on rate limits (429), server errors
(5xx), time-outs and dropped connections. Structured output (``response_format`` with a
JSON schema) is asked for first; a server that rejects it with 400 is asked in plain text
from then on.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from lmr_author.judge.config import JudgeConfig

if TYPE_CHECKING:
    from openai import OpenAI

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


@dataclass(frozen=True)
class Usage:
    """Token counts as the server reported them (zeros when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )

    def to_json(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        if not isinstance(data, dict):
            return cls()

        def number(key: str) -> int:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        return cls(number("prompt_tokens"), number("completion_tokens"), number("total_tokens"))


@dataclass(frozen=True)
class Completion:
    """The assistant's text and what it cost."""

    text: str
    usage: Usage
    structured: bool


class JudgeRequestError(Exception):
    """The server kept failing (or refused the request); the judgment records why."""


class JudgeFatalError(JudgeRequestError):
    """A failure no other request would escape (bad key, unknown model): stop the batch."""


def _status(error: BaseException) -> int | None:
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(error: BaseException) -> bool:
    """Worth asking again: 408, 409, 429, 5xx, time-outs and connection failures."""
    from openai import APIConnectionError, APIStatusError

    if isinstance(error, APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, APIStatusError):
        status = error.status_code
        return status in (408, 409, 429) or status >= 500
    return False


class _BackOff:
    """Exponential back-off, or the server's ``Retry-After`` when it asks for longer."""

    def __init__(self, initial: float, maximum: float) -> None:
        self.maximum = maximum
        self.exponential = wait_exponential(multiplier=initial, min=initial, max=maximum)

    def __call__(self, state: RetryCallState) -> float:
        wait = float(self.exponential(state))
        outcome = state.outcome
        error = outcome.exception() if outcome is not None else None
        response = getattr(error, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            with contextlib.suppress(ValueError):
                wait = max(wait, min(float(header), self.maximum))
        return wait


class JudgeClient:
    """A thread-safe chat client for the judge: at most ``config.concurrency`` requests in
    flight at once, every HTTP request and retry counted."""

    def __init__(self, config: JudgeConfig) -> None:
        from openai import OpenAI

        self.config = config
        self._openai: OpenAI = OpenAI(
            api_key=config.api_key,
            base_url=config.base_url,
            max_retries=0,
            timeout=config.timeout_s,
        )
        self.structured = config.structured
        #: Bounds the requests in flight; held only while a request is on the wire, so
        #: prompt building, file writes and back-off sleeps never keep a slot.
        self._slots = threading.BoundedSemaphore(config.concurrency)
        self._lock = threading.Lock()
        #: Set by the first fatal answer; later requests are not sent at all.
        self.fatal: str | None = None
        self.requests = 0
        self.retries = 0

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the client's default when none was given)."""
        return str(self._openai.base_url).rstrip("/")

    def close(self) -> None:
        self._openai.close()

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """Ask once (with retries); raise `JudgeRequestError` when the server never answers."""
        from openai import APIStatusError, OpenAIError

        retrying = Retrying(
            stop=stop_after_attempt(self.config.max_attempts),
            wait=_BackOff(self.config.backoff_initial_s, self.config.backoff_max_s),
            retry=retry_if_exception(is_transient),
            before_sleep=self._count_retry,
            reraise=True,
        )
        try:
            completion: Completion = retrying(self._request, messages)
            return completion
        except APIStatusError as error:
            message = _error_message(error)
            if error.status_code in (401, 403, 404):
                self.fatal = message
                raise JudgeFatalError(message) from error
            raise JudgeRequestError(message) from error
        except OpenAIError as error:
            raise JudgeRequestError(_error_message(error)) from error

    def _count_retry(self, _state: RetryCallState) -> None:
        with self._lock:
            self.retries += 1

    def _request(self, messages: list[dict[str, str]]) -> Completion:
        from openai import BadRequestError

        structured = self.structured
        try:
            return self._post(messages, structured)
        except BadRequestError:
            if not structured:
                raise
        # Maybe the server does not know response_format: ask in plain text. Only if that
        # works is structured output given up for good (a 400 for a prompt that is too
        # long would fail both ways, and says nothing about response_format).
        completion = self._post(messages, False)
        self.structured = False
        return completion

    def _post(self, messages: list[dict[str, str]], structured: bool) -> Completion:
        kwargs: dict[str, Any] = dict(self.config.parameters())
        if structured:
            kwargs["response_format"] = RESPONSE_FORMAT
        with self._slots:
            if self.fatal is not None:
                raise JudgeFatalError(self.fatal)
            with self._lock:
                self.requests += 1
            response: Any = self._openai.chat.completions.create(
                model=self.config.model,
                messages=messages,  # type: ignore[arg-type]
                **kwargs,
            )
        if isinstance(response, str):  # a server that answered 200 with a non-JSON body
            return Completion(text=response, usage=Usage(), structured=structured)
        text = ""
        choices = getattr(response, "choices", None)
        if choices:
            text = choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        return Completion(
            text=text,
            usage=Usage.from_json(usage.model_dump() if usage is not None else None),
            structured=structured,
        )


def _error_message(error: BaseException) -> str:
    status = _status(error)
    detail = getattr(error, "message", None) or str(error) or type(error).__name__
    kind = type(error).__name__
    return f"{kind} (HTTP {status}): {detail}" if status else f"{kind}: {detail}"
