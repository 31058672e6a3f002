"""A research repository whose goal module runs notebook-style code at import time,
on data that is a Git LFS pointer (never pulled), as published repositories often do."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.support.git_repo import commit_files

#: The goal module: constants, the goal function, then analysis at the top level that
#: reads data/ratings.csv (a pointer here: csv sees no 'intensity' column).
ANALYSIS = textwrap.dedent(
    '''\
    """Analysis of the ratings, exported from a notebook."""
    import csv
    import sys

    sys.path.insert(0, ".")
    GROUPS = ["in", "out"]
    SCALE = 10.0


    def get_delta(matrix, group):
        """Mean in-group score minus mean out-group score, scaled."""
        inside = [row[0] for row in matrix]
        outside = [row[1] for row in matrix]
        return (sum(inside) / len(inside) - sum(outside) / len(outside)) * SCALE / len(GROUPS)


    # In[3]:
    with open("data/ratings.csv") as handle:
        rows = list(csv.DictReader(handle))
    intensity = [float(row["intensity"]) for row in rows]
    print(get_delta([[x, x / 2] for x in intensity], "religion"))
    '''
)

POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 1048576\n"
)

DRIVER = (
    "from analysis.analysis_after_processing import get_delta\n"
    "for k in (1, 2, 3, 4, 5):\n"
    "    get_delta([[1.0 * k, 2.0], [3.0, 0.5 * k]], 'religion')\n"
)


def notebook_repo(root: Path) -> Path:
    files = {
        "analysis/__init__.py": "",
        "analysis/analysis_after_processing.py": ANALYSIS,
        "data/ratings.csv": POINTER,
        "requirements.txt": "",
    }
    commit_files(root, files, "notebook export")
    return root
