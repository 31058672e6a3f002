"""When a comment being typed is written: every few characters, and on flush."""

from __future__ import annotations

from lmr_author.review.drafts import MIN_CHANGE, DraftKeeper, changed_characters


def test_changed_characters_counts_the_edit_not_the_length() -> None:
    assert changed_characters("", "abc") == 3
    assert changed_characters("abc", "abc") == 0
    assert changed_characters("abcdef", "abXdef") == 1
    assert changed_characters("abcdef", "abcxyzdef") == 3
    assert changed_characters("looks fine", "") == len("looks fine")


def test_keeper_writes_every_few_characters_and_the_rest_on_flush() -> None:
    written: list[str] = []
    keeper = DraftKeeper(written.append)
    text = ""
    for char in "off by one":
        text += char
        keeper.typed(text)
    # One write per MIN_CHANGE characters typed, none for the tail yet.
    assert written == ["off", "off by", "off by on"]
    assert keeper.dirty
    assert keeper.flush() is True
    assert written[-1] == "off by one" and not keeper.dirty
    assert keeper.flush() is False  # nothing new: no write
    assert MIN_CHANGE == 3


def test_deleting_the_comment_is_written_too() -> None:
    written: list[str] = []
    keeper = DraftKeeper(written.append, saved="typo")
    keeper.typed("")
    assert written == [""]
