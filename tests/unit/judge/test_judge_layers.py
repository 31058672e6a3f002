"""Only commands/ and tui/ draw: the judge and label libraries never import rich.

Read from the source, not from ``sys.modules``: a drawing function that imports rich
lazily is still drawing in the library.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "lmr_author"
LIBRARY = sorted([*PACKAGE.glob("judge/*.py"), *PACKAGE.glob("labels/*.py")])


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_library_module_never_imports_rich_or_textual(path: Path) -> None:
    assert not {"rich", "textual"} & _imported(path)
