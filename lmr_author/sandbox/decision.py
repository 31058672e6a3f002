"""Turn what our harness reported from a test container into a verdict.

The verdict comes from the harness (`lmr_author.sandbox.harness`), never from the exit
status alone: `harness_verdict` passes a test file only when the harness's report is
there (with the run's nonce), complete (the test process reached its end record),
untampered, every recorded test passed and none was skipped, and the number of tests
is the golden code's (`Expected`, proven by ``validate --run``). Four protocols decide
the rest: in-process tests ("exit-code", the historical name: unittest, pytest-style
functions, bare ``assert``) need also exit status 0; legacy tests, which only write
"Passed"/"Failed" lines to log files in ``logs/`` beside the test, need the golden number
of "Passed" lines, no "Failed" (over every file there, as the published loop reads
them) and exit status 0; published tests (LMR-Bench's shape: unittest assertions *and*
"Passed"/"Failed" log lines, assertions often caught and logged) need both, and their
log files must agree with what the test handed to ``logging`` (counted by the harness);
replay tests need every output to match the expected one on the host
(`lmr_author.sandbox.replay`). `detect_protocol` recognises the protocol from the source.
`classify_exit` names what killed a process
(a signal, running out of memory) and reads unittest/pytest summaries. `file_verdict`
turns what one test file's run observed (`Observed`) into the kept `TestVerdict`:
the one place a verdict is made, whichever runtime ran the test.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from lmr_author.domain.task import Implementation, Task
from lmr_author.domain.verdicts import TestVerdictName
from lmr_author.sandbox import harness, isolation
from lmr_author.sandbox.harness import HarnessReport, RecordedException
from lmr_author.sandbox.harness.crossing import safe_text
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.replay import compare_outputs, replay_dir
from lmr_author.sandbox.run_result import TestVerdict
from lmr_author.util.python_parse import parse_python

Protocol = Literal["exit-code", "legacy", "published", "replay"]
PROTOCOLS = ("auto", "exit-code", "legacy", "published", "replay")
#: Protocols whose verdict reads the log files the test wrote in its ``logs`` folder.
LOG_PROTOCOLS = ("legacy", "published")

#: Exceptions that mean the candidate never ran properly (rather than ran wrong).
_LOAD_ERRORS = {
    "SyntaxError": "syntax error",
    "IndentationError": "syntax error",
    "TabError": "syntax error",
    "ModuleNotFoundError": "missing module",
    "ImportError": "import error",
    "NameError": "name error",
}
_EXCEPTION_LINE = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))(?::\s?(.*))?$"
)
_UNITTEST_SUMMARY = re.compile(r"^FAILED \(([^)]*)\)\s*$", re.MULTILINE)
_PYTEST_SUMMARY = re.compile(r"=+ (.*?\b(?:failed|error|errors)\b.*?) in [\d.]+s", re.MULTILINE)


@dataclass(frozen=True)
class Classified:
    verdict: TestVerdictName
    reason: str


def detect_protocol(source: str) -> Protocol:
    """Which protocol a test's source asks for.

    ``legacy``: it never asserts and only logs "Passed"/"Failed" lines (it mentions
    them in string literals and has no ``assert`` statement, no ``assert*``/``fail``
    call, no ``pytest``/``unittest`` import, no ``raise``, no ``sys.exit``/``exit``).
    ``published``: the published LMR-Bench shape, which does both: it asserts (often
    catching its own AssertionError) *and* logs "Passed"/"Failed" lines with
    ``logging`` (to a file in ``logs/``). Anything else, and unparsable sources (their
    syntax error will show), is an ordinary in-process test.
    """
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return "exit-code"
    mentions_log_words = False
    asserts = False
    uses_logging = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert | ast.Raise):
            asserts = True
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            if any(name.split(".")[0] in {"pytest", "unittest"} for name in names):
                asserts = True
            if any(name.split(".")[0] == "logging" for name in names):
                uses_logging = True
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name.startswith("assert") or name in {"fail", "exit", "_exit"}:
                asserts = True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and ("Passed" in node.value or "Failed" in node.value)
        ):
            mentions_log_words = True
    if not mentions_log_words:
        return "exit-code"
    if not asserts:
        return "legacy"
    # A test that asserts and logs "Passed"/"Failed" is read the published way whatever
    # its log set-up: one that catches its own assertions would otherwise pass on its
    # exit status alone. Without a log file it fails (closed), which ``validate --run``
    # shows on the golden code. Words only printed (no logging) are just output.
    return "published" if uses_logging else "exit-code"


def legacy_log_verdict(log: str | None) -> Classified:
    """The published harness's rule: at least one "Passed" and no "Failed"."""
    if log is None:
        return Classified("fail", "the test wrote no legacy log file")
    passed = log.count("Passed")
    failed = log.count("Failed")
    if failed:
        return Classified("fail", f"legacy log has {failed} 'Failed' line(s)")
    if not passed:
        return Classified("fail", "legacy log has no 'Passed' line")
    return Classified("pass", f"legacy log has {passed} 'Passed' and no 'Failed'")


