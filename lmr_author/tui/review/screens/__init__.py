"""Screens of the review app: the item screen, the comment dialog, a yes/no question."""

from __future__ import annotations

from lmr_author.tui.review.screens.comment import CommentScreen
from lmr_author.tui.review.screens.confirm import ConfirmScreen
from lmr_author.tui.review.screens.main import ReviewScreen

__all__ = ["CommentScreen", "ConfirmScreen", "ReviewScreen"]
