"""Do the pins hold on every Python this project supports? Fails when one does not.

The supported Pythons are the ``Programming Language :: Python :: 3.N`` classifiers of
pyproject.toml, each from its first release (3.N.0: Debian 12 ships 3.11.2, Ubuntu 24.04
3.12.3), and ``requires-python`` must admit them all. For each of them, pip resolves
without installing (``--dry-run --python-version``, wheels only) what each set-up
installs, under the constraints files it uses:

- the main job (.ci/setup): the package's dependencies, under constraints.txt alone, so
  that no development tool's pin can stop it;
- the tests (.ci/test-setup): the ``dev`` extra besides, under constraints.txt and
  constraints-dev.txt.

A set fails when pip cannot resolve it for that Python (a pin whose Requires-Python
excludes it, or with no wheel for it), when it would install a package no constraints
file of its set pins (run .ci/lock), when a pin is to a release its authors withdrew
(yanked), or when both files pin one package. On a failure it says each pin whose
Requires-Python excludes that Python. pip reads its usual configuration (indexes,
certificates), so this works wherever the set-ups work. One limit, pip's: environment
markers are evaluated for the Python that runs this, not the target one.

    .venv/bin/python .ci/check_pins.py [--root DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

MAIN = "constraints.txt"
DEV = "constraints-dev.txt"
_CLASSIFIER = re.compile(r"Programming Language :: Python :: 3\.(\d+)$")
_YANKED = re.compile(r"is a yanked version: '([^']+)' candidate")


@dataclass(frozen=True)
class InstallSet:
    """What one set-up installs: the package with these extras (and these other
    requirements), under these constraints files."""

    name: str
    extras: tuple[str, ...]
    constraints: tuple[str, ...]
    others: tuple[str, ...] = ()


SETS = (
    InstallSet("the main job (.ci/setup)", (), (MAIN,)),
    # The tests' pip is a newer one: this check resolves with it in a quarter of the time.
    InstallSet("the tests (.ci/test-setup)", ("dev",), (MAIN, DEV), ("pip",)),
)


@dataclass(frozen=True)
class Outcome:
    python: str
    install_set: InstallSet
    problems: tuple[str, ...]
    packages: int


def read_pins(path: Path) -> dict[str, str]:
    """``{canonical name: "name==version"}`` of a constraints file."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        if len(requirement.specifier) != 1 or next(iter(requirement.specifier)).operator != "==":
            sys.exit(f"check_pins: {path}:{number}: {line!r} is not a pin (NAME==VERSION)")
        pins[canonicalize_name(requirement.name)] = line
    return pins


def supported_pythons(project: dict[str, object]) -> list[str]:
    """3.N.0 for each classifier 3.N; exits when requires-python excludes one of them."""
    classifiers = project.get("classifiers", [])
    assert isinstance(classifiers, list)
    minors = sorted(int(m.group(1)) for c in classifiers if (m := _CLASSIFIER.match(str(c))))
    if not minors:
        sys.exit("check_pins: pyproject.toml lists no 'Programming Language :: Python :: 3.N'")
    floor = SpecifierSet(str(project.get("requires-python", "")))
    versions = [f"3.{minor}.0" for minor in minors]
    excluded = [version for version in versions if not floor.contains(version)]
    if excluded:
        sys.exit(
            f"check_pins: requires-python {floor} excludes {', '.join(excluded)}, which the "
            "classifiers say is supported"
        )
    return versions


def requirements(project: dict[str, object], install_set: InstallSet) -> list[str]:
    wanted = list(project.get("dependencies", []))  # type: ignore[call-overload]
    optional = project.get("optional-dependencies", {})
    assert isinstance(optional, dict)
    for extra in install_set.extras:
        wanted += optional[extra]
    return [str(item) for item in [*wanted, *install_set.others]]


def pip(args: Sequence[str], scratch: Path) -> tuple[int, str, dict[str, object]]:
    """Runs ``pip install --dry-run ... --report``; exit status, output and the report."""
    report = scratch / "report.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--disable-pip-version-check",
            "--report",
            str(report),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    loaded = json.loads(report.read_text()) if done.returncode == 0 else {}
    return done.returncode, done.stdout, loaded


