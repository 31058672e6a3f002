"""Import the LLM-judge outputs published with LMR-Bench, for agreement on old results.

Layout: ``<folder>/<agent>/<model>/<NN-Task>_<repo folder>_<index>_analysis.txt``, e.g.
``BaseAgent/gpt4o/1-DPO_direct-preference-optimization_0_analysis.txt``. The task
number may or may not be zero-padded, the repository folder may contain underscores and
dashes, and the implementation index counts from 0. The file holds the judge's answer
(bare or fenced JSON, see ``reference/formats/judge-output-*.txt``). A file that cannot
be read is reported and skipped (or kept with ``category`` None when only its content is
unreadable); it never stops the import.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.judge.parse import parse_judge_answer
from lmr_author.util.errors import UserError

logger = logging.getLogger(__name__)

SUFFIX = "_analysis.txt"
#: ``NN-Name_<repo folder>_<index>``: the task name is digits, a dash and a name
#: without underscores; the index is the last ``_``-separated part.
_NAME = re.compile(r"^(?P<number>\d+)-(?P<name>[^_]+)_(?P<repo>.+)_(?P<index>\d+)$")


@dataclass(frozen=True)
class PublishedJudgment:
    """One published judge answer for one implementation of one task."""

    agent: str
    model: str
    task: str  # as spelled in the file name, e.g. "1-DPO"
    paper_index: int  # the task number, e.g. 1
    repo_folder: str
    implementation_index0: int  # 0-based, as published
    category: int | None
    rationale: list[str]
    path: Path


@dataclass
class PublishedScan:
    """The judgments found and one line per file that could not be used."""

    judgments: list[PublishedJudgment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def parse_published_name(file_name: str) -> tuple[str, int, str, int] | None:
    """``(task, paper_index, repo_folder, implementation_index0)`` from a file name."""
    if not file_name.endswith(SUFFIX):
        return None
    match = _NAME.match(file_name[: -len(SUFFIX)])
    if match is None:
        return None
    task = f"{match['number']}-{match['name']}"
    return task, int(match["number"]), match["repo"], int(match["index"])


def scan_published_judgments(folder: Path) -> PublishedScan:
    """Read every ``*_analysis.txt`` under ``folder``; collect problems instead of failing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(
            "no such folder",
            file=folder,
            hint="Give the folder that holds <agent>/<model>/*_analysis.txt files.",
        )
    scan = PublishedScan()
    for path in sorted(folder.rglob("*" + SUFFIX)):
        relative = path.relative_to(folder)
        if len(relative.parts) != 3:
            scan.problems.append(f"{path}: not at <agent>/<model>/<file> below {folder}; skipped")
            continue
        agent, model, name = relative.parts
        parsed_name = parse_published_name(name)
        if parsed_name is None:
            scan.problems.append(
                f"{path}: the name is not <NN-Task>_<repo folder>_<index>{SUFFIX}; skipped"
            )
            continue
        task, paper_index, repo_folder, index0 = parsed_name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            scan.problems.append(f"{path}: cannot read it ({error.strerror}); skipped")
            continue
        answer = parse_judge_answer(text)
        if answer is None:
            scan.problems.append(f"{path}: no category can be read; recorded as unparsed")
        scan.judgments.append(
            PublishedJudgment(
                agent=agent,
                model=model,
                task=task,
                paper_index=paper_index,
                repo_folder=repo_folder,
                implementation_index0=index0,
                category=answer.category if answer else None,
                rationale=list(answer.rationale) if answer else [],
                path=path,
            )
        )
    return scan


def load_published_judgments(folder: Path) -> list[PublishedJudgment]:
    """The published judgments under ``folder``; unusable files are logged as warnings."""
    scan = scan_published_judgments(folder)
    for problem in scan.problems:
        logger.warning("%s", problem)
    return scan.judgments