def last_exception(output: str) -> tuple[str, str] | None:
    """The type and message of the last traceback's exception in ``output``, if any."""
    lines = output.splitlines()
    found: tuple[str, str] | None = None
    in_traceback = False
    for line in lines:
        if line.startswith("Traceback (most recent call last):"):
            in_traceback = True
            continue
        if in_traceback and not line.startswith((" ", "\t")):
            match = _EXCEPTION_LINE.match(line.strip())
            if match:
                found = (match.group(1).rsplit(".", 1)[-1], (match.group(2) or "").strip())
            in_traceback = False
    if found is None:
        # A SyntaxError raised while compiling the main script has no "Traceback" header.
        for line in reversed(lines):
            match = _EXCEPTION_LINE.match(line.strip())
            if match and match.group(1).rsplit(".", 1)[-1] in _LOAD_ERRORS:
                return (match.group(1).rsplit(".", 1)[-1], (match.group(2) or "").strip())
    return found


def classify_exit(
    exit_code: int,
    output: str,
    *,
    oom_killed: bool = False,
    memory_mb: int | None = None,
) -> Classified:
    """Verdict of an ordinary test from its exit status and its output."""
    if oom_killed:
        limit = f" ({memory_mb} MB)" if memory_mb else ""
        return Classified("error", f"killed: out of memory{limit}")
    if exit_code == 0:
        return Classified("pass", "exit status 0")
    exception = last_exception(output)
    if exit_code >= 128 or exit_code < 0:
        signal_number = exit_code - 128 if exit_code >= 128 else -exit_code
        # Only the engine knows whether the memory limit did it (oom_killed, above):
        # a process that kills itself with signal 9 must not be blamed on memory.
        return Classified("error", f"killed by signal {signal_number}")
    unittest_summary = _UNITTEST_SUMMARY.search(output)
    if unittest_summary:
        counts = dict(
            (part.split("=")[0].strip(), part.split("=")[-1].strip())
            for part in unittest_summary.group(1).split(",")
            if "=" in part
        )
        if counts.get("errors", "0") != "0":
            detail = _describe(exception) if exception else "an exception in a test"
            return Classified("error", f"unittest: {unittest_summary.group(1)}; {detail}")
        return Classified("fail", f"unittest: {unittest_summary.group(1)}")
    pytest_summary = _PYTEST_SUMMARY.search(output)
    if pytest_summary:
        text = pytest_summary.group(1)
        verdict: TestVerdictName = "error" if re.search(r"\berrors?\b", text) else "fail"
        return Classified(verdict, f"pytest: {text}")
    if exception is None:
        return Classified("fail", f"exit status {exit_code}")
    if exception[0] == "AssertionError":
        message = exception[1]
        return Classified("fail", "assertion failed" + (f": {message}" if message else ""))
    return Classified("error", _describe(exception))


def _describe(exception: tuple[str, str]) -> str:
    kind, message = exception
    label = _LOAD_ERRORS.get(kind, "exception")
    text = f"{label}: {kind}" + (f": {message}" if message else "")
    return text[:500]


