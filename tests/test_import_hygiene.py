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
