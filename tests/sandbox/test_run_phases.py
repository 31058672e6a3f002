"""Where a run's time goes (`run_phases`), and what a batch's output holds per slot."""

from __future__ import annotations

import json

from lmr_author.sandbox import harness
from lmr_author.sandbox.batch import _output_of, _report_lines
from lmr_author.sandbox.harness.zygote import OUTPUT_MARK
from lmr_author.sandbox.run_phases import Phase, format_phases, listen, phases_of, publish

HOST = {"begin": 100.0, "created": 100.2, "copied": 100.3, "waited": 104.0, "read": 104.1}
SUPERVISOR = {"exec": 100.4, "supervisor": 100.5, "locked": 100.5, "test ended": 103.6}
TEST = {"exec": 100.5, "imported": 100.7, "forked": 102.2, "ready": 102.3, "ended": 103.5}


def test_phases_run_from_boundary_to_boundary_in_order() -> None:
    test = {**TEST, "calls": 15, "call_s": 0.4}
    host = {**HOST, "removed": 104.3}
    phases = phases_of(host, {"finished": 103.8}, {**SUPERVISOR, "read back": 103.7}, test)
    named = {phase.name: round(phase.seconds, 3) for phase in phases}
    assert list(named) == [
        "create the container",
        "copy in",
        "container start",
        "supervisor start-up",
        "supervisor set-up (lock-down)",
        "test process start-up",
        "imports before the fork",
        "test set-up (users, proxy, preloads)",
        "the test",
        "calls to the candidate (15)",
        "test process exit",
        "records out",
        "container exit",
        "engine reports the end",
        "inspect and logs",
        "remove the container",
    ]
    assert named["imports before the fork"] == 1.5
    assert named["the test"] == 1.2
    assert [p.inner for p in phases].count(True) == 1
    outer = sum(p.seconds for p in phases if not p.inner)
    assert round(outer, 6) == round(104.3 - 100.0, 6)  # the phases add up to the run


def test_a_step_not_stamped_gives_its_time_to_the_next_and_clocks_never_go_back() -> None:
    test = {key: value for key, value in TEST.items() if key != "forked"}
    supervisor = {**SUPERVISOR, "exec": 100.25}  # read before the host's last mark
    phases = phases_of(HOST, {}, supervisor, test)
    named = {phase.name: round(phase.seconds, 3) for phase in phases}
    assert "imports before the fork" not in named
    assert named["test set-up (users, proxy, preloads)"] == 1.6
    assert named["container start"] == 0.0
    assert phases_of({}, {}, SUPERVISOR, TEST) == ()


def test_the_lines_and_who_hears_them() -> None:
    lines = format_phases([Phase("copy in", 0.25), Phase("calls", 0.5, inner=True)])
    assert lines[0].split() == ["copy", "in", "0.25", "s"]
    assert lines[1].strip().startswith("of which calls")
    assert lines[-1].split() == ["total", "0.25", "s"]
    heard: list[tuple[str, str]] = []
    with listen(lambda run, test_file, phases: heard.append((run, test_file))):
        publish("01-DPO #1", "unit_test/unit_test_1.py", (Phase("copy in", 0.1),))
    publish("after", "t.py", ())
    assert heard == [("01-DPO #1", "unit_test/unit_test_1.py")]


def _line(nonce: str, result: dict[str, object]) -> str:
    return f"{harness.MARKER} {nonce} {json.dumps(result)}"


def test_stamps_are_read_and_a_malformed_one_in_the_records_is_garbage() -> None:
    end = {"event": "end", "tampered": [], "stamps": {"ready": 1.5, "calls": 3}}
    good = _line("n", {"stamps": {"exec": 2.0}, "records": [end], "oom_killed": True})
    report = harness.parse_report(good, "n")
    assert report.stamps == {"exec": 2.0} and report.test_stamps == {"ready": 1.5, "calls": 3.0}
    assert report.oom_killed and report.garbage == 0
    for stamps in ({"x": "soon"}, {"x": float("nan")}, [1.0], {f"k{n}": 1 for n in range(20)}):
        forged = _line("n", {"records": [{**end, "stamps": stamps}]})
        assert harness.parse_report(forged, "n").garbage == 1, stamps


def test_each_slot_of_a_batch_reads_its_own_report_and_output() -> None:
    stdout = "\n".join(
        [_line("aa", {"exit_status": 0}), "noise", _line("bb", {"batch_lost": "gone"})]
    )
    assert harness.parse_report(_report_lines(stdout, "aa"), "aa").exit_status == 0
    assert harness.parse_report(_report_lines(stdout, "bb"), "bb").batch_lost == "gone"
    assert not harness.parse_report(_report_lines(stdout, "cc"), "cc").found
    stderr = (
        f"\n{OUTPUT_MARK} aa begin 0\nfirst\nslot\n{OUTPUT_MARK} bb end\n\n{OUTPUT_MARK} aa end\n"
        f"\n{OUTPUT_MARK} bb begin 120\ntail of bb\n{OUTPUT_MARK} bb end\n"
    )
    assert _output_of(stderr, "aa") == f"first\nslot\n{OUTPUT_MARK} bb end\n"
    assert _output_of(stderr, "bb") == "[... output cut ...]\ntail of bb"
    assert _output_of(stderr, "cc") == ""