@dataclass(frozen=True)
class Expected:
    """What the golden code does under the harness, recorded by ``validate --run``."""

    #: Tests the harness records for the golden code ("<script>" included).
    tests: int | None = None
    #: "Passed" lines of a legacy test's log on the golden code.
    legacy_passed: int | None = None
    #: Isolated: the inputs the golden calls change in place (``self``, ``args[0]``,
    #: ``kwargs['x']``, as fixtures' "watch" names them); a candidate's change to any
    #: other is refused. None: not known (the proof's own run), nothing refused.
    changed: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.changed is not None:  # a list, read back from JSON (a Slurm request)
            object.__setattr__(self, "changed", tuple(str(name) for name in self.changed))


def ended_by_a_limit(verdict: TestVerdict) -> bool:
    """Whether a test file's run was ended by a limit (time, memory, a kill) rather than
    by what its code did: for a golden run, the machine's doing as likely as the code's."""
    return verdict.verdict == "timeout" or (
        verdict.verdict == "error" and verdict.reason.startswith("killed")
    )


def decide(
    report: HarnessReport,
    *,
    protocol: str,
    memory_mb: int,
    timeout_s: float,
    expected: Expected | None = None,
    oom_killed: bool = False,
    timed_out: bool = False,
    replay_expected: Path | None = None,
) -> Classified:
    """A test file's verdict, decided here and nowhere else, in this order: killed for
    memory (the engine says so, or the supervisor reports the test killed by SIGKILL
    before its time was up), then out of time (the host's watch or the supervisor's),
    then what the harness recorded, held to the golden code's counts (`Expected`) and,
    for replay tests, to the expected outputs in ``replay_expected`` (compared on the
    host). Whether the task can run here at all is decided before any run
    (`lmr_author.sandbox.needs`), never from a candidate's run."""
    if oom_killed or (report.exit_status == -9 and not report.timed_out):
        return classify_exit(137, "", oom_killed=oom_killed, memory_mb=memory_mb)
    # The host's watch counts only when the run's own report is not complete: a report
    # that reached its end in time is the run's own clock, and it says "in time".
    if report.timed_out or (timed_out and not (report.found and report.ended)):
        return Classified("timeout", f"no result within the time limit of {timeout_s:g} s")
    problems: list[str] = []
    if protocol == "replay" and replay_expected is not None and report.found and report.ended:
        problems = compare_outputs(replay_expected, report.outputs)
    return harness_verdict(report, protocol=protocol, expected=expected, replay_problems=problems)


def harness_verdict(
    report: HarnessReport,
    *,
    protocol: str,
    expected: Expected | None = None,
    replay_problems: Sequence[str] | None = None,
) -> Classified:
    """The verdict from the harness's report: only a complete, untampered, all-passed
    report passes, with the golden code's number of tests (and "Passed" lines)."""
    expected = expected or Expected()
    status = report.exit_status
    if not report.found:
        return Classified("fail", f"{report.problem} (the test process did not finish normally)")
    if report.harness_error:
        return Classified("error", f"the harness could not run the test: {report.harness_error}")
    if report.timed_out:
        return Classified("timeout", "no result within the time limit")
    if report.overflow or report.garbage:
        return Classified("fail", "the harness's records were tampered with (unexpected data)")
    if not report.ended:
        ran = _worst_record(report)
        detail = f"; {ran.reason}" if ran is not None else ""
        return Classified(
            "fail",
            f"the test process ended before the harness reported: exit status {status}{detail}",
        )
    if report.tampered:
        return Classified("fail", "tampered: " + ", ".join(report.tampered[:8]))
    worst = _worst_record(report)
    if worst is not None:
        return worst
    count = len(report.records)
    if expected.tests is not None and count != expected.tests:
        return Classified("fail", f"{count} test(s) ran, but the golden code runs {expected.tests}")
    if protocol in LOG_PROTOCOLS:
        if protocol == "published":
            disagreement = _logged_disagreement(report)
            if disagreement is not None:
                return disagreement
        return _legacy(report, status, expected)
    if status != 0:
        return Classified("fail", f"the test process exited with status {status}")
    if protocol == "replay":
        if replay_problems:
            return Classified("fail", "; ".join(replay_problems[:5]))
        return Classified("pass", f"{count} test(s) passed; every replayed output matches")
    return Classified("pass", f"{count} test(s) passed")


