"""Screens of the review app: the item screen and the comment dialog."""

from __future__ import annotations

from lmr_author.tui.review.screens.comment import CommentScreen
from lmr_author.tui.review.screens.main import ReviewScreen

__all__ = ["CommentScreen", "ReviewScreen"]
