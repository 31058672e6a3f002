"""One chat-completions request at a time, with retries, a time-out and a circuit breaker.

The official ``openai`` client does the HTTP; its own retries are switched off
(``max_retries=0``) so that every retry is decided and counted here, by ``tenacity``:
exponential back-off (honouring ``Retry-After``) on rate limits (429), server errors
(5xx), time-outs, dropped connections and 200 answers that are not a chat completion
(an HTML page from a proxy, a body that is not JSON, no ``choices``).

A server that is down should not cost every item all its attempts: the circuit breaker
counts failed attempts in a row across all requests (any success resets it) and, after
``breaker_threshold`` of them, refuses every further request at once with `ServiceDown`,
which carries the cause ("connection refused", "HTTP 500 ...") and the URL (secrets
removed), so the caller can stop the batch and say why in its first line. Rate limits
(429) do not count: the server is up and asks to slow down.

Structured output (``response_format``) is the caller's: when one is given and the
server answers it with 400, the same request is tried in plain text, and only if that
works is structured output given up for the rest of the client's life.
"""

from __future__ import annotations

import contextlib
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from lmr_author.llm.usage import Usage
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from openai import OpenAI

#: Failed attempts in a row (across requests) after which the server is taken for down.
DEFAULT_BREAKER_THRESHOLD = 8