#: Outcomes of a test record that count as passing.
PASSING = ("passed", "expected failure")


def test_counts(report: HarnessReport) -> tuple[int, int]:
    """(tests, of which failed): the test functions the harness recorded, or the script's
    body when it defines none (a plain script is one test)."""
    named = [record for record in report.records if record.id != "<script>"] or report.records
    return len(named), sum(record.outcome not in PASSING for record in named)


def _worst_record(report: HarnessReport) -> Classified | None:
    """The verdict of the worst test record, or None when all passed."""
    found: Classified | None = None
    for record in report.records:
        if record.outcome in PASSING:
            continue
        # The module body is the whole test of a plain script: no name needed.
        where = "" if record.id == "<script>" else f"{record.id}: "
        exception = last_exception(record.detail)
        if record.outcome == "errored" and record.detail.startswith("the script was ended"):
            decided = Classified("fail", where + record.detail)
        elif record.outcome in ("errored", "failed") and record.exception is not None:
            decided = _from_exception(record.outcome, record.exception, where)
        elif record.outcome in ("errored", "failed") and (
            record.outcome == "failed"
            or (exception is not None and exception[0] == "AssertionError")
        ):
            message = f": {exception[1]}" if exception and exception[1] else ""
            decided = Classified("fail", f"{where}assertion failed{message}")
        elif record.outcome == "errored":
            lines = [line for line in record.detail.splitlines() if line.strip()]
            text = (
                _describe(exception)
                if exception
                else "exception: " + (lines[-1].strip()[:400] if lines else "unknown")
            )
            decided = Classified("error", where + text)
        elif record.outcome == "skipped":
            decided = Classified("fail", f"{where}skipped ({record.detail[:200]})")
        else:
            decided = Classified("fail", f"{where}{record.outcome}")
        if found is None or (found.verdict == "fail" and decided.verdict == "error"):
            found = decided
    return found


def _from_exception(outcome: str, exception: RecordedException, where: str) -> Classified:
    """A failed or errored test's verdict from the exception the test's process recorded
    (never from its traceback's text, which holds what the candidate wrote): its type
    decides; a candidate's text (its message, the type it named) is quoted and marked."""
    failed = outcome == "failed" or exception.type == "AssertionError"
    if exception.candidate is None:
        if failed:
            message = " ".join(exception.message.split())[:500]
            return Classified(
                "fail", f"{where}assertion failed" + (f": {message}" if message else "")
            )
        return Classified("error", where + _describe((exception.type, exception.message)))
    said = _quoted(exception.message)
    if not exception.candidate:  # our words about its answer (they may quote it)
        return Classified(
            "fail" if failed else "error",
            f"{where}the candidate's call failed ({exception.type}): {said}",
        )
    named = exception.candidate
    also = f" (it names its exception {_quoted(named, 100)})" if named != exception.type else ""
    label = _LOAD_ERRORS.get(exception.type, "assertion failed" if failed else "exception")
    return Classified(
        "fail" if failed else "error",
        f"{where}{label} in the candidate's code: {exception.type}{also}: {said}",
    )


