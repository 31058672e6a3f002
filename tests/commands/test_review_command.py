"""`lmr-author review` and `eval --human-review` through the real entry point: the app
runs headless (Textual's auto-pilot presses the keys), labels land in a real store.

Both spellings are one command: the same options, the same screens, the same labels.
Each option is shown to change what the annotator sees or where labels go.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from lmr_author.cli import main
from lmr_author.labels.store import LabelStore, default_store_path
from lmr_author.review.items import load_queue
from lmr_author.tui.review import ReviewApp
from tests.tui.review.builders import write_results

#: The app's own run, before any test replaces it with the headless one.
RUN = ReviewApp.run


class Screens:
    """What the first screen showed, for one run of the app."""

    def __init__(self) -> None:
        self.title = ""
        self.verdicts = ""


def run_app(monkeypatch: pytest.MonkeyPatch, argv: list[str], keys: tuple[str, ...]) -> Screens:
    """``main(argv)`` with the review app headless, pressing ``keys`` then q; exit 0."""
    seen = Screens()

    def headless(app: ReviewApp, **_: Any) -> int | None:
        async def pilot(driver: Pilot[int]) -> None:
            await driver.app.workers.wait_for_complete()
            await driver.pause()
            screen = driver.app.screen
            seen.title = str(screen.query_one("#item-title", Static).render())
            seen.verdicts = str(screen.query_one("#verdicts", Static).render())
            await driver.press(*keys, "q")

        return RUN(app, headless=True, size=(120, 40), auto_pilot=pilot)

    monkeypatch.setattr(ReviewApp, "run", headless)
    assert main(argv) == 0
    return seen


def stored(store: Path, annotator: str) -> list[tuple[str, str, int, int]]:
    with LabelStore(store) as opened:
        return [(x.system, x.task, x.implementation, x.label) for x in opened.labels(annotator)]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return write_results(tmp_path)


def test_eval_human_review_is_the_review_command(
    results: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = ["--annotator", "alice", "--sample", "3", "--seed", "2", "--show-verdicts"]
    options.append("--show-systems")
    keys = ("3", "n", "1")
    old_store, new_store = tmp_path / "old.sqlite", tmp_path / "new.sqlite"
    old = run_app(
        monkeypatch,
        ["eval", str(results), "--human-review", *options, "--labels", str(old_store)],
        keys,
    )
    new = run_app(monkeypatch, ["review", str(results), *options, "--store", str(new_store)], keys)
    assert (old.title, old.verdicts) == (new.title, new.verdicts)
    assert stored(old_store, "alice") == stored(new_store, "alice")
    # What both showed and stored is what the options ask for.
    assert "Item 1 of 3" in new.title and "system correct" in new.title  # sample, systems
    assert "Unit tests: pass" in new.verdicts  # shown before any label
    assert [label for *_, label in stored(new_store, "alice")] == [3, 1]


def test_defaults_are_blind_over_every_run_in_the_default_store(
    results: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = run_app(monkeypatch, ["review", str(results), "--annotator", "bob"], ("2",))
    assert "Item 1 of 4" in seen.title and "system" not in seen.title
    assert "Verdicts hidden" in seen.verdicts
    [(_, task, _, label)] = stored(default_store_path(), "bob")
    assert label == 2 and task == "01-Toy"
    assert not stored(default_store_path(), "alice")


def test_seed_draws_another_sample(
    results: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def sample(seed: int) -> set[tuple[str, int]]:
        items, _ = load_queue(results, sample=2, seed=seed)
        return {(item.system, item.implementation) for item in items}

    other = next(seed for seed in range(1, 100) if sample(seed) != sample(0))
    labeled = {}
    for seed in (0, other):
        store = tmp_path / f"seed{seed}.sqlite"
        argv = ["review", str(results), "--annotator", "a", "--store", str(store)]
        run_app(monkeypatch, [*argv, "--sample", "2", "--seed", str(seed)], ("1", "n", "1"))
        labeled[seed] = {(system, impl) for system, _, impl, _ in stored(store, "a")}
    assert labeled[0] == sample(0) and labeled[other] == sample(other)
    assert labeled[0] != labeled[other]


@pytest.mark.parametrize("command", [["review"], ["eval", "--human-review"]], ids=" ".join)
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "the annotator name is empty"),
        (["--annotator", " "], "the annotator name is empty"),
        (["--annotator", "a", "--sample", "0"], "the sample size must be at least 1"),
    ],
)
def test_bad_input_is_one_error_before_anything_opens(
    command: list[str],
    options: list[str],
    message: str,
    results: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = tmp_path / "labels.sqlite"
    argv = [command[0], str(results), *command[1:], *options, "--store", str(store)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not store.exists()


def test_a_folder_without_runs_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path), "--annotator", "a"]) == 2
    assert "nothing to review" in capsys.readouterr().err


def test_eval_human_review_takes_no_submission(
    results: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", str(results), "--human-review", "--annotator", "a", "-s", "x"]
    assert main(argv) == 2
    assert "lmr-author review OUTPUT --annotator NAME" in capsys.readouterr().err


def test_unlabeled_is_gone(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The start filter duplicated the app's 'u' key; both spellings refuse it now."""
    assert main(["review", str(results), "--annotator", "a", "--unlabeled"]) == 2
    assert "unrecognized arguments: --unlabeled" in capsys.readouterr().err
