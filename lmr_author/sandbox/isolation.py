"""The candidate in a process of its own: what its container gets, hides and runs.

An isolated run has two containers from the task's image. The test's container runs
our harness and the unit test with the masked goal file, whose goal function the
harness replaces by a proxy (`harness.proxy`); the candidate's container runs
``harness/candidate.py`` with the candidate's goal file where the masked one is, and
answers the proxy's calls by value (`harness.crossing`) through a socket in the network
namespace the two share (nothing else: no network, separate processes, file systems and
users' scratch). The candidate's container does not see the tests: the folders holding
the task's unit tests (their fixtures, logs, expected values written inline) are empty
tmpfs there, and test files elsewhere in the repository are emptied.

This module is the one owner of that plan: whether an implementation can run isolated
at all, and what the candidate's container is given. The runner (`runner.py` for Docker
and Podman, `apptainer_run.py` for Apptainer) carries it out.
"""

from __future__ import annotations

import ast
import secrets
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lmr_author.sandbox import harness
from lmr_author.task import Implementation, Task, goal_is_test_file

#: Top-level folders of a repository that hold tests by their name alone.
_TEST_FOLDERS = ("unit_test", "unit_tests", "tests", "test")


@dataclass(frozen=True)
class Isolation:
    """How one run puts its candidate in a process of its own."""

    #: The goal file, the goal's class (dotted, "" for a function) and function.
    goal_path: str
    class_name: str
    function: str
    #: The socket both containers share ("@name": Linux's abstract namespace, or a path).
    socket: str
    #: Folders that are empty in the candidate's container, and files emptied there.
    hidden_folders: tuple[str, ...]
    emptied_files: tuple[str, ...]
    #: Modules the candidate's process imports while the test's process starts.
    preload: tuple[str, ...]

    def harness_options(self) -> dict[str, object]:
        """What the test's process needs to stand a proxy in for the goal function."""
        return {
            "socket": self.socket,
            "goal_path": self.goal_path,
            "class_name": self.class_name,
            "function": self.function,
            # What is the tests' (their code is never sent, not even by name).
            "private": [*self.hidden_folders, *self.emptied_files],
        }

    def candidate_command(self) -> list[str]:
        """The candidate's container's command: our server, as its first process."""
        options = {
            "socket": self.socket,
            "goal_path": self.goal_path,
            "preload": list(self.preload),
        }
        return harness.candidate_command(options)


def not_isolatable(task: Task, impl: Implementation) -> str | None:
    """Why ``impl`` can never run isolated, from the task's files alone; None if it may.

    What only a run can show (the test passes objects that cannot be sent, the goal
    returns a generator) is found by the golden run (`lmr_author.sandbox.golden`).
    """
    if goal_is_test_file(task, impl):
        return (
            "the goal function is defined in a unit test file, so the candidate's "
            "process would hold the tests"
        )
    if not impl.goal_file.endswith(".py"):
        return "the goal file is not a Python module"
    return None


def plan(task: Task, impl: Implementation, workdir: str, socket: str | None = None) -> Isolation:
    """The plan of one isolated run of ``impl`` in an image whose repository is ``workdir``."""
    root = PurePosixPath(workdir)
    goal = PurePosixPath(impl.goal_file)
    hidden: set[PurePosixPath] = set()
    emptied: set[PurePosixPath] = set()
    for other in task.implementations:
        test = PurePosixPath(other.unit_test_file)
        if test.parent.parts and not _holds(test.parent, goal):
            hidden.add(test.parent)
        else:
            emptied.add(test)
    for folder in _test_folders(impl.repo_dir):
        if not _holds(folder, goal):
            hidden.add(folder)
    for folder in {PurePosixPath(), goal.parent}:
        emptied.update(_test_files(impl.repo_dir, folder))
    return Isolation(
        goal_path=str(root / goal),
        class_name=impl.class_name,
        function=impl.goal_function,
        socket=socket or f"@lmr-{secrets.token_hex(8)}",
        hidden_folders=tuple(sorted(str(root / folder) for folder in hidden)),
        emptied_files=tuple(
            sorted(str(root / path) for path in emptied if not _under_any(path, hidden))
        ),
        preload=_imports(impl.goal_path),
    )


def _holds(folder: PurePosixPath, path: PurePosixPath) -> bool:
    return path.parts[: len(folder.parts)] == folder.parts


def _under_any(path: PurePosixPath, folders: set[PurePosixPath]) -> bool:
    return any(_holds(folder, path) for folder in folders)


def _test_folders(repo: Path) -> list[PurePosixPath]:
    """Top-level folders named as tests are (``unit_test``, ``unit_test_2``, ``tests``)."""
    try:
        entries = list(repo.iterdir())
    except OSError:
        return []
    return [
        PurePosixPath(entry.name)
        for entry in entries
        if entry.is_dir()
        and not entry.is_symlink()
        and (entry.name in _TEST_FOLDERS or entry.name.startswith("unit_test"))
    ]


def _test_files(repo: Path, folder: PurePosixPath) -> list[PurePosixPath]:
    """Files of ``folder`` that test runners collect on their own."""
    try:
        entries = list((repo / folder).iterdir())
    except OSError:
        return []
    return [
        folder / entry.name
        for entry in entries
        if entry.is_file()
        and (
            entry.name == "conftest.py"
            or entry.name.startswith(("test_", "unit_test"))
            or entry.name.endswith("_test.py")
        )
    ]


def _imports(goal_file: Path) -> tuple[str, ...]:
    """The top-level packages the (masked) goal module imports: warm-up for the
    candidate's process, which would import them at its first call anyway."""
    try:
        tree = ast.parse(goal_file.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module.split(".")[0])
    return tuple(dict.fromkeys(names))
