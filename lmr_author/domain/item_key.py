"""The item key: which run a label, a judgment or a review item is about.

One run of an evaluation is one system's candidate for one implementation of one task;
the label store, the review queue, the judge and the agreement all key by it. A
NamedTuple, so it equals (and hashes like) the plain ``(system, task, implementation)``
tuples older code and stored data use.
"""

from __future__ import annotations

from typing import NamedTuple


class ItemKey(NamedTuple):
    """``(system, task, implementation)``; implementation is 1-based, as in info.json."""

    system: str
    task: str
    implementation: int
