"""Cluster values checked before anything runs, in numbers: ``--time``, ``--mem``, the
site's ``SBATCH_*`` defaults and ``--sbatch-arg`` (no cluster needed: each is refused
before ``sbatch --test-only`` would be asked)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from lmr_author.commands._executor import _check_with_slurm, _sbatch_options
from lmr_author.eval_loop.backend import DockerBackend
from lmr_author.executors.slurm.sbatch import SbatchOptions, array_argv
from lmr_author.executors.slurm.values import (
    check_memory,
    check_sbatch_args,
    check_time,
    memory_mb,
    time_seconds,
)
from lmr_author.util.errors import UserError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30", 1800), ("5:30", 330), ("1:00:00", 3600), ("2-3", 183600), ("1-0:10:5", 87005)],
)
def test_slurm_times_are_read_as_sbatch_reads_them(text: str, seconds: int) -> None:
    assert time_seconds(text) == seconds


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("0", "Slurm reads 0 as no limit"),
        ("0:00:00", "Slurm reads 0 as no limit"),
        ("-5", "is not a Slurm time"),
        ("ten", "is not a Slurm time"),
        ("UNLIMITED", "is not a Slurm time"),
    ],
)
def test_no_walltime_or_garbage_is_refused(text: str, said: str) -> None:
    with pytest.raises(UserError, match=said):
        time_seconds(text)


def test_a_walltime_below_one_runs_worst_case_is_refused_in_numbers() -> None:
    with pytest.raises(UserError) as refused:
        check_time("5", needed_s=540, timeout_s=120)
    text = str(refused.value)
    assert "'5' (0:05:00) is shorter than one run's worst case, 0:09:00" in text
    assert "two test time limits of 120 s plus five minutes" in text
    assert "--time 9 or more" in text
    check_time("9", needed_s=540, timeout_s=120)


@pytest.mark.parametrize(
    ("text", "shown"), [("1K", "0.0009765625 MB"), ("300M", "300 MB"), ("1G", "1024 MB")]
)
def test_memory_below_the_runs_need_is_refused_in_numbers(text: str, shown: str) -> None:
    with pytest.raises(UserError) as refused:
        check_memory(text, limit_mb=1024, margin_mb=512)
    message = str(refused.value)
    assert "is below what one run needs: 1536 MB" in message
    assert "memory limit of 1024 MB plus 512 MB for the worker" in message
    assert "--mem 1536M or more" in message
    if text != "1K":
        assert f"({shown})" in message
    else:
        assert "(1 KB)" in message


def test_enough_memory_or_the_whole_node_passes() -> None:
    for text in ("1536M", "2G", "1536", "0"):
        check_memory(text, limit_mb=1024, margin_mb=512)
    assert memory_mb("2G") == 2048
    with pytest.raises(UserError, match="not a Slurm memory size"):
        memory_mb("lots")


@pytest.mark.parametrize(
    ("arg", "said"),
    [
        ("--mem=2G", "lmr-author sets --mem itself; give --mem instead"),
        ("--mem-per-cpu=2G", "lmr-author sets --mem-per-cpu itself; give --mem instead"),
        ("-t30", "lmr-author sets -t itself; give --time instead"),
        ("--account=x", "give --account instead"),
        ("--gpus=1", "give --gres instead"),
        ("--cpus-per-task=2", "lmr-author sets --cpus-per-task from the sandbox's CPU limit"),
        ("-c2", "lmr-author sets -c from the sandbox's CPU limit"),
        ("--array=0-3", "lmr-author sets --array itself"),
        ("constraint=x", "not an sbatch option"),
    ],
)
def test_an_sbatch_arg_that_conflicts_with_ours_names_the_option_to_use(
    arg: str, said: str
) -> None:
    with pytest.raises(UserError, match=said.replace("-", r"\-")):
        check_sbatch_args([arg])


def test_other_sbatch_args_pass() -> None:
    check_sbatch_args(["--constraint=skylake", "--nice=10", "--reservation=r"])


def _args(**given: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "partition": None,
        "mem": None,
        "time": None,
        "account": None,
        "qos": None,
        "sbatch_arg": [],
        "max_in_flight": None,
    }
    values.update(given)
    return argparse.Namespace(**values)


def test_site_defaults_are_kept_unless_an_option_overrides_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SBATCH_TIMELIMIT", "2:00:00")
    monkeypatch.setenv("SBATCH_MEM_PER_NODE", "4G")
    options = _sbatch_options(_args())
    resources = options.resources(cpus=1.0, memory_mb=1024, timeout_s=120, gres=None)
    argv = array_argv(name="n", folder=Path("/f"), elements=1, resources=resources, options=options)
    assert not any(a.startswith(("--time", "--mem")) for a in argv)  # the site's hold
    given = _sbatch_options(_args(time="47", mem="2G"))
    resources = given.resources(cpus=1.0, memory_mb=1024, timeout_s=120, gres=None)
    assert (resources.time, resources.memory) == ("47", "2G")  # an option wins


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("SBATCH_TIMELIMIT", "0", "SBATCH_TIMELIMIT (the site's default) '0' is no walltime"),
        ("SBATCH_TIMELIMIT", "3", "SBATCH_TIMELIMIT (the site's default) '3' (0:03:00)"),
        ("SBATCH_MEM_PER_NODE", "300M", "SBATCH_MEM_PER_NODE (the site's default) '300M'"),
    ],
)
def test_a_site_default_that_cannot_hold_a_run_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, said: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(UserError, match=said.replace("(", r"\(").replace(")", r"\)")):
        _check_with_slurm(DockerBackend(), _sbatch_options(_args()), None)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"time": "0"}, "--time '0' is no walltime"),
        ({"time": "-5"}, "--time '-5' is not a Slurm time"),
        ({"mem": "1K"}, "--mem '1K' (1 KB) is below what one run needs: 1536 MB"),
        ({"mem": "300M"}, "--mem '300M' (300 MB) is below what one run needs: 1536 MB"),
    ],
)
def test_cluster_values_are_refused_before_slurm_is_asked(given: dict[str, str], said: str) -> None:
    options = _sbatch_options(_args(**given))
    with pytest.raises(UserError, match=said.replace("(", r"\(").replace(")", r"\)")):
        _check_with_slurm(DockerBackend(), options, None)


def test_default_options_ask_for_the_runs_own_needs() -> None:
    resources = SbatchOptions().resources(cpus=1.0, memory_mb=1024, timeout_s=120, gres=None)
    assert (resources.memory, resources.time) == ("1536M", "16")
