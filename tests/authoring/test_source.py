from __future__ import annotations

from pathlib import Path

import git
import pytest

from lmr_author.authoring.source import looks_like_url, resolve_source
from lmr_author.util.errors import UserError


def test_local_folder_records_head_commit(toy_repo: Path) -> None:
    checkout = resolve_source(str(toy_repo))
    assert checkout.path == toy_repo.resolve()
    assert checkout.commit == git.Repo(toy_repo).head.commit.hexsha
    assert checkout.dirty is False


def test_local_ref_does_not_move_the_annotators_tree(toy_repo: Path) -> None:
    head_before = git.Repo(toy_repo).head.commit.hexsha
    checkout = resolve_source(str(toy_repo), "v1")
    assert checkout.path != toy_repo.resolve()
    assert not (checkout.path / "README.md").exists()  # v1 predates the README
    assert checkout.commit == git.Repo(toy_repo).tags["v1"].commit.hexsha
    assert git.Repo(toy_repo).head.commit.hexsha == head_before


def test_git_url_is_cloned_into_the_cache_and_reused(toy_repo: Path) -> None:
    url = toy_repo.as_uri()
    first = resolve_source(url, "v1")
    assert first.url == url
    assert not (first.path / "README.md").exists()
    second = resolve_source(url, "main")
    assert second.path == first.path
    assert (second.path / "README.md").exists()


def test_bad_ref_is_a_user_error(toy_repo: Path) -> None:
    with pytest.raises(UserError, match="no-such-ref"):
        resolve_source(toy_repo.as_uri(), "no-such-ref")


def test_missing_folder_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such folder"):
        resolve_source(str(tmp_path / "nope"))


def test_plain_folder_without_git(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    checkout = resolve_source(str(tmp_path))
    assert checkout.commit == "" and checkout.url == ""


def test_url_detection() -> None:
    assert looks_like_url("file:///tmp/x")
    assert looks_like_url("git@host:org/repo.git")
    assert not looks_like_url("some/folder")
