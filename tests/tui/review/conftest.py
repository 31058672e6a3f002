"""Fixtures of the review tests: an eval output folder in tmp_path and a label store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lmr_author.labels.store import LabelStore
from tests.tui.review.builders import write_results


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    return write_results(tmp_path)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "labels.sqlite"


@pytest.fixture
def store(store_path: Path) -> Iterator[LabelStore]:
    opened = LabelStore(store_path)
    yield opened
    opened.close()
