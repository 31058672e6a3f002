"""Waiting for an engine that stopped answering, once per client and with back-off.

A run whose engine stalled or dropped its connection is tried once more (`InfraFault`);
before that, the engine must answer a ping again. `await_engine` pings with exponential
back-off (tenacity) for up to a window; an engine that stays silent for the whole window
is marked down for that client, so the remaining runs fail at once with the reason
instead of each waiting the window again. A ping that succeeds clears the mark.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

#: How long an engine may stay silent before the remaining runs become infra-errors.
DEFAULT_WINDOW_S = 60.0

#: The first wait between pings; each next one doubles (at most 8 s).
BACKOFF_S = 0.5
#: Seconds one ping may take: a stalled engine must not hold a try for the client's minute.
PING_TIMEOUT_S = 5.0

_down: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def engine_is_down(client: Any) -> bool:
    """Whether ``client``'s engine stayed silent through a whole back-off window."""
    with _lock:
        return _down.get(client, False)


def await_engine(
    client: Any,
    *,
    window_s: float | None = None,
    fresh: bool = False,
) -> bool:
    """Ping ``client``'s engine with back-off until it answers (True) or ``window_s``
    passes (False, and the engine is marked down: later calls return False at once,
    unless ``fresh``: one more try, whose answer clears the mark)."""
    import docker.errors
    import requests
    from tenacity import (
        RetryError,
        Retrying,
        retry_if_exception_type,
        stop_after_delay,
        wait_exponential,
    )

    from lmr_author.runtime.engine import brief_get

    if engine_is_down(client) and not fresh:
        return False
    retrying = Retrying(
        retry=retry_if_exception_type((docker.errors.DockerException, requests.RequestException)),
        stop=stop_after_delay(DEFAULT_WINDOW_S if window_s is None else window_s),
        wait=wait_exponential(multiplier=BACKOFF_S, max=8),
        reraise=False,
    )
    try:
        for attempt in retrying:
            with attempt:
                brief_get(client, "/_ping", timeout=PING_TIMEOUT_S)
    except RetryError:
        with _lock:
            _down[client] = True
        return False
    mark_up(client)
    return True


def mark_up(client: Any) -> None:
    """The engine answered again (a later call succeeded): forget that it was down."""
    with _lock:
        _down.pop(client, None)
