"""The container engine reached through a Unix socket the test controls.

`EngineProxy` forwards every connection to the real engine's socket, byte for byte,
and does to the requests a test names what a faulty engine or network would: hold a
request unanswered (an engine that stalls), drop the connection before it reaches the
engine, let the engine do it and drop the answer (a container created that nobody
heard of), or go down altogether (every connection closed) and come back after a
given number of refused requests. Requests are matched on their first line (``POST
/v1.47/containers/<id>/wait``), so a fault lands on exactly the call it names, with no
timing involved.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_REQUEST_LINE = re.compile(rb"^(GET|POST|PUT|DELETE|HEAD) (\S+) HTTP/1\.[01]")


@dataclass
class Rule:
    #: Matched against "METHOD PATH" of a request.
    pattern: str
    #: "stall" (never answered), "drop" (connection closed, nothing forwarded),
    #: "drop-answer" (forwarded; the connection closed when the answer comes),
    #: "freeze" (stall, and every later request too), "down" (the connection closed, and
    #: the next ``refusals`` requests too, then the engine is back).
    action: str
    times: int = 1
    refusals: int = 0
    #: Matching requests let through before the rule acts.
    after: int = 0


class EngineProxy:
    """A socket at ``path`` that forwards to ``upstream`` with the faults of `rules`."""

    def __init__(self, path: Path, upstream: str = "/var/run/docker.sock") -> None:
        self.path = path
        self.upstream = upstream
        self.rules: list[Rule] = []
        #: Requests seen, "METHOD PATH", in order (for assertions).
        self.seen: list[str] = []
        self.frozen = False
        self._refusals_left = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._open: set[socket.socket] = set()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen(64)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"unix://{self.path}"

    def on(
        self, pattern: str, action: str, *, times: int = 1, refusals: int = 0, after: int = 0
    ) -> None:
        """Do ``action`` to the next ``times`` requests matching ``pattern`` (after
        letting ``after`` of them through)."""
        with self._lock:
            self.rules.append(Rule(pattern, action, times, refusals, after))

    def thaw(self) -> None:
        """Forward again after a "freeze" (held requests stay unanswered)."""
        self.frozen = False

    def close(self) -> None:
        self._closing.set()
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)  # wakes the accept
        self._server.close()
        with self._lock:
            for sock in list(self._open):
                _close(sock)
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(self.upstream)
        except OSError:
            _close(client)
            return
        with self._lock:
            self._open.update((client, upstream))
        swallow = threading.Event()
        back = threading.Thread(target=self._answers, args=(upstream, client, swallow), daemon=True)
        back.start()
        try:
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                action = self._action(chunk)
                if action in ("stall", "freeze", "held"):
                    while client.recv(65536):  # held: nothing forwarded, nothing answered
                        pass
                    break
                if action in ("drop", "down"):
                    break
                if action == "drop-answer":
                    swallow.set()
                upstream.sendall(chunk)
        except OSError:
            pass
        finally:
            _close(client)
            _close(upstream)
            with self._lock:
                self._open.difference_update((client, upstream))

    def _answers(
        self, upstream: socket.socket, client: socket.socket, swallow: threading.Event
    ) -> None:
        try:
            while True:
                chunk = upstream.recv(65536)
                if not chunk:
                    break
                if swallow.is_set():  # the engine did it; the client never hears
                    break
                client.sendall(chunk)
        except OSError:
            pass
        finally:
            _close(client)
            _close(upstream)

    def _action(self, chunk: bytes) -> str:
        match = _REQUEST_LINE.match(chunk)
        if match is None:
            return "held" if self.frozen else "forward"
        request = f"{match.group(1).decode()} {match.group(2).decode()}"
        with self._lock:
            self.seen.append(request)
            if self.frozen:
                return "freeze"
            if self._refusals_left > 0:
                self._refusals_left -= 1
                return "down"
            for rule in self.rules:
                if rule.times > 0 and re.search(rule.pattern, request):
                    if rule.after > 0:
                        rule.after -= 1
                        continue
                    rule.times -= 1
                    if rule.action == "freeze":
                        self.frozen = True
                    if rule.action == "down":
                        self._refusals_left = rule.refusals
                    return rule.action
        return "forward"


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def cut_waits(monkeypatch: Any) -> None:
    """The waits on an engine that does not answer, cut from minutes to seconds: the
    engine's slack after a test's time limit, a probe, the back-off window."""
    from lmr_author.runtime import reachability
    from lmr_author.sandbox import runner

    monkeypatch.setattr(runner, "ENGINE_SLACK_S", 1.0)
    monkeypatch.setattr(runner, "_PROBE_TIMEOUT_S", 1.0)
    monkeypatch.setattr(reachability, "DEFAULT_WINDOW_S", 1.5)
    monkeypatch.setattr(reachability, "BACKOFF_S", 0.05)
    monkeypatch.setattr(reachability, "PING_TIMEOUT_S", 0.5)
