"""What identifies the sample benchmark's runs, recorded so that moves can be checked.

``sample_runs.json`` beside this file holds, for the sample benchmark (``benchmark/``)
and its submissions in both forms (the mirror folders and ``predictions.jsonl``): the
sandbox settings that go into every run key, each task's image tag (the hash of what
its build would use), and per run the run key, the candidate's hash and the verdict
that a real ``eval`` in Docker gave. Run keys are computed by the real evaluation loop
without Docker (`tests.support.run_keys`): the image a run would use is named by its
build plan's tag instead of the engine's image id, and nothing is run.

A change that is meant to change run keys (the harness, the limits, the build recipe,
a sample task) rewrites the file: ``python -m tests.support.sample_runs --write``
(verdicts are kept; they change only by a Docker run of `test_sample_benchmark`'s demo).
Anything else must leave it as it is: the keys decide which stored runs a resumed
``eval`` keeps.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from lmr_author.eval_loop import Submission, load_runs
from tests.support.run_keys import KeysOnly, keyed_runs, run_name

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = ROOT / "benchmark"
SUBMISSIONS = BENCHMARK / "submissions"
RECORD = Path(__file__).with_name("sample_runs.json")
#: The two forms of the sample submissions, each a list of `Submission` paths.
FORMS = {
    "mirror": [SUBMISSIONS / name for name in ("correct", "subtle-bug", "wrong-logic")],
    "jsonl": [SUBMISSIONS / "predictions.jsonl"],
}


def compute() -> dict[str, Any]:
    """Settings, image tags and per form every run's key and candidate hash."""
    backend = KeysOnly()
    record: dict[str, Any] = {"settings": backend.settings(), "images": {}, "runs": {}}
    for form, paths in FORMS.items():
        runs = record["runs"].setdefault(form, {})
        for run in keyed_runs(BENCHMARK, [Submission(path) for path in paths], backend):
            record["images"][run.task] = run.image_id
            runs[run_name(run.system, run.task, run.implementation)] = {
                "run_key": run.run_key,
                "candidate_sha256": run.candidate_sha256,
            }
    return record


def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return data


def verdicts_of(output: Path) -> dict[str, str]:
    """Every run's verdict in an eval output folder, named as in the record."""
    return {
        run_name(run.system, run.task, run.implementation): run.verdict for run in load_runs(output)
    }


def _write(verdicts_from: Path | None) -> None:
    computed = compute()
    old = recorded() if RECORD.exists() else {}
    verdicts = verdicts_of(verdicts_from) if verdicts_from else old.get("verdicts", {})
    computed["verdicts"] = dict(sorted(verdicts.items()))
    RECORD.write_text(json.dumps(computed, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    # --write [EVAL_OUTPUT]: rewrite the record; verdicts from EVAL_OUTPUT's runs if given.
    if sys.argv[1:2] != ["--write"]:
        sys.exit("usage: python -m tests.support.sample_runs --write [EVAL_OUTPUT]")
    _write(Path(sys.argv[2]) if len(sys.argv) > 2 else None)
