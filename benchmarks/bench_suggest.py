"""Benchmark of the goal suggestions: is the goal among the first 1, 3 and 10 suggestions?

Target (issue 30, item 6): the top 3 holds the goal for >= 80 % of the implementations of
the published benchmark, and as well on papers and repositories the ranking was not tuned
on (a held-out manifest). Also prints how long ranking takes, the paper already read
(wall clock and CPU: on a busy machine the CPU time is the figure to compare), on each
repository and, with ``--big``, on a repository of about 1 million lines (the corpus of
bench_cst.py).

    python benchmarks/bench_suggest.py --published /path/to/LMR-Bench/benchmark
    python benchmarks/bench_suggest.py --manifest /path/to/heldout/manifest.json
    python benchmarks/bench_suggest.py --published BENCH --manifest FILE --big -v
    python benchmarks/bench_suggest.py --manifest FILE --as-in-the-app

``--published BENCH``: a benchmark folder in the published layout. For every
implementation whose goal function is named and outside the tests, the task's
repository is copied into a scratch folder without its ``unit_test*`` folders, the
golden file is put back over the masked goal file, and the paper is the task's
``paper.json`` (its ``paper.pdf`` when there is no paper.json). Only info.json's
``repo_folder_name``, ``goal_file``, ``goal_function``, ``class_name`` and
``golden_file`` are read: never an instruction or a test.

``--manifest FILE`` (repeatable): a JSON file of repositories with their paper and goal
functions; paths are relative to the manifest's folder::

    {"items": [
      {"name": "DyT",
       "repo": "repos/DyT",
       "paper": "papers/DyT.tex",
       "goals": [{"goal_file": "dynamic_tanh.py", "goal_function": "forward",
                  "class_name": "DynamicTanh"}],
       "split": "heldout"}
    ]}

``paper`` is a paper.json, a PDF, a LaTeX file, a folder of LaTeX files or a Markdown
file (read as text; with ``--as-in-the-app`` as the app reads it: LaTeX and Markdown laid
out as a PDF and ranked against that PDF's text); ``class_name`` is the innermost class
("" or absent for a top-level function); ``split`` (optional) names the set the item
belongs to: figures are printed per split.

To build one: take public repositories that come with their paper (the official code of
a paper whose LaTeX or Markdown you have, or a paper-to-code benchmark that ships both),
and name each item's goal, the core function the paper introduces, by a rule fixed
before looking at any ranking (for instance "the function holding the most lines that a
paper-to-code benchmark annotates", or your own reading of the method section and the
code). Keep the material outside this repository.

A goal counts as found at rank k when the k-th suggestion is shown at its file and
function name, and its class when the goal names one (a suggestion shown at another
copy of the function does not count).

A repository with several goals (a task of several implementations) is also counted a
second way, printed as ``SPLIT, others set aside``: each goal at its rank among the
suggestions that are not one of the repository's other goals. An annotator who authors
n goals from one repository picks them in turn from one list; all n are "in the top 3"
in this sense when they fill the first n + 2 places. With one goal per repository both
figures are the same; the target is checked on the first.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CUTS = (1, 3, 10)
TARGET_TOP3 = 0.8
_COPY_LIMIT = 2_000_000  # bytes: bigger files (data, weights) are not evidence
_SAMPLE_PAPER = HERE.parent / "benchmark" / "04-InfoNCE"


@dataclass(frozen=True)
class Goal:
    goal_file: str
    goal_function: str
    class_name: str = ""


@dataclass
class Item:
    name: str
    repo: Path
    paper: Path
    goals: list[Goal]
    split: str = ""
    golden: dict[str, Path] = field(default_factory=dict)  # goal file -> golden file


def published_items(bench: Path) -> Iterator[Item]:
    """The published benchmark's implementations, task by task (see the docstring)."""
    for task_dir in sorted(p for p in bench.iterdir() if (p / "info.json").is_file()):
        info = json.loads((task_dir / "info.json").read_text(encoding="utf-8"))
        repo = task_dir / str(info.get("repo_folder_name") or "")
        papers = [repo / n for n in ("paper.json", "paper.pdf") if (repo / n).is_file()]
        goals: list[Goal] = []
        golden: dict[str, Path] = {}
        for impl in info.get("implementations", []):
            goal_file, function = impl.get("goal_file"), impl.get("goal_function")
            if not goal_file or not function or _in_tests(goal_file):
                continue
            goals.append(Goal(goal_file, function, impl.get("class_name") or ""))
            if impl.get("golden_file"):
                golden[goal_file] = task_dir / impl["golden_file"]
        if goals and papers and repo.is_dir():
            yield Item(task_dir.name, repo, papers[0], goals, "published", golden)


