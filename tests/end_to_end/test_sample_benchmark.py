"""The bundled sample benchmark (benchmark/) is complete and behaves as designed.

Without Docker: every unit test is run the way the harness runs it (from the repository
folder, ``python unit_test/unit_test_<k>.py``, repository on PYTHONPATH) on a scratch
copy of the task's repository, with the golden file, the masked file, and each sample
system's goal file. The Docker proof is ``lmr-author validate --run benchmark/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from lmr_author.authoring.fixtures import expected_outputs_dir
from lmr_author.authoring.paper_pdf import pdf_to_pages
from lmr_author.authoring.scaffold import fixture_prefix, render_unit_test
from lmr_author.cst.mask import mask_function
from lmr_author.cst.splice import splice_function
from lmr_author.domain import replay_codec
from lmr_author.domain.categories import CATEGORIES
from lmr_author.domain.task import Implementation, Task, find_task_dirs, load_task
from tests.support import sample_runs

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = ROOT / "benchmark"
SUBMISSIONS = BENCHMARK / "submissions"
#: The sample systems and whether their unit tests are meant to pass.
SYSTEMS = {"correct": True, "subtle-bug": False, "wrong-logic": False}

TASK_DIRS = find_task_dirs(BENCHMARK)
IMPLEMENTATIONS = [
    (task_dir.name, impl.index)
    for task_dir in TASK_DIRS
    for impl in load_task(task_dir).implementations
]
IMPL_IDS = [f"{name}#{index}" for name, index in IMPLEMENTATIONS]


def _impl(task_name: str, index: int) -> tuple[Task, Implementation]:
    task = load_task(BENCHMARK / task_name)
    return task, task.implementation(index)


def _mirror(system: str, task: Task, impl: Implementation) -> Path:
    return SUBMISSIONS / system / task.name / task.repo_folder_name / impl.goal_file


#: Runs one implementation's unit test on several variants of its goal file inside one
#: interpreter (NumPy is imported once): per variant, the goal file is rewritten, the
#: repository's modules are dropped from sys.modules and the test file is run as
#: ``__main__``, exactly as ``python unit_test/unit_test_<k>.py`` would from the
#: repository folder; its exit status is the verdict.
_DRIVER = """
import contextlib, importlib, io, json, os, runpy, sys, traceback
job = json.loads(sys.stdin.read())
repo = job["repo"]
os.chdir(repo)
sys.path.insert(0, repo)
sys.dont_write_bytecode = True
results = {}
for name, text in job["variants"].items():
    with open(job["goal_file"], "w", encoding="utf-8") as handle:
        handle.write(text)
    for module in [m for m, mod in sys.modules.items()
                   if str(getattr(mod, "__file__", "") or "").startswith(repo + os.sep)]:
        del sys.modules[module]
    importlib.invalidate_caches()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            runpy.run_path(job["unit_test_file"], run_name="__main__")
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (exit_.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
    results[name] = [code == 0, out.getvalue()]
print(json.dumps(results))
"""


def _run_variants(
    task: Task, impl: Implementation, variants: dict[str, str]
) -> dict[str, tuple[bool, str]]:
    """Verdict of ``impl``'s unit test for each variant text of its goal file."""
    with tempfile.TemporaryDirectory(prefix="lmr-sample-test-") as scratch:
        repo = Path(scratch) / task.repo_folder_name
        shutil.copytree(task.repo_dir, repo, ignore=shutil.ignore_patterns("__pycache__"))
        job = {
            "repo": str(repo),
            "goal_file": impl.goal_file,
            "unit_test_file": impl.unit_test_file,
            "variants": variants,
        }
        env = dict(
            os.environ,
            PYTHONPATH=str(repo),
            PYTHONDONTWRITEBYTECODE="1",
            LMR_REPLAY_EXPECTED=str(expected_outputs_dir(task.path, impl.unit_test_file)),
        )
        proc = subprocess.run(
            [sys.executable, "-c", _DRIVER],
            input=json.dumps(job),
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr
    return {name: (ok, log) for name, (ok, log) in json.loads(proc.stdout).items()}


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[str, int, str], tuple[bool, str]]:
    """Every (task, implementation, variant) verdict; one interpreter per implementation."""
    jobs = []
    for name, index in IMPLEMENTATIONS:
        task, impl = _impl(name, index)
        variants = {
            "golden": impl.golden_path.read_text(encoding="utf-8"),
            "masked": impl.goal_path.read_text(encoding="utf-8"),
        }
        for system in SYSTEMS:
            variants[system] = _mirror(system, task, impl).read_text(encoding="utf-8")
        jobs.append((name, index, task, impl, variants))
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            (name, index, pool.submit(_run_variants, task, impl, variants))
            for name, index, task, impl, variants in jobs
        ]
        return {
            (name, index, variant): verdict
            for name, index, future in futures
            for variant, verdict in future.result().items()
        }


