""".ci/check_pins.py: the pins hold on every supported Python, or the check fails.

Run for real (pip, this Python's) against a package index in a temporary folder, read
through file:// URLs as pip reads any index, with the machine's pip configuration
switched off: releases whose Requires-Python is 3.11.5 and up (as soupsieve 4.1.3's),
pins in the wrong file, a yanked pin. The last test checks the repository's own files
name what the set-ups install.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / ".ci" / "check_pins.py"

PYPROJECT = """\
[project]
name = "demo"
version = "0"
requires-python = ">=3.11"
classifiers = [
    "Programming Language :: Python :: 3.11",
    "Programming Language :: Python :: 3.12",
]
dependencies = ["alpha>=1"]

[project.optional-dependencies]
dev = ["tool"]
"""

#: (name, version, Requires-Python, Requires-Dist, yanked) of the index's releases.
RELEASES = [
    ("alpha", "1.0", ">=3.8", [], False),
    ("alpha", "2.0", ">=3.11.5", [], False),
    ("alpha", "3.0", ">=3.8", [], True),
    ("tool", "1.0", ">=3.8", ["alpha"], False),
    ("pip", "99.0", ">=3.8", [], False),
]


def wheel(folder: Path, name: str, version: str, python: str, needs: list[str]) -> Path:
    """A wheel with nothing in it but its metadata."""
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += f"Requires-Python: {python}\n" + "".join(f"Requires-Dist: {n}\n" for n in needs)
    files = {
        f"{info}/METADATA": metadata,
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{n},,\n" for n in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simple-API index (PEP 503, with Requires-Python and yanked marks)."""
    root = tmp_path_factory.mktemp("index")
    (root / "files").mkdir()
    pages: dict[str, list[str]] = {}
    for name, version, python, needs, yanked in RELEASES:
        path = wheel(root / "files", name, version, python, needs)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        python_attr = python.replace(">", "&gt;").replace("<", "&lt;")
        mark = ' data-yanked=""' if yanked else ""
        pages.setdefault(name, []).append(
            f'<a href="../../files/{path.name}#sha256={digest}" '
            f'data-requires-python="{python_attr}"{mark}>{path.name}</a>'
        )
    for name, links in pages.items():
        page = root / "simple" / name
        page.mkdir(parents=True)
        (page / "index.html").write_text("<html><body>" + "".join(links) + "</body></html>")
    return root / "simple"


def project(tmp_path: Path, main: list[str], dev: list[str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "constraints.txt").write_text("# main\n" + "".join(f"{p}\n" for p in main))
    (tmp_path / "constraints-dev.txt").write_text("".join(f"{p}\n" for p in dev))
    return tmp_path


def check(root: Path, index: Path) -> tuple[int, str]:
    """The check's exit status and output, pip reading only ``index``."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    environ.update(
        PIP_CONFIG_FILE=os.devnull,  # none of this machine's pip.conf files
        PIP_INDEX_URL=index.as_uri(),
        PIP_CACHE_DIR=str(root / "pip-cache"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    done = subprocess.run(
        [sys.executable, str(CHECK), "--root", str(root)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.slow
def test_a_pin_that_needs_a_newer_python_than_the_oldest_supported_fails(
    tmp_path: Path, index: Path
) -> None:
    code, said = check(project(tmp_path, ["alpha==2.0"], ["tool==1.0", "pip==99.0"]), index)
    assert code == 1, said
    assert "FAILED Python 3.11.0: the main job (.ci/setup) under constraints.txt" in said
    assert (
        "alpha==2.0 requires Python >=3.11.5 (its Requires-Python), which excludes 3.11.0" in said
    )
    assert "ok Python 3.12.0: the main job (.ci/setup) under constraints.txt (1 packages)" in said


@pytest.mark.slow
def test_pins_that_install_everywhere_pass(tmp_path: Path, index: Path) -> None:
    code, said = check(project(tmp_path, ["alpha==1.0"], ["tool==1.0", "pip==99.0"]), index)
    assert code == 0, said
    assert said.count("check_pins: ok ") == 4
    assert "the tests (.ci/test-setup) under constraints.txt, constraints-dev.txt (3 packages)" in (
        said
    )


@pytest.mark.slow
def test_a_runtime_package_pinned_only_for_the_tests_fails(tmp_path: Path, index: Path) -> None:
    code, said = check(project(tmp_path, [], ["alpha==1.0", "tool==1.0", "pip==99.0"]), index)
    assert code == 1, said
    assert "alpha 1.0 is pinned in none of constraints.txt (run bash .ci/lock)" in said
    assert "ok Python 3.11.0: the tests" in said  # their set has it pinned


@pytest.mark.slow
def test_a_yanked_pin_and_a_pin_in_both_files_fail(tmp_path: Path, index: Path) -> None:
    code, said = check(
        project(tmp_path, ["alpha==3.0"], ["alpha==3.0", "tool==1.0", "pip==99.0"]), index
    )
    assert code == 1, said
    assert "pinned in both constraints.txt and constraints-dev.txt: alpha" in said
    assert "alpha==3.0 is a yanked release" in said


def test_the_check_resolves_what_the_set_ups_install() -> None:
    """Its two sets are what .ci/setup and .ci/test-setup install, .ci/run runs it, and
    README states the floor pyproject.toml sets."""
    setup = (ROOT / ".ci/setup").read_text()
    assert 'pip install -q --no-compile -c constraints.txt "$@"; }' in setup
    assert "pip_install --no-deps -e . " in setup  # and its dependencies, no extra:
    assert "pip_install -r <(dependencies)\n" in setup
    assert '["project"]["dependencies"]' in setup
    test_setup = (ROOT / ".ci/test-setup").read_text()
    assert '-c constraints.txt -c constraints-dev.txt \\\n        -e ".[dev]" pip\n' in test_setup
    assert ".venv/bin/python .ci/check_pins.py\n" in (ROOT / ".ci/run").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.11"
    assert "Python 3.11.0 or newer" in (ROOT / "README.md").read_text()
