"""The paper's tables from eval outputs, judgments, human labels and published summaries.

Inputs are read only through their owners: runs through `lmr_author.eval_output`, judge
labels through the judge's store (`lmr_author.judge.load_judgments`, counted with the
judge's own rule `summarize_systems`: a judgment counts only for the candidate it
judged), human labels through `lmr_author.labels.sources`, published unit-test summaries
through `lmr_author.reporting.published_results`. What comes out is a typed `Report`:

* Table 2: per system, unit-test accuracy, judge CC/LC/LI and human CC/LC/LI;
* Table 3: the same rows with their setting, when eval outputs are named by setting;
* Table 6: CC vs not CC (judge and human);
* unit-test accuracy per category, and the benchmark's category distribution (Figure 2);
* pass@1 / pass@k per system whose samples were generated as ``NAME+s<k>``.

Published sources join without runs: results.txt files give the unit-test column, folders
of published judge outputs the judge columns (an unreadable answer in the denominator)
and human labels of systems that no eval output holds the human columns. Every source
names its systems and tasks through `lmr_author.domain.identity`, so ``OpenHands/gpt4o``
(folders) and ``openhands_agent-gpt4o`` (labels) are one row.

Human percentages count every annotator's latest label of a run once (with a single
annotator, as in the paper, one label per run). A label given for other code than the
run's candidate (its hash differs) is stale: listed in the notes, not counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmr_author.domain.identity import Identity
from lmr_author.domain.item_key import ItemKey
from lmr_author.domain.scoring import LABELS, PARTS, LabelCounts, SystemScore, Tally
from lmr_author.domain.thin_rows import thin_rows
from lmr_author.domain.verdicts import PASS
from lmr_author.eval_output import StoredRun, find_benchmark, scan_stored_runs
from lmr_author.generation.samples import split_sample
from lmr_author.reporting.strength import StrengthRow, stored_strength
from lmr_author.util.errors import UserError

#: The counts of Table 2 whose rows may be thin: unit-test runs, judged runs, human labels.
COUNTS = PARTS


@dataclass(frozen=True)
class EvalSource:
    """One eval output folder and the setting it was run in ("" when not named)."""

    path: Path
    setting: str = ""


def _labels_json(counts: LabelCounts) -> dict[str, Any]:
    return {
        "counts": {label: counts.count(label) for label in LABELS},
        "unparsed": counts.unparsed,
        "total": counts.total,
        "percent": {k: _pct(counts.fraction(k)) for k in LABELS},
    }


def _tally_json(tally: Tally) -> dict[str, Any]:
    return {"counted": tally.counted, "passed": tally.passed, "percent": _pct(tally.accuracy)}


def row_json(row: SystemScore, thin: frozenset[str] = frozenset()) -> dict[str, Any]:
    """One row of Table 2 (and 3); ``thin`` names the `COUNTS` of it that rest on few items."""
    return {
        "setting": row.setting,
        "system": row.system,
        "origin": row.origin,
        "published": row.published,
        "unit_tests": {**_tally_json(row.unit_tests), "thin": "unit_tests" in thin},
        "judge": {**_labels_json(row.judge), "thin": "judge" in thin},
        "human": {**_labels_json(row.human), "thin": "human" in thin},
        "categories": {k: _tally_json(v) for k, v in sorted(row.categories.items())},
        "in_process": _tally_json(row.in_process),
    }


@dataclass(frozen=True)
class PassAtK:
    """pass@k of one system whose samples were scored as ``NAME+s<k>``."""

    setting: str
    system: str
    items: int
    samples: int  # the fewest samples of any item
    values: dict[int, float]

    def to_json(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "system": self.system,
            "items": self.items,
            "samples": self.samples,
            "pass_at_k": {str(k): v for k, v in sorted(self.values.items())},
        }


@dataclass
class Report:
    """Everything the report shows; `to_json` is the ``--format json`` output."""

    rows: list[SystemScore]
    category_distribution: dict[str, int]
    pass_at_k: list[PassAtK] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    benchmark: str = ""
    footnotes: list[Any] = field(default_factory=list)  # printed.Footnote, when compared
    #: The stored mutation scores of the benchmark's implementations (`strength`).
    strength: list[StrengthRow] = field(default_factory=list)

    @property
    def settings(self) -> list[str]:
        return list(dict.fromkeys(row.setting for row in self.rows if row.setting))

    def thin(self) -> dict[str, dict[int, float]]:
        """Per count of `COUNTS`: the rows (by index) that rest on few items, with the
        median n they were compared to (`lmr_author.domain.thin_rows`)."""
        return {
            what: thin_rows({i: row.count(what) for i, row in enumerate(self.rows)})
            for what in COUNTS
        }

    def to_json(self) -> dict[str, Any]:
        thin = self.thin()
        return {
            "report_version": 1,
            "benchmark": self.benchmark,
            "systems": [
                row_json(row, frozenset(what for what in COUNTS if i in thin[what]))
                for i, row in enumerate(self.rows)
            ],
            "category_distribution": dict(self.category_distribution),
            "pass_at_k": [p.to_json() for p in self.pass_at_k],
            "notes": list(self.notes),
            "footnotes": [f.to_json() for f in self.footnotes],
            "test_strength": [row.to_json() for row in self.strength],
        }


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100.0 * value, 2)


def build_report(
    sources: Sequence[EvalSource],
    *,
    labels: Sequence[Any] = (),
    published: Sequence[tuple[str | None, Path]] = (),
    published_judges: Sequence[Path] = (),
    label_rows: bool = False,
    benchmark: Path | None = None,
    ks: Sequence[int] = (),
    identity: Identity | None = None,
) -> Report:
    """The report of ``sources`` (eval outputs), human ``labels`` (`lmr_author.labels.Label`),
    published results.txt files (``(system name or None, path)``) and folders of published
    judge outputs. Labels of systems no eval output holds fill the published rows, and
    with ``label_rows`` make rows of their own."""
    from lmr_author.judge import load_judgments
    from lmr_author.judge.summary import summarize_systems

    identity = identity or Identity()
    rows: list[SystemScore] = []
    notes: list[str] = []
    passes: list[PassAtK] = []
    seen: dict[tuple[str, str], Path] = {}
    latest = _latest_labels(labels, identity)
    used: set[int] = set()
    for source in sources:
        runs, problems = scan_stored_runs(source.path)
        notes.extend(problems)
        if not runs:
            raise UserError(
                "this eval output holds no runs",
                file=source.path,
                hint="Point at a folder 'lmr-author eval' wrote (it has runs/), or give "
                "published judge outputs with --published-judge DIR and results.txt files "
                "with --published-results.",
            )
        scores = summarize_systems(runs, load_judgments(source.path))
        by_key = {identity.item_key(*run.key): run for run in runs}
        for system, row in sorted(scores.items()):
            first = seen.setdefault(
                (source.setting, identity.canonical_system(system)), source.path
            )
            if first != source.path:
                raise UserError(
                    f"system {system} is in two eval outputs ({first} and {source.path})",
                    hint="Name the setting of each with --setting NAME=PATH, or report them "
                    "separately.",
                )
            row.setting, row.origin = source.setting, str(source.path)
            rows.append(row)
        by_row = {row.system: row for row in rows if row.origin == str(source.path)}
        _human(latest, by_key, by_row, notes, used)
        passes.extend(_pass_at_k(runs, source.setting, ks, notes))
    ours = {identity.canonical_system(row.system) for row in rows if not row.setting}
    extra = _published_rows(published, published_judges, identity, notes)
    leftover = [label for i, label in enumerate(latest) if i not in used]
    _published_human(leftover, extra, identity, label_rows, notes)
    for system in sorted(extra):
        if system in ours:
            raise UserError(
                f"system {system} is both in an eval output and in the published sources",
                hint="Name the eval output's setting with --setting NAME=PATH, or report "
                "them separately.",
            )
        rows.append(extra[system])
    if benchmark is None and sources:
        benchmark = find_benchmark(sources[0].path)
    distribution: dict[str, int] = {}
    strength: list[StrengthRow] = []
    if benchmark is not None:
        distribution, skipped = category_distribution(benchmark)
        notes.extend(skipped)
        strength, unmeasured = stored_strength(benchmark)
        notes.extend(unmeasured)
    report = Report(rows, distribution, passes, notes, str(benchmark or ""))
    report.strength = strength
    return report


def _latest_labels(labels: Sequence[Any], identity: Identity) -> list[Any]:
    """Each annotator's latest label per item, whatever spelling its inputs used."""
    chosen: dict[tuple[str, ItemKey], Any] = {}
    for label in labels:
        key = (label.annotator, identity.item_key(*label.item))
        previous = chosen.get(key)
        if previous is None or previous.created_at <= label.created_at:
            chosen[key] = label
    return list(chosen.values())


