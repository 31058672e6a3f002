"""The candidate in a process of its own: what it gets, what it cannot see, how it runs.

In an isolated run the test's process runs our harness and the unit test with the
masked goal file, whose goal function the harness replaces by a proxy
(`harness.proxy`); the candidate's process (``harness/candidate.py``) loads the
candidate's goal file as the goal module and answers the proxy's calls by value
(`harness.crossing`) through a socket. The candidate's process cannot see the tests:
the folders holding the task's unit tests (their fixtures, logs, expected values written
inline) and test files elsewhere in the repository are "private".

Two ways to start it, one protocol:

* **fork** (Docker, Podman): one container, started as root with only the capabilities
  needed to change users. The supervisor makes the private paths readable by the test
  user's group alone (0750/0640); the test process loads the libraries both need (torch
  once), forks the candidate's process, and each drops to its user: the test as
  ``nobody``, the candidate as `CANDIDATE_UID`, which can read no test, signal no process
  of the test's and read nothing of its memory. They share an abstract socket.
* **separate** (Apptainer, whose containers cannot change users): a second ``apptainer
  exec`` of the same image, with empty folders bound over the private ones and one
  folder both bind for the socket; separate PID namespaces keep the processes apart.

This module is the one owner of that plan: whether an implementation can run isolated
at all, and what each side is given. The runner (`runner.py` for Docker and Podman,
`apptainer_run.py` for Apptainer) carries it out.
"""

from __future__ import annotations

import ast
import functools
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from lmr_author.domain.task import Implementation, Task, goal_is_test_file
from lmr_author.sandbox import harness
from lmr_author.sandbox.harness import crossing
from lmr_author.util.python_parse import parse_python

#: Top-level folders of a repository that hold tests by their name alone.
_TEST_FOLDERS = ("unit_test", "unit_tests", "tests", "test")
#: The candidate's user when the test's process forks it: owns nothing in any image.
CANDIDATE_UID = CANDIDATE_GID = 65533
#: Where the candidate's goal file is staged (read by the candidate's loader, which
#: gives it the goal file's name); the goal file itself stays the masked one.
CANDIDATE_SOURCE = "/opt/lmr-candidate/goal.py"
#: Homes of their own (fork), in the shared /tmp: neither plants files for the other.
TEST_HOME = "/tmp/lmr-test-home"
CANDIDATE_HOME = "/tmp/lmr-candidate-home"


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
    #: Modules the candidate's process imports before its first call (fork: the test's
    #: process imports them before it forks, so both share them).
    preload: tuple[str, ...]
    #: Whether the test's process forks the candidate's (else it runs apart: Apptainer).
    fork: bool = True
    #: Where the candidate's goal file is (None: the masked one, at the goal file).
    source_path: str | None = CANDIDATE_SOURCE
    #: The repository's folder in the image (what the processes' reads are relative to).
    workdir: str = "/"
    #: What an answer may hold (bytes, values), from the run's memory limit.
    answer_caps: tuple[int, int] = (crossing.MESSAGE_CAP, crossing.ITEMS_CAP)
    #: The inputs a call may change in place (the golden calls' changes, from the
    #: proof); None for the proof's own run, which notes them.
    changed: tuple[str, ...] | None = None

    @property
    def private(self) -> tuple[str, ...]:
        """What is the tests': the candidate cannot read it, and nothing of its code is
        ever sent to the candidate, not even by name."""
        return (*self.hidden_folders, *self.emptied_files)

    def harness_options(self) -> dict[str, object]:
        """What the test's process needs: the proxy's, and with ``fork`` the candidate's."""
        options: dict[str, object] = {
            "socket": self.socket,
            "goal_path": self.goal_path,
            "class_name": self.class_name,
            "function": self.function,
            "private": list(self.private),
            "fork": self.fork,
            "answer_caps": list(self.answer_caps),
            "changed": None if self.changed is None else list(self.changed),
        }
        if self.fork:
            options["test_home"] = TEST_HOME
            options["candidate"] = {
                **self._candidate_options(),
                "user": [CANDIDATE_UID, CANDIDATE_GID],
                "home": CANDIDATE_HOME,
            }
        return options

    def candidate_command(self) -> list[str]:
        """The command of a candidate's process apart (not forked): our server."""
        return harness.candidate_command(self._candidate_options())

    def _candidate_options(self) -> dict[str, object]:
        return {
            "socket": self.socket,
            "goal_path": self.goal_path,
            "source_path": self.source_path or self.goal_path,
            "preload": list(self.preload),
        }


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


