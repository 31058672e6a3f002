"""GPUs, the model cache and "not runnable here", through ``eval`` in real containers.

The model-loading task reads its model from the hub cache as the Hugging Face libraries
do (``models--<org>--<name>/refs/main`` → ``snapshots/<rev>/``) and fails offline with the
libraries' message; no library is installed, so CI needs no downloads.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from tests.conftest import IN_CI
from tests.support.eval_cli import eval_argv, eval_json
from tests.support.sandbox_tasks import ASSERT_TEST, GOLDEN, MASKED, write_task

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

MODEL = "org/tiny-adder"
SECRET = "hf_do_not_leak_7f3a"

MODEL_GOLDEN = textwrap.dedent(
    '''\
    """A tiny repository module with one goal function."""
    import json
    import os
    import pathlib


    def add(a, b):
        """Return the sum of a and b, scaled as the cached model's config says."""
        name = "org/tiny-adder"
        hub = pathlib.Path(os.environ.get("HF_HUB_CACHE", "/nonexistent"))
        folder = hub / ("models--" + name.replace("/", "--"))
        try:
            revision = (folder / "refs" / "main").read_text().strip()
            config = json.loads((folder / "snapshots" / revision / "config.json").read_text())
        except OSError:
            raise OSError(
                "We couldn't connect to 'https://huggingface.co' to load this file, couldn't "
                f"find it in the cached files and it looks like {name} is not the path to a "
                "directory containing a file named config.json."
            ) from None
        return (a + b) * config["scale"]
    '''
)
#: Tries to poison the cache for later runs and to find the token, then answers right.
MODEL_POISON = MODEL_GOLDEN.replace(
    '    return (a + b) * config["scale"]\n',
    textwrap.indent(
        textwrap.dedent(
            """\
            for path in (folder / "snapshots" / revision / "config.json", hub / "token"):
                try:
                    path.write_text('{"scale": 3}')
                except OSError as error:
                    print("write refused:", error)
            home = pathlib.Path("/root/.cache/huggingface")
            for path in (hub / "token", hub.parent / "token", home / "token"):
                try:
                    print("found:", path.read_text())
                except OSError:
                    pass
            print("env:", os.environ.get("HF_TOKEN"), os.environ.get("HUGGINGFACE_HUB_TOKEN"))
            return (a + b) * config["scale"]
            """
        ),
        "    ",
    ),
)
GPU_GOLDEN = GOLDEN.replace(
    "    return a + b",
    '    raise AssertionError("Torch not compiled with CUDA enabled")',
)
#: A wrong answer that pretends the machine lacks a GPU.
FAKE_GPU_ERROR = GOLDEN.replace(
    "    return a + b",
    '    raise RuntimeError("No CUDA GPUs are available")',
)


def _hf_home(root: Path) -> Path:
    home = root / "huggingface"
    repo = home / "hub" / "models--org--tiny-adder"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abc")
    (repo / "snapshots" / "0123abc").mkdir(parents=True)
    (repo / "snapshots" / "0123abc" / "config.json").write_text('{"scale": 1}')
    (home / "token").write_text(SECRET)
    return home


def _submission(root: Path, system: str, task_dir: Path, source: str) -> Path:
    target = root / system / task_dir.name / "calc_repo" / "calc.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source)
    return root / system


def test_a_model_from_the_cache_read_only_offline_and_without_the_token(
    tmp_path: Path, capsys: Any
) -> None:
    bench = tmp_path / "bench"
    task = write_task(bench, tag="hub", test_source=ASSERT_TEST, golden=MODEL_GOLDEN)
    subs = tmp_path / "subs"
    systems = [
        _submission(subs, "golden", task.path, MODEL_GOLDEN),
        _submission(subs, "masked", task.path, MASKED),
        _submission(subs, "poison", task.path, MODEL_POISON),
    ]
    home = _hf_home(tmp_path)
    config = home / "hub" / "models--org--tiny-adder" / "snapshots" / "0123abc" / "config.json"

    without = eval_json(bench, systems, tmp_path / "out", capsys, status=1)
    for run in without["runs"]:
        # The golden code itself cannot run: every candidate gets the reason, none a verdict.
        assert run["verdict"] == "infra-error", (run["system"], run["reason"])
        assert f"needs model '{MODEL}'" in run["reason"] and "--hf-cache" in run["reason"]

    code = main(eval_argv(bench, systems, tmp_path / "out", "--hf-cache", str(home)))
    given = json.loads(capsys.readouterr().out)
    runs = {run["system"]: run for run in given["runs"]}
    if code and "does not see --hf-cache" in runs["golden"]["reason"] and not IN_CI:
        # An engine outside this container (the fresh-machine check talks to the host's)
        # binds the host's path: the runs say so, which is what this machine allows.
        pytest.skip("the engine binds paths of another host")
    assert code == 0, runs
    assert runs["golden"]["verdict"] == "pass", runs["golden"]
    assert runs["masked"]["verdict"] != "pass"
    assert runs["poison"]["verdict"] == "pass", runs["poison"]
    assert config.read_text() == '{"scale": 1}'
    assert not (home / "hub" / "token").exists()
    folder = tmp_path / "out" / "runs"
    written = "\n".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())
    assert "write refused" in written and SECRET not in written
    # The cache is part of the run key: the runs without it were run again, not reused.
    assert {run["run_key"] for run in without["runs"]}.isdisjoint(
        run["run_key"] for run in given["runs"]
    )


def test_a_task_that_needs_a_gpu_is_not_runnable_here_and_a_candidate_cannot_say_so(
    tmp_path: Path, capsys: Any
) -> None:
    bench = tmp_path / "bench"
    gpu = write_task(bench, tag="gpu", golden=GPU_GOLDEN)
    plain = write_task(bench, tag="cpu")
    subs = tmp_path / "subs"
    systems = [
        _submission(subs, "golden", gpu.path, GOLDEN),
        _submission(subs, "fake", plain.path, FAKE_GPU_ERROR),
    ]
    results = eval_json(bench, systems, tmp_path / "out", capsys, status=1)
    runs = {(run["system"], run["task"]): run for run in results["runs"]}
    needs = runs[("golden", gpu.name)]
    assert needs["verdict"] == "infra-error" and "needs a GPU" in needs["reason"], needs
    faked = runs[("fake", plain.name)]
    assert faked["verdict"] == "error", faked


def test_gpus_on_an_engine_without_them_is_a_clear_infrastructure_error(
    tmp_path: Path, docker_client: Any, capsys: Any
) -> None:
    if "nvidia" in (docker_client.info().get("Runtimes") or {}):
        pytest.skip("this engine can give GPUs")
    bench = tmp_path / "bench"
    task = write_task(bench, tag="gpus")
    system = _submission(tmp_path / "subs", "golden", task.path, GOLDEN)
    results = eval_json(bench, [system], tmp_path / "out", capsys, "--gpus", "all", status=1)
    (run,) = results["runs"]
    assert run["verdict"] == "infra-error", run
    assert "cannot give containers GPUs (--gpus all)" in run["reason"], run


def test_the_candidates_differ_from_the_golden_code() -> None:
    for source in (MODEL_POISON, GPU_GOLDEN, FAKE_GPU_ERROR):
        assert source not in (GOLDEN, MODEL_GOLDEN)


def test_validate_run_says_the_task_needs_a_gpu_not_that_its_tests_are_broken(
    tmp_path: Path, docker_client: Any
) -> None:
    from lmr_author.validate.dynamic import run_dynamic_checks
    from lmr_author.validate.rules_run import (
        RULE_GOLDEN_FAILS,
        RULE_INFRA,
        RULE_UNDECLARED_GPU,
    )

    task = write_task(tmp_path / "bench", tag="gpuvalidate", golden=GPU_GOLDEN)
    findings = run_dynamic_checks(task, client=docker_client, timeout_s=60)
    # The task does not declare its GPU: the run says so too (validate --run --fix adds it).
    assert [f.rule for f in findings] == [RULE_UNDECLARED_GPU, RULE_INFRA], findings
    assert "needs a GPU" in findings[1].message
    assert RULE_GOLDEN_FAILS not in {f.rule for f in findings}
