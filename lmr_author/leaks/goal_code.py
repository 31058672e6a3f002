"""The golden goal function as copies are compared with it: its normalized body, the
words a copy keeps, and the fingerprint of its compiled code."""

from __future__ import annotations

import bisect
import marshal
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field

from lmr_author.cst.index import FunctionInfo, list_functions
from lmr_author.cst.locate import goal_candidates
from lmr_author.leaks.code_tokens import Token, normalized, stable_words, tokens
from lmr_author.leaks.pyc_reader import fingerprint, functions, plain_qualname, read_code
from lmr_author.leaks.similarity import Golden


@dataclass(frozen=True)
class GoalCode:
    """One golden goal function (a class goal gives one per method)."""

    implementation: int  # the implementation's index in info.json (1-based)
    qualname: str  # "fn", "Class.method"
    goal_file: str  # relative to the repository folder
    golden: Golden
    words: frozenset[str]
    compiled: Counter[str] | None = field(default=None, compare=False)

    @property
    def name(self) -> str:
        return self.qualname.rpartition(".")[2]

    @property
    def comparable(self) -> bool:
        return self.golden.comparable


def goal_code(
    source: str,
    goal_function: str,
    class_name: str = "",
    *,
    implementation: int = 1,
    goal_file: str = "",
    line: int | None = None,
) -> list[GoalCode]:
    """The goal's code in ``source`` (the golden file's text); [] when it is not there
    or does not parse. A goal that names a class (published 10-TimeDistill, 21-TimeMixer)
    gives each of its methods."""
    try:
        infos = list_functions(source)
    except (SyntaxError, ValueError):
        return []
    chosen = _chosen(infos, goal_function, class_name, line)
    if not chosen:
        return []
    found = tokens(source)
    lines = [token.line for token in found]
    compiled = _compiled(source)
    goals = []
    for info in chosen:
        body = _slice(found, lines, info)
        goals.append(
            GoalCode(
                implementation,
                info.qualname,
                goal_file,
                Golden(normalized(body), info.name),
                frozenset(stable_words(body)),
                compiled.get(info.qualname),
            )
        )
    return goals


def _chosen(
    infos: list[FunctionInfo], goal_function: str, class_name: str, line: int | None
) -> list[FunctionInfo]:
    found = goal_candidates(infos, goal_function, class_name)
    if line is not None:
        found = [info for info in found if info.start_line <= line <= info.end_line] or found
    if found:
        return found[-1:]  # the definition Python keeps
    owner = class_name or goal_function
    methods = [
        info for info in infos if info.class_name == owner or info.class_name.endswith(f".{owner}")
    ]
    return methods if owner.rpartition(".")[2] == goal_function else []


def _slice(found: list[Token], lines: list[int], info: FunctionInfo) -> list[Token]:
    start = bisect.bisect_left(lines, info.start_line)
    end = bisect.bisect_right(lines, info.end_line)
    return found[start:end]


def _compiled(source: str) -> dict[str, Counter[str]]:
    """Fingerprints of the functions of ``source`` compiled here (nothing is run)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = compile(source, "<golden>", "exec", dont_inherit=True)
        data = marshal.dumps(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return {}
    module = read_code(data, sys.version_info[:2])
    if module is None:
        return {}
    return {plain_qualname(f.qualname): fingerprint(f.code) for f in functions(module)}
