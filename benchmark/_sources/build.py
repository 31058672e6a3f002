"""Regenerate the bundled sample benchmark from its sources, deterministically.

Usage (from anywhere)::

    python benchmark/_sources/build.py            # rebuild every task and the submissions
    python benchmark/_sources/build.py --check    # rebuild, then prove every expectation
    python benchmark/_sources/build.py --out DIR  # build into another folder (to compare)

Each folder of ``_sources/tasks/<NN-Name>/`` holds the unmasked repository (``repo/``),
``spec.py`` (the info.json fields and the paper's text), ``record_fixtures.py`` (the
fixture driver: calls the golden goal functions; every call is recorded as a replay case) and ``submissions/<system>/<index>.py``
(the function source of each sample system). The build writes, per task:
``info.json``, ``Dockerfile`` (from ``templates/Dockerfile``), ``golden_files/``, the
repository with the goal functions masked, ``paper.pdf`` + ``paper.json``, the replay
unit tests (``templates/unit_test.py.tmpl``) with their recorded inputs, and the expected
outputs in ``expected_outputs/`` (outside the repository, so never in a test image); and ``benchmark/submissions/`` in both submission forms. Masking and
splicing use the toolkit's own libcst engine, so the sample tasks are authored the way
users author theirs. Every
step is checked: tests pass on the golden code and fail on the masked code, and each
system behaves as it was written to (``correct`` passes, the others fail).
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARK = HERE.parent
ROOT = BENCHMARK.parent
TASK_SOURCES = HERE / "tasks"
TEMPLATE_DOCKERFILE = ROOT / "templates" / "Dockerfile"

#: Every call a driver makes of the goal function is a recorded case (they make few).
MAX_RECORDED_CALLS = 100
#: The sample systems and whether their unit tests are meant to pass.
SYSTEMS = {"correct": True, "subtle-bug": False, "wrong-logic": False}

sys.dont_write_bytecode = True  # keep __pycache__ out of the sources and the tasks
sys.path.insert(0, str(ROOT))

from lmr_author.util.atomic import atomic_write_text  # noqa: E402
from lmr_author.authoring.fixtures import expected_outputs_dir, record_fixtures  # noqa: E402
from lmr_author.authoring.scaffold import render_unit_test  # noqa: E402
from lmr_author.cst.mask import mask_function  # noqa: E402
from lmr_author.cst.splice import splice_function  # noqa: E402
from lmr_author.authoring.paper_pdf import make_paper_pdf, write_paper_json  # noqa: E402
from lmr_author.domain.task import Task, load_task, save_task, task_from_info  # noqa: E402


def load_spec(source: Path) -> dict:
    return runpy.run_path(str(source / "spec.py"))


def golden_name(goal_file: str) -> str:
    return f"golden_files/{Path(goal_file).stem}_golden.py"


def run_unit_test(
    repo_dir: Path, unit_test_file: str, files: dict[str, str], expected: Path
) -> tuple[bool, str]:
    """Run one unit test on a scratch copy of ``repo_dir`` with ``files`` replaced.

    The test runs as an annotator runs it by hand: from the repository folder, as
    ``python unit_test/unit_test_<k>.py``, with the repository on PYTHONPATH; the replay
    test compares with the ``expected`` outputs (kept outside the repository).
    """
    with tempfile.TemporaryDirectory(prefix="lmr-sample-") as scratch:
        copy = Path(scratch) / repo_dir.name
        shutil.copytree(repo_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
        for relative, text in files.items():
            (copy / relative).write_text(text, encoding="utf-8")
        env = dict(
            os.environ,
            PYTHONPATH=str(copy),
            PYTHONDONTWRITEBYTECODE="1",
            LMR_REPLAY_EXPECTED=str(expected),
        )
        proc = subprocess.run(
            [sys.executable, unit_test_file],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return proc.returncode == 0, proc.stdout + proc.stderr


def build_task(source: Path, out: Path) -> Task:
    """Write one task folder from its sources into ``out`` and return the loaded task."""
    spec = load_spec(source)
    info = json.loads(json.dumps(spec["INFO"]))
    paper = spec["PAPER"]
    task_dir = out / source.name
    if task_dir.exists():
        shutil.rmtree(task_dir)
    repo_dir = task_dir / info["repo_folder_name"]
    shutil.copytree(source / "repo", repo_dir, ignore=shutil.ignore_patterns("__pycache__"))

    # The paper, and its PyMuPDF text as the agents read it.
    sections = [(heading, textwrap.dedent(body)) for heading, body in paper["sections"]]
    make_paper_pdf(
        paper["title"],
        sections,
        repo_dir / "paper.pdf",
        authors=paper.get("authors", ""),
        abstract=paper.get("abstract", ""),
    )
    write_paper_json(repo_dir / "paper.pdf", repo_dir / "paper.json")

    # Replay fixtures recorded from the golden (still unmasked) repository, the way
    # new-task records them: inputs in the repository, outputs in expected_outputs/.
    info["folder_name"] = source.name
    for position, impl in enumerate(info["implementations"], start=1):
        record_fixtures(
            repo_dir,
            impl["goal_file"],
            impl["goal_function"],
            str(source / "record_fixtures.py"),
            class_name=impl["class_name"],
            unit_test_file=impl["unit_test_file"],
            limit=MAX_RECORDED_CALLS,
        )
        atomic_write_text(
            repo_dir / impl["unit_test_file"],
            render_unit_test(
                goal_file=impl["goal_file"],
                goal_function=impl["goal_function"],
                class_name=impl["class_name"],
                unit_test_file=impl["unit_test_file"],
            ),
        )
        impl["index"] = position
        impl["golden_file"] = golden_name(impl["goal_file"])
        golden = task_dir / impl["golden_file"]
        golden.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo_dir / impl["goal_file"], golden)

    # Mask every goal function in the repository (several may share one goal file).
    for impl in info["implementations"]:
        goal = repo_dir / impl["goal_file"]
        masked = mask_function(
            goal.read_text(encoding="utf-8"), impl["goal_function"], impl["class_name"], style="lmr"
        )
        atomic_write_text(goal, masked)

    template = TEMPLATE_DOCKERFILE.read_text(encoding="utf-8")
    atomic_write_text(
        task_dir / "Dockerfile",
        template.replace("{repo_folder_name}", info["repo_folder_name"]),
    )
    save_task(task_from_info(task_dir, info))
    return load_task(task_dir)


def build_submissions(tasks: list[Task], out: Path) -> list[dict]:
    """Write both submission forms under ``out/submissions``; return the prediction records."""
    submissions = out / "submissions"
    if submissions.exists():
        shutil.rmtree(submissions)
    predictions = []
    for system in SYSTEMS:
        for task in tasks:
            for impl in task.implementations:
                source_file = TASK_SOURCES / task.name / "submissions" / system / f"{impl.index}.py"
                function_source = source_file.read_text(encoding="utf-8")
                predictions.append(
                    {
                        "task": task.name,
                        "implementation": impl.index,
                        "system": system,
                        "source": function_source,
                    }
                )
                mirror = submissions / system / task.name / task.repo_folder_name / impl.goal_file
                base = (
                    mirror.read_text(encoding="utf-8")
                    if mirror.exists()
                    else impl.goal_path.read_text(encoding="utf-8")
                )
                mirror.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(
                    mirror,
                    splice_function(base, function_source, impl.goal_function, impl.class_name),
                )
    lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in predictions)
    atomic_write_text(submissions / "predictions.jsonl", lines)
    return predictions


def check(tasks: list[Task], out: Path) -> list[str]:
    """Every expectation of the sample benchmark; returns the broken ones."""
    problems = []
    for task in tasks:
        for impl in task.implementations:
            golden = impl.golden_path.read_text(encoding="utf-8")
            label = f"{task.name} #{impl.index}"
            expected = expected_outputs_dir(task.path, impl.unit_test_file)
            ok, log = run_unit_test(
                task.repo_dir, impl.unit_test_file, {impl.goal_file: golden}, expected
            )
            if not ok:
                problems.append(f"{label}: golden fails\n{log}")
            ok, _ = run_unit_test(task.repo_dir, impl.unit_test_file, {}, expected)
            if ok:
                problems.append(f"{label}: masked passes")
            for system, should_pass in SYSTEMS.items():
                mirror = out / "submissions" / system / task.name / task.repo_folder_name
                mirror = mirror / impl.goal_file
                files = {impl.goal_file: mirror.read_text(encoding="utf-8")}
                ok, log = run_unit_test(task.repo_dir, impl.unit_test_file, files, expected)
                if ok != should_pass:
                    problems.append(f"{label}: {system} {'fails' if should_pass else 'passes'}")
            print(f"checked {label}", flush=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="also run every unit test")
    parser.add_argument(
        "--out", type=Path, default=BENCHMARK, help="output folder (default: benchmark/)"
    )
    args = parser.parse_args(argv)
    out = args.out.resolve()
    sources = [source for source in sorted(TASK_SOURCES.iterdir()) if source.is_dir()]
    tasks = [build_task(source, out) for source in sources]
    build_submissions(tasks, out)
    print(f"built {len(tasks)} tasks, {sum(len(t.implementations) for t in tasks)} implementations")
    if args.check:
        problems = check(tasks, out)
        for problem in problems:
            print("PROBLEM:", problem)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
