"""The judge's HTTP client against a real local server: retries, time-outs, fallbacks."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lmr_author.judge.client import JudgeClient, JudgeFatalError, JudgeRequestError
from lmr_author.judge.config import JudgeConfig
from tests.support.openai_server import OpenAIServer, Reply

MESSAGES = [{"role": "user", "content": "judge this"}]


def test_answer_usage_and_structured_request(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig]
) -> None:
    server.enqueue(
        Reply(
            content='{"category": 3, "rationale": []}',
            usage={"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        )
    )
    client = JudgeClient(make_config())
    completion = client.complete(MESSAGES)
    assert completion.text == '{"category": 3, "rationale": []}'
    assert (completion.usage.prompt_tokens, completion.usage.total_tokens) == (11, 18)
    body = server.requests[0].body
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0.0
    assert body["response_format"]["type"] == "json_schema"
    assert server.requests[0].headers["authorization"] == "Bearer test-key"
    assert client.endpoint == server.base_url


def test_429_then_success(server: OpenAIServer, make_config: Callable[..., JudgeConfig]) -> None:
    server.enqueue(Reply.error(429, "slow down"), Reply.answer(2))
    client = JudgeClient(make_config())
    assert '"category": 2' in client.complete(MESSAGES).text
    assert server.request_count == 2
    assert (client.requests, client.retries) == (2, 1)


def test_repeated_500_gives_up(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig]
) -> None:
    server.default = Reply.error(500, "boom")
    client = JudgeClient(make_config(max_attempts=4))
    with pytest.raises(JudgeRequestError, match="500"):
        client.complete(MESSAGES)
    assert server.request_count == 4
    assert client.retries == 3


def test_backoff_grows(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig], backoff_waits: list[float]
) -> None:
    server.default = Reply.error(503, "busy")
    client = JudgeClient(make_config(max_attempts=5, backoff_initial_s=0.1, backoff_max_s=0.3))
    with pytest.raises(JudgeRequestError):
        client.complete(MESSAGES)
    assert server.request_count == 5
    assert backoff_waits == pytest.approx([0.1, 0.2, 0.3, 0.3])  # exponential, then capped


def test_retry_after_is_honoured_up_to_the_cap(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig], backoff_waits: list[float]
) -> None:
    server.enqueue(
        Reply.error(429, "slow down", retry_after="7"),
        Reply.error(429, "slow down", retry_after="90"),
        Reply.answer(2),
    )
    client = JudgeClient(make_config(max_attempts=3, backoff_initial_s=0.1, backoff_max_s=30.0))
    assert '"category": 2' in client.complete(MESSAGES).text
    assert backoff_waits == pytest.approx([7.0, 30.0])


def test_timeout_then_success(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig]
) -> None:
    server.enqueue(Reply.answer(1, delay_s=2.0), Reply.answer(3))
    client = JudgeClient(make_config(timeout_s=0.3))
    # The second answer, not the slow first one: the client gave up on the first (no
    # clock in the assertion, so a loaded machine cannot fail it).
    assert '"category": 3' in client.complete(MESSAGES).text
    assert server.request_count == 2


def test_timeouts_give_up(server: OpenAIServer, make_config: Callable[..., JudgeConfig]) -> None:
    server.default = Reply.answer(1, delay_s=1.0)
    client = JudgeClient(make_config(timeout_s=0.2, max_attempts=2))
    with pytest.raises(JudgeRequestError, match="Timeout"):
        client.complete(MESSAGES)
    assert server.request_count == 2


def test_structured_output_rejected_falls_back_to_text() -> None:
    with OpenAIServer(reject_structured=True, default=Reply.answer(2)) as server:
        config = JudgeConfig.of(api_key="k", base_url=server.base_url, backoff_initial_s=0.01)
        client = JudgeClient(config)
        assert client.complete(MESSAGES).structured is False
        assert client.complete(MESSAGES).structured is False
        formats = ["response_format" in r.body for r in server.requests]
        assert formats == [True, False, False]  # asked once, then never again


@pytest.mark.parametrize("status", [401, 404])
def test_bad_key_or_model_is_fatal(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig], status: int
) -> None:
    server.default = Reply.error(status, "no")
    with pytest.raises(JudgeFatalError):
        JudgeClient(make_config()).complete(MESSAGES)
    assert server.request_count == 1


def test_an_html_page_is_retried_like_a_server_error(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig]
) -> None:
    server.enqueue(Reply(body="<html>proxy error</html>"), Reply.answer(2))
    client = JudgeClient(make_config())
    assert '"category": 2' in client.complete(MESSAGES).text
    assert (client.requests, client.retries) == (2, 1)


def test_no_server_is_a_request_error(make_config: Callable[..., JudgeConfig]) -> None:
    client = JudgeClient(make_config(base_url="http://127.0.0.1:9/v1", max_attempts=2))
    with pytest.raises(JudgeRequestError, match="Connection"):
        client.complete(MESSAGES)


def test_a_400_for_other_reasons_keeps_structured_output(
    server: OpenAIServer, make_config: Callable[..., JudgeConfig]
) -> None:
    server.enqueue(Reply.error(400, "context length exceeded"), Reply.error(400, "still"))
    client = JudgeClient(make_config())
    with pytest.raises(JudgeRequestError, match="400"):
        client.complete(MESSAGES)
    assert server.request_count == 2  # not retried further: a 400 is not transient
    client.complete(MESSAGES)
    assert "response_format" in server.requests[2].body