def _published_rows(
    results: Sequence[tuple[str | None, Path]],
    judges: Sequence[Path],
    identity: Identity,
    notes: list[str],
) -> dict[str, SystemScore]:
    """Rows by canonical system from published results.txt files and judge folders."""
    from lmr_author.labels.sources import load_judge_source
    from lmr_author.reporting.published_results import load_published_results

    rows: dict[str, SystemScore] = {}

    def row(system: str, origin: str) -> SystemScore:
        canonical = identity.canonical_system(system)
        found = rows.get(canonical)
        if found is None:
            found = rows[canonical] = SystemScore(canonical, origin=origin, published=True)
        elif origin not in found.origin.split("; "):
            found.origin += f"; {origin}"
        return found

    for name, path in results:
        unit_tests = load_published_results(path, system=name)
        target = row(unit_tests.system, str(path))
        if target.unit_tests.counted:
            raise UserError(
                f"two results.txt files for system {target.system}",
                file=path,
                hint="Give one --published-results file per system.",
            )
        target.unit_tests = Tally(unit_tests.total, unit_tests.passed)
    for folder in judges:
        source = load_judge_source(folder, identity)
        notes.extend(source.problems)
        if source.kind != "published":
            raise UserError(
                "is an eval output, not a folder of published judge outputs",
                file=folder,
                hint="Give eval outputs as RESULTS_DIR arguments.",
            )
        judged: set[ItemKey] = set()
        for item in source.items:
            key = identity.item_key(item.system, item.task, item.implementation)
            if key in judged:
                notes.append(f"{item.origin}: a second judge answer for one item; not counted")
                continue
            judged.add(key)
            target = row(item.system, str(folder))
            target.judge.add(item.category)
    return rows


