"""``validate --run`` over many tasks: which tasks are proven in Docker, which findings count.

A task with static errors is not run (its image or tests would fail for reasons the
static findings already name), and only the ``run`` rules the user selected are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lmr_author.sandbox.run_spec import Runner
from lmr_author.validate.rules import Rule
from lmr_author.validate.static import TaskReport


def prove_reports(
    reports: Sequence[TaskReport],
    rules: Sequence[Rule],
    *,
    base_image: str | None = None,
    timeout_s: float = 120.0,
    gpus: str | None = None,
    hf_cache: str | None = None,
    on_progress: Callable[[str], None] | None = None,
    runner: Runner | None = None,
) -> None:
    """Run the Docker proof of every task without static errors; add its findings.

    ``on_progress`` gets one line per task skipped or started and per run; ``runner`` is
    where the runs execute (default: here).
    """
    from lmr_author.domain.task import load_task
    from lmr_author.validate.dynamic import run_dynamic_checks

    wanted = {r.id for r in rules if r.stage == "run"}
    if not wanted:
        return

    def say(line: str) -> None:
        if on_progress is not None:
            on_progress(line)

    for report in reports:
        if report.errors:
            say(f"{report.name}: tests not proven in Docker (fix its static errors first)")
            continue
        task = load_task(report.path)
        say(f"{report.name}: proving the tests in Docker…")

        def progress(line: str) -> None:
            say(f"  {line}")  # the run's line names the task already ("01-DPO #1: golden")

        findings = run_dynamic_checks(
            task,
            base_image=base_image,
            timeout_s=timeout_s,
            gpus=gpus,
            hf_cache=hf_cache,
            on_progress=progress,
            runner=runner,
            on_proof=report.proofs.append,
        )
        report.findings.extend(f for f in findings if f.rule in wanted)
