"""A small research repository of our own whose goal module needs real dependencies.

``outliers/scores.py`` imports pandas and SciPy (neither is installed on the host nor in
the offline base image), so a task made from it only works when the environment step
proposes them and the image installs them from the package index. The repository also
declares a package its goal never imports (matplotlib), which the proposal lists apart.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

GOAL_FILE = "outliers/scores.py"
GOAL_FUNCTION = "robust_scores"
DRIVER = textwrap.dedent(
    """
    from outliers.scores import robust_scores
    robust_scores([1.0, 2.0, 2.5, 3.0, 40.0], 2.0)
    robust_scores([10.0, 11.0, 9.5, 10.5, 10.2, -30.0], 1.5)
    robust_scores([5.0, 5.5, 6.0, 6.5], 0.5)
    """
)
#: The same driver through a golden that draws random numbers: recording twice differs.
NOISY_DRIVER = "from outliers.noisy import jitter\njitter([1.0, 2.0, 3.0])\n"
#: A driver that only calls the input check with valid values: every recorded call
#: returns None, as the masked stub (`pass`) does, so the tests cannot tell them apart
#: and the task is not verified (test-does-not-discriminate).
LAX_DRIVER = "from outliers.checks import check_values\ncheck_values([1.0, 2.0])\n"

FILES = {
    "README.md": "# outliers\nRobust z-scores (median/MAD) for the paper's outlier filter.\n",
    "requirements.txt": "pandas>=2.0\nmatplotlib>=3.7  # plots only\n",
    "outliers/__init__.py": "",
    "outliers/mad.py": textwrap.dedent(
        '''
        """Median absolute deviation, as in Eq. (2) of the paper."""
        from scipy import stats


        def mad(values):
            return float(stats.median_abs_deviation(values, scale="normal"))
        '''
    ).lstrip(),
    "outliers/scores.py": textwrap.dedent(
        '''
        """Robust scores of Section 3: z = (x - median) / MAD, flagged above a threshold."""
        import numpy as np
        import pandas as pd

        from outliers.mad import mad


        def robust_scores(values, threshold):
            """Return the robust z-score of each value and whether it is an outlier."""
            series = pd.Series(values, dtype=float)
            spread = mad(series.to_numpy())
            scores = (series - series.median()) / spread
            flags = scores.abs() > threshold
            rounded = [round(float(s), 6) for s in scores]
            return rounded, [bool(f) for f in flags], int(np.sum(flags))
        '''
    ).lstrip(),
    "outliers/noisy.py": textwrap.dedent(
        """
        import random


        def jitter(values):
            return [v + random.random() for v in values]
        """
    ).lstrip(),
    "outliers/checks.py": textwrap.dedent(
        """
        def check_values(values):
            if any(v != v for v in values):
                raise ValueError("the values hold NaN")
        """
    ).lstrip(),
    "outliers/plots.py": "import matplotlib.pyplot as plt\n",
}


def write_real_repo(root: Path, name: str = "outliers-repo") -> Path:
    """Write the repository under ``root / name`` and return its folder."""
    repo = root / name
    for rel, text in FILES.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return repo
