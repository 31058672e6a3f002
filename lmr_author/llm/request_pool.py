"""Requests in flight on daemon threads: Ctrl-C never waits for an answer on the wire.

`concurrent.futures.ThreadPoolExecutor` joins its threads when the interpreter exits,
so a command interrupted while a slow server holds a request would hang until the
request's time-out. Here the threads are daemons: what has not started is cancelled,
what is on the wire is abandoned (its answer, if it ever comes, is not waited for).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_Job = tuple[Future[R], Callable[[T], R], T]


class RequestPool(Generic[T, R]):
    """``workers`` daemon threads running ``submit``ted calls, in submission order."""

    def __init__(self, workers: int, name: str = "request") -> None:
        self._jobs: queue.SimpleQueue[_Job[R, T] | None] = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}-{n}", daemon=True)
            for n in range(max(1, workers))
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, call: Callable[[T], R], argument: T) -> Future[R]:
        future: Future[R] = Future()
        self._jobs.put((future, call, argument))
        return future

    def shutdown(self, *, cancel: bool) -> None:
        """Stop the threads once the queue is done; ``cancel`` first cancels what has
        not started. Never waits: a call in flight finishes (or not) on its own."""
        if cancel:
            while True:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is not None:
                    job[0].cancel()
        for _ in self._threads:
            self._jobs.put(None)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, call, argument = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call(argument))
            except BaseException as error:  # handed to whoever waits on the future
                future.set_exception(error)
