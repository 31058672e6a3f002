"""Turn what a test container left behind into a verdict: pass, fail, error or timeout.

Two protocols exist among published tasks. Ordinary tests (unittest, pytest, bare
``assert``) speak through the exit status and the traceback: exit 0 passes, an
``AssertionError`` or a unittest/pytest failure fails, anything else that stops the
script (syntax or import error, another exception, a signal, running out of memory)
is an error of the candidate. Legacy tests never fail as programs: they only write
"Passed"/"Failed" lines to ``unit_test/logs/unit_test_<k>.log``, and the published
harness passes a log with at least one "Passed" and no "Failed". `detect_protocol`
recognises such tests from their source so the right protocol is chosen per test file.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Literal

from lmr_author.verdicts import TestVerdictName

Protocol = Literal["exit-code", "legacy"]
PROTOCOLS = ("auto", "exit-code", "legacy")

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
    """``legacy`` for a test that never asserts and only logs "Passed"/"Failed" lines.

    A test is legacy when its source mentions "Passed" or "Failed" in string literals and
    contains no ``assert`` statement, no ``assert*``/``fail`` call, no
    ``pytest``/``unittest`` import, no ``raise`` and no ``sys.exit``/``exit`` call.
    Unparsable sources count as ordinary tests (their syntax error will show).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return "exit-code"
    mentions_log_words = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert | ast.Raise):
            return "exit-code"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [alias.name for alias in node.names]
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            if any(name.split(".")[0] in {"pytest", "unittest"} for name in names):
                return "exit-code"
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
                return "exit-code"
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and ("Passed" in node.value or "Failed" in node.value)
        ):
            mentions_log_words = True
    return "legacy" if mentions_log_words else "exit-code"


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
        if signal_number == 9 and memory_mb:
            return Classified("error", f"killed by signal 9 (memory limit {memory_mb} MB?)")
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
