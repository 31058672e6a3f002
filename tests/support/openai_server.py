"""A real, scriptable OpenAI-compatible chat-completions server on 127.0.0.1.

No OpenAI endpoint is reachable from the test machines, and mocking the ``openai``
client would test nothing real. This server speaks just enough of the protocol
(``POST /v1/chat/completions``) for the official client, and each test scripts it.
Like most OpenAI-compatible servers (vLLM, llama.cpp, proxies) it speaks Chat
Completions only: every other path (``/v1/responses``, ``/v1/files``, ``/v1/batches``)
gets a 404 in the OpenAI error shape and is listed in ``refused``, never in ``requests``.

    with OpenAIServer() as server:
        server.enqueue(Reply.error(429), Reply.answer(3, ["ok"]))
        client = OpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        ...
        assert server.request_count == 2

Run on its own (``python -m tests.support.openai_server --delay 0.2``) it prints its
``base_url`` and answers every request with the same judge answer until stopped; then
``GET /_stats`` tells how many requests came and the most in flight at once. The judge
benchmark uses that, so the server does not share the judge's interpreter (and GIL).

Replies are taken from a queue, one per request, in arrival order; when the queue is
empty the ``default`` reply (or callable ``request -> Reply``) answers. Every request
is recorded (path, headers, JSON body) and the largest number of requests in flight
at once is tracked, so tests can assert retries and concurrency bounds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["OpenAIServer", "RecordedRequest", "Reply"]


@dataclass
class Reply:
    """One scripted answer to one request.

    ``content`` is the assistant message text of a normal 200 answer. ``body`` (bytes,
    str or a JSON-able object) replaces the whole response body when given, for broken
    or error answers. ``delay_s`` sleeps before answering (slow server, time-outs).
    """

    content: str | None = None
    status: int = 200
    body: bytes | str | dict[str, Any] | None = None
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = None

    @classmethod
    def answer(
        cls,
        category: int | str,
        rationale: list[str] | None = None,
        *,
        fenced: bool = False,
        prose: str = "",
        delay_s: float = 0.0,
    ) -> Reply:
        """A judge answer as JSON text, optionally in a ```json fence and followed by prose."""
        text = json.dumps({"category": category, "rationale": rationale or ["a reason"]}, indent=2)
        if fenced:
            text = f"```json\n{text}\n```"
        if prose:
            text = f"{text}\n{prose}"
        return cls(content=text, delay_s=delay_s)

    @classmethod
    def text(cls, content: str, *, delay_s: float = 0.0) -> Reply:
        """A 200 answer whose assistant message is ``content`` (e.g. garbage)."""
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def not_json(cls, body: str = '{"choices": [oops') -> Reply:
        """A 200 that claims to be JSON but is not (a truncated or broken body)."""
        return cls(body=body, headers={"Content-Type": "application/json"})

    @classmethod
    def html(cls, title: str = "502 Bad Gateway") -> Reply:
        """A 200 carrying a proxy's HTML page instead of a completion."""
        return cls(body=f"<html><head><title>{title}</title></head><body>{title}</body></html>")

    @classmethod
    def no_choices(cls) -> Reply:
        """A 200 chat completion with an empty ``choices`` list."""
        return cls(body={"id": "chatcmpl-x", "object": "chat.completion", "choices": []})

    @classmethod
    def hang_up(cls) -> Reply:
        """Close the connection without answering (as a crashing server does)."""
        return cls(status=0)

    @classmethod
    def error(
        cls, status: int, message: str = "scripted error", *, delay_s: float = 0.0, **headers: str
    ) -> Reply:
        """An error answer in the OpenAI error shape (429, 500, 400, ...)."""
        return cls(
            status=status,
            body={"error": {"message": message, "type": "scripted", "code": str(status)}},
            delay_s=delay_s,
            headers=dict(headers),
        )


@dataclass(frozen=True)
class RecordedRequest:
    """What the server received: path, headers (lower-case names) and the JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        value = self.body.get("messages", [])
        return value if isinstance(value, list) else []

    @property
    def prompt(self) -> str:
        """The text of the last user message."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return str(message.get("content", ""))
        return ""


DefaultReply = Reply | Callable[[RecordedRequest], Reply]


class OpenAIServer:
    """A ThreadingHTTPServer answering chat completions from a script. Use as a context."""

    def __init__(
        self,
        default: DefaultReply | None = None,
        *,
        reject_structured: bool = False,
        model: str = "scripted-model",
        port: int = 0,
    ) -> None:
        self.default: DefaultReply = default if default is not None else Reply.answer(3)
        #: Answer 400 to requests asking for ``response_format`` (old servers); queued
        #: replies still win.
        self.reject_structured = reject_structured
        self.model = model
        #: 0 picks a free port; a stopped server's port brings "the same server" back up
        #: (connection refused while it is down, then healed).
        self.port = port
        self.requests: list[RecordedRequest] = []
        #: Paths of the POSTs answered 404 (not Chat Completions), in arrival order.
        self.refused: list[str] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ---------------------------------------------------------------
    def enqueue(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def pending_replies(self) -> int:
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forget recorded requests, the in-flight maximum and queued replies."""
        with self._lock:
            self.requests.clear()
            self.refused.clear()
            self._queue.clear()
            self.max_in_flight = 0

    # -- lifecycle ---------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The ``base_url`` to give the openai client (ends in ``/v1``)."""
        if self._httpd is None:
            raise RuntimeError("server not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> OpenAIServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.port = int(self._httpd.server_address[1])
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling (called from handler threads) ----------------------------
    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            if self._queue:
                return self._queue.popleft()
        if self.reject_structured and "response_format" in request.body:
            return Reply.error(400, "response_format is not supported by this server")
        default = self.default
        return default(request) if callable(default) else default

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _completion_body(self, reply: Reply, request: RecordedRequest) -> dict[str, Any]:
        prompt_chars = sum(len(str(m.get("content", ""))) for m in request.messages)
        content = reply.content or ""
        usage = reply.usage or {
            "prompt_tokens": max(1, prompt_chars // 4),
            "completion_tokens": max(1, len(content) // 4),
        }
        usage = dict(usage)
        usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.body.get("model", self.model)),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body leave at once, no 40 ms stalls

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/_stats":
                with server._lock:
                    stats = {
                        "requests": len(server.requests),
                        "max_in_flight": server.max_in_flight,
                    }
                self._send(200, stats, {})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}}, {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"_unparsable": raw.decode("utf-8", "replace")}
            request = RecordedRequest(
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body if isinstance(body, dict) else {"_body": body},
                received_at=time.monotonic(),
            )
            if not self.path.rstrip("/").endswith("/chat/completions"):
                with server._lock:
                    server.refused.append(self.path)
                message = f"no route {self.path}: this server speaks Chat Completions only"
                self._send(404, {"error": {"message": message, "code": "404"}}, {})
                return
            reply = server._next_reply(request)
            try:
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status == 0:  # hang up: no status line at all
                    self.close_connection = True
                    return
                if reply.body is not None:
                    payload: bytes | str | dict[str, Any] = reply.body
                elif reply.status == 200:
                    payload = server._completion_body(reply, request)
                else:
                    payload = {"error": {"message": "scripted error", "code": str(reply.status)}}
                self._send(reply.status, payload, reply.headers)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (time-out); nothing to answer
            finally:
                server._done()

        def _send(
            self, status: int, payload: bytes | str | dict[str, Any], headers: dict[str, str]
        ) -> None:
            if isinstance(payload, dict):
                data = json.dumps(payload).encode()
                content_type = "application/json"
            else:
                data = payload.encode() if isinstance(payload, str) else payload
                content_type = "text/html" if data.lstrip().startswith(b"<") else "text/plain"
            headers = dict(headers)
            content_type = headers.pop("Content-Type", content_type)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Serve one fixed judge answer (after ``--delay`` seconds) until interrupted."""
    parser = argparse.ArgumentParser(description="A local OpenAI-compatible test server.")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--category", type=int, default=3, help="the judge category answered")
    args = parser.parse_args(argv)
    with OpenAIServer(default=Reply.answer(args.category, delay_s=args.delay)) as server:
        print(server.base_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            sys.stdin.read()  # until stdin closes (the parent ended) or Ctrl-C
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
