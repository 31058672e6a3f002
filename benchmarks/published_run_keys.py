"""The run keys of a published-layout benchmark, recorded and compared (issue 31).

    python benchmarks/published_run_keys.py BENCH --base-image IMG [--task NAME]...
        [--timeout S] (--write FILE | --compare FILE)

For every task folder of BENCH that loads and each of its implementations, the two
systems `published_benchmark.py` evaluates (the golden files and the masked files, as
mirrored-folder submissions): the run key that ``eval --base-image IMG --timeout S``
gives, the tag of the task image's build plan and the candidate's hash. They are computed
by the real evaluation loop without Docker (`tests/support/run_keys.py`): nothing is
built or run, and base images hash as absent, so the figures do not depend on the
machine. The tasks that do not load are listed by name.

``--write FILE`` writes them as sorted JSON (the same input gives the same bytes);
``--compare FILE`` computes them again and prints what differs, task by task, then
exits 1 when anything does. Record before a change that must not change behaviour (a
move of code), compare after: a resumed ``eval`` keeps a stored run only when its key is
unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from published_benchmark import _write_systems  # noqa: E402

from lmr_author.domain.benchmark import load_benchmark  # noqa: E402
from lmr_author.eval_loop import Submission  # noqa: E402
from lmr_author.util.atomic import atomic_write_text  # noqa: E402
from lmr_author.util.errors import UserError  # noqa: E402
from lmr_author.util.json_input import load_json  # noqa: E402
from tests.support.run_keys import KeysOnly, keyed_runs  # noqa: E402

#: Differences that concern no single task sort first, under these names.
SETTINGS, NOT_LOADED = "(settings)", "(tasks that do not load)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="BENCH")
    parser.add_argument("--base-image", required=True, metavar="IMG")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, metavar="FILE", help="record the keys here")
    mode.add_argument("--compare", type=Path, metavar="FILE", help="compare with this record")
    args = parser.parse_args(argv)
    try:
        recorded = load_json(args.compare, what="run-key record") if args.compare else {}
        computed = record(args.benchmark, args.base_image, args.task, args.timeout)
        if args.write:
            atomic_write_text(args.write, dumps(computed))
            print(f"{_summary(computed)}: written to {args.write}")
            return 0
        differing = differences(recorded, computed)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return error.exit_code
    for task, lines in differing.items():
        print(f"{task}:")
        for line in lines:
            print(f"  {line}")
    verdict = "all equal"
    if differing:
        verdict = f"differences in {len(differing)} part(s): {', '.join(differing)}"
    print(f"{_summary(computed)} compared with {args.compare}: {verdict}")
    return 1 if differing else 0


def record(benchmark: Path, base_image: str, tasks: list[str], timeout_s: float) -> dict[str, Any]:
    """The settings, the tasks that do not load, and per task that loads its image plan
    tag and per run (``<system>#<implementation>``) the run key and candidate hash."""
    loaded = load_benchmark(benchmark, tasks or None)
    backend = KeysOnly(base_image=base_image, timeout_s=timeout_s)
    result: dict[str, Any] = {
        "settings": backend.settings(),
        "not_loaded": sorted(broken.name for broken in loaded.broken),
        "tasks": {},
    }
    with tempfile.TemporaryDirectory() as scratch:
        systems = _write_systems(loaded.tasks, Path(scratch))
        submissions = [Submission(path) for path in systems.values()]
        for run in keyed_runs(benchmark, submissions, backend, tasks):
            task = result["tasks"].setdefault(run.task, {"image": run.image_id, "runs": {}})
            task["runs"][f"{run.system}#{run.implementation}"] = {
                "run_key": run.run_key,
                "candidate_sha256": run.candidate_sha256,
            }
    return result


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def differences(old: Any, new: dict[str, Any]) -> dict[str, list[str]]:
    """What differs between two records, as lines grouped by task (sorted); ``old`` may be
    any JSON value (a file that is no record differs everywhere)."""
    was, now = _leaves(old), _leaves(new)
    grouped: dict[str, list[str]] = {}
    for path in sorted(was.keys() | now.keys()):
        before, after = was.get(path, _ABSENT), now.get(path, _ABSENT)
        if before == after:
            continue
        group, name = _group(path)
        grouped.setdefault(group, []).append(f"{name}: {before} -> {after}")
    return dict(sorted(grouped.items()))


_ABSENT = "(absent)"


def _leaves(value: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Every leaf of a JSON value by its path; a list is one leaf (``not_loaded``)."""
    if isinstance(value, dict) and value:
        leaves: dict[tuple[str, ...], str] = {}
        for key, item in value.items():
            leaves.update(_leaves(item, (*path, str(key))))
        return leaves
    return {path: json.dumps(value, sort_keys=True)}


def _group(path: tuple[str, ...]) -> tuple[str, str]:
    """The task a leaf belongs to and its name within it."""
    if len(path) >= 2 and path[0] == "tasks":
        within = path[3:] if path[2:3] == ("runs",) else path[2:]  # a run by its name
        return path[1], " ".join(within) or "(the task)"
    if path[:1] == ("not_loaded",):
        return NOT_LOADED, "names"
    return SETTINGS, " ".join(path) or "(the record)"


def _summary(data: dict[str, Any]) -> str:
    tasks = data["tasks"]
    runs = sum(len(task["runs"]) for task in tasks.values())
    return f"{len(tasks)} tasks, {runs} runs ({len(data['not_loaded'])} tasks do not load)"


if __name__ == "__main__":
    sys.exit(main())
