"""When a comment being typed is written to the store: often enough to survive a crash.

Writing on every keystroke would fsync the store (``synchronous=FULL``) dozens of times
a second; writing only on Save loses the comment to a crash. The keeper writes as soon as
a few characters have changed since the last write, and the app calls `DraftKeeper.flush`
when typing pauses, when the dialog closes and before quitting, so at most the last
couple of keystrokes can be lost, never a comment.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MIN_CHANGE", "DraftKeeper"]

#: Characters changed since the last write that force a write right away.
MIN_CHANGE = 3


def changed_characters(old: str, new: str) -> int:
    """A cheap count of the characters that differ (common prefix and suffix left out)."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return max(len(old), len(new)) - prefix - suffix


class DraftKeeper:
    """Decides when the text being typed is saved; ``save`` writes it durably."""

    def __init__(
        self, save: Callable[[str], None], saved: str = "", *, min_change: int = MIN_CHANGE
    ):
        self._save = save
        self.saved = saved
        self.text = saved
        self.min_change = min_change

    @property
    def dirty(self) -> bool:
        return self.text != self.saved

    def typed(self, text: str) -> bool:
        """The text is now ``text``; write it if enough has changed. True if written."""
        self.text = text
        if changed_characters(self.saved, text) >= self.min_change:
            return self.flush()
        return False

    def flush(self) -> bool:
        """Write the text if it differs from what was written last. True if written."""
        if not self.dirty:
            return False
        self._save(self.text)
        self.saved = self.text
        return True
