"""The environment step builds for real: a failing requirement shows its diagnosis (the
failing step, the cause, the hint) and the whole log stays readable (ctrl+l)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, RichLog, Static, TextArea

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, save_spec
from lmr_author.tui.new_task.app import NewTaskApp
from lmr_author.tui.widgets.log_view import LogScreen

pytestmark = [pytest.mark.docker, pytest.mark.slow]


async def _settle(pilot: Pilot[int]) -> None:
    for _ in range(2):
        ours = [w for w in pilot.app.workers if w.name != "_loader"]
        if ours:
            await pilot.app.workers.wait_for_complete(ours)
        await pilot.pause()


def _draft(repo: Path, folder: str, name: str, **fields: str) -> None:
    """Save the draft ``name``: the toy repository at the environment step."""
    spec = TaskSpec(
        folder_name=folder,
        source=str(repo),
        repo_path=str(repo),
        repo_folder_name="toy-margin",
        step="environment",
        goals=[GoalSpec("toy/losses.py", "margin_loss")],
        **fields,  # type: ignore[arg-type]
    )
    save_spec(spec, draft_path(name))


async def test_a_failing_build_shows_the_diagnosis(
    docker_client: Any, tmp_path: Path, toy_repo: Path
) -> None:
    from lmr_author.sandbox.housekeeping import prune

    folder = f"97-EnvFail{tmp_path.name[-6:].replace('_', '')}"
    # A name that no index has: pip fails with "No matching distribution".
    _draft(toy_repo, folder, "envfail", requirements="lmr-author-no-such-distribution-zz==0.0.1\n")
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="envfail")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await _settle(pilot)
            assert "no-such-distribution" in app.screen.query_one("#requirements", TextArea).text
            build = app.screen.query_one("#build", Button)
            build.focus()
            await pilot.press("enter")
            await _settle(pilot)
            status = app.screen.query_one("#status", Static)
            assert "error" in status.classes
            assert "no-matching-distribution" in str(status.visual)
            diagnosis = str(app.screen.query_one("#diagnosis", Static).visual)
            assert "pip install" in diagnosis and "Hint:" in diagnosis
            log = app.screen.query_one("#build-log", RichLog)
            assert len(log.lines) > 3
            assert app.environment_image is None
            await pilot.press("ctrl+l")
            await pilot.pause()
            assert isinstance(app.screen, LogScreen)
            assert "Image build" in str(app.screen.query_one("#log-title", Static).visual)
    finally:
        prune(client=docker_client, task=folder)


async def test_the_base_image_option_is_the_draft_base_the_build_starts_from(
    docker_client: Any, tmp_path: Path, toy_repo: Path
) -> None:
    from textual.widgets import Input

    from lmr_author.authoring.spec import load_spec
    from lmr_author.sandbox.housekeeping import prune

    folder = f"97-EnvBase{tmp_path.name[-6:].replace('_', '')}"
    # A FROM no engine can pull: only the base image given builds it.
    unpullable = "FROM lmr-author-test/unpullable:0\nARG DIR\nCOPY ${DIR} /srv/${DIR}\n"
    _draft(toy_repo, folder, "envbase", dockerfile=unpullable)
    base = "python:3.11-slim"  # the tests' base image (tests/sandbox/test_images.py)
    app = NewTaskApp(benchmark_dir=tmp_path / "bench", draft_name="envbase", base_image=base)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await _settle(pilot)
            field = app.screen.query_one("#base-image", Input)
            assert field.value == base
            assert "lmr-author-test/unpullable:0" in field.placeholder  # what empty means
            await pilot.press("ctrl+r")  # Build
            await _settle(pilot)
            status = str(app.screen.query_one("#status", Static).visual)
            assert f"image built ✓ from {base}" in status, app.screen.output.text  # type: ignore[attr-defined]
            assert app.environment_image is not None
            layers = docker_client.images.get(app.environment_image.tag).attrs["RootFS"]["Layers"]
            below = docker_client.images.get(base).attrs["RootFS"]["Layers"]
            assert layers[: len(below)] == below  # built on exactly that image
            # Emptied: the Dockerfile's own FROM again, which cannot be pulled.
            field.value = ""
            await pilot.pause()
            await pilot.press("ctrl+r")
            await _settle(pilot)
            assert app.environment_image is None
        assert load_spec(draft_path("envbase")).base_image == ""
    finally:
        prune(client=docker_client, task=folder)
