"""The paper's three-way label (section 3.3), the one definition humans and the judge share.

1 logically incorrect (LI), 2 logically correct with implementation errors (LC),
3 completely correct (CC). Human labels, judge answers, the review app and the agreement
analysis all speak it, so it lives here, below all of them, with nothing to import.
"""

from __future__ import annotations

import enum

#: What a judge answer without a readable category is called where a short name is due.
UNPARSED = "unparsed"


class ThreeWayLabel(enum.IntEnum):
    """A three-way label; its value is the number stored and published (1, 2 or 3)."""

    LI = 1
    LC = 2
    CC = 3

    @property
    def short(self) -> str:
        """``LI`` / ``LC`` / ``CC``."""
        return self.name

    @property
    def long(self) -> str:
        """The words of the paper, for people."""
        return _LONG[self]

    @classmethod
    def parse(cls, value: object) -> ThreeWayLabel | None:
        """The label for 1..3, ``"2"``, ``"LC"`` or ``"lc"``; None for anything else (bools too)."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return cls(value) if value in _VALUES else None
        if isinstance(value, str):
            text = value.strip()
            if text.isdigit():
                return cls.parse(int(text))
            return cls.__members__.get(text.upper())
        return None


_VALUES = frozenset(member.value for member in ThreeWayLabel)
_LONG = {
    ThreeWayLabel.LI: "logically incorrect",
    ThreeWayLabel.LC: "logically correct, with implementation errors",
    ThreeWayLabel.CC: "completely correct",
}


def short_name(value: int | None) -> str:
    """``LI``/``LC``/``CC`` for 1/2/3, ``unparsed`` for anything else (None included)."""
    label = ThreeWayLabel.parse(value)
    return UNPARSED if label is None else label.short
