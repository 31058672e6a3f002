"""One annotator's review session: the queue, where each item stands, and labeling it.

Every label goes to the label store the moment it is given (`LabelStore.add` is durable
on return), so quitting, crashing or being killed loses nothing already labeled, and a
new session resumes at the first item still to do. A label given for a candidate whose
code has since changed (its SHA-256 differs) is shown as stale and is not counted.

A label can be cleared (a tombstone in the store, history kept) and the session's labels
undone one by one. A comment typed before the label is a draft kept in the store as it
is typed (`lmr_author.review.drafts` decides when to write), so it survives a crash and
comes back in the next session. The queue is blind by default: shuffled per annotator
(`lmr_author.review.order`), system names hidden, unless ``show_systems``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from lmr_author.domain.identity import Identity, display_task
from lmr_author.domain.item_key import ItemKey
from lmr_author.domain.three_way import ThreeWayLabel
from lmr_author.labels.model import Label, now_iso
from lmr_author.review.content import ItemContent, load_item_content
from lmr_author.review.items import ReviewItem, load_queue
from lmr_author.review.order import queue_order
from lmr_author.util.errors import UserError

__all__ = [
    "ItemState",
    "LabelStatus",
    "ReviewSession",
    "check_annotator",
    "open_session",
]


class LabelStoreLike(Protocol):
    """The part of `lmr_author.labels.store.LabelStore` a review session uses."""

    def add(self, label: Label) -> None: ...

    def clear(self, label: Label) -> None: ...

    def save_draft(self, annotator: str, item: ItemKey, comment: str) -> None: ...

    def drafts(self, annotator: str) -> dict[ItemKey, str]: ...

    def latest(self, annotator: str, key: ItemKey) -> Label | None: ...

    def labels(self, annotator: str | None = None) -> list[Label]: ...


def check_annotator(annotator: str) -> None:
    """Refuse an empty annotator name before anything is opened or stored."""
    if not annotator.strip():
        raise UserError(
            "the annotator name is empty",
            where="--annotator",
            hint="Give your name, e.g. --annotator alice; labels are kept per annotator.",
        )


class LabelStatus(enum.Enum):
    """Where an item stands for this annotator."""

    UNLABELED = "unlabeled"
    LABELED = "labeled"
    STALE = "stale"  # labeled, but for a candidate that has changed since


@dataclass(frozen=True)
class ItemState:
    """An item's status and the annotator's latest label for it (stale or not)."""

    status: LabelStatus
    label: Label | None

    @property
    def counted(self) -> bool:
        return self.status is LabelStatus.LABELED


class ReviewSession:
    """The queue of one annotator, backed by a label store; no terminal needed."""

    def __init__(
        self,
        items: list[ReviewItem],
        annotator: str,
        store: LabelStoreLike,
        *,
        benchmark_dir: Path | None = None,
        show_verdicts: bool = False,
        show_systems: bool = False,
    ) -> None:
        check_annotator(annotator)
        self.items = queue_order(items, annotator, show_systems=show_systems)
        self.annotator = annotator
        self.store = store
        self.benchmark_dir = benchmark_dir
        self.show_verdicts = show_verdicts
        self.show_systems = show_systems
        # One query for the whole queue: the latest label per item of this annotator.
        # The store may spell a task otherwise than this queue (``01-DPO`` / ``1``): match
        # through the one identity, then key by the queue's own items.
        identity = Identity()
        queue = {identity.item_key(*item.key): item.key for item in self.items}

        def ours(key: ItemKey) -> ItemKey | None:
            return queue.get(identity.item_key(*key))

        self._latest: dict[ItemKey, Label | None] = {
            ours(label.item) or label.item: label for label in store.labels(annotator)
        }
        self._pending_comments: dict[ItemKey, str] = {
            key: text
            for stored, text in store.drafts(annotator).items()
            if (key := ours(stored)) is not None
        }
        # What each label or clearing of this session replaced, newest last (for undo).
        self._undo: list[tuple[ReviewItem, Label | None]] = []
        self._content: dict[ItemKey, ItemContent] = {}

    # -- state -----------------------------------------------------------------------
    def state(self, item: ReviewItem) -> ItemState:
        label = self._latest.get(item.key)
        if label is None:
            return ItemState(LabelStatus.UNLABELED, None)
        if label.candidate_sha256 and label.candidate_sha256 != item.candidate_sha256:
            return ItemState(LabelStatus.STALE, label)
        return ItemState(LabelStatus.LABELED, label)

    def is_done(self, item: ReviewItem) -> bool:
        """Labeled for the candidate shown now (stale labels do not count)."""
        return self.state(item).counted

    def progress(self) -> tuple[int, int, int]:
        """(labeled, total, stale) over the queue."""
        states = [self.state(item).status for item in self.items]
        return (
            states.count(LabelStatus.LABELED),
            len(states),
            states.count(LabelStatus.STALE),
        )

    def verdicts_visible(self, item: ReviewItem) -> bool:
        """Blind review: the judge label and test verdict show only once the item is labeled."""
        return self.show_verdicts or self.is_done(item)

    def comment_for(self, item: ReviewItem) -> str:
        """The comment to show: one typed but not yet saved, else the current label's."""
        if item.key in self._pending_comments:
            return self._pending_comments[item.key]
        state = self.state(item)
        return state.label.comment if state.counted and state.label else ""

    def has_pending_comment(self, item: ReviewItem) -> bool:
        return item.key in self._pending_comments

    def unsaved_comments(self) -> list[ReviewItem]:
        """Items with a comment typed but not yet stored with a label (kept as drafts)."""
        return [item for item in self.items if item.key in self._pending_comments]

    def title(self, item: ReviewItem) -> str:
        """How the item is named on screen: without its system in a blind review."""
        where = f"task {display_task(item.task)}  ·  implementation {item.implementation}"
        return f"system {item.system}  ·  {where}" if self.show_systems else where

    # -- navigation ------------------------------------------------------------------
    def first_position(self, *, only_unlabeled: bool = True) -> int:
        """Where to start: the first item still to label (0 when all are done)."""
        if only_unlabeled:
            for position, item in enumerate(self.items):
                if not self.is_done(item):
                    return position
        return 0

    def next_position(self, position: int, *, only_unlabeled: bool = False) -> int | None:
        """The next item after ``position`` (skipping labeled ones if asked), or None."""
        for candidate in range(position + 1, len(self.items)):
            if not only_unlabeled or not self.is_done(self.items[candidate]):
                return candidate
        return None

    def previous_position(self, position: int, *, only_unlabeled: bool = False) -> int | None:
        """The item before ``position`` (skipping labeled ones if asked), or None."""
        for candidate in range(min(position, len(self.items)) - 1, -1, -1):
            if not only_unlabeled or not self.is_done(self.items[candidate]):
                return candidate
        return None

    # -- labeling --------------------------------------------------------------------
    def label(self, item: ReviewItem, value: int) -> Label:
        """Record ``value`` (1..3) for ``item``; durable when this returns.

        A comment typed before labeling goes with the label; relabeling keeps the
        current comment.
        """
        if isinstance(value, bool) or ThreeWayLabel.parse(value) is None:
            raise UserError(
                f"a label must be 1, 2 or 3, got {value}",
                hint="1 = logically incorrect, 2 = logically correct with implementation "
                "errors, 3 = completely correct.",
            )
        comment = self.comment_for(item)
        record = Label(
            annotator=self.annotator,
            system=item.system,
            task=item.task,
            implementation=item.implementation,
            label=value,
            comment=comment,
            created_at=now_iso(),
            candidate_sha256=item.candidate_sha256,
        )
        previous = self._latest.get(item.key)
        self.store.add(record)
        self._latest[item.key] = record
        self._undo.append((item, previous))
        self._drop_draft(item)
        return record

    def clear(self, item: ReviewItem) -> Label | None:
        """Remove this annotator's label of ``item`` (stale or not); return it, or None.

        The store keeps the label in its history and adds a clearing after it, so the
        item counts as unlabeled everywhere (the queue, ``labels list``, the agreement).
        """
        current = self._latest.get(item.key)
        if current is None:
            return None
        self.store.clear(current)
        self._latest[item.key] = None
        self._undo.append((item, current))
        return current

    def can_undo(self) -> bool:
        return bool(self._undo)

    def undo(self) -> ReviewItem | None:
        """Take back the last label or clearing of this session; the item it touched.

        The item gets back the label it had before (stored again as the latest), or is
        cleared if it had none; then the undone label's comment is a draft again, as it
        was before the label key. None when there is nothing to undo.
        """
        if not self._undo:
            return None
        item, previous = self._undo.pop()
        current = self._latest.get(item.key)
        if previous is not None:
            self.store.add(previous)
        elif current is not None:
            self.store.clear(current)
            if current.comment:
                self.keep_draft(item, current.comment)
        self._latest[item.key] = previous
        return item

    def keep_draft(self, item: ReviewItem, text: str) -> None:
        """Store ``text`` as the comment typed for unlabeled ``item`` (durable on return)."""
        self.store.save_draft(self.annotator, item.key, text)
        if text:
            self._pending_comments[item.key] = text
        else:
            self._pending_comments.pop(item.key, None)

    def _drop_draft(self, item: ReviewItem) -> None:
        if self._pending_comments.pop(item.key, None) is not None:
            self.store.save_draft(self.annotator, item.key, "")

    def comment(self, item: ReviewItem, text: str) -> Label | None:
        """Set the comment of ``item``.

        On a labeled item a new label with the same value and this comment is stored at
        once (returned); otherwise the comment waits for the label and None is returned.
        """
        state = self.state(item)
        if state.counted and state.label is not None:
            self._pending_comments[item.key] = text
            return self.label(item, state.label.label)
        self.keep_draft(item, text)
        return None

    # -- content ---------------------------------------------------------------------
    def cached_content(self, item: ReviewItem) -> ItemContent | None:
        """The item's content if it has been read already (no disk access)."""
        return self._content.get(item.key)

    def content(self, item: ReviewItem) -> ItemContent:
        """The item's instruction, golden function and candidate (read once, then cached)."""
        cached = self._content.get(item.key)
        if cached is None:
            cached = load_item_content(item, self.benchmark_dir)
            if not self.show_systems:
                cached = _blind(cached, item)
            self._content[item.key] = cached
        return cached


def _blind(content: ItemContent, item: ReviewItem) -> ItemContent:
    """``content`` with the run folder (whose path names the system) left out of its notes."""
    folder = str(item.run_dir)
    if folder not in content.candidate_note:
        return content
    return replace(content, candidate_note=content.candidate_note.replace(folder, "the run folder"))


def open_session(
    output_dir: Path,
    annotator: str,
    store: LabelStoreLike,
    *,
    sample: int | None = None,
    seed: int = 0,
    show_verdicts: bool = False,
    show_systems: bool = False,
) -> ReviewSession:
    """The review session over the eval output folder ``output_dir`` (optionally a sample)."""
    items, benchmark_dir = load_queue(output_dir, sample=sample, seed=seed)
    return ReviewSession(
        items,
        annotator,
        store,
        benchmark_dir=benchmark_dir,
        show_verdicts=show_verdicts,
        show_systems=show_systems,
    )