def pip_said(output: str) -> list[str]:
    """pip's own account of a failure: from its first error or conflict on, no warnings."""
    lines = [line for line in output.splitlines() if line.strip() and not line.startswith("WARN")]
    for index, line in enumerate(lines):
        if line.startswith("ERROR") or "conflict is caused by" in line:
            return lines[index : index + 20]
    return lines[-20:]


def yanked(output: str) -> set[str]:
    """The packages pip warned it picked a yanked release of (pip before 24 says so only
    in this warning, not in its report's ``is_yanked``)."""
    return {canonicalize_name(name) for name in _YANKED.findall(output)}


def excluding(pins: Sequence[str], python: str) -> list[str]:
    """The pins whose Requires-Python excludes ``python``: their metadata read by pip for
    the Python that runs this, whatever their Requires-Python says of it."""
    with tempfile.TemporaryDirectory(prefix="check-pins-") as scratch:
        code, _, report = pip(["--no-deps", "--ignore-requires-python", *pins], Path(scratch))
    if code != 0:
        return []  # some pin has no file for this Python either: pip's account must do
    found = []
    for item in report.get("install", []):  # type: ignore[attr-defined]
        metadata = item["metadata"]
        needs = metadata.get("requires_python") or ""
        if needs and not SpecifierSet(needs).contains(python, prereleases=True):
            found.append(
                f"{metadata['name']}=={metadata['version']} requires Python {needs} "
                f"(its Requires-Python), which excludes {python}"
            )
    return found


def check(root: Path, project: dict[str, object], python: str, install_set: InstallSet) -> Outcome:
    pins: dict[str, str] = {}
    for name in install_set.constraints:
        pins.update(read_pins(root / name))
    args = ["--only-binary=:all:", "--python-version", python]
    for name in install_set.constraints:
        args += ["-c", str(root / name)]
    with tempfile.TemporaryDirectory(prefix="check-pins-") as scratch:
        args += ["--target", str(Path(scratch) / "target")]
        code, output, report = pip([*args, *requirements(project, install_set)], Path(scratch))
    if code != 0:
        why = excluding(sorted(pins.values()), python)
        problems = why or ["pip cannot resolve it:", *(f"  {line}" for line in pip_said(output))]
        return Outcome(python, install_set, tuple(problems), 0)
    problems = []
    installed = report.get("install", [])
    assert isinstance(installed, list)
    for item in installed:
        metadata = item["metadata"]
        pinned = pins.get(canonicalize_name(metadata["name"]))
        if pinned is None:
            problems.append(
                f"{metadata['name']} {metadata['version']} is pinned in none of "
                f"{', '.join(install_set.constraints)} (run bash .ci/lock)"
            )
        elif item.get("is_yanked") or canonicalize_name(metadata["name"]) in yanked(output):
            problems.append(f"{pinned} is a yanked release (withdrawn by its authors)")
    return Outcome(python, install_set, tuple(problems), len(installed))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    root: Path = args.root
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pythons = supported_pythons(project)
    both = sorted(read_pins(root / MAIN).keys() & read_pins(root / DEV).keys())
    failed = False
    if both:
        failed = True
        print(f"check_pins: pinned in both {MAIN} and {DEV}: {', '.join(both)} (keep one)")
    jobs = [(python, install_set) for python in pythons for install_set in SETS]
    # pip waits on the index about as long as it computes: twice the cores keeps them busy.
    workers = max(1, min(len(jobs), 2 * (os.cpu_count() or 1)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        outcomes = list(pool.map(lambda job: check(root, project, *job), jobs))
    for outcome in outcomes:
        files = ", ".join(outcome.install_set.constraints)
        where = f"Python {outcome.python}: {outcome.install_set.name} under {files}"
        if outcome.problems:
            failed = True
            print(f"check_pins: FAILED {where}")
            for problem in outcome.problems:
                print(f"    {problem}")
        else:
            print(f"check_pins: ok {where} ({outcome.packages} packages)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
