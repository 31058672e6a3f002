"""``validate --run --mutants`` runs each mutant as the golden code runs: with the
command's ``--hf-cache`` and ``--gpus`` (it once ran them with neither), in real containers.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from tests.conftest import IN_CI
from tests.support.sandbox_tasks import write_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

#: Reads a scale of 1 from the model cache: dropping ``* scale`` is then an equivalent
#: mutant, which survives only when the cache is mounted (without, every mutant fails).
MODEL_GOLDEN = textwrap.dedent(
    '''\
    """A tiny repository module with one goal function."""
    import json
    import os
    import pathlib


    def add(a, b):
        """Return the sum of a and b, scaled as the cached model's config says."""
        hub = pathlib.Path(os.environ.get("HF_HUB_CACHE", "/nonexistent"))
        config = json.loads((hub / "models--org--scale" / "config.json").read_text())
        return (a + b) * config["scale"]
    '''
)
SURVIVOR = "drop the right operand of Multiply"


def _mutants(task: Path, capsys: Any, *extra: str) -> str:
    argv = ["validate", str(task), "--run", "--mutants", "--select=infra", "--timeout", "60"]
    main([*argv, *extra])
    out: str = capsys.readouterr().out
    return out


def test_mutants_get_the_model_cache(tmp_path: Path, capsys: Any) -> None:
    task = write_task(tmp_path / "bench", tag="muthub", golden=MODEL_GOLDEN)
    hub = tmp_path / "hub"
    (hub / "models--org--scale").mkdir(parents=True)
    (hub / "models--org--scale" / "config.json").write_text('{"scale": 1}')

    without = _mutants(task.path, capsys)
    assert "mutation score 100%" in without and SURVIVOR not in without, without

    given = _mutants(task.path, capsys, "--hf-cache", str(hub))
    if "mutation score 100%" in given and not IN_CI:
        pytest.skip("the engine binds paths of another host (the cache looks empty there)")
    assert SURVIVOR in given, given
    assert "not run" not in given


def test_mutants_get_the_gpus(tmp_path: Path, capsys: Any, docker_client: Any) -> None:
    if "nvidia" in (docker_client.info().get("Runtimes") or {}):
        pytest.skip("this engine can give GPUs")
    task = write_task(tmp_path / "bench", tag="mutgpu")
    out = _mutants(task.path, capsys, "--gpus", "all")
    # This engine cannot give GPUs: every mutant run is an engine error, not a kill.
    [score] = [line for line in out.splitlines() if "mutation score" in line]
    assert "(0 of 0 mutants killed" in score and "not run" in score, out
