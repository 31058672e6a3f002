"""An author declares the GPUs a task needs: in a spec file, in the app, in info.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.check import draft_info, live_check
from lmr_author.authoring.spec import GoalSpec, TaskSpec, load_spec
from lmr_author.domain.hardware import Hardware, parse_hardware
from lmr_author.util.errors import UserError


def _spec(**fields: Any) -> TaskSpec:
    spec = TaskSpec(folder_name="07-Toy", instance_id=7, year=2025, repo_folder_name="toy")
    spec.goals = [GoalSpec("toy/losses.py", "margin_loss", instruction="Implement it.")]
    for name, value in fields.items():
        setattr(spec, name, value)
    return spec


def test_no_gpu_leaves_the_key_out() -> None:
    assert "hardware" not in draft_info(_spec())
    assert "hardware" not in draft_info(_spec(gpus=0))


def test_declared_gpus_reach_info_json_as_the_loader_reads_them() -> None:
    info = draft_info(_spec(gpus=2, gpu_memory_gb=40.0))
    assert info["hardware"] == {"gpus": 2, "gpu_memory_gb": 40.0}
    assert parse_hardware(info["hardware"]) == Hardware(gpus=2, gpu_memory_gb=40.0)
    assert not [i for i in live_check(_spec(gpus=2, gpu_memory_gb=40.0)) if "hardware" in i.path]


def test_memory_without_a_gpu_count_is_flagged_once_before_save() -> None:
    issues = [i for i in live_check(_spec(gpu_memory_gb=24.0)) if "hardware" in i.path]
    assert len(issues) == 1 and "'gpus' is 0" in issues[0].message


def test_a_spec_file_round_trips_the_hardware(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({**_spec().to_json(), "gpus": 1, "gpu_memory_gb": 24}))
    spec = load_spec(path)
    assert (spec.gpus, spec.gpu_memory_gb) == (1, 24)
    assert spec.hardware_info() == {"gpus": 1, "gpu_memory_gb": 24}


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"gpus": "1"}, "$.gpus"),
        ({"gpus": True}, "$.gpus"),
        ({"gpus": -1}, "$.gpus"),
        ({"gpus": 1, "gpu_memory_gb": "24GB"}, "$.gpu_memory_gb"),
        ({"gpus": 1, "gpu_memory_gb": 0}, "$.gpu_memory_gb"),
    ],
)
def test_a_bad_spec_value_names_its_key(tmp_path: Path, fields: dict[str, Any], where: str) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({**_spec().to_json(), **fields}))
    with pytest.raises(UserError) as caught:
        load_spec(path)
    assert caught.value.where == where
    assert "spec.json" in caught.value.render()


def test_a_draft_between_keystrokes_loads_and_the_live_check_flags_it(tmp_path: Path) -> None:
    """Memory typed before the GPU count: autosaved, resumable, refused only at save."""
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({**_spec().to_json(), "gpu_memory_gb": 24}))
    spec = load_spec(path)
    assert [i.path for i in live_check(spec) if "hardware" in i.path] == ["$.hardware"]


def test_the_example_spec_loads_and_shows_the_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmr_author.cli import main

    assert main(["new-task", "--example-spec"]) == 0
    example = json.loads(capsys.readouterr().out)
    assert "gpus" in example and "gpu_memory_gb" in example
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(example))
    assert load_spec(path).hardware_info() is None  # the example needs no GPU
