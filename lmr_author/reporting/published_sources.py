"""Find the published result files in a folder, whichever level of it the user names.

The published LMR-Bench ``results/`` folder holds three sources::

    unit_test_evaluation/<agent>/<model>/results.txt      unit tests (Table 2, Table 5)
    llm_as_a_judge_evaluation/<agent>/<model>/*_analysis.txt   the LLM judge
    human_evaluation/<annotator>.json                     human labels (published shape)

`find_published` accepts that root, or one of the three folders, or a single
``<agent>/<model>`` folder below the first two, and says which files it found. The files
themselves are read by their owners (`lmr_author.reporting.published_results`,
`lmr_author.labels.sources`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.judge.published import SUFFIX as JUDGE_SUFFIX
from lmr_author.reporting.published_results import RESULTS_FILE

UNIT_TESTS = "unit_test_evaluation"
JUDGE = "llm_as_a_judge_evaluation"
HUMAN = "human_evaluation"


@dataclass
class PublishedFolder:
    """The published files below one folder."""

    path: Path
    results: list[Path] = field(default_factory=list)
    judges: list[Path] = field(default_factory=list)  # folders of <agent>/<model>/*
    label_files: list[Path] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.results or self.judges or self.label_files)


def _results_below(folder: Path) -> list[Path]:
    """``results.txt`` files at ``folder``, ``folder/<model>`` or ``folder/<agent>/<model>``."""
    found: list[Path] = []
    for pattern in (RESULTS_FILE, f"*/{RESULTS_FILE}", f"*/*/{RESULTS_FILE}"):
        found += sorted(p for p in folder.glob(pattern) if p.is_file())
    return found


def _has_judgments(folder: Path) -> bool:
    return any(folder.glob(f"*/*/*{JUDGE_SUFFIX}"))


def find_published(path: Path) -> PublishedFolder:
    """The published files of ``path`` (see the module docstring); may be empty."""
    found = PublishedFolder(path)
    if not path.is_dir():
        return found
    roots = [path / UNIT_TESTS, path / JUDGE, path / HUMAN]
    if any(root.is_dir() for root in roots):
        if roots[0].is_dir():
            found.results = _results_below(roots[0])
        if roots[1].is_dir() and _has_judgments(roots[1]):
            found.judges = [roots[1]]
        if roots[2].is_dir():
            # Only the files at the top: .ipynb_checkpoints/ holds stale copies.
            found.label_files = sorted(p for p in roots[2].glob("*.json") if p.is_file())
        return found
    if _has_judgments(path):
        found.judges = [path]
    found.results = _results_below(path)
    return found
