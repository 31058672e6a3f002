"""Where the agreement analysis gets its ratings: label stores, label files, judge outputs.

One function per kind of input, so the command and the TUI read the same way:
`load_human_labels` (label stores and published-shape files), `load_judge_source` (our
eval output folder with ``judgments/`` and ``runs/``, or a folder of published
``<agent>/<model>/*_analysis.txt`` judge outputs) and `load_runs` (the candidate hashes
and verdicts of an eval output folder, to flag labels of code that changed). The judge
files themselves are read by `lmr_author.judge` (``load_judgments`` and
``scan_published_judgments``); this module only maps them onto the label names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lmr_author.domain.identity import Identity, from_zero_based
from lmr_author.eval_output import (
    JUDGMENTS_DIR,
    ItemKey,
    StoredRun,
    is_eval_output,
    judgment_path,
    scan_stored_runs,
)
from lmr_author.labels.model import Label
from lmr_author.labels.published import read_label_file_scaled
from lmr_author.labels.store import LabelStore, default_store_path, is_store_file
from lmr_author.util.errors import UserError

_STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


@dataclass(frozen=True)
class JudgeItem:
    """One judge label; ``category`` None when the answer could not be parsed."""

    system: str
    task: str
    implementation: int
    category: int | None
    candidate_sha256: str
    origin: str


@dataclass
class JudgeSource:
    """The judge labels (and, for our own output folders, the runs) of one folder."""

    path: Path
    kind: Literal["ours", "published"]
    items: list[JudgeItem] = field(default_factory=list)
    runs: dict[ItemKey, StoredRun] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


#: How a source line says that a label file was read on the 0..2 scale.
SCALED_NOTE = " on the 0..2 scale (a 0 is among them), read with +1"


def load_human_labels(
    sources: Sequence[Path],
    *,
    aliases: Identity | None = None,
    tasks: Mapping[int, str] | None = None,
    shift: int | None = None,
    annotator: str | None = None,
) -> tuple[list[Label], list[str]]:
    """The latest labels of every store and label file in ``sources``, and a line per source.

    With no sources, the default label store. A path is a store when it is an SQLite
    file (or has a store suffix and does not exist yet: an error), else a label file,
    read shifted by ``shift``; without one, a file certainly on the 0..2 scale is read
    with +1 and its line says so (`read_label_file_scaled`).
    """
    if not sources:
        path = default_store_path()
        if not path.exists():
            raise UserError(
                "no human labels: the default label store does not exist yet",
                file=path,
                hint="Label with 'lmr-author review RESULTS --annotator NAME', import a "
                "file with 'lmr-author labels import', or pass --human FILE.",
            )
        sources = [path]
    labels: list[Label] = []
    described: list[str] = []
    for source in sources:
        path = Path(source)
        if not path.exists():
            raise UserError(
                "no such label store or label file",
                file=path,
                hint="Give a label store (.sqlite) or a JSON file in the published shape.",
            )
        if is_store_file(path) or (path.suffix.lower() in _STORE_SUFFIXES and path.is_file()):
            with LabelStore(path) as store:
                found = store.labels()
            described.append(f"{path}: label store, {len(found)} labels")
        else:
            found, note = read_label_file_scaled(
                path, aliases, tasks=tasks, annotator=annotator, shift=shift
            )
            scaled = SCALED_NOTE if note else ""
            described.append(f"{path}: label file, {len(found)} labels{scaled}")
        labels.extend(found)
    return labels, described


def load_judge_source(path: Path, aliases: Identity | None = None) -> JudgeSource:
    """The judge labels of an eval output folder or of a published judge-output folder."""
    aliases = aliases or Identity()
    path = Path(path)
    if not path.is_dir():
        raise UserError(
            "no such folder",
            file=path,
            hint="Give an eval output folder (with judgments/) or a folder of published "
            "judge outputs (<agent>/<model>/*_analysis.txt).",
        )
    if is_eval_output(path):
        return _load_our_judgments(path)
    return _load_published(path, aliases)


def _load_our_judgments(path: Path) -> JudgeSource:
    from lmr_author.judge import load_judgments

    source = JudgeSource(path=path, kind="ours")
    source.runs, source.problems = load_runs(path)
    judgments = load_judgments(path)
    if not judgments:
        source.problems.append(
            f"{path / JUDGMENTS_DIR}: no judgments yet; run 'lmr-author judge {path}' "
            "to compare the humans with the judge"
        )
    for judgment in judgments:
        source.items.append(
            JudgeItem(
                system=judgment.system,
                task=judgment.task,
                implementation=judgment.implementation,
                category=judgment.category,
                candidate_sha256=judgment.candidate_sha256,
                origin=str(
                    judgment_path(path, judgment.system, judgment.task, judgment.implementation)
                ),
            )
        )
    return source


def _load_published(path: Path, aliases: Identity) -> JudgeSource:
    from lmr_author.judge import scan_published_judgments

    scan = scan_published_judgments(path)
    source = JudgeSource(path=path, kind="published", problems=list(scan.problems))
    if not scan.judgments and not scan.problems:
        raise UserError(
            "holds neither an eval output (results.json, runs/, judgments/) nor published "
            "judge outputs (<agent>/<model>/<NN-Task>_<repo>_<k>_analysis.txt)",
            file=path,
            hint="Point --judge at one of those.",
        )
    for judgment in scan.judgments:
        source.items.append(
            JudgeItem(
                system=aliases.system(judgment.agent, judgment.model),
                task=judgment.task,
                implementation=from_zero_based(judgment.implementation_index0),
                category=judgment.category,
                candidate_sha256="",
                origin=str(judgment.path),
            )
        )
    return source


def load_runs(output_dir: Path) -> tuple[dict[ItemKey, StoredRun], list[str]]:
    """The runs of an eval output folder by item, and a line per unreadable run."""
    runs, problems = scan_stored_runs(output_dir)
    return {run.key: run for run in runs}, problems
