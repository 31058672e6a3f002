"""The scan's output, read as data: what it names, and what it cannot be."""

from __future__ import annotations

import json

import pytest

from lmr_author.leaks.goal_code import goal_code
from lmr_author.leaks.installed import compare_snippets, parse_scan
from lmr_author.runtime.infra_error import InfraError
from tests.leaks.support import GOLDEN, RENAMED, SAME_NAME_DIFFERENT


def _scan(text: str, dist: str = "") -> str:
    method = "\n".join(RENAMED.splitlines()[1:]) if text == RENAMED else text
    item = {"root": "/site", "path": "pkg/sub/mod.py", "line": 7, "text": method, "dist": dist}
    return json.dumps({"roots": ["/site"], "found": [item], "cut": False})


def test_a_snippet_that_is_a_copy_names_package_and_module() -> None:
    goals = goal_code(GOLDEN, "weighted_mean")
    [copy] = compare_snippets(goals, parse_scan(_scan(RENAMED, dist="pkg-dist")))
    assert (copy.kind, copy.file, copy.function) == (
        "installed",
        "/site/pkg/sub/mod.py",
        "pkg.sub.mod.combine",
    )
    assert copy.detail == "package pkg-dist, module pkg.sub.mod" and copy.where == "lines 7-15"
    # Without a distribution that owns it, the top-level package names it.
    [copy] = compare_snippets(goals, parse_scan(_scan(RENAMED)))
    assert copy.detail.startswith("package pkg,")


def test_a_different_function_is_no_copy() -> None:
    goals = goal_code(GOLDEN, "weighted_mean")
    assert compare_snippets(goals, parse_scan(_scan(SAME_NAME_DIFFERENT))) == []


@pytest.mark.parametrize("out", ["", "not json", "[]", '{"found": [{"path": 1}]}', "{}"])
def test_output_that_is_not_the_scans_is_the_engines_failure(out: str) -> None:
    with pytest.raises(InfraError):
        parse_scan(out)
