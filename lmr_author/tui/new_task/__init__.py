"""The new-task app: from a repository and a paper to a verified task folder."""

from __future__ import annotations

from pathlib import Path


def run_new_task(benchmark_dir: Path, *, draft_name: str = "current") -> int:
    """Run the app until the annotator quits or saves; return an exit code."""
    from lmr_author.tui.new_task.app import NewTaskApp

    app = NewTaskApp(benchmark_dir=benchmark_dir, draft_name=draft_name)
    result = app.run()
    return int(result or 0)
