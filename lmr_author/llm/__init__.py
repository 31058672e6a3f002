"""Talking to an OpenAI-compatible chat endpoint, independent of what is asked.

Shared by the judge (issue 15) and the generator (issue 16): a client with retries and a
circuit breaker (`client`), an on-disk cache that stores only good answers (`cache`),
token counts and cost estimates (`usage`, `tokens`), and the one loader of prompt
templates (`prompt_template`, Jinja2). Nothing here knows about judgments, what a prompt
says or tasks; the ``openai`` package is imported only when a client is made.
"""

from lmr_author.llm.cache import ResponseCache, request_key
from lmr_author.llm.client import (
    ChatClient,
    ClientSettings,
    Completion,
    LLMError,
    LLMFatalError,
    ServiceDown,
    redact_url,
)
from lmr_author.llm.tokens import estimate_message_tokens, estimate_tokens
from lmr_author.llm.usage import PRICES, Price, Usage, estimate_cost, price_for

__all__ = [
    "PRICES",
    "ChatClient",
    "ClientSettings",
    "Completion",
    "LLMError",
    "LLMFatalError",
    "Price",
    "ResponseCache",
    "ServiceDown",
    "Usage",
    "estimate_cost",
    "estimate_message_tokens",
    "estimate_tokens",
    "price_for",
    "redact_url",
    "request_key",
]
