"""Widgets of the review app: they draw what the headless review session hands them."""

from __future__ import annotations

from lmr_author.tui.review.widgets.code import CodeView
from lmr_author.tui.review.widgets.item_info import ItemInfo

__all__ = ["CodeView", "ItemInfo"]