def _quoted(text: str, cap: int = 300) -> str:
    """A candidate's text as one quoted line: never read as lines of our own."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= cap else flat[:cap] + "…")


def _logged_disagreement(report: HarnessReport) -> Classified | None:
    """The log file must say what the test said through logging: no "Failed" was said,
    and no "Passed" line is in the files that no logging call made."""
    logged = report.logged or {}
    if logged.get("Failed", 0):
        return Classified("fail", f"the test logged {logged['Failed']} 'Failed' message(s)")
    text = str((report.legacy_log or {}).get("text", ""))
    in_files = text.count("Passed")
    said = logged.get("Passed", 0)
    if in_files > said:
        return Classified(
            "fail",
            f"the logs hold {in_files} 'Passed' but the test logged {said} "
            "(written around logging: tampered)",
        )
    return None


def _legacy(report: HarnessReport, status: int | None, expected: Expected) -> Classified:
    log = report.legacy_log or {"missing": True}
    if "refused" in log:
        return Classified("fail", f"the legacy log was refused: {log['refused']}")
    if log.get("missing"):
        return Classified("fail", "the test wrote no log file in its logs folder")
    text = str(log.get("text", ""))
    decided = legacy_log_verdict(text)
    if decided.verdict != "pass":
        return decided
    if status != 0:
        return Classified("fail", f"the test process exited with status {status}")
    passed = text.count("Passed")
    if expected.legacy_passed is not None and passed != expected.legacy_passed:
        return Classified(
            "fail",
            f"legacy log has {passed} 'Passed' line(s), the golden code writes "
            f"{expected.legacy_passed}",
        )
    return decided


@dataclass(frozen=True)
class Observed:
    """What one test file's container run gave: its report, output, and how it ended."""

    exit_code: int | None
    output: str
    report: harness.HarnessReport
    duration_s: float
    timed_out: bool
    oom_killed: bool
    #: Isolated runs apart (Apptainer): the candidate's process's output.
    candidate_output: str = ""


def choose_protocol(impl: Implementation, test_file: str, protocol: str) -> str:
    """The protocol of ``test_file``: the one asked for, or for "auto" replay when the
    task recorded its outputs, else what the test's source shows (`detect_protocol`)."""
    if protocol != "auto":
        return protocol
    if replay_dir(impl.task_dir, test_file).is_dir():
        return "replay"
    try:
        source = (impl.repo_dir / test_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "exit-code"
    return detect_protocol(source)


def file_verdict(
    task: Task,
    test_file: str,
    outcome: Observed,
    protocol: str,
    limits: Limits,
    expected: Expected | None,
    plan: isolation.Isolation | None,
) -> TestVerdict:
    """The verdict of one test file from what its run observed (`decide`), with
    everything a candidate could have written made safe before it is kept."""
    report = outcome.report
    decided = decide(
        report,
        protocol=protocol,
        memory_mb=limits.memory_mb,
        timeout_s=limits.timeout_s,
        expected=expected,
        oom_killed=outcome.oom_killed,
        timed_out=outcome.timed_out,
        replay_expected=replay_dir(task.path, test_file) if protocol == "replay" else None,
    )
    legacy = report.legacy_log or {}
    log = outcome.output
    if outcome.candidate_output:
        log += "\n--- output of the candidate's process ---\n" + outcome.candidate_output
    counted = test_counts(report)
    # Everything a candidate could have written is made safe before it is kept.
    return TestVerdict(
        test_file=test_file,
        verdict=decided.verdict,
        reason=safe_text(decided.reason, 4000),
        duration_s=outcome.duration_s,
        log=safe_text(log),
        exit_code=None if outcome.timed_out or report.timed_out else report.exit_status,
        legacy_log=safe_text(legacy["text"]) if "text" in legacy else None,
        protocol=protocol,
        tests_run=len(report.records),
        tests=counted[0],
        tests_failed=counted[1],
        legacy_passed=str(legacy.get("text", "")).count("Passed") if legacy else None,
        isolated=plan is not None,
        crossings=tuple(report.crossings)
        + (_not_proxied(plan) if plan is not None and report.proxied == 0 else ()),
        test_reads=()
        if plan is None
        else isolation.test_only_reads(plan, report.read, report.candidate_read),
        changed_inputs=tuple(report.changed),
    )


def _not_proxied(plan: isolation.Isolation) -> tuple[str, ...]:
    return (
        f"goal: the test never imported {PurePosixPath(plan.goal_path).name} through "
        "Python's import system, so no proxy stood in for the goal function",
    )
