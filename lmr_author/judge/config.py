"""Judge settings: endpoint, model, limits, prompt template and scope, in one value.

The endpoint, key and model come from flags or the usual ``OPENAI_*`` variables, so the
judge works with OpenAI and with any compatible server (vLLM, llama.cpp, Ollama, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.errors import EXIT_USAGE, UserError
from lmr_author.llm.client import DEFAULT_BREAKER_THRESHOLD, ClientSettings
from lmr_author.llm.endpoint import resolve_endpoint

#: The model the paper's judge results were produced with.
DEFAULT_MODEL = "gpt-4o"
#: What the judge sees: the goal function with its class context, or whole goal files.
SCOPES = ("function", "file")
DEFAULT_SCOPE = "function"
#: A key placeholder for local servers that need none (the client insists on one).
NO_KEY = "not-needed"

ENABLE_HINT = (
    "The LLM judge needs an OpenAI-compatible endpoint: set OPENAI_API_KEY (for OpenAI) "
    "or OPENAI_BASE_URL (for a compatible server), or pass --base-url (--judge-base-url "
    "with eval) and --api-key-env."
)


class JudgeNotConfigured(UserError):
    """No endpoint and no key: the judge cannot ask anyone."""

    def __init__(self) -> None:
        super().__init__("no LLM endpoint is configured.", hint=ENABLE_HINT, exit_code=EXIT_USAGE)


@dataclass(frozen=True)
class JudgeConfig:
    """Everything that decides how judgments are asked for.

    ``base_url`` None means the openai client's default endpoint. Only ``model``,
    ``temperature`` and ``max_tokens`` (plus the endpoint and the prompt) go into the
    cache key: changing concurrency or time-outs never invalidates cached answers.
    """

    api_key: str
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    concurrency: int = 4
    timeout_s: float = 120.0
    max_attempts: int = 5
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0
    temperature: float = 0.0
    max_tokens: int | None = None  # omitted: o-series models reject max_tokens
    template: Path | None = None
    scope: str = DEFAULT_SCOPE
    structured: bool = True
    use_cache: bool = True
    cache_dir: Path | None = None
    breaker_threshold: int = DEFAULT_BREAKER_THRESHOLD
    extra_parameters: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise UserError(f"unknown judge scope {self.scope!r}", hint="Use 'function' or 'file'.")
        if self.concurrency < 1:
            raise UserError("the judge concurrency must be at least 1", hint="Pass 1 or more.")
        if self.max_attempts < 1:
            raise UserError("max_attempts must be at least 1")
        if not 0 < self.timeout_s < float("inf"):
            raise UserError("the request time-out must be a positive number of seconds")
        if self.breaker_threshold < 1:
            raise UserError("breaker_threshold must be at least 1")

    def parameters(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (part of the cache key)."""
        params: dict[str, Any] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        params.update(self.extra_parameters)
        return params

    def client_settings(self) -> ClientSettings:
        """What the shared chat client needs from this config."""
        return ClientSettings(
            api_key=self.api_key,
            model=self.model,
            base_url=self.base_url,
            concurrency=self.concurrency,
            timeout_s=self.timeout_s,
            max_attempts=self.max_attempts,
            backoff_initial_s=self.backoff_initial_s,
            backoff_max_s=self.backoff_max_s,
            breaker_threshold=self.breaker_threshold,
            parameters=self.parameters(),
        )


def config_from_env(
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Any,
) -> JudgeConfig:
    """A `JudgeConfig` from explicit values, falling back to ``OPENAI_*`` variables.

    Raises `JudgeNotConfigured` when neither an endpoint nor a key is known.
    """
    endpoint = resolve_endpoint(
        base_url=base_url, api_key=api_key, api_key_env=api_key_env, model=model, environ=environ
    )
    if not endpoint.configured:
        raise JudgeNotConfigured()
    return JudgeConfig(
        api_key=endpoint.api_key or NO_KEY,
        base_url=endpoint.base_url,
        model=endpoint.model or DEFAULT_MODEL,
        **options,
    )