@dataclass(frozen=True)
class ClientSettings:
    """Where and how to ask: the one LLM settings type of the judge, `generate` and the
    instruction draft (each adds only what is its own around it).

    ``base_url`` None means OpenAI itself. `parameters` (temperature, max_tokens and
    the extra ones) go with every request and belong in the caller's cache key;
    concurrency, time-outs and back-off never do.
    """

    api_key: str
    model: str
    base_url: str | None = None
    concurrency: int = 4
    timeout_s: float = 120.0
    max_attempts: int = 5
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    breaker_threshold: int = DEFAULT_BREAKER_THRESHOLD
    temperature: float = 0.0
    max_tokens: int | None = None  # omitted: o-series models reject max_tokens
    extra_parameters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise UserError("max_attempts must be at least 1")
        if not 0 < self.timeout_s < float("inf"):
            raise UserError("the request time-out must be a positive number of seconds")
        if self.breaker_threshold < 1:
            raise UserError("breaker_threshold must be at least 1")

    @property
    def parameters(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (part of cache keys)."""
        params: dict[str, Any] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        params.update(self.extra_parameters)
        return params

    @classmethod
    def split(cls, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``options`` divided into this type's fields and the rest (a caller's own)."""
        names = {item.name for item in fields(cls)}
        mine = {key: value for key, value in options.items() if key in names}
        return mine, {key: value for key, value in options.items() if key not in names}


@dataclass(frozen=True)
class Completion:
    """The assistant's text and what it cost; ``structured`` tells whether the request
    carried ``response_format``."""

    text: str
    usage: Usage
    structured: bool


class LLMError(Exception):
    """The server never gave an answer (after retries), or refused the request.

    ``cause`` is one line for a terminal ("HTTP 500: boom", "connection refused");
    ``url`` is the endpoint without credentials.
    """

    def __init__(self, cause: str, url: str = "") -> None:
        super().__init__(f"{cause} ({url})" if url else cause)
        self.cause = cause
        self.url = url


class LLMFatalError(LLMError):
    """A failure no other request would escape (bad key, unknown model): stop the batch."""


class ServiceDown(LLMError):
    """The circuit breaker is open: too many failed attempts in a row; stop asking."""


class BadResponse(Exception):
    """An HTTP 200 that is not a chat completion (not JSON, HTML, no choices)."""


def redact_url(url: str) -> str:
    """``url`` without user, password or query string (where keys sometimes travel)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def _status(error: BaseException) -> int | None:
    status = getattr(error, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(error: BaseException) -> bool:
    """Worth asking again: 408, 409, 429, 5xx, time-outs, connection failures, bad 200s."""
    from openai import APIConnectionError, APIStatusError

    if isinstance(error, (APIConnectionError, BadResponse)):  # incl. APITimeoutError
        return True
    if isinstance(error, APIStatusError):
        status = error.status_code
        return status in (408, 409, 429) or status >= 500
    return False


def describe_error(error: BaseException) -> str:
    """One line saying what went wrong, in the words a user searches for."""
    from openai import APIConnectionError, APIStatusError, APITimeoutError

    if isinstance(error, APITimeoutError):
        return "Timeout: no answer within the time-out"
    if isinstance(error, APIConnectionError):
        cause: BaseException | None = error.__cause__
        while cause is not None and cause.__cause__ is not None:
            cause = cause.__cause__
        detail = str(cause) if cause is not None else ""
        if "refused" in detail.lower():
            return "Connection refused: nothing listens at that address"
        return f"Connection error: {detail}" if detail else "Connection error"
    if isinstance(error, APIStatusError):
        body = error.body
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str) or not message:
            message = getattr(error, "message", "") or str(error)
        return f"HTTP {error.status_code}: {' '.join(message.split())[:200]}"
    if isinstance(error, BadResponse):
        return str(error)
    return f"{type(error).__name__}: {error}"


def pause(seconds: float) -> None:
    """Wait between attempts. The one clock of the back-off: tests replace it to record
    the waits instead of sleeping through them."""
    time.sleep(seconds)


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


class ChatClient:
    """A thread-safe chat client: at most ``settings.concurrency`` requests in flight,
    every HTTP request and retry counted, a circuit breaker shared by all requests."""

    def __init__(self, settings: ClientSettings) -> None:
        from openai import OpenAI

        self.settings = settings
        self._openai: OpenAI = OpenAI(
            api_key=settings.api_key,
            base_url=settings.base_url,
            max_retries=0,
            timeout=settings.timeout_s,
        )
        #: False once the server refused ``response_format`` and accepted plain text.
        self.structured_ok = True
        #: Bounds the requests in flight; held only while a request is on the wire.
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._lock = threading.Lock()
        #: Set by the first fatal answer or when the breaker opens; later requests are
        #: not sent at all.
        self.fatal: LLMError | None = None
        self.requests = 0
        self.retries = 0
        self._failures_in_a_row = 0
        self.last_failure: str | None = None

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the client's default when none was given)."""
        return str(self._openai.base_url).rstrip("/")

    @property
    def url(self) -> str:
        """The endpoint as shown to users: no credentials, no query string."""
        return redact_url(self.endpoint).rstrip("/") + "/chat/completions"

    def close(self) -> None:
        self._openai.close()

    def complete(
        self, messages: list[dict[str, str]], *, response_format: dict[str, Any] | None = None
    ) -> Completion:
        """Ask once (with retries). Raises `LLMError` when the server never answers,
        `LLMFatalError` for 401/403/404, `ServiceDown` once the breaker is open."""
        from openai import OpenAIError

        retrying = Retrying(
            stop=stop_after_attempt(self.settings.max_attempts),
            wait=_BackOff(self.settings.backoff_initial_s, self.settings.backoff_max_s),
            retry=retry_if_exception(lambda e: is_transient(e) and self.fatal is None),
            before_sleep=self._count_retry,
            sleep=lambda seconds: pause(seconds),  # looked up per call, so tests can swap it
            reraise=True,
        )
        try:
            completion: Completion = retrying(self._request, messages, response_format)
            return completion
        except LLMError:
            raise
        except (OpenAIError, BadResponse) as error:
            if isinstance(self.fatal, ServiceDown):  # this very failure opened the breaker
                raise ServiceDown(self.fatal.cause, self.fatal.url) from error
            raise self._failure(error) from error

    def _failure(self, error: BaseException) -> LLMError:
        """The `LLMError` to raise for the last failed attempt of a request."""
        from openai import APIStatusError

        cause = describe_error(error)
        if isinstance(error, APIStatusError) and error.status_code in (401, 403, 404):
            self.fatal = LLMFatalError(cause, self.url)
            return self.fatal
        return LLMError(cause, self.url)

    def _count_retry(self, _state: RetryCallState) -> None:
        with self._lock:
            self.retries += 1

    def _request(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> Completion:
        from openai import BadRequestError

        structured = response_format is not None and self.structured_ok
        try:
            return self._post(messages, response_format if structured else None)
        except BadRequestError:
            if not structured:
                raise
        # Maybe the server does not know response_format: ask in plain text. Only if that
        # works is structured output given up for good (a 400 for a prompt that is too
        # long would fail both ways, and says nothing about response_format).
        completion = self._post(messages, None)
        self.structured_ok = False
        return completion

    def _post(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> Completion:
        kwargs: dict[str, Any] = dict(self.settings.parameters)
        if response_format is not None:
            kwargs["response_format"] = response_format
        with self._slots:
            if self.fatal is not None:
                raise type(self.fatal)(self.fatal.cause, self.fatal.url)
            with self._lock:
                self.requests += 1
            try:
                response: Any = self._openai.chat.completions.create(
                    model=self.settings.model,
                    messages=messages,  # type: ignore[arg-type]
                    **kwargs,
                )
                completion = _completion(response, structured=response_format is not None)
            except BadResponse as error:
                self._failed(error)
                raise
            except ValueError as error:  # the client decoding a body it took for JSON
                bad = BadResponse(f"HTTP 200 with a body that is not JSON ({error})")
                self._failed(bad)
                raise bad from error
            except Exception as error:
                self._failed(error)
                raise
        with self._lock:
            self._failures_in_a_row = 0
        return completion

    def _failed(self, error: Exception) -> None:
        """Count a failed attempt; open the breaker after too many in a row."""
        if not is_transient(error) or _status(error) == 429:
            return  # a rate limit means the server is up: back off, do not give up
        with self._lock:
            self._failures_in_a_row += 1
            self.last_failure = describe_error(error)
            if self._failures_in_a_row >= self.settings.breaker_threshold and self.fatal is None:
                self.fatal = ServiceDown(
                    f"{self._failures_in_a_row} failed attempts in a row, the last: "
                    f"{self.last_failure}",
                    self.url,
                )


def _completion(response: Any, *, structured: bool) -> Completion:
    """The text of a chat-completions answer; `BadResponse` when it is not one."""
    if isinstance(response, str | bytes):  # 200 with a non-JSON content type
        text = response.decode("utf-8", "replace") if isinstance(response, bytes) else response
        snippet = " ".join(text.split())[:80]
        kind = "an HTML page" if "<html" in text.lower() else "a body that is not JSON"
        raise BadResponse(f"HTTP 200 with {kind}: {snippet!r}")
    choices = getattr(response, "choices", None)
    if not choices:
        raise BadResponse("HTTP 200 with no choices (the server answered nothing)")
    message = getattr(choices[0], "message", None)
    text = getattr(message, "content", None) or ""
    usage = getattr(response, "usage", None)
    return Completion(
        text=str(text),
        usage=Usage.from_json(usage.model_dump() if usage is not None else None),
        structured=structured,
    )
