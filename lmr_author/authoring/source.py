"""Step 1 of new-task: the repository, from a local path or a git URL at a ref.

A URL is cloned once into the user cache (GitPython) and checked out at the ref; the
commit hash and the URL go into info.json so the task records exactly what it was
made from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lmr_author.util.errors import UserError
from lmr_author.util.locations import cache_dir, private_dir

if TYPE_CHECKING:
    import git


@dataclass(frozen=True)
class SourceCheckout:
    path: Path  # the working tree to read from
    url: str  # remote URL ("" for a local folder without a remote)
    commit: str  # full commit hash ("" when not a git repository)
    dirty: bool = False  # local changes not in the commit


def source_folder_name(source: str) -> str:
    """The repository's own name (``.../KnowProb-main.git`` -> ``KnowProb-main``).

    The default repo folder of a task: never the name of the cache folder a URL or a
    ref was checked out into.
    """
    return Path(source.rstrip("/")).name.removesuffix(".git")


def looks_like_url(source: str) -> bool:
    return "://" in source or source.startswith("git@") or source.endswith(".git")


def resolve_source(source: str, ref: str = "") -> SourceCheckout:
    """Check out ``source`` (a folder or a git URL) at ``ref`` and describe it."""
    if not source:
        raise UserError("no repository given", hint="Give a local folder or a git URL.")
    if looks_like_url(source) and not Path(source).exists():
        return _clone(source, ref)
    path = Path(source).expanduser().resolve()
    if not path.is_dir():
        raise UserError("no such folder", file=path, hint="Give a repository folder or a git URL.")
    return _describe_local(path, ref)


def _describe_local(path: Path, ref: str) -> SourceCheckout:
    import git

    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        if ref:
            raise UserError(
                f"'{path}' is not a git repository, so ref '{ref}' cannot be checked out",
                hint="Drop the ref, or give a git repository.",
            ) from None
        return SourceCheckout(path=path, url="", commit="")
    url = next(iter(repo.remotes[0].urls), "") if repo.remotes else ""
    if ref:
        # Never move the annotator's own working tree: clone it into the cache instead.
        checkout = _clone(str(path), ref)
        return SourceCheckout(path=checkout.path, url=url, commit=checkout.commit)
    try:
        commit = repo.head.commit.hexsha
    except ValueError:  # a repository without commits
        commit = ""
    return SourceCheckout(path=path, url=url, commit=commit, dirty=repo.is_dirty())


def _clone(url: str, ref: str) -> SourceCheckout:
    import git

    target = private_dir(cache_dir("repos")) / hashlib.sha256(url.encode()).hexdigest()[:16]
    try:
        if (target / ".git").is_dir():
            repo = git.Repo(target)
            repo.remotes.origin.fetch(tags=True)
            _checkout(repo, ref or "HEAD")
        else:
            repo = git.Repo.clone_from(url, target)
            if ref:
                _checkout(repo, ref)
    except git.GitCommandError as error:
        raise UserError(
            f"git could not fetch {url} at '{ref or 'the default branch'}': "
            f"{error.stderr.strip() or error}",
            hint="Check the URL, the ref and your network.",
        ) from None
    return SourceCheckout(path=target, url=url, commit=repo.head.commit.hexsha, dirty=False)


def _checkout(repo: git.Repo, ref: str) -> None:
    """Detach at ``ref``, preferring the freshly fetched remote branch of that name."""
    import git

    last: git.GitCommandError | None = None
    for candidate in (f"origin/{ref}", ref):
        try:
            repo.git.checkout("--detach", candidate)
            return
        except git.GitCommandError as error:
            last = error
    assert last is not None
    raise last