def _published_human(
    labels: Sequence[Any],
    rows: dict[str, SystemScore],
    identity: Identity,
    label_rows: bool,
    notes: list[str],
) -> None:
    """Count labels of systems without runs into the published rows (or their own rows)."""
    elsewhere: Counter[str] = Counter()
    for label in labels:
        system = identity.canonical_system(label.system)
        row = rows.get(system)
        if row is None and label_rows:
            row = rows[system] = SystemScore(system, origin="human labels", published=True)
        if row is None:
            elsewhere[system] += 1
            continue
        row.human.add(label.label)
    if elsewhere:
        shown = ", ".join(f"{system} ({n})" for system, n in sorted(elsewhere.items()))
        notes.append(f"human labels of systems in no input, not counted: {shown}")


def _human(
    labels: Sequence[Any],
    runs: dict[ItemKey, StoredRun],
    rows: dict[str, SystemScore],
    notes: list[str],
    used: set[int],
) -> None:
    """Count the labels of these runs (``runs`` by identity key); mark them ``used``."""
    identity = Identity()
    for i, label in enumerate(labels):
        run = runs.get(identity.item_key(*label.item))
        if run is None:
            continue
        used.add(i)
        if label.candidate_sha256 and label.candidate_sha256 != run.candidate_sha256:
            notes.append(
                f"stale human label of {label.annotator} on {label.system} {label.task}#"
                f"{label.implementation}: it was given for other code; not counted"
            )
            continue
        rows[run.system].human.add(label.label)


def _pass_at_k(
    runs: list[StoredRun], setting: str, ks: Sequence[int], notes: list[str]
) -> list[PassAtK]:
    from lmr_author.reporting.pass_at_k import SampleCount, mean_pass_at_k

    items: dict[str, dict[tuple[str, int], list[bool]]] = {}
    for run in runs:
        base, sample = split_sample(run.system)
        if sample is None or not run.record.counted:
            continue
        items.setdefault(base, {}).setdefault((run.task, run.implementation), []).append(
            run.verdict == PASS
        )
    found: list[PassAtK] = []
    for base, per_item in sorted(items.items()):
        counts = [
            SampleCount(f"{task}#{index}", len(results), sum(results))
            for (task, index), results in sorted(per_item.items())
        ]
        fewest = min(count.samples for count in counts)
        wanted = sorted(set(ks) | {1, fewest}) if ks else sorted({1, fewest})
        values: dict[int, float] = {}
        for k in wanted:
            if k > fewest:
                notes.append(f"pass@{k} of {base}: needs {k} samples per item, has {fewest}")
                continue
            values[k] = mean_pass_at_k(counts, k)
        found.append(PassAtK(setting, base, len(counts), fewest, values))
    return found


#: Figure 2's bucket for implementations whose category is missing or not one of the nine.
NO_CATEGORY = "(no category)"


def category_distribution(benchmark: Path) -> tuple[dict[str, int], list[str]]:
    """Implementations per category of the paper's nine (Figure 2), and notes.

    Published spellings are mapped by `lmr_author.domain.categories.report_category`; missing or
    unmapped categories count under `NO_CATEGORY`, and the notes name them. A task whose
    info.json cannot be read is left out and named in the notes.
    """
    from lmr_author.domain.benchmark import load_benchmark
    from lmr_author.domain.categories import CATEGORIES, report_category

    counts: Counter[str] = Counter(dict.fromkeys(CATEGORIES, 0))
    loaded = load_benchmark(benchmark, runnable=False, allow_empty=True)
    notes = [f"Figure 2 leaves out {b.name}: {b.reason}" for b in loaded.broken]
    unmapped: list[str] = []
    for task in loaded.tasks:
        for impl in task.implementations:
            category = report_category(impl.category)
            if category is None:
                category = NO_CATEGORY
                unmapped.append(f"{task.name}#{impl.index} ({impl.category or 'none'})")
            counts[category] += 1
    if unmapped:
        notes.append(
            f"Figure 2 counts {len(unmapped)} implementations without one of the nine "
            "categories under " + NO_CATEGORY + ": " + ", ".join(unmapped)
        )
    if not counts[NO_CATEGORY]:
        del counts[NO_CATEGORY]
    order = {name: i for i, name in enumerate(CATEGORIES)}
    ranked = sorted(counts.items(), key=lambda item: (-item[1], order.get(item[0], 99)))
    return dict(ranked), notes
