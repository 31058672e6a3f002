"""The human review TUI: a thin Textual client of `lmr_author.review`.

`run_review` is what ``lmr-author review RESULTS`` (and ``eval RESULTS --human-review``)
calls.
"""

from __future__ import annotations

from lmr_author.tui.review.app import ReviewApp, run_review

__all__ = ["ReviewApp", "run_review"]
