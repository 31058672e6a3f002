"""Small git repositories made by tests (for the authoring library and the new-task app)."""

from __future__ import annotations

from pathlib import Path

import git


def commit_files(root: Path, files: dict[str, str], message: str) -> git.Repo:
    """Write ``files`` (relative path -> text) under ``root`` and commit them.

    The first call makes the repository (branch ``main``, a local test identity).
    """
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if (root / ".git").is_dir():
        repo = git.Repo(root)
    else:
        repo = git.Repo.init(root, initial_branch="main")
        with repo.config_writer() as config:
            config.set_value("user", "name", "Test")
            config.set_value("user", "email", "test@example.invalid")
    repo.index.add(list(files))
    repo.index.commit(message)
    return repo
