"""Tiny benchmark tasks and submissions for evaluation tests (unit and Docker).

A task ``NN-Name`` has a repository ``repo`` with ``calc.py`` whose goal functions are
masked, one implementation per goal function, and unit tests that import ``calc``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

DOCKERFILE = """\
FROM python:3.11-slim
ARG UID=1000
ARG GID=1000
ARG DIR=repo
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
RUN (getent group "$GID" || groupadd -g "$GID" lmr) \\
    && useradd -m -u "$UID" -g "$GID" -s /bin/sh lmr
COPY --chown=${UID}:${GID} ${DIR} /workspace/${DIR}
WORKDIR /workspace/${DIR}
ENV PYTHONPATH=/workspace/${DIR}
USER ${UID}:${GID}
"""

GOLDEN = """\
import time


def add(a, b):
    return a + b


def mul(a, b):
    return a * b
"""

MASKED = """\
import time


def add(a, b):
    raise NotImplementedError


def mul(a, b):
    raise NotImplementedError
"""

#: Goal files a system might submit.
CORRECT = GOLDEN
WRONG = GOLDEN.replace("return a + b", "return a - b").replace("return a * b", "return a + b")

TEST = """\
import calc

time_s = {sleep}
if time_s:
    calc.time.sleep(time_s)
assert calc.{function}(3, 4) == {expected}, "wrong answer"
print("Test Passed")
"""

CATEGORIES = {"add": "Arithmetic", "mul": "Multiplication"}


def make_task(
    root: Path, name: str, *, sleep: float = 0.0, functions: tuple[str, ...] = ("add", "mul")
) -> Path:
    """Write a task folder ``root/name`` with one implementation per function."""
    task = root / name
    (task / "repo" / "unit_test").mkdir(parents=True, exist_ok=True)
    (task / "golden_files").mkdir(exist_ok=True)
    (task / "Dockerfile").write_text(DOCKERFILE)
    (task / "golden_files" / "calc_golden.py").write_text(GOLDEN)
    (task / "repo" / "calc.py").write_text(MASKED)
    expected = {"add": 7, "mul": 12}
    implementations = []
    for index, function in enumerate(functions, start=1):
        test = f"unit_test/unit_test_{index}.py"
        (task / "repo" / test).write_text(
            TEST.format(sleep=sleep, function=function, expected=expected[function])
        )
        implementations.append(
            {
                "instruction": f"Implement {function}.",
                "index": index,
                "category": CATEGORIES[function],
                "goal_file": "calc.py",
                "goal_function": function,
                "class_name": "",
                "golden_file": "golden_files/calc_golden.py",
                "retrieval_context": [],
                "unit_test_file": test,
            }
        )
    info = {
        "instance_id": int(name.split("-")[0]),
        "paper_name": name,
        "folder_name": name,
        "paper_url": "",
        "year": 2025,
        "repo_url": "",
        "repo_folder_name": "repo",
        "implementations": implementations,
    }
    (task / "info.json").write_text(json.dumps(info, indent=4))
    return task


def make_benchmark(
    root: Path, names: tuple[str, ...] = ("01-Add", "02-Calc"), **kwargs: object
) -> Path:
    bench = root / "bench"
    for name in names:
        make_task(bench, name, **kwargs)  # type: ignore[arg-type]
    return bench


def make_folder_submission(root: Path, system: str, files: dict[str, str]) -> Path:
    """A mirrored submission: ``files`` maps task name -> the whole goal file."""
    folder = root / system
    for task, source in files.items():
        path = folder / task / "repo" / "calc.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return folder


def function_source(function: str, body: str) -> str:
    return textwrap.dedent(f"def {function}(a, b):\n    {body}\n")


class LocalImage:
    def __init__(self, image_id: str) -> None:
        self.image_id = image_id


class LocalBackend:
    """A backend without Docker: runs a unit test in a subprocess on a copy of the repo.

    Real enough to test the pool, resume and results logic (tests really pass or fail);
    the Docker tests cover the real sandbox.
    """

    def __init__(
        self, *, broken: tuple[str, ...] = (), crash: bool = False, image_salt: str = ""
    ) -> None:
        self.broken = set(broken)
        self.crash = crash
        self.image_salt = image_salt
        self.prepared: list[str] = []
        self.ran: list[tuple[str, int]] = []

    def settings(self) -> dict[str, object]:
        return {"backend": "local", "timeout_s": 30}

    def prepare(self, task):  # type: ignore[no-untyped-def]
        import hashlib

        from lmr_author.runtime import InfraError

        self.prepared.append(task.name)
        if task.name in self.broken:
            raise InfraError(f"build of {task.name} failed: no such base image")
        digest = hashlib.sha256(self.image_salt.encode())
        for path in sorted(task.path.rglob("*")):
            if path.is_file():
                digest.update(path.read_bytes())
        return LocalImage("sha256:" + digest.hexdigest())

    def run(self, task, implementation, candidate, image):  # type: ignore[no-untyped-def]
        import os
        import shutil
        import subprocess
        import sys
        import tempfile
        import time

        from lmr_author.sandbox.run_result import ImplementationRun, TestVerdict

        self.ran.append((task.name, implementation.index))
        if self.crash:
            raise RuntimeError("engine went away")
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp) / "repo"
            shutil.copytree(task.repo_dir, repo)
            (repo / implementation.goal_file).write_bytes(candidate)
            start = time.monotonic()
            env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(repo)}
            done = subprocess.run(
                [sys.executable, implementation.unit_test_file],
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            duration = time.monotonic() - start
        verdict = "pass" if done.returncode == 0 else "fail"
        if "Error" in done.stderr and "AssertionError" not in done.stderr:
            verdict = "error"
        reason = "" if verdict == "pass" else (done.stderr.strip().splitlines() or ["?"])[-1]
        test = TestVerdict(
            test_file=implementation.unit_test_file,
            verdict=verdict,  # type: ignore[arg-type]
            reason=reason,
            duration_s=duration,
            log=done.stdout + done.stderr,
            exit_code=done.returncode,
        )
        return ImplementationRun(verdicts=[test], image_id=image.image_id)
