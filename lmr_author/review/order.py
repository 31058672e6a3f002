"""The order of the review queue: blind (shuffled per annotator) or grouped by system.

A queue grouped by system tells the annotator whose code they are reading (and invites
judging one system's items against each other), so the blind order is the default. It
is a seeded shuffle whose seed is derived from the annotator and each item's key, not
from a clock or a counter: every session of one annotator on one eval output gets the
same order (resuming lands where it left off), adding runs slots the new items in
without moving the others, and two annotators get different orders.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lmr_author.domain.item_key import ItemKey
from lmr_author.review.items import ReviewItem

__all__ = ["blind_order", "grouped_order", "queue_order"]


def grouped_order(items: Sequence[ReviewItem]) -> list[ReviewItem]:
    """System, task, implementation: the order of ``--show-systems``."""
    return sorted(items, key=lambda item: (item.system, item.task, item.implementation))


def blind_order(items: Sequence[ReviewItem], annotator: str) -> list[ReviewItem]:
    """The items shuffled by a hash of (annotator, item key): stable across sessions."""
    return sorted(items, key=lambda item: (_rank(annotator, item.key), item.key))


def queue_order(
    items: Sequence[ReviewItem], annotator: str, *, show_systems: bool
) -> list[ReviewItem]:
    """The order an annotator reviews ``items`` in (blind unless ``show_systems``)."""
    return grouped_order(items) if show_systems else blind_order(items, annotator)


def _rank(annotator: str, key: ItemKey) -> bytes:
    material = "\0".join((annotator, key.system, key.task, str(key.implementation)))
    return hashlib.sha256(material.encode("utf-8")).digest()
