"""The sample benchmark's runs keep their identity: moving code changes no run key.

`tests/support/sample_runs.json` was recorded before the package was reorganised; the
run keys (what a resumed ``eval`` compares to keep a stored run), the settings and
image plans that go into them, and the candidates' hashes are computed again here by
the real evaluation loop, without Docker. The verdicts of the record are compared with
a real ``eval`` by `test_sample_benchmark`'s Docker demo.
"""

from __future__ import annotations

from tests.support import sample_runs


def test_sample_runs_are_identified_as_recorded() -> None:
    computed, record = sample_runs.compute(), sample_runs.recorded()
    assert computed["settings"] == record["settings"]
    assert computed["images"] == record["images"]
    assert computed["runs"] == record["runs"]


def test_the_record_covers_every_sample_run_and_its_verdict() -> None:
    record = sample_runs.recorded()
    for form in sample_runs.FORMS:
        assert set(record["runs"][form]) == set(record["verdicts"])
    # Three systems x 8 implementations, each with a verdict a real eval gave.
    assert len(record["verdicts"]) == 3 * 8
    assert set(record["verdicts"].values()) <= {"pass", "fail", "error"}
