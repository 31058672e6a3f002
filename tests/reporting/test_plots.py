"""The report's plots, read from the matplotlib figure objects (finding 12)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lmr_author.commands._render_report import _figures
from lmr_author.domain.scoring import LabelCounts, SystemScore, Tally
from lmr_author.reporting.tables import Report


def _row(
    system: str,
    origin: str,
    unit_tests: Tally,
    judge: LabelCounts,
    human: LabelCounts,
) -> SystemScore:
    return SystemScore(system, unit_tests=unit_tests, judge=judge, human=human, origin=origin)


def _report() -> Report:
    """Two systems: one with judge CC 0 % (the bar must still show), one with CC 100 %."""
    weak = _row("weak", "x", Tally(8, 2), LabelCounts({"CC": 0, "LC": 2, "LI": 6}), LabelCounts())
    strong = _row(
        "strong",
        "y",
        Tally(8, 8),
        LabelCounts({"CC": 8, "LC": 0, "LI": 0}),
        LabelCounts({"CC": 7, "LC": 1, "LI": 0}),
    )
    return Report([weak, strong], {"Evaluation Metrics": 2, "Loss Functions": 1})


@pytest.fixture
def drawn() -> Iterator[dict[str, Any]]:
    import matplotlib.pyplot as plt

    made = _figures(_report())
    for figure in made.values():
        figure.canvas.draw()
    yield made
    for figure in made.values():
        plt.close(figure)


def test_category_counts_have_integer_ticks_and_value_labels(drawn: dict[str, Any]) -> None:
    axes = drawn["categories"].axes[0]
    low, high = axes.get_xlim()
    ticks = [t for t in axes.get_xticks() if low <= t <= high]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert sorted(t.get_text() for t in axes.texts) == ["1", "2"]


def test_accuracy_legend_covers_no_bar_and_every_bar_has_its_value(
    drawn: dict[str, Any],
) -> None:
    figure = drawn["accuracy"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    legend = axes.get_legend().get_window_extent(renderer)
    bars = axes.patches
    assert len(bars) == 6
    for bar in bars:
        assert not legend.overlaps(bar.get_window_extent(renderer))
    # unit test 25 / 100, judge CC 0 / 100, human CC – (no labels) / 88
    assert [t.get_text() for t in axes.texts] == ["25", "100", "0", "100", "–", "88"]


def test_a_zero_percent_bar_is_drawn(drawn: dict[str, Any]) -> None:
    bars = drawn["accuracy"].axes[0].patches
    zero, no_data = bars[2], bars[4]  # weak's judge CC (0 %) and human CC (no labels)
    assert zero.get_height() == 0 == no_data.get_height()
    # Outlined in its own colour, so a bar of no area still shows as a line.
    assert zero.get_linewidth() > 0 and zero.get_edgecolor() == zero.get_facecolor()
    assert no_data.get_linewidth() == 0


def test_label_plot_legend_outside_the_axes(drawn: dict[str, Any]) -> None:
    figure = drawn["labels"]
    axes = figure.axes[0]
    renderer = figure.canvas.get_renderer()
    legend = axes.get_legend().get_window_extent(renderer)
    assert legend.x0 >= axes.get_window_extent(renderer).x1


def test_a_labels_plot_without_labels_says_so_and_one_with_labels_does_not(
    drawn: dict[str, Any],
) -> None:
    import matplotlib.pyplot as plt

    from lmr_author.reporting.plots import NO_LABELS

    assert NO_LABELS not in [t.get_text() for t in drawn["labels"].axes[0].texts]
    bare = Report([_row("unjudged", "x", Tally(4, 1), LabelCounts(), LabelCounts())], {})
    made = _figures(bare)
    try:
        assert NO_LABELS in [t.get_text() for t in made["labels"].axes[0].texts]
    finally:
        for figure in made.values():
            plt.close(figure)


def test_systems_without_unit_tests_are_drawn_and_a_system_without_labels_says_so() -> None:
    """Published systems with labels but no results.txt get their place in both plots;
    one with nothing gets "no labels" over its place and "–" bars, and a report with no
    number at all says so instead of drawing an empty chart."""
    import matplotlib.pyplot as plt

    from lmr_author.reporting.plots import NO_NUMBERS, NO_SYSTEM_LABELS

    judged = _row(
        "no_agent-gpt4o", "j", Tally(), LabelCounts({"CC": 1, "LC": 1, "LI": 2}), LabelCounts()
    )
    tested = _row("openhands_agent-claude3.7", "t", Tally(4, 2), LabelCounts(), LabelCounts())
    made = _figures(Report([judged, tested], {}))
    try:
        accuracy, labels = made["accuracy"].axes[0], made["labels"].axes[0]
        ticks = [t.get_text() for t in accuracy.get_xticklabels()]
        assert ticks == ["no_agent\ngpt4o", "openhands_agent\nclaude3.7"]
        assert [t.get_text() for t in accuracy.texts] == ["–", "50", "25", "–", "–", "–"]
        assert NO_NUMBERS not in [t.get_text() for t in accuracy.texts]
        marks = [t for t in labels.texts if t.get_text() == NO_SYSTEM_LABELS]
        assert [mark.get_position()[0] for mark in marks] == [1]  # over the second system
    finally:
        for figure in made.values():
            plt.close(figure)
    empty = _row("nothing", "n", Tally(), LabelCounts(), LabelCounts())
    made = _figures(Report([empty], {}))
    try:
        assert NO_NUMBERS in [t.get_text() for t in made["accuracy"].axes[0].texts]
    finally:
        for figure in made.values():
            plt.close(figure)
