"""Judge settings: endpoint, model, limits, prompt template and scope, in one value.

The endpoint, key and model come from flags or the usual ``OPENAI_*`` variables, so the
judge works with OpenAI and with any compatible server (vLLM, llama.cpp, Ollama, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.llm.client import ClientSettings
from lmr_author.llm.endpoint import NO_KEY, resolve_endpoint
from lmr_author.util.errors import EXIT_USAGE, UserError

#: The model the paper's judge results were produced with.
DEFAULT_MODEL = "gpt-4o"
#: What the judge sees: the goal function with its class context, or whole goal files.
SCOPES = ("function", "file")
DEFAULT_SCOPE = "function"

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
    """Everything that decides how judgments are asked for: the LLM settings (`llm`, the
    one type `generate` and the instruction draft use too) and the judge's own.

    Only the model, the sampling parameters, the endpoint and the prompt go into the
    cache key: changing concurrency or time-outs never invalidates cached answers.
    """

    llm: ClientSettings
    template: Path | None = None
    scope: str = DEFAULT_SCOPE
    structured: bool = True
    use_cache: bool = True
    cache_dir: Path | None = None

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise UserError(f"unknown judge scope {self.scope!r}", hint="Use 'function' or 'file'.")
        if self.llm.concurrency < 1:
            raise UserError("the judge concurrency must be at least 1", hint="Pass 1 or more.")

    @classmethod
    def of(cls, **options: Any) -> JudgeConfig:
        """A config from flat options (the LLM settings' and the judge's own, mixed)."""
        llm, own = ClientSettings.split(options)
        llm.setdefault("model", DEFAULT_MODEL)
        return cls(llm=ClientSettings(**llm), **own)

    @property
    def model(self) -> str:
        return self.llm.model

    @property
    def concurrency(self) -> int:
        return self.llm.concurrency

    @property
    def max_tokens(self) -> int | None:
        return self.llm.max_tokens

    def parameters(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (part of the cache key)."""
        return self.llm.parameters


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
    return JudgeConfig.of(
        api_key=endpoint.api_key or NO_KEY,
        base_url=endpoint.base_url,
        model=endpoint.model or DEFAULT_MODEL,
        **options,
    )
