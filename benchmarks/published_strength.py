"""Test strength of the published tasks before and after `lmr-author strengthen`.

    python benchmarks/published_strength.py BENCH --base-image IMG [--task NAME]...
        [--work DIR] [--timeout S] [--json FILE]

For every task of BENCH (LMR-Bench's ``benchmark/``) that ``benchmarks/strengthen_published/``
names (a driver ``<task>.py``, or an entry of ``equivalents.json``), or each ``--task``:
the task is copied to WORK/benchmark (default: a temporary folder), the survivors that
``equivalents.json`` marks equivalent are marked in the copy's info.json with their
reasons, and `strengthen` runs on the copy (with the driver when there is one): the
published test's calls of the golden goal function, recorded twice in the task's image,
become a replay test beside it; the proof must hold (golden passes, masked fails); the
mutation score is measured before and after. One table says per implementation the
score before and after, the fixtures, the survivors and the equivalents, and whether the
implementation reaches 80 %.

Whether ``eval`` still agrees with the published loop on the strengthened copies (which
runs the published test alone) is `benchmarks/published_benchmark.py`'s to say:
``python benchmarks/published_benchmark.py WORK/benchmark --base-image IMG``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from lmr_author.authoring.strengthen import Strengthened, TaskStrengthened, strengthen_task
from lmr_author.domain.test_strength import Strength
from lmr_author.mutation.equivalents import EquivalentMutant, mark_equivalent
from lmr_author.sandbox.limits import Limits

HERE = Path(__file__).resolve().parent / "strengthen_published"
#: What every implementation's tests must kill, of their counted mutants.
TARGET = 0.8


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="BENCH")
    parser.add_argument("--base-image", required=True, metavar="IMG")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--work", type=Path, metavar="DIR")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="S")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows here")
    args = parser.parse_args()
    equivalents: dict[str, dict[str, list[dict[str, str]]]] = json.loads(
        (HERE / "equivalents.json").read_text(encoding="utf-8")
    )
    names = args.task or sorted({p.stem for p in HERE.glob("*.py")} | set(equivalents))
    outcomes = []
    with tempfile.TemporaryDirectory() as scratch:
        work = (args.work or Path(scratch)) / "benchmark"
        work.mkdir(parents=True, exist_ok=True)
        for name in names:
            task_dir = work / name
            shutil.rmtree(task_dir, ignore_errors=True)
            shutil.copytree(args.benchmark / name, task_dir, symlinks=True)
            for index, marked in equivalents.get(name, {}).items():
                mark_equivalent(task_dir, int(index), [EquivalentMutant(**m) for m in marked])
            driver = HERE / f"{name}.py"
            print(f"{name}: strengthen…", file=sys.stderr)
            outcomes.append(
                strengthen_task(
                    task_dir,
                    base_image=args.base_image,
                    driver=driver.read_text(encoding="utf-8") if driver.is_file() else None,
                    limits=Limits(timeout_s=args.timeout),
                    record_timeout_s=5 * args.timeout,
                    on_progress=lambda line: print(line, file=sys.stderr),
                )
            )
        rows = [_row(outcome, item) for outcome in outcomes for item in outcome.implementations]
        _print(rows)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
    return 0 if all(row["reaches_target"] for row in rows) else 1


def _score(value: Any) -> tuple[str, float | None]:
    if value is None:
        return "-", None
    if isinstance(value, Strength):
        return f"{value.score:.0%} ({value.stored.killed}/{value.counted})", value.score
    return f"{value.score:.0%} ({value.killed}/{value.scored})", value.score


def _row(outcome: TaskStrengthened, item: Strengthened) -> dict[str, Any]:
    before, _ = _score(item.before)
    after, score = _score(item.after)
    return {
        "implementation": f"{item.task} #{item.impl_index}",
        "before": before,
        "after": after,
        "fixtures": len(item.plan.calls) if item.plan else 0,
        "calls": item.plan.made if item.plan else 0,
        "survivors": [f"{m.key} {m.operator}: {m.description}" for m in item.after.survivors]
        if item.after
        else [],
        "equivalent": [f"{m.key}: {marked.reason}" for m, marked in item.after.equivalent]
        if item.after
        else [],
        "strengthened": item.done,
        "error": item.error or outcome.error,
        "reaches_target": score is not None and score >= TARGET and item.done,
    }


def _print(rows: list[dict[str, Any]]) -> None:
    header = f"{'implementation':<18} {'before':<14} {'after':<14} {'fixtures':<10} ≥ 80 %"
    print(header)
    print("-" * len(header))
    for row in rows:
        print(
            f"{row['implementation']:<18} {row['before']:<14} {row['after']:<14} "
            f"{str(row['fixtures']) + '/' + str(row['calls']):<10} "
            f"{'yes' if row['reaches_target'] else 'no'}"
        )
    for row in rows:
        for survivor in row["survivors"]:
            print(f"{row['implementation']}: survivor {survivor}")
        for marked in row["equivalent"]:
            print(f"{row['implementation']}: equivalent {marked}")
        if row["error"]:
            print(f"{row['implementation']}: not strengthened: {row['error']}")
    print("fixtures: calls kept / calls the published test and the driver made")


if __name__ == "__main__":
    sys.exit(main())
