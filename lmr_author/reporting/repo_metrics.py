"""The repository metrics of the paper's §5.1 (Table 5), computed from a task folder.

The tree measured is the masked repository ``<task>/<repo_folder_name>/`` as an agent
gets it, minus what the benchmark added to it and what is not part of the repository:

* at its top: ``paper.pdf``, ``paper.json`` and the unit-test folders (``unit_test/``
  and the ``unit_test_<k>/`` copies some published tasks carry);
* anywhere: ``__pycache__`` folders, ``.git`` and every hidden file or folder (a name
  starting with a dot).

A *node* is every remaining file and folder below the root; the root itself is not a
node (it is where depths are counted from). Symbolic links are nodes but are never
followed. The definitions, with a worked example, are in ``docs/metrics.md``:

* average directory depth: the mean over nodes of their depth (edges from the root);
* average branch factor: the number of immediate subfolders summed over all folders
  (the root included), divided by the number of folders with at least one child (a
  file or a folder), which is the paper's wording read literally;
* directory imbalance (not defined in the paper): the coefficient of variation
  (population standard deviation / mean) of the depths of the leaves (files and empty
  folders); scale-free, so it measures unevenness rather than depth again;
* goal-file length: the source lines of code of the golden file (lines that hold a
  Python token other than a comment, so blank and comment-only lines do not count,
  docstrings do); goal-function length: the same count over the goal function alone.
"""

from __future__ import annotations

import io
import math
import os
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from lmr_author.domain.task import PAPER_JSON, PAPER_PDF, Implementation, Task
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text

#: Names left out at the top of the repository folder: the benchmark's own files.
_TOP_EXCLUDED = frozenset({PAPER_PDF, PAPER_JSON})
_UNIT_TEST_FOLDER = re.compile(r"unit_test(?:_\d+)?")
#: Names left out anywhere (hidden names are left out as well).
_EXCLUDED = frozenset({"__pycache__"})

_NOT_CODE = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    }
)


@dataclass(frozen=True)
class TreeMetrics:
    """The structure of one repository folder."""

    nodes: int
    folders: int
    files: int
    avg_dir_depth: float
    avg_branch_factor: float
    directory_imbalance: float


@dataclass(frozen=True)
class ImplementationMetrics:
    """The predictors of Table 5 for one implementation of a task."""

    task: str
    index: int
    avg_dir_depth: float
    avg_branch_factor: float
    directory_imbalance: float
    goal_file_sloc: int
    goal_function_sloc: int

    def predictors(self) -> dict[str, float]:
        """The values under the names the regression uses (Table 5's names)."""
        return {
            "avg_dir_depth": self.avg_dir_depth,
            "avg_branch_factor": self.avg_branch_factor,
            "directory_imbalance": self.directory_imbalance,
            "goal_function_length": float(self.goal_file_sloc),
            "goal_function_own_length": float(self.goal_function_sloc),
        }


def _counted(entry: os.DirEntry[str], top: bool) -> bool:
    name = entry.name
    if name.startswith(".") or name in _EXCLUDED:
        return False
    return not (top and (name in _TOP_EXCLUDED or _UNIT_TEST_FOLDER.fullmatch(name)))


def tree_metrics(repo_dir: Path) -> TreeMetrics:
    """Measure the repository folder ``repo_dir`` (see the module docstring)."""
    if not repo_dir.is_dir():
        raise UserError(
            "the repository folder does not exist",
            file=repo_dir,
            hint="Check repo_folder_name in the task's info.json.",
        )
    depth_sum = 0
    nodes = files = 0
    folders = 0  # below the root
    subfolder_sum = 0
    parents = 0  # folders (the root included) with at least one child
    leaf_depths: list[int] = []
    stack: list[tuple[Path, int]] = [(repo_dir, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = [entry for entry in listing if _counted(entry, depth == 0)]
        except OSError as error:
            raise UserError(
                f"cannot list this folder ({error.strerror})",
                file=folder,
                hint="Check permissions.",
            ) from None
        if entries:
            parents += 1
        elif depth > 0:
            leaf_depths.append(depth)  # an empty folder is a leaf
        for entry in entries:
            nodes += 1
            depth_sum += depth + 1
            if entry.is_dir(follow_symlinks=False):
                folders += 1
                subfolder_sum += 1
                stack.append((Path(entry.path), depth + 1))
            else:
                files += 1
                leaf_depths.append(depth + 1)
    if nodes == 0:
        raise UserError(
            "the repository folder holds no files (besides the paper and the unit tests)",
            file=repo_dir,
            hint="Put the masked repository into it.",
        )
    mean_leaf = sum(leaf_depths) / len(leaf_depths)
    spread = math.sqrt(sum((d - mean_leaf) ** 2 for d in leaf_depths) / len(leaf_depths))
    return TreeMetrics(
        nodes=nodes,
        folders=folders,
        files=files,
        avg_dir_depth=depth_sum / nodes,
        avg_branch_factor=subfolder_sum / parents,
        directory_imbalance=spread / mean_leaf,
    )


def code_lines(source: str, file: Path | None = None) -> set[int]:
    """The numbers of the lines holding a Python token other than a comment."""
    lines: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in _NOT_CODE:
                lines.update(range(token.start[0], token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError) as error:
        raise UserError(
            f"cannot read this file as Python ({error.args[0]})",
            file=file,
            hint="Fix the golden file so that it is valid Python.",
        ) from None
    return lines


def implementation_metrics(
    task: Task, tree: TreeMetrics | None = None
) -> list[ImplementationMetrics]:
    """The Table 5 predictors of every implementation of ``task``."""
    measured = tree if tree is not None else tree_metrics(task.repo_dir)
    return [_one(task, impl, measured) for impl in task.implementations]


def _one(task: Task, impl: Implementation, tree: TreeMetrics) -> ImplementationMetrics:
    from lmr_author.cst.locate import locate_function, split_qualified
    from lmr_author.cst.snippet import parse_functions
    from lmr_author.cst.text import SourceText

    golden = impl.golden_path
    missing = UserError(
        "the golden file does not exist",
        file=golden,
        where=f"implementation {impl.index}",
        hint="Check golden_file in the task's info.json.",
    )
    source = read_text(golden, what="golden file", missing=missing)
    # The libcst engine's index finds the goal function (and reports syntax errors).
    text = SourceText.from_source(source, filename=str(golden))
    name, owner = split_qualified(impl.goal_function, impl.class_name)
    info = locate_function(
        parse_functions(text, filename=str(golden)), name, owner, file=str(golden)
    )
    lines = code_lines(text.text, golden)
    own = {n for n in lines if info.start_line <= n <= info.end_line}
    return ImplementationMetrics(
        task=task.name,
        index=impl.index,
        avg_dir_depth=tree.avg_dir_depth,
        avg_branch_factor=tree.avg_branch_factor,
        directory_imbalance=tree.directory_imbalance,
        goal_file_sloc=len(lines),
        goal_function_sloc=len(own),
    )