def manifest_items(manifest: Path) -> Iterator[Item]:
    """The items of a manifest (see the docstring); a malformed one stops the benchmark."""
    data = json.loads(manifest.read_text(encoding="utf-8"))
    base = manifest.parent
    for number, raw in enumerate(data["items"]):
        try:
            goals = [
                Goal(g["goal_file"], g["goal_function"], g.get("class_name") or "")
                for g in raw["goals"]
            ]
            item = Item(raw["name"], base / raw["repo"], base / raw["paper"], goals)
        except (KeyError, TypeError) as error:
            sys.exit(f"{manifest}: items[{number}] lacks {error}; see the script's docstring")
        item.split = raw.get("split") or manifest.stem
        yield item


def _in_tests(relative: str) -> bool:
    return any(part.startswith("unit_test") for part in Path(relative).parts[:-1])


def scratch_copy(item: Item, target: Path) -> Path:
    """The repository without its unit_test* folders, golden files put back."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = set()
        for name in names:
            path = Path(folder) / name
            unit_tests = name.startswith("unit_test") and path.is_dir()
            big = path.is_file() and path.stat().st_size > _COPY_LIMIT
            if unit_tests or big or name == ".git" or path.is_symlink():
                skipped.add(name)
        return skipped

    shutil.copytree(item.repo, target, ignore=ignore)
    for goal_file, golden in item.golden.items():
        if golden.is_file():
            (target / goal_file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(golden, target / goal_file)
    return target


def rank_of(goal: Goal, found: list[tuple[str, str, str]]) -> int | None:
    """1-based rank of ``goal`` among (file, function, class) suggestions, or None."""
    for rank, (goal_file, function, class_name) in enumerate(found, start=1):
        innermost = class_name.rsplit(".", 1)[-1]
        if (goal_file, function) == (goal.goal_file, goal.goal_function) and (
            not goal.class_name or innermost == goal.class_name
        ):
            return rank
    return None


def without_goals(
    found: list[tuple[str, str, str]], goals: list[Goal]
) -> list[tuple[str, str, str]]:
    """``found`` without the suggestions that are one of ``goals``, cut at the last cut."""
    kept = [entry for entry in found if not any(rank_of(goal, [entry]) for goal in goals)]
    return kept[: max(CUTS)]


@dataclass
class Timing:
    wall: float = 0.0
    cpu: float = 0.0
    slowest: tuple[float, float, str] = (0.0, 0.0, "")

    def add(self, wall: float, cpu: float, name: str) -> None:
        self.wall += wall
        self.cpu += cpu
        self.slowest = max(self.slowest, (wall, cpu, name))


def evaluate(
    items: list[Item], *, verbose: bool, as_in_the_app: bool = False
) -> tuple[dict[str, list[int | None]], Timing]:
    from lmr_author.authoring import paper_forms
    from lmr_author.authoring.suggest import read_paper, suggest_goals
    from lmr_author.util.errors import UserError

    ranks: dict[str, list[int | None]] = defaultdict(list)
    aside: dict[str, list[int | None]] = defaultdict(list)  # the item's other goals set aside
    timing = Timing()
    with tempfile.TemporaryDirectory(prefix="bench-suggest-") as scratch:
        for number, item in enumerate(items):
            repo = item.repo
            if item.golden:
                repo = scratch_copy(item, Path(scratch) / str(number))
            pages = read_paper(item.paper)
            if as_in_the_app:
                # the app lays LaTeX and Markdown out as a PDF and ranks against its text
                try:
                    pages = paper_forms.read_paper(item.paper).pages
                except UserError as error:
                    print(f"  {item.name}: the app cannot read the paper, read as text: {error}")
            wall, cpu = time.perf_counter(), time.process_time()
            suggestions = suggest_goals(repo, pages, limit=max(CUTS) + len(item.goals) - 1)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            timing.add(wall, cpu, item.name)
            found = [(s.goal_file, s.goal_function, s.class_name) for s in suggestions]
            for goal in item.goals:
                rank = rank_of(goal, found[: max(CUTS)])
                ranks[item.split].append(rank)
                others = [g for g in item.goals if g != goal]
                aside[item.split].append(rank_of(goal, without_goals(found, others)))
                if verbose:
                    owner = f"{goal.class_name}." if goal.class_name else ""
                    print(
                        f"  {item.name[:28]:28} {(owner + goal.goal_function)[:44]:44} "
                        f"rank {rank or '>10':>3}  ({wall:.2f} s, CPU {cpu:.2f} s)"
                    )
            if verbose and suggestions:
                top = suggestions[0]
                owner = f"{top.class_name}." if top.class_name else ""
                print(f"  {'':28} first: {top.goal_file}:{owner}{top.goal_function}")
    for split, found in aside.items():
        if found != ranks[split]:
            ranks[f"{split}, others set aside"] = found
    return ranks, timing


def summary(label: str, ranks: list[int | None]) -> str:
    total = len(ranks)
    parts = []
    for cut in CUTS:
        hits = sum(1 for r in ranks if r is not None and r <= cut)
        parts.append(f"top-{cut} {hits}/{total} ({hits / total:.0%})")
    return f"{label}: " + ", ".join(parts)


def time_big(lines: int, files: int, paper: Path) -> None:
    from bench_cst import build_corpus

    from lmr_author.authoring.suggest import read_paper, suggest_goals

    pages = read_paper(paper)
    with tempfile.TemporaryDirectory(prefix="bench-suggest-big-") as scratch:
        repo = build_corpus(Path(scratch) / "corpus", files, lines)
        count = sum(p.read_bytes().count(b"\n") for p in repo.rglob("*.py"))
        wall, cpu = time.perf_counter(), time.process_time()
        suggestions = suggest_goals(repo, pages, limit=5)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"ranking {count:,} lines against {paper.name} ({len(pages)} pages): "
            f"{wall:.1f} s (CPU {cpu:.1f} s), {len(suggestions)} suggestions; the app ranks "
            "in a worker thread, after its first screen"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--published", type=Path, help="a benchmark in the published layout")
    parser.add_argument(
        "--manifest", type=Path, action="append", default=[], help="a JSON manifest"
    )
    parser.add_argument("--big", action="store_true", help="also time a 1M-line repository")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=2400)
    parser.add_argument(
        "--paper",
        type=Path,
        help="the paper --big ranks against (default: the sample InfoNCE task's paper)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per goal")
    parser.add_argument(
        "--as-in-the-app",
        action="store_true",
        help="read LaTeX and Markdown papers as the app does (laid out as a PDF, its text)",
    )
    args = parser.parse_args()
    if not args.published and not args.manifest and not args.big:
        parser.error("give --published BENCH, --manifest FILE or --big")
    sys.path.insert(0, str(HERE))
    items: list[Item] = []
    if args.published:
        items += published_items(args.published)
    for manifest in args.manifest:
        items += manifest_items(manifest)
    failures = 0
    if items:
        ranks, timing = evaluate(items, verbose=args.verbose, as_in_the_app=args.as_in_the_app)
        for split, found in ranks.items():
            print(summary(split, found))
            if not split.endswith("set aside"):
                share = sum(1 for r in found if r is not None and r <= 3) / len(found)
                failures += share < TARGET_TOP3
        wall, cpu, name = timing.slowest
        print(
            f"{len(items)} repositories ranked in {timing.wall:.1f} s (CPU {timing.cpu:.1f} s),"
            f" {timing.wall / len(items):.2f} s each on average;"
            f" slowest {name}: {wall:.1f} s (CPU {cpu:.1f} s)"
        )
        print(
            f"target top-3 >= {TARGET_TOP3:.0%} in each set: {'ok' if not failures else 'MISSED'}"
        )
    if args.big:
        paper = args.paper or next(_SAMPLE_PAPER.glob("*/paper.json"))
        time_big(args.lines, args.files, paper)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
