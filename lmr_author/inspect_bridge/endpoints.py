"""What to do when the model server lacks the endpoint Inspect sent a request to.

Inspect's ``openai/`` provider sends some requests to OpenAI APIs that most
OpenAI-compatible servers (vLLM, llama.cpp, Ollama, proxies) do not have: the Responses
API for o-series, gpt-5 and codex model names (and for image output and native tools),
the Files and Batch APIs when batching is on. Such a server answers 404, and Inspect's
own message says only "Error code: 404". A solver runs its model calls inside
`explain_missing_endpoints`, which turns that 404 into one paragraph naming the URL and
the command line that works (docs/inspect.md, "OpenAI-compatible servers").
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: The section of docs/inspect.md that says how to reach OpenAI-compatible servers.
DOCS = "docs/inspect.md, 'OpenAI-compatible servers'"
#: Inspect's provider for OpenAI-compatible servers, which speaks Chat Completions only.
COMPATIBLE = (
    "--model openai-api/NAME/MODEL with NAME_BASE_URL (the server's URL, ending in /v1) "
    "and NAME_API_KEY set"
)


class MissingEndpointError(RuntimeError):
    """The model server answered 404 to a request Inspect's provider made."""


def _status_and_url(error: BaseException) -> tuple[int, str, str] | None:
    """(status, URL, the server's message) of an HTTP error answer, else None."""
    status = getattr(error, "status_code", None)
    response: Any = getattr(error, "response", None)
    request: Any = getattr(response, "request", None)
    url: Any = getattr(request, "url", None)
    if not isinstance(status, int) or url is None:
        return None
    message = str(getattr(error, "message", "") or error)
    return status, str(url).split("?", 1)[0], " ".join(message.split())[:200]


def missing_endpoint(error: BaseException) -> str | None:
    """Why ``error`` (or an exception it was raised from) is a 404 of a missing endpoint,
    and what to use instead; None when it is something else."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        found = _status_and_url(current)
        if found is not None and found[0] == 404:
            return _advice(*found)
        current = current.__cause__ or current.__context__
    return None


def _advice(status: int, url: str, message: str) -> str:
    path = url.rstrip("/")
    said = f" ({message})" if message else ""
    if path.endswith("/responses"):
        return (
            f"the model server answered {status} to {url}{said}: Inspect's openai/ provider "
            "sent the request to OpenAI's Responses API (it does for o-series, gpt-5 and "
            "codex model names), which this server does not have. Use "
            f"{COMPATIBLE}, or keep openai/MODEL and add -M responses_api=false ({DOCS})."
        )
    if path.endswith(("/files", "/batches")) or "/files/" in path or "/batches/" in path:
        return (
            f"the model server answered {status} to {url}{said}: batching is on (--batch, "
            "or INSPECT_EVAL_BATCH; click 8.4.0 turns it on for every 'inspect eval', "
            "fixed in click 8.4.1), so Inspect's openai/ provider used OpenAI's Files and "
            f"Batch APIs, which this server does not have. Pass --batch=false, or use "
            f"{COMPATIBLE}, which never batches ({DOCS})."
        )
    return (
        f"the model server answered {status} to {url}{said}: check that the base URL "
        f"ends in /v1 and that the server serves this model name ({DOCS})."
    )


@contextmanager
def explain_missing_endpoints() -> Iterator[None]:
    """Re-raise a 404 of the model server as `MissingEndpointError` saying what to use."""
    try:
        yield
    except Exception as error:
        advice = missing_endpoint(error)
        if advice is None:
            raise
        raise MissingEndpointError(advice) from None
