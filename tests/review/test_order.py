"""The blind queue order: shuffled per annotator, stable across sessions and new runs."""

from __future__ import annotations

import itertools
from pathlib import Path

from lmr_author.review.items import ReviewItem
from lmr_author.review.order import blind_order, grouped_order, queue_order

SYSTEMS = ("correct", "no_agent-gpt4o", "openhands_agent-gpt4o")


def item(system: str, task: str, implementation: int) -> ReviewItem:
    return ReviewItem(
        system=system,
        task=task,
        implementation=implementation,
        run_dir=Path("/nonexistent"),
        candidate_sha256="",
        verdict="pass",
    )


ITEMS = [item(s, f"{t:02d}-Task", i) for s in SYSTEMS for t in range(1, 8) for i in (1, 2)]


def runs_of_one_system(order: list[ReviewItem]) -> int:
    """The longest stretch of consecutive items from the same system."""
    longest = current = 1
    for before, after in itertools.pairwise(order):
        current = current + 1 if before.system == after.system else 1
        longest = max(longest, current)
    return longest


def test_blind_order_is_not_grouped_by_system_and_is_stable() -> None:
    order = blind_order(ITEMS, "alice")
    assert sorted(x.key for x in order) == sorted(x.key for x in ITEMS)
    assert runs_of_one_system(order) < 14  # grouped order would give 14 in a row
    assert [x.key for x in order] != [x.key for x in grouped_order(ITEMS)]
    # The same annotator gets the same order whatever order the items come in.
    assert [x.key for x in blind_order(list(reversed(ITEMS)), "alice")] == [x.key for x in order]
    # Another annotator gets another order.
    assert [x.key for x in blind_order(ITEMS, "bob")] != [x.key for x in order]


def test_new_runs_slot_in_without_moving_the_others() -> None:
    order = [x.key for x in blind_order(ITEMS, "alice")]
    grown = [x.key for x in blind_order([*ITEMS, item("new-system", "01-Task", 1)], "alice")]
    assert [key for key in grown if key.system != "new-system"] == order


def test_show_systems_groups_by_system() -> None:
    shown = queue_order(ITEMS, "alice", show_systems=True)
    assert [x.system for x in shown] == sorted(x.system for x in ITEMS)
    assert runs_of_one_system(shown) == 14
