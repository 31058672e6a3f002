"""The report's plots as matplotlib figures (Agg backend, no display).

Drawn so that every number can be read off the figure: bars carry their value (a bar of
0 % is drawn as a line and labelled "0", a system without data gets the caller's
"no data" mark), the
legend sits outside the axes where it cannot cover a bar, and axes that count things
have integer ticks. The caller saves and closes the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lmr_author.reporting.tables import Report

#: How a fraction (0.8125) is written on a bar: the caller's rounding rule, so a plot
#: shows a number the way the tables do ("81"); None (no data) included.
Shown = Callable[[float | None], str]

#: What the labels plot says when no system has a judge or human label.
NO_LABELS = "no judge or human labels yet: run 'lmr-author judge' or label the runs"
#: What the labels plot writes over a system that has neither.
NO_SYSTEM_LABELS = "no labels"
#: What the accuracy plot says when no system has a number to show.
NO_NUMBERS = "no data: no unit-test runs, judge or human labels"
#: Three-way label colours, the same in every plot.
COLORS = {"CC": "#2a9d8f", "LC": "#e9c46a", "LI": "#e76f51"}


#: What a report without matplotlib says instead of its plots.
INSTALL_HINT = "plots need matplotlib: pip install 'lmr-author[report]'"


def available() -> bool:
    """Whether matplotlib can be imported (it is the optional ``report`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def figures(report: Report, titles: dict[str, str], shown: Shown) -> dict[str, Any]:
    """``{stem: Figure}`` for each plot the report has data for; ``titles`` by stem."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "lmr-author"  # the same report draws the same SVG
    out: dict[str, Any] = {}
    # Every system, published ones with labels but no results.txt too: a system without
    # a number gets "–" (accuracy) or "no labels", not a silent gap or no place at all.
    names = [_tick(row.system, row.setting) for row in report.rows]
    if report.rows:
        out["accuracy"] = _accuracy(plt, report, names, titles["accuracy"], shown)
        out["labels"] = _labels(plt, report, names, titles["labels"], shown)
    if report.category_distribution:
        out["categories"] = _categories(plt, report, titles["categories"])
    return out


def _tick(system: str, setting: str) -> str:
    """A system's x label on two lines (agent, model), so long names do not overlap."""
    from lmr_author.domain.identity import split_system

    agent, model = split_system(system)
    name = f"{agent}\n{model}" if model else agent
    return name + (f"\n[{setting}]" if setting else "")


def _no_data(axes: Any, text: str) -> None:
    """Not an empty chart that looks like 0 %: say that there is nothing to show."""
    axes.text(0.5, 0.5, text, transform=axes.transAxes, ha="center", va="center", fontsize=11)


def _accuracy(plt: Any, report: Report, names: list[str], title: str, shown: Shown) -> Any:
    rows = report.rows
    figure, axes = plt.subplots(figsize=(max(6.0, 1.4 * len(rows)) + 1.5, 4.0))
    series = {
        "unit test": [row.unit_tests.accuracy for row in rows],
        "judge CC": [row.judge.fraction("CC") for row in rows],
        "human CC": [row.human.fraction("CC") for row in rows],
    }
    width = 0.8 / len(series)
    for offset, (label, values) in enumerate(series.items()):
        xs = [i + (offset - 1) * width for i in range(len(rows))]
        bars = axes.bar(xs, [100.0 * (v or 0.0) for v in values], width, label=label)
        for bar, value in zip(bars, values, strict=True):
            # A 0 % bar has no area: its outline, drawn thick, keeps it visible.
            # A system without data gets no line, only its "–".
            bar.set_edgecolor(bar.get_facecolor())
            bar.set_linewidth(0.0 if value is None else 1.5)
        axes.bar_label(bars, [shown(v) for v in values], fontsize=7, padding=2)
    if all(v is None for values in series.values() for v in values):
        _no_data(axes, NO_NUMBERS)
    axes.set_xticks(range(len(rows)), names, fontsize=8)
    axes.set_ylabel("%")
    axes.set_ylim(0, 110)  # room for the labels of 100 % bars
    axes.set_yticks(range(0, 101, 20))
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    axes.set_title(title)
    figure.tight_layout()
    return figure


def _labels(plt: Any, report: Report, names: list[str], title: str, shown: Shown) -> Any:
    rows = report.rows
    figure, axes = plt.subplots(figsize=(max(6.0, 1.4 * len(rows)) + 1.5, 4.0))
    for side, (source, shift) in enumerate((("judge", -0.2), ("human", 0.2))):
        bottom = [0.0] * len(rows)
        for label, color in COLORS.items():
            counts = [getattr(row, source) for row in rows]
            fractions = [c.fraction(label) or 0.0 for c in counts]
            heights = [100.0 * f for f in fractions]
            bars = axes.bar(
                [i + shift for i in range(len(rows))],
                heights,
                0.38,
                bottom=bottom,
                color=color,
                label=label if side == 0 else None,
                hatch="" if source == "judge" else "//",
            )
            # Only segments tall enough to hold their number are labelled.
            texts = [shown(f) if f >= 0.08 else "" for f in fractions]
            axes.bar_label(bars, texts, label_type="center", fontsize=7)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    bare = [i for i, row in enumerate(rows) if not row.judge.total and not row.human.total]
    if len(bare) == len(rows):
        _no_data(axes, NO_LABELS)
    else:
        for i in bare:
            axes.text(i, 50, NO_SYSTEM_LABELS, ha="center", va="center", fontsize=8, rotation=90)
    axes.set_xticks(range(len(rows)), names, fontsize=8)
    axes.set_ylabel("% (left bar judge, hatched bar human)")
    axes.set_ylim(0, 100)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    axes.set_title(title)
    figure.tight_layout()
    return figure


def _categories(plt: Any, report: Report, title: str) -> Any:
    from matplotlib.ticker import MaxNLocator

    items = list(report.category_distribution.items())[::-1]
    figure, axes = plt.subplots(figsize=(7.0, 0.4 * len(items) + 1.5))
    bars = axes.barh([name for name, _ in items], [count for _, count in items])
    axes.bar_label(bars, [str(count) for _, count in items], fontsize=8, padding=2)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # implementations are counted
    axes.set_xlim(0, max(count for _, count in items) * 1.15 + 0.5)
    axes.set_xlabel("implementations")
    axes.set_title(title)
    figure.tight_layout()
    return figure
