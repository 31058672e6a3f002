"""A token estimate without a tokenizer: about four characters per token.

OpenAI's rule of thumb for English text and code; real tokenizers differ by model and
are not installed here (tiktoken downloads its tables from the network on first use).
Good enough to say "about 120k tokens, about $0.40" before a run; the generation
prompt budget raises it by a safety margin before it cuts anything.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

CHARS_PER_TOKEN = 4.0
#: The chat format adds a few tokens per message (role, separators).
TOKENS_PER_MESSAGE = 4


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def estimate_message_tokens(messages: Iterable[Mapping[str, str]]) -> int:
    """About how many prompt tokens a list of chat messages is."""
    return sum(TOKENS_PER_MESSAGE + estimate_tokens(m.get("content", "")) for m in messages)
