"""The published results.txt: real shape, the published script's variants, and fuzzing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmr_author.reporting.published_results import (
    load_published_results,
    parse_published_results,
)
from lmr_author.util.errors import UserError

#: The published shape, as in the shared reference formats (unit-test-results-example.txt).
SAMPLE = """\
1-DPO/unit_test_1.log: FAIL (found 2 failure lines)
11-moverscore/unit_test_1.log: FAIL (found 0 failure lines)
13-DecBound/unit_test_1.log: PASS
16-KnowProb/unit_test_1.log: FAIL (found 1 failure lines)
16-KnowProb/unit_test_2.log: PASS
2-HITs/unit_test_1.log: PASS

Total log files: 6
Passed files:    3
Failed files:    3
Overall pass rate: 50.00%
"""


def parse(text: str) -> object:
    return parse_published_results(text, Path("agent/model/results.txt"), "agent/model")


def test_loads_the_published_shape(tmp_path: Path) -> None:
    folder = tmp_path / "OpenHands" / "gpt-4o"
    folder.mkdir(parents=True)
    target = folder / "results.txt"
    target.write_bytes(SAMPLE.encode("utf-8"))
    result = load_published_results(target)
    assert result.system == "OpenHands/gpt-4o"
    assert (result.total, result.passed, result.accuracy) == (6, 3, 0.5)
    first, fifth = result.logs[0], result.logs[4]
    assert (first.task, first.log_name, first.passed, first.failure_lines) == (
        "1-DPO",
        "unit_test_1.log",
        False,
        2,
    )
    assert (fifth.task, fifth.test_index, fifth.unit_test_file) == (
        "16-KnowProb",
        2,
        "unit_test/unit_test_2.py",
    )
    assert fifth.line == 5


def test_tolerates_crlf_blank_lines_and_trailing_spaces() -> None:
    text = "\r\n\r\n" + SAMPLE.replace("\n", "  \r\n").replace("PASS  ", "PASS \t")
    result = parse_published_results(text, Path("r.txt"), "s")
    assert [log.line for log in result.logs] == [3, 4, 5, 6, 7, 8]
    assert result.passed == 3


def test_the_published_scripts_other_lines() -> None:
    text = (
        "[WARN] skip notes due to lack of info.json1-DPO/unit_test_1.log: PASS fail_count: 0\n"
        "/eval/5-SimPO/SimPO/unit_test/logs is not a directory\n"
        "stray.txt is not a log file\n"
        "\nTotal log files: 3\nPassed files:    1\nFailed files:    2\n"
        "Overall pass rate: 33.33%\n"
    )
    result = parse_published_results(text, Path("r.txt"), "s")
    assert [(log.task, log.log_name, log.passed) for log in result.logs] == [
        ("notes", "", False),
        ("1-DPO", "unit_test_1.log", True),
        ("5-SimPO", "", False),
    ]
    assert result.logs[2].unit_test_file is None


def test_no_logs_at_all() -> None:
    text = "\nTotal log files: 0\nPassed files:    0\nFailed files:    0\n"
    assert parse_published_results(text, Path("r.txt"), "s").accuracy == 0.0


@pytest.mark.parametrize(
    ("text", "where", "needle"),
    [
        (SAMPLE.replace("Passed files:    3", "Passed files:    4"), "line 9", "say 4"),
        (SAMPLE.replace("Total log files: 6", "Total log files: 7"), "line 8", "say 7"),
        (SAMPLE.replace("50.00%", "51.00%"), "line 11", "3 of 6 is 50.00%"),
        (
            SAMPLE.replace("HITs/unit_test_1.log: PASS", "HITs/unit_test_1.log: OK"),
            "line 6",
            "cannot read",
        ),
        (
            SAMPLE.replace("13-DecBound/", "1-DPO/"),
            "line 3",
            "listed twice",
        ),
        (SAMPLE + "1-DPO/unit_test_9.log: PASS\n", "line 12", "only totals"),
        (SAMPLE + "Passed files: 3\n", "line 12", "a second"),
        ("1-DPO/unit_test_1.log: PASS fail_count: 2\n", "line 1", "contradicts"),
    ],
)
def test_bad_files_name_the_line(text: str, where: str, needle: str) -> None:
    with pytest.raises(UserError, match=needle) as caught:
        parse(text)
    assert caught.value.where == where
    assert caught.value.file == str(Path("agent/model/results.txt"))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (SAMPLE.split("\n\n")[0] + "\n", "totals lines are missing"),
        (SAMPLE.replace("Failed files:    3\n", ""), "'failed' totals line is missing"),
        (SAMPLE.replace("Overall pass rate: 50.00%\n", ""), "pass rate' line is missing"),
    ],
)
def test_missing_totals(text: str, needle: str) -> None:
    with pytest.raises(UserError, match=needle):
        parse(text)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_published_results(tmp_path / "missing.txt")
    with pytest.raises(UserError, match="a folder"):
        load_published_results(tmp_path)
    binary = tmp_path / "results.txt"
    binary.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(UserError, match="not UTF-8"):
        load_published_results(binary)


_PIECES = st.sampled_from(
    [
        "1-DPO/unit_test_1.log: PASS",
        "2-HITs/unit_test_2.log: FAIL (found 3 failure lines)",
        "x is not a log file",
        "/a/9-X/r/unit_test/logs is not a directory",
        "[WARN] skip t due to lack of info.json",
        "Total log files: 1",
        "Passed files:    1",
        "Failed files:    0",
        "Overall pass rate: 100.00%",
        "",
        "\r",
        " ",
        ":",
        "/",
        ".log: PASS",
    ]
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=40)), max_size=12))
def test_fuzz_only_user_errors(pieces: list[str]) -> None:
    text = "\n".join(pieces)
    try:
        result = parse(text)
    except UserError as error:
        assert error.file and str(error)
    else:
        assert result.total == len(result.logs)
        assert 0 <= result.passed <= result.total
