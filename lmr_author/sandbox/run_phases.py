"""Where one test run's time goes: its phases, from the host's and the harness's clocks.

A run is timed at its boundaries: the host marks the engine's steps (create, copy in,
start, wait, read back, remove), the engine records when the container started and
ended, and the harness stamps its own (the supervisor's and the test process's exec,
the lock-down, the imports before the fork, the test's body, the read-back). All are
wall-clock times of one kernel, so a phase is the difference of two boundaries. For
``--verbose`` (``sandbox run``, ``eval``) and ``benchmarks/bench_speed.py``; a verdict
never reads them (an in-process candidate could write the test process's).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from lmr_author.sandbox.run_result import Phase

__all__ = ["HostClock", "Phase", "format_phases", "listen", "phases_of", "publish"]


class HostClock:
    """The host's marks of one run: (name, wall-clock time), in order."""

    def __init__(self) -> None:
        self.marks: dict[str, float] = {"begin": time.time()}

    def mark(self, name: str) -> None:
        self.marks[name] = time.time()


#: The boundaries of a run, in order: the phase that ends at each, and where its time is
#: read ("host", "engine", "supervisor" or "test", then the stamp's name). A boundary
#: that was not stamped (a run that does not fork has no lock-down) gives its time to the
#: next phase.
_BOUNDARIES: tuple[tuple[str, str, str], ...] = (
    ("create the container", "host", "created"),
    ("copy in", "host", "copied"),
    ("container start", "supervisor", "exec"),
    ("supervisor start-up", "supervisor", "supervisor"),
    ("supervisor set-up (lock-down)", "supervisor", "locked"),
    ("test process start-up", "test", "imported"),
    ("imports before the fork", "test", "forked"),
    ("test set-up (users, proxy, preloads)", "test", "ready"),
    ("the test", "test", "ended"),
    ("test process exit", "supervisor", "test ended"),
    ("records out", "supervisor", "read back"),
    ("container exit", "engine", "finished"),
    ("engine reports the end", "host", "waited"),
    ("inspect and logs", "host", "read"),
    ("remove the container", "host", "removed"),
)


def phases_of(
    host: Mapping[str, float],
    engine: Mapping[str, float],
    supervisor: Mapping[str, float],
    test: Mapping[str, float],
) -> tuple[Phase, ...]:
    """The phases of one run from its stamps (see `_BOUNDARIES`); a boundary before the
    one preceding it (clocks read by different processes) counts as no time."""
    sources = {"host": host, "engine": engine, "supervisor": supervisor, "test": test}
    last = host.get("begin")
    if last is None:
        return ()
    found: list[Phase] = []
    for name, source, stamp in _BOUNDARIES:
        at = sources[source].get(stamp)
        if not at:
            continue
        found.append(Phase(name, max(0.0, at - last)))
        last = max(last, at)
        if stamp == "ended" and test.get("calls"):
            calls = int(test["calls"])
            found.append(
                Phase(f"calls to the candidate ({calls})", test.get("call_s", 0.0), inner=True)
            )
    return tuple(found)


def format_phases(
    phases: Sequence[Phase], total: float | None = None, cpu_s: float | None = None
) -> list[str]:
    """One line per phase (an inner one indented, "of which"), the total, and the CPU
    seconds the container used when known."""
    lines = []
    for phase in phases:
        if phase.inner:
            lines.append(f"      of which {phase.name:<34} {phase.seconds:7.2f} s")
        else:
            lines.append(f"  {phase.name:<46} {phase.seconds:7.2f} s")
    whole = sum(p.seconds for p in phases if not p.inner) if total is None else total
    lines.append(f"  {'total':<46} {whole:7.2f} s")
    if cpu_s:
        lines.append(f"  {'CPU time used in the container':<46} {cpu_s:7.2f} s")
    return lines


#: Who hears of each timed run (`listen`): eval's --verbose.
_listeners: list[Callable[[str, str, tuple[Phase, ...]], None]] = []
_lock = threading.Lock()


@contextmanager
def listen(callback: Callable[[str, str, tuple[Phase, ...]], None]) -> Iterator[None]:
    """Call ``callback(run, test file, phases)`` for every timed test run of this
    process while in the block (from the threads that run them); ``run`` is the run's
    label, or its task and implementation ("01-DPO #1")."""
    with _lock:
        _listeners.append(callback)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(callback)


def publish(label: str, test_file: str, phases: tuple[Phase, ...]) -> None:
    """Tell the listeners of a timed run (nothing when none listen or nothing was timed)."""
    with _lock:
        listeners = list(_listeners)
    for callback in listeners:
        callback(label, test_file, phases)