def plan(
    task: Task,
    impl: Implementation,
    workdir: str,
    *,
    fork: bool = True,
    socket: str | None = None,
    staged: bool = True,
    test_reads: tuple[str, ...] = (),
    memory_mb: int | None = None,
    changed: Sequence[str] | None = None,
) -> Isolation:
    """The plan of one isolated run of ``impl`` in an image whose repository is ``workdir``.

    ``fork``: the test's process forks the candidate's (else it runs apart, on a
    ``socket`` path both see); ``staged``: the candidate's goal file is staged at
    `CANDIDATE_SOURCE` (else the masked file is the candidate); ``test_reads``: files
    (relative to the repository) the golden proof saw only the tests read, private too;
    ``memory_mb``: the run's memory limit, which caps an answer (`crossing.answer_caps`);
    ``changed``: the inputs the golden calls change in place (None: not known, the
    proof's own run), the only ones a candidate's call may change.
    """
    root = PurePosixPath(workdir)
    goal = PurePosixPath(impl.goal_file)
    hidden: set[PurePosixPath] = set()
    emptied: set[PurePosixPath] = set()
    # Every test a candidate is held to: the published one and the extra ones (a replay
    # test `strengthen` wrote, which info.json may name anywhere in the repository).
    tests = {PurePosixPath(name) for other in task.implementations for name in other.test_files}
    for test in sorted(tests):
        if test.parent.parts and not _holds(test.parent, goal):
            hidden.add(test.parent)
        else:
            emptied.add(test)
    for folder in _test_folders(impl.repo_dir):
        if not _holds(folder, goal):
            hidden.add(folder)
    for folder in {PurePosixPath(), goal.parent}:
        emptied.update(_test_files(impl.repo_dir, folder))
    # What the other implementations' tests name (their fixtures beside the code, as
    # 07-bertscore keeps its expected scores in tensors/): theirs, unless this one's
    # own test names it too (then its golden proof says who reads it: ``test_reads``).
    emptied.update(_named_by_other_tests(task, impl))
    for read in map(_source_of, map(PurePosixPath, test_reads)):
        if read != goal:
            emptied.add(read)
    # A private module's cached bytecode holds its values too: its __pycache__ is private
    # (the candidate's imports of other modules there compile their sources instead).
    hidden.update(
        path.parent / "__pycache__"
        for path in emptied
        if path.suffix == ".py" and not _under_any(path, hidden)
    )
    # A folder of the tests' files only is theirs: even its names stay out of sight.
    hidden.update(_folders_of_only(impl.repo_dir, emptied, goal))
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
        fork=fork,
        source_path=CANDIDATE_SOURCE if staged else None,
        workdir=str(root),
        answer_caps=crossing.answer_caps(memory_mb) if memory_mb else _DEFAULT_CAPS,
        changed=None if changed is None else tuple(sorted(changed)),
    )


_DEFAULT_CAPS = (crossing.MESSAGE_CAP, crossing.ITEMS_CAP)


def test_only_reads(
    plan: Isolation, read: Sequence[str], candidate_read: Sequence[str]
) -> tuple[str, ...]:
    """What an isolated run's test process read of the repository (paths relative to
    it) and its candidate's process did not, less what is no news: the goal module (the
    proxy's masked copy, its source or bytecode) and what the plan kept private already."""
    goal = PurePosixPath(plan.goal_path)
    root = PurePosixPath(plan.workdir)
    private = [PurePosixPath(path) for path in plan.private]
    kept = []
    for relative in sorted(set(read) - set(candidate_read)):
        path = root / relative
        if _source_of(path) == goal or any(_holds(folder, path) for folder in private):
            continue
        kept.append(relative)
    return tuple(kept)


def _source_of(path: PurePosixPath) -> PurePosixPath:
    """A module's source for its cached bytecode (``__pycache__/m.cpython-311.pyc``)."""
    if path.parent.name == "__pycache__" and path.suffix == ".pyc":
        return path.parent.parent / f"{path.name.split('.')[0]}.py"
    return path


def _named_by_other_tests(task: Task, impl: Implementation) -> set[PurePosixPath]:
    """Data files of the repository (not Python) that another implementation's unit
    test names and ``impl``'s own test does not."""
    own = _text(impl.repo_dir / impl.unit_test_file)
    others = {
        _text(other.repo_dir / other.unit_test_file)
        for other in task.implementations
        if other.unit_test_file != impl.unit_test_file and other.repo_dir == impl.repo_dir
    }
    others.discard("")
    if not others:
        return set()
    return {
        path
        for path in _data_files(str(impl.repo_dir))
        if path.name not in own and any(path.name in text for text in others)
    }


def _folders_of_only(
    repo: Path, files: set[PurePosixPath], goal: PurePosixPath
) -> set[PurePosixPath]:
    """The folders (below the repository's root, not the goal's) whose every entry is
    one of ``files`` (or bytecode caches)."""
    folders: set[PurePosixPath] = set()
    for parent in {path.parent for path in files}:
        if not parent.parts or _holds(parent, goal):
            continue
        try:
            entries = [entry for entry in (repo / parent).iterdir() if entry.name != "__pycache__"]
        except OSError:
            continue
        if entries and all(parent / entry.name in files for entry in entries):
            folders.add(parent)
    return folders


#: Largest unit test read for the names it holds, and most repository files looked at.
_TEXT_CAP = 1 << 20
_DATA_FILES_CAP = 20_000
_DATA_MIN_NAME = 5


def _text(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(_TEXT_CAP).decode("utf-8", "replace")
    except OSError:
        return ""


@functools.lru_cache(maxsize=64)
def _data_files(repo: str) -> tuple[PurePosixPath, ...]:
    """The repository's files that are not Python modules (relative paths), skipping
    hidden folders and bytecode caches; at most `_DATA_FILES_CAP` of them."""
    found: list[PurePosixPath] = []
    root = Path(repo)
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        base = PurePosixPath(Path(folder).relative_to(root).as_posix())
        for name in sorted(names):
            if name.endswith((".py", ".pyc")) or len(name) < _DATA_MIN_NAME:
                continue
            found.append(base / name if base.parts else PurePosixPath(name))
            if len(found) >= _DATA_FILES_CAP:
                return tuple(found)
    return tuple(found)


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
        tree = parse_python(goal_file.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module.split(".")[0])
    return tuple(dict.fromkeys(names))
