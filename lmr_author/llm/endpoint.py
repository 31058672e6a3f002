"""Which OpenAI-compatible endpoint to ask, and with which key and model: one rule.

Flags win over the ``OPENAI_*`` environment variables (the names the openai client
itself reads). An endpoint is configured when there is a base URL (a compatible
server, which may need no key) or a key (OpenAI itself). Naming a key variable with
``--api-key-env`` that is not set is an error, never a silent fall back to no key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lmr_author.llm.client import ClientSettings
from lmr_author.util.errors import UserError

#: The key variable the openai client reads by default.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: A key placeholder for local servers that need none (the client insists on one).
NO_KEY = "not-needed"


@dataclass(frozen=True)
class Endpoint:
    """Where requests go: ``base_url`` None is OpenAI; ``api_key`` None is no key."""

    base_url: str | None
    api_key: str | None
    model: str | None

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key)


def resolve_endpoint(
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    api_key_env: str = DEFAULT_KEY_ENV,
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Endpoint:
    """The endpoint from flags, falling back to ``OPENAI_BASE_URL``, the key variable and
    ``OPENAI_MODEL``; raises `UserError` when ``api_key_env`` names an unset variable."""
    env = os.environ if environ is None else environ
    key = api_key or env.get(api_key_env) or None
    if api_key_env != DEFAULT_KEY_ENV and not key and api_key is None:
        raise UserError(
            f"the environment variable {api_key_env} (from --api-key-env) is not set",
            hint=f"Export {api_key_env}=<key>, or drop --api-key-env.",
        )
    return Endpoint(
        base_url=base_url or env.get("OPENAI_BASE_URL") or None,
        api_key=key,
        model=model or env.get("OPENAI_MODEL") or None,
    )


def settings_from_env(
    *, default_model: str, environ: Mapping[str, str] | None = None, **options: Any
) -> ClientSettings | None:
    """Client settings for the endpoint the ``OPENAI_*`` variables name, or None when
    none is configured (the caller then does without a model)."""
    endpoint = resolve_endpoint(environ=environ)
    if not endpoint.configured:
        return None
    return ClientSettings(
        api_key=endpoint.api_key or NO_KEY,
        model=endpoint.model or default_model,
        base_url=endpoint.base_url,
        **options,
    )
