"""An Inspect log read back as an eval output folder, so ``report`` reads it as any other.

Each sample scored by ``lmr_verdict`` carries its run record, candidate, prediction and
test logs; ``lmr_judge`` carries the judgment. They are written with the owners of the
eval output folder (`lmr_author.eval_output.save_run`, ``results.json``) and of the
judgments (`lmr_author.judge.store`), so the reader sees exactly what ``eval`` writes
and nothing of the model is copied here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lmr_author.eval_output import RunRecord, save_run
from lmr_author.eval_output.results import build_results, save_results
from lmr_author.util.errors import UserError

#: Inspect's log formats.
LOG_SUFFIXES = (".eval", ".json")


def is_inspect_log(path: Path) -> bool:
    """A file that may be an Inspect log (by its name; reading it tells for sure)."""
    return path.is_file() and path.suffix in LOG_SUFFIXES


def write_eval_output(log_path: Path, output: Path) -> Path:
    """Write the runs (and judgments) of the Inspect log ``log_path`` under ``output``.

    Returns ``output``. Raises `UserError` for a file that is not an Inspect log, or a
    log of a task that is not ``lmr_author/lmr_bench``'s.
    """
    from inspect_ai.log import read_eval_log

    from lmr_author.inspect_bridge.scorer import JUDGE_SCORER, JUDGMENT, RUN, VERDICT_SCORER

    hint = (
        "Give a log written by 'inspect eval lmr_author/lmr_bench' (.eval or .json), or "
        "an eval output folder."
    )
    try:
        log = read_eval_log(str(log_path))
    except Exception as error:  # Inspect raises several kinds on a file it cannot read
        raise UserError(
            f"not a readable Inspect log ({' '.join(str(error).split())[:300]})",
            file=log_path,
            hint=hint,
        ) from None
    benchmark = _benchmark(log)
    runs = 0
    for sample in log.samples or []:
        scores = sample.scores or {}
        verdict = scores.get(VERDICT_SCORER)
        data: dict[str, Any] = dict(verdict.metadata or {}) if verdict is not None else {}
        if not isinstance(data.get(RUN), dict):
            continue
        try:
            record = RunRecord.from_json(data[RUN])
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(
                f"sample {sample.id} holds no run record ({error!r})", file=log_path, hint=hint
            ) from None
        candidate = data.get("candidate")
        prediction = data.get("prediction")
        logs = data.get("logs") if isinstance(data.get("logs"), dict) else {}
        save_run(
            output,
            record,
            candidate=candidate.encode("utf-8") if isinstance(candidate, str) else None,
            prediction=prediction if isinstance(prediction, str) else None,
            logs={str(k): str(v) for k, v in (logs or {}).items()},
        )
        runs += 1
        judged = scores.get(JUDGE_SCORER)
        judgment = (judged.metadata or {}).get(JUDGMENT) if judged is not None else None
        if isinstance(judgment, dict):
            from lmr_author.judge.store import Judgment, save_judgment

            save_judgment(output, Judgment.from_json(judgment, path=log_path))
    if not runs:
        raise UserError("this Inspect log holds no lmr-author runs", file=log_path, hint=hint)
    save_results(output, build_results(output, benchmark))
    return output


def _benchmark(log: Any) -> str:
    """The benchmark folder the eval ran on (absolute, as the task recorded it)."""
    for source in (getattr(log.eval, "metadata", None), log.eval.task_args):
        if isinstance(source, dict) and isinstance(source.get("benchmark"), str):
            return str(source["benchmark"])
    return ""
