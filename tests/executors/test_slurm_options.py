"""``eval``'s Slurm options as the command line reads them, without a cluster."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lmr_author.cli import main


@pytest.mark.parametrize("columns", ["60", "80", "200"])
def test_every_line_of_eval_help_fits_80_columns(columns: str) -> None:
    env = {"COLUMNS": columns, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "lmr_author", "eval", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    long = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert long == []
    for option in ("--mem", "--time", "--account", "--qos", "--sbatch-arg", "--max-in-flight"):
        assert option in done.stdout


@pytest.mark.parametrize(
    "option",
    [
        ["--mem", "4G"],
        ["--time", "30"],
        ["--account", "lab"],
        ["--qos", "low"],
        ["--sbatch-arg=--constraint=x"],
        ["--max-in-flight", "3"],
    ],
)
def test_a_slurm_option_without_the_slurm_executor_is_a_usage_error(
    option: list[str], tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["eval", "benchmark", "-s", "benchmark/submissions/correct", *option])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{option[0].split('=')[0]} is for --executor slurm" in err
