"""``eval``'s Slurm options as the command line reads them, without a cluster."""

from __future__ import annotations

import pytest

from lmr_author.cli import main


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
