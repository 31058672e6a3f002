"""The scriptable chat-completions test server itself (other test folders reuse it)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from openai import BadRequestError, OpenAI, RateLimitError

from tests.support.openai_server import OpenAIServer, Reply


def _client(server: OpenAIServer) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=5)


def _ask(client: OpenAI, text: str = "hi") -> str:
    response = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": text}]
    )
    return response.choices[0].message.content or ""


def test_queue_then_default_and_recording() -> None:
    with OpenAIServer(default=Reply.text("default")) as server:
        server.enqueue(Reply.text("first"), Reply.error(429))
        client = _client(server)
        assert _ask(client, "one") == "first"
        try:
            _ask(client)
        except RateLimitError:
            pass
        else:  # pragma: no cover
            raise AssertionError("429 expected")
        assert _ask(client, "three") == "default"
        assert server.request_count == 3
        assert server.requests[0].prompt == "one"
        assert server.requests[2].body["model"] == "m"
        assert server.pending_replies == 0


def test_callable_default_and_structured_rejection() -> None:
    with OpenAIServer(
        default=lambda request: Reply.text(request.prompt.upper()), reject_structured=True
    ) as server:
        client = _client(server)
        assert _ask(client, "echo") == "ECHO"
        try:
            client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "x"}],
                response_format={"type": "json_object"},
            )
        except BadRequestError:
            pass
        else:  # pragma: no cover
            raise AssertionError("400 expected")


def test_max_in_flight() -> None:
    with OpenAIServer(default=Reply.answer(3, delay_s=0.3)) as server:
        client = _client(server)
        threads = [threading.Thread(target=_ask, args=(client,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert server.max_in_flight == 4
        server.reset()
        assert (server.request_count, server.max_in_flight) == (0, 0)


def test_standalone_process_and_stats() -> None:
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--category", "2"],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        client = OpenAI(base_url=base_url, api_key="k", max_retries=0, timeout=10)
        assert '"category": 2' in _ask(client)
        with urllib.request.urlopen(base_url[: -len("/v1")] + "/_stats", timeout=10) as answer:
            assert json.load(answer) == {"requests": 1, "max_in_flight": 1}
    finally:
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=10) == 0
