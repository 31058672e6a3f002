"""Import hygiene: the library is headless, whatever it imports lazily or at the top.

One test per library package, each in a fresh interpreter: import every module of the
package and check that no drawing library (rich, textual) and none of the drawing layers
of our own (commands/, tui/) came with it. import-linter checks the same statically
(`lint-imports`); this checks what actually happens at import time. Building the CLI
parser (what `lmr-author --help` does) must not pull in Textual either.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import lmr_author

PACKAGE = Path(lmr_author.__file__).resolve().parent
#: Only these draw: they may import rich and textual. inspect_bridge runs inside Inspect
#: AI, which imports rich itself (its own modules import neither: lint-imports checks).
DRAWING = {"cli", "__main__", "commands", "tui", "inspect_bridge"}
FORBIDDEN = ("rich", "textual", "lmr_author.tui", "lmr_author.commands")


def _library_packages() -> list[str]:
    return sorted(
        f"lmr_author.{info.name}"
        for info in pkgutil.iter_modules([str(PACKAGE)])
        if info.name not in DRAWING
    )


def _modules_of(package: str) -> list[str]:
    module = __import__(package, fromlist=["__path__"])
    names = [package]
    if hasattr(module, "__path__"):
        names += [info.name for info in pkgutil.walk_packages(module.__path__, package + ".")]
    return names


def _imported_after(code: str) -> list[str]:
    probe = (
        "import json, sys\n"
        f"{code}\n"
        f"forbidden = {FORBIDDEN!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules\n"
        "    if any(m == f or m.startswith(f + '.') for f in forbidden))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


@pytest.mark.parametrize("package", _library_packages())
def test_library_package_imports_nothing_that_draws(package: str) -> None:
    modules = _modules_of(package)
    assert (
        _imported_after(f"import importlib\nfor name in {modules!r}: importlib.import_module(name)")
        == []
    )


def test_building_the_cli_parser_imports_no_textual() -> None:
    imported = _imported_after("import lmr_author.cli as cli\ncli.build_parser()")
    assert not [m for m in imported if m.startswith(("textual", "lmr_author.tui"))]


def _contracts() -> list[dict[str, object]]:
    import tomllib

    pyproject = PACKAGE.parent / "pyproject.toml"
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return list(config["tool"]["importlinter"]["contracts"])


def _top_level_modules() -> set[str]:
    return {f"lmr_author.{info.name}" for info in pkgutil.iter_modules([str(PACKAGE)])}


def test_every_module_has_a_place_in_the_layers() -> None:
    (layers,) = [c for c in _contracts() if c["type"] == "layers" and "containers" not in c]
    named = {
        part.strip(" ()")
        for layer in layers["layers"]  # type: ignore[attr-defined]
        for part in str(layer).replace(":", "|").split("|")
    }
    assert _top_level_modules() - named == set()


def test_every_library_module_is_forbidden_to_draw() -> None:
    (forbidden,) = [c for c in _contracts() if c["type"] == "forbidden"]
    sources = set(forbidden["source_modules"])  # type: ignore[call-overload]
    assert set(_library_packages()) - sources == set()


#: Names a module may share, each a role inside its own package (that package's cache,
#: its runner, its store...): the package says whose it is. A concept's name (verdicts,
#: images, engine, Dockerfile, errors, results, registry) belongs to one module only.
ROLE_NAMES = {
    "app.py",  # tui/new_task, tui/review: each app's Textual App
    "backend.py",  # eval_loop's seam and Slurm's backend behind it
    "cache.py",
    "candidate.py",  # cst's candidate file, the harness's candidate process
    "check.py",
    "client.py",  # the LLM client and the judge's use of it
    "drafts.py",
    "prompt.py",
    "published.py",
    "replay.py",  # the sandbox's replay outputs, Inspect's mock-model replay
    "report.py",
    "runner.py",
    "samples.py",
    "store.py",
    "summary.py",
    "task.py",  # the domain's Task, inspect_bridge's Inspect task
}
#: commands/ and tui/ front a package of the library: their modules take its names.
FRONT_ENDS = ("commands", "tui")


def _shared_module_names() -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in {"__init__.py", "__main__.py"}:
            continue
        where.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_no_two_modules_share_a_concepts_name() -> None:
    colliding = {
        name: paths
        for name, paths in _shared_module_names().items()
        if name not in ROLE_NAMES
        and len([p for p in paths if not p.startswith(FRONT_ENDS) and p != "cli.py"]) > 1
    }
    assert colliding == {}


def test_every_role_name_is_still_shared() -> None:
    """A role name no longer shared leaves the list, so that the list stays short."""
    assert ROLE_NAMES - set(_shared_module_names()) == set()