def test_benchmark_has_the_issues_counts_and_categories() -> None:
    tasks = [load_task(path) for path in TASK_DIRS]
    assert len(tasks) >= 6
    assert all(re.fullmatch(r"\d{2}-[A-Za-z]+", task.name) for task in tasks)
    categories = {impl.category for task in tasks for impl in task.implementations}
    assert categories <= set(CATEGORIES)
    assert len(categories) >= 5
    assert any(len(task.implementations) >= 2 for task in tasks)
    assert any(impl.class_name for task in tasks for impl in task.implementations)
    assert not (BENCHMARK / "_sources" / "info.json").exists()


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=[p.name for p in TASK_DIRS])
def test_task_folder_is_complete_and_canonical(task_dir: Path) -> None:
    task = load_task(task_dir)
    info = json.loads(task.info_path.read_text(encoding="utf-8"))
    assert info["folder_name"] == task.name
    template = (ROOT / "templates" / "Dockerfile").read_text(encoding="utf-8")
    assert task.dockerfile_path.read_text(encoding="utf-8") == template.replace(
        "{repo_folder_name}", task.repo_folder_name
    )
    pages = json.loads(task.paper_json_path.read_text(encoding="utf-8"))
    assert pages == pdf_to_pages(task.paper_pdf_path)
    assert re.search(r"\(\d\)", "".join(pages.values())), "the paper numbers its equations"
    masked_by_file: dict[str, str] = {}
    for raw, impl in zip(info["implementations"], task.implementations, strict=True):
        assert "retrieval_context" in raw and "retrieval_content" not in raw
        assert all(path.is_file() for path in impl.retrieval_paths)
        assert impl.golden_file == f"golden_files/{Path(impl.goal_file).stem}_golden.py"
        test_source = impl.unit_test_path.read_text(encoding="utf-8")
        assert test_source == render_unit_test(
            goal_file=impl.goal_file,
            goal_function=impl.goal_function,
            class_name=impl.class_name,
            unit_test_file=impl.unit_test_file,
        ), "every sample test is the replay template"
        # Replay mode: inputs in the repository, expected outputs only outside it.
        prefix = fixture_prefix(impl.goal_function, impl.class_name)
        inputs = sorted(
            p.name for p in (impl.unit_test_path.parent / "fixtures").glob(f"{prefix}_*")
        )
        expected = expected_outputs_dir(task.path, impl.unit_test_file)
        assert len(inputs) >= 3
        assert inputs == sorted(p.name for p in expected.glob("*.json"))
        assert (impl.unit_test_path.parent / "lmr_replay.py").read_bytes() == Path(
            replay_codec.__file__
        ).read_bytes()
        for name in inputs:
            text = (expected / name).read_text(encoding="utf-8")
            assert text not in (impl.unit_test_path.parent / "fixtures" / name).read_text()
        golden = masked_by_file.get(impl.goal_file, impl.golden_path.read_text(encoding="utf-8"))
        masked_by_file[impl.goal_file] = mask_function(
            golden, impl.goal_function, impl.class_name, style="lmr"
        )
    for goal_file, masked in masked_by_file.items():
        assert (task.repo_dir / goal_file).read_text(encoding="utf-8") == masked


@pytest.mark.parametrize(("task_name", "index"), IMPLEMENTATIONS, ids=IMPL_IDS)
def test_golden_passes_and_masked_fails(
    verdicts: dict[tuple[str, int, str], tuple[bool, str]], task_name: str, index: int
) -> None:
    passed, log = verdicts[task_name, index, "golden"]
    assert passed, log
    passed, log = verdicts[task_name, index, "masked"]
    assert not passed, log


@pytest.mark.parametrize("system", list(SYSTEMS))
@pytest.mark.parametrize(("task_name", "index"), IMPLEMENTATIONS, ids=IMPL_IDS)
def test_submission_behaves_as_designed(
    verdicts: dict[tuple[str, int, str], tuple[bool, str]],
    task_name: str,
    index: int,
    system: str,
) -> None:
    passed, log = verdicts[task_name, index, system]
    assert passed is SYSTEMS[system], log


