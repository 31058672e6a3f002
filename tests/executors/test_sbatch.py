"""What an array asks Slurm for, and what Slurm's commands print, read without a cluster."""

from __future__ import annotations

from pathlib import Path

from lmr_author.executors.slurm.cli import (
    DEFAULT_MAX_ARRAY_SIZE,
    parse_max_array_size,
    parse_sinfo_cpus,
    parse_squeue,
    parse_time_left,
)
from lmr_author.executors.slurm.sbatch import (
    FALLBACK_IN_FLIGHT,
    MEMORY_MARGIN_MB,
    Resources,
    SbatchOptions,
    array_argv,
    array_elements,
    default_in_flight,
    run_budget_s,
    write_array,
)


def test_resources_come_from_the_runs_limits_unless_given() -> None:
    mine = SbatchOptions().resources(cpus=1.5, memory_mb=2048, timeout_s=90, gres=None)
    assert mine == Resources(cpus=2, memory=f"{2048 + MEMORY_MARGIN_MB}M", time="15")
    given = SbatchOptions(mem="8G", time="2:00:00")
    assert given.resources(cpus=1, memory_mb=2048, timeout_s=90, gres="gpu:1") == Resources(
        cpus=1, memory="8G", time="2:00:00", gres="gpu:1"
    )


def test_equal_requests_are_equal_keys_and_different_gres_are_not() -> None:
    options = SbatchOptions()
    cpu = options.resources(cpus=1, memory_mb=1024, timeout_s=120, gres=None)
    again = options.resources(cpus=1, memory_mb=1024, timeout_s=120, gres=None)
    gpu = options.resources(cpus=1, memory_mb=1024, timeout_s=120, gres="gpu:1")
    assert len({cpu, again, gpu}) == 2


def test_an_array_has_one_worker_per_run_in_flight_never_more_than_runs() -> None:
    assert array_elements(24, 4) == 4  # %4 as workers: four runs at most at once
    assert array_elements(3, 8) == 3
    assert array_elements(24, 1) == 1
    assert array_elements(5, 0) == 1


def test_an_array_asks_for_what_every_run_needs(tmp_path: Path) -> None:
    options = SbatchOptions(
        partition="short", account="lab", qos="low", extra=("--constraint=skylake",)
    )
    resources = Resources(cpus=1, memory="1536M", time="16", gres="gpu:1")
    argv = array_argv(
        name="lmr-eval-1",
        folder=tmp_path,
        elements=4,
        resources=resources,
        options=options,
    )
    assert argv[:3] == ["sbatch", "--parsable", "--array=0-3"]
    for expected in (
        "--job-name=lmr-eval-1",
        "--cpus-per-task=1",
        "--mem=1536M",
        "--time=16",
        "--gres=gpu:1",
        "--partition=short",
        "--account=lab",
        "--qos=low",
    ):
        assert expected in argv
    # The passthrough comes after ours (sbatch takes the last), the script last.
    assert argv[-2:] == ["--constraint=skylake", str(tmp_path / "job.sh")]


def test_the_default_throttle_is_the_partitions_room() -> None:
    assert default_in_flight(64, 1) == 64
    assert default_in_flight(64, 4) == 16
    assert default_in_flight(2, 4) == 1
    assert default_in_flight(0, 1) == FALLBACK_IN_FLIGHT  # sinfo said nothing


def test_slurm_outputs_are_read() -> None:
    assert parse_squeue("12_0 R\n12_1 PD\nnoise\n") == {"12_0": "R", "12_1": "PD"}
    assert parse_sinfo_cpus("0/2/0/2\n4/60/0/64\n") == 66
    assert parse_sinfo_cpus("") == 0
    assert parse_max_array_size("MaxArraySize            = 40001\nX = 1") == 40001
    assert parse_max_array_size("nothing") == DEFAULT_MAX_ARRAY_SIZE


def test_an_array_folder_links_each_element_to_its_request(tmp_path: Path) -> None:
    requests = [tmp_path / f"r{i}.request.json" for i in range(3)]
    for request in requests:
        request.write_text("{}")
    write_array(tmp_path / "array", requests, "/venv/bin/python", run_budget_s(90))
    assert [(tmp_path / "array" / f"{i}.json").resolve() for i in range(3)] == requests
    script = (tmp_path / "array" / "job.sh").read_text()
    assert f"/venv/bin/python -m lmr_author.executors.worker --array {tmp_path}/array 3 480" in (
        script
    )


def test_squeues_time_left_is_read_in_seconds() -> None:
    assert parse_time_left("5:07") == 307
    assert parse_time_left("1:00:00") == 3600
    assert parse_time_left("2-03:04:05") == 2 * 86400 + 3 * 3600 + 4 * 60 + 5
    for unknown in ("UNLIMITED", "NOT_SET", "INVALID", "", "1:2:3:4", "x-1:00"):
        assert parse_time_left(unknown) is None
