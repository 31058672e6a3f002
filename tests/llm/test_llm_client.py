"""The shared chat client against a real local server: bad 200s, the circuit breaker."""

from __future__ import annotations

import socket

import pytest

from lmr_author.llm import (
    ChatClient,
    ClientSettings,
    LLMError,
    ServiceDown,
    redact_url,
)
from tests.support.openai_server import OpenAIServer, Reply

MESSAGES = [{"role": "user", "content": "hello"}]


def settings(base_url: str, **overrides: object) -> ClientSettings:
    options: dict[str, object] = {
        "api_key": "k",
        "model": "m",
        "base_url": base_url,
        "timeout_s": 5.0,
        "max_attempts": 3,
        "backoff_initial_s": 0.01,
        "backoff_max_s": 0.02,
    }
    options.update(overrides)
    return ClientSettings(**options)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("bad", "cause"),
    [
        (Reply.not_json(), "not JSON"),
        (Reply.html(), "HTML page"),
        (Reply.no_choices(), "no choices"),
        (Reply(body="plain words"), "not JSON"),
    ],
)
def test_a_bad_200_is_retried_then_a_clear_failure(bad: Reply, cause: str) -> None:
    with OpenAIServer(default=bad) as server:
        client = ChatClient(settings(server.base_url, max_attempts=2))
        with pytest.raises(LLMError) as raised:
            client.complete(MESSAGES)
        assert cause in raised.value.cause
        assert raised.value.url == server.base_url + "/chat/completions"
        assert server.request_count == 2
        server.default = Reply.text("fine")
        assert client.complete(MESSAGES).text == "fine"


def test_connection_refused_opens_the_breaker_across_requests() -> None:
    port = free_port()
    client = ChatClient(
        settings(f"http://user:secret@127.0.0.1:{port}/v1?key=abc", breaker_threshold=4)
    )
    with pytest.raises(LLMError) as first:
        client.complete(MESSAGES)
    assert "Connection refused" in first.value.cause
    assert "secret" not in str(first.value) and "abc" not in str(first.value)
    assert client.requests == 3  # one request's attempts, breaker not open yet
    with pytest.raises(ServiceDown) as down:
        client.complete(MESSAGES)
    assert client.requests == 4  # it opened at the 4th failure in a row
    assert "Connection refused" in down.value.cause
    with pytest.raises(ServiceDown):
        client.complete(MESSAGES)
    assert client.requests == 4  # and nothing more is sent


def test_successes_reset_the_breaker() -> None:
    with OpenAIServer() as server:
        server.enqueue(Reply.error(500), Reply.error(500), Reply.text("a"))
        server.enqueue(Reply.error(500), Reply.error(500), Reply.text("b"))
        client = ChatClient(settings(server.base_url, breaker_threshold=3))
        assert client.complete(MESSAGES).text == "a"
        assert client.complete(MESSAGES).text == "b"


def test_rate_limits_do_not_open_the_breaker() -> None:
    with OpenAIServer() as server:
        server.enqueue(*[Reply.error(429)] * 4, Reply.text("ok"))
        client = ChatClient(settings(server.base_url, max_attempts=5, breaker_threshold=2))
        assert client.complete(MESSAGES).text == "ok"


def test_a_hang_up_is_a_connection_error() -> None:
    with OpenAIServer(default=Reply.hang_up()) as server:
        client = ChatClient(settings(server.base_url, max_attempts=2))
        with pytest.raises(LLMError, match="Connection"):
            client.complete(MESSAGES)


def test_redact_url() -> None:
    assert redact_url("https://u:p@host:8443/v1?api-key=x#f") == "https://host:8443/v1"