def test_both_submission_forms_hold_the_same_code() -> None:
    lines = (SUBMISSIONS / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert all(set(r) == {"task", "implementation", "system", "source"} for r in records)
    keys = sorted((r["system"], r["task"], r["implementation"]) for r in records)
    assert keys == sorted(
        (system, name, index) for system in SYSTEMS for name, index in IMPLEMENTATIONS
    )
    for record in records:
        task, impl = _impl(record["task"], record["implementation"])
        assert record["source"].lstrip().startswith("def " + impl.goal_function + "(")
        masked = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8")
        spliced = splice_function(masked, record["source"], impl.goal_function, impl.class_name)
        assert _mirror(record["system"], task, impl).read_text(encoding="utf-8") == spliced
    mirrored = {
        path.relative_to(SUBMISSIONS).as_posix()
        for path in SUBMISSIONS.rglob("*")
        if path.is_file() and path.name != "predictions.jsonl"
    }
    assert mirrored == {
        _mirror(system, *_impl(name, index)).relative_to(SUBMISSIONS).as_posix()
        for system in SYSTEMS
        for name, index in IMPLEMENTATIONS
    }


def test_correct_submissions_differ_from_the_golden_code() -> None:
    for name, index in IMPLEMENTATIONS:
        task, impl = _impl(name, index)
        golden = impl.golden_path.read_text(encoding="utf-8")
        assert _mirror("correct", task, impl).read_text(encoding="utf-8") != golden


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_demo_eval_in_docker_shows_what_the_submissions_were_written_to_show(
    docker_client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README demo: ``lmr-author eval`` on both submission forms, tests in Docker."""
    from lmr_author.cli import main

    label = {"label": "org.lmr-author.managed"}
    # The low-level listing: images.list() inspects each image it lists, and one that
    # another test removes meanwhile would fail this test.
    images_before = {image["Id"] for image in docker_client.api.images(filters=label)}
    try:
        for form, submission in (
            ("jsonl", [SUBMISSIONS / "predictions.jsonl"]),
            ("mirror", [SUBMISSIONS / system for system in SYSTEMS]),
        ):
            argv = ["eval", str(BENCHMARK), "--output", str(tmp_path / form)]
            for path in submission:
                argv += ["--submission", str(path)]
            assert main(argv) == 0, capsys.readouterr().err
            results = json.loads((tmp_path / form / "results.json").read_text(encoding="utf-8"))
            summary = results["systems"]
            assert set(summary) == set(SYSTEMS)
            for system, should_pass in SYSTEMS.items():
                assert summary[system]["implementations"] == len(IMPLEMENTATIONS)
                assert summary[system]["passed"] == (len(IMPLEMENTATIONS) if should_pass else 0)
                assert summary[system]["verdicts"]["infra-error"] == 0
            # Run by run, the verdicts recorded before the package was reorganised.
            assert sample_runs.verdicts_of(tmp_path / form) == sample_runs.recorded()["verdicts"]
    finally:
        # Remove only the images this test built for the sample tasks; other runs on
        # the same engine may be using theirs.
        import docker.errors

        names = {path.name for path in TASK_DIRS}
        for image in docker_client.api.images(filters=label):
            task = (image.get("Labels") or {}).get("org.lmr-author.task")
            if image["Id"] not in images_before and task in names:
                with contextlib.suppress(docker.errors.APIError):
                    docker_client.api.remove_image(image["Id"])


def test_benchmark_is_exactly_what_its_sources_build(tmp_path: Path) -> None:
    """No hand edits: rebuilding from benchmark/_sources gives the same bytes."""
    out = tmp_path / "rebuilt"
    proc = subprocess.run(
        [sys.executable, str(BENCHMARK / "_sources" / "build.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

    def tree(root: Path) -> dict[str, bytes]:
        return {
            path.relative_to(root).as_posix(): path.read_bytes()
            for path in root.rglob("*")
            if path.is_file()
            and "__pycache__" not in path.parts
            and path.relative_to(root).parts[0] not in {"_sources", "README.md"}
        }

    rebuilt, shipped = tree(out), tree(BENCHMARK)
    assert sorted(rebuilt) == sorted(shipped)
    changed = [name for name in rebuilt if not _same_file(name, rebuilt[name], shipped[name])]
    assert not changed, f"regenerate with python benchmark/_sources/build.py: {changed}"


def _same_file(name: str, new: bytes, old: bytes) -> bool:
    """Equal bytes, except for what another PyMuPDF or NumPy build may render differently.

    PDF bytes and text layout depend on the MuPDF version, and the last bits of recorded
    floats on NumPy's vectorised math: those are compared by their words and by value.
    """
    if new == old:
        return True
    if name.endswith("/paper.pdf"):
        return True  # its text is compared through paper.json
    if name.endswith("/paper.json"):
        words = [" ".join(json.loads(data).values()).split() for data in (new, old)]
        return words[0] == words[1]
    if name.endswith(".json") and ("/unit_test/fixtures/" in name or "/expected_outputs/" in name):
        from lmr_author.domain import replay_codec

        # Recorded values (arrays included) compared by value, far tighter than the tests'
        # own tolerance: only the last bits of vectorised float math may differ.
        decoded = [replay_codec.loads(data, allow_objects=True) for data in (new, old)]
        return replay_codec.close(decoded[1], decoded[0], rel=1e-9, abs_=1e-12)
    return False
