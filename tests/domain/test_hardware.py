"""info.json ``hardware``: what one run needs, read strictly and agreed with the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from lmr_author.domain.hardware import NO_HARDWARE, Hardware, HardwareError, parse_hardware
from lmr_author.domain.task import TaskLoadError, load_task, save_task
from lmr_author.util.resources import resource_path
from tests.domain.test_task import INFO, write_task


def _with(hardware: Any) -> dict[str, Any]:
    return {**INFO, "hardware": hardware}


def test_absent_means_no_gpu(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path))
    assert task.hardware == NO_HARDWARE and not task.hardware.needs_gpu
    assert task.hardware.describe() == "no GPU"


def test_declared_gpus_load_and_survive_a_save(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path, _with({"gpus": 2, "gpu_memory_gb": 40})))
    assert task.hardware == Hardware(gpus=2, gpu_memory_gb=40.0)
    assert task.hardware.describe() == "2 GPUs with 40 GB each"
    save_task(task)
    again = load_task(tmp_path / "05-SimPO")
    assert again.hardware == task.hardware
    assert json.loads(again.info_path.read_text())["hardware"] == {"gpus": 2, "gpu_memory_gb": 40}


BAD = [
    ("a string", "$.hardware"),
    ({"gpu": 1}, "$.hardware.gpu"),
    ({"gpus": -1}, "$.hardware.gpus"),
    ({"gpus": True}, "$.hardware.gpus"),
    ({"gpus": 1.5}, "$.hardware.gpus"),
    ({"gpus": "1"}, "$.hardware.gpus"),
    ({"gpus": 1, "gpu_memory_gb": 0}, "$.hardware.gpu_memory_gb"),
    ({"gpus": 1, "gpu_memory_gb": "24GB"}, "$.hardware.gpu_memory_gb"),
    ({"gpu_memory_gb": 24}, "$.hardware"),
]


@pytest.mark.parametrize(("value", "where"), BAD)
def test_a_wrong_value_stops_loading_and_says_where(tmp_path: Path, value: Any, where: str) -> None:
    with pytest.raises(TaskLoadError) as caught:
        load_task(write_task(tmp_path, _with(value)))
    assert caught.value.where == where
    assert "info.json" in str(caught.value) and "hardware" in str(caught.value)


SCHEMA = json.loads(resource_path("schemas", "info.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "value",
    [v for v, _ in BAD if not (isinstance(v, dict) and v == {"gpu_memory_gb": 24})]
    + [{"gpus": 0}, {"gpus": 1}, {"gpus": 1, "gpu_memory_gb": 24.5}],
)
def test_schema_and_loader_agree(value: Any) -> None:
    """What the schema accepts loads; what it refuses is refused (one rule, two readers)."""
    schema_ok = jsonschema.Draft202012Validator(SCHEMA["properties"]["hardware"]).is_valid(value)
    try:
        parse_hardware(value)
        loader_ok = True
    except HardwareError:
        loader_ok = False
    assert schema_ok == loader_ok
