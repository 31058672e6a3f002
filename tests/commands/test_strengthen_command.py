"""`lmr-author strengthen`'s command line: what it refuses before any Docker step."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmr_author.cli import main
from tests.support.loose_tasks import write_loose_task


def test_help_names_the_replay_test_and_the_stored_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["strengthen", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "unit_test/replay_test_<k>.py" in text and "extra_unit_tests" in text
    assert "--driver FILE" in text and "mutation_score" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--max-calls", "0"], "--max-calls must be 1 or more"),
        (["--max-fixture-mb", "0"], "--max-fixture-mb must be more than 0"),
        (["--measure-only", "--no-mutants"], "--measure-only records nothing"),
    ],
)
def test_bad_options_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    task = write_loose_task(tmp_path, goals=(3,))
    assert main(["strengthen", *extra, str(task)]) == 2
    assert message in capsys.readouterr().err


def test_a_driver_goes_with_one_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write_loose_task(tmp_path / "a", goals=(3,))
    second = write_loose_task(tmp_path / "b", goals=(3,))
    driver = tmp_path / "driver.py"
    driver.write_text("from metric import weighted_error\n")
    assert main(["strengthen", "--driver", str(driver), str(first), str(second)]) == 2
    assert "--driver adds calls to one task's goal; 2 tasks were given" in capsys.readouterr().err
    assert main(["strengthen", "--driver", str(tmp_path / "none.py"), str(first)]) == 2
    assert "cannot read the driver" in capsys.readouterr().err


def test_a_folder_that_is_no_task_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["strengthen", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
