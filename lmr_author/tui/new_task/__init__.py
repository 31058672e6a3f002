"""The new-task app: from a repository and a paper to a verified task folder."""

from __future__ import annotations

from pathlib import Path


def run_new_task(
    benchmark_dir: Path, *, draft_name: str = "current", base_image: str | None = None
) -> int:
    """Run the app until the annotator quits or saves; return an exit code.

    ``base_image`` (``--base-image``) becomes the draft's base image: every build starts
    from it instead of the Dockerfile's FROM.
    """
    from lmr_author.tui.new_task.app import NewTaskApp

    app = NewTaskApp(benchmark_dir=benchmark_dir, draft_name=draft_name, base_image=base_image)
    result = app.run()
    return int(result or 0)
