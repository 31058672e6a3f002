"""The Task / Implementation model: one benchmark task folder and its goal functions.

Layout (compatible with the published LMR-Bench tasks)::

    <task folder>/
      info.json                      # metadata (schemas/info.schema.json)
      Dockerfile
      golden_files/<stem>_golden.py  # paths relative to the task folder
      <repo_folder_name>/            # goal_file, unit_test_file and retrieval paths
        paper.pdf, paper.json        #   are relative to this folder
        unit_test/unit_test_<k>.py

Loading is tolerant of the published spellings (``retrieval_content`` for
``retrieval_context``, a missing or free-text ``category``); saving writes the canonical
spelling, keeps unknown keys, and is atomic. Checking a task for problems is the job of
``lmr_author.validate``; this module only raises `TaskLoadError` when a task cannot be
read at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lmr_author.domain.hardware import HARDWARE_KEY, Hardware, HardwareError, parse_hardware
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import parse_json, read_text

INFO_FILE = "info.json"
DOCKERFILE = "Dockerfile"
PAPER_PDF = "paper.pdf"
PAPER_JSON = "paper.json"

#: The tests `eval` runs besides ``unit_test_file`` (``lmr-author strengthen``'s replay
#: test): named outside the ``unit_test/unit_test_*.py`` glob the published loop runs.
EXTRA_TESTS_KEY = "extra_unit_tests"

#: Canonical key of the retrieval list, and the alias most published tasks use.
RETRIEVAL_KEY = "retrieval_context"
RETRIEVAL_ALIAS = "retrieval_content"

_TOP_LEVEL_ORDER = (
    "instance_id",
    "paper_name",
    "folder_name",
    "paper_url",
    "year",
    "repo_url",
    "repo_commit",
    "repo_folder_name",
    "implementations",
)
_IMPLEMENTATION_ORDER = (
    "instruction",
    "index",
    "category",
    "goal_file",
    "goal_function",
    "class_name",
    "golden_file",
    RETRIEVAL_KEY,
    "unit_test_file",
)


class TaskLoadError(UserError):
    """A task folder whose info.json cannot be read or is not shaped like a task."""


@dataclass
class Implementation:
    """One goal function of a task (an entry of ``implementations`` in info.json)."""

    index: int
    instruction: str
    goal_file: str
    goal_function: str
    golden_file: str
    unit_test_file: str
    class_name: str = ""
    category: str | None = None
    retrieval_context: list[str] = field(default_factory=list)
    #: Keys of the info.json entry this model does not know, kept on save.
    extra: dict[str, Any] = field(default_factory=dict)
    #: Filled in by `Task`; not part of info.json.
    task_dir: Path = field(default=Path("."), repr=False, compare=False)
    repo_dir: Path = field(default=Path("."), repr=False, compare=False)

    @property
    def goal_path(self) -> Path:
        """The (masked) goal file inside the repository folder."""
        return self.repo_dir / self.goal_file

    @property
    def golden_path(self) -> Path:
        """The golden (unmasked) goal file, relative to the task folder."""
        return self.task_dir / self.golden_file

    @property
    def unit_test_path(self) -> Path:
        """The unit test file inside the repository folder."""
        return self.repo_dir / self.unit_test_file

    @property
    def extra_unit_tests(self) -> list[str]:
        """The tests run besides ``unit_test_file`` (info.json ``extra_unit_tests``); a
        malformed list, or a path out of the repository, counts as none (validate reports
        it: rule ``extra-test-path``)."""
        raw = self.extra.get(EXTRA_TESTS_KEY)
        if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
            return []
        return [
            item
            for item in dict.fromkeys(raw)
            if item != self.unit_test_file and is_inside_path(item)
        ]

    @property
    def test_files(self) -> list[str]:
        """Every test a candidate must pass, the published one first (repo-relative)."""
        return [self.unit_test_file, *self.extra_unit_tests]

    @property
    def retrieval_paths(self) -> list[Path]:
        return [self.repo_dir / item for item in self.retrieval_context]

    @property
    def qualified_name(self) -> str:
        """``Class.function`` for methods, ``function`` otherwise."""
        return f"{self.class_name}.{self.goal_function}" if self.class_name else self.goal_function

    def to_info(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "instruction": self.instruction,
            "index": self.index,
            "category": self.category,
            "goal_file": self.goal_file,
            "goal_function": self.goal_function,
            "class_name": self.class_name,
            "golden_file": self.golden_file,
            RETRIEVAL_KEY: list(self.retrieval_context),
            "unit_test_file": self.unit_test_file,
        }
        if self.category is None:
            del data["category"]
        data.update(self.extra)
        return data


@dataclass
class Task:
    """One task folder: its metadata and its implementations, with paths resolved."""

    path: Path
    instance_id: int | None
    folder_name: str
    repo_folder_name: str
    paper_name: str = ""
    paper_url: str = ""
    year: int | None = None
    repo_url: str = ""
    repo_commit: str = ""
    implementations: list[Implementation] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def hardware(self) -> Hardware:
        """What one run needs (info.json ``hardware``; checked when the task loads)."""
        return parse_hardware(self.extra.get(HARDWARE_KEY), file=self.info_path)

    @property
    def name(self) -> str:
        """The task's name: the folder's own name (e.g. ``01-DPO``)."""
        return self.path.name

    @property
    def info_path(self) -> Path:
        return self.path / INFO_FILE

    @property
    def dockerfile_path(self) -> Path:
        return self.path / DOCKERFILE

    @property
    def repo_dir(self) -> Path:
        return self.path / self.repo_folder_name

    @property
    def paper_pdf_path(self) -> Path:
        return self.repo_dir / PAPER_PDF

    @property
    def paper_json_path(self) -> Path:
        return self.repo_dir / PAPER_JSON

    @property
    def paper_index(self) -> int | None:
        """The number before the dash in the folder name (``01-DPO`` -> 1)."""
        head = self.name.split("-", 1)[0]
        return int(head) if head.isdigit() else self.instance_id

    def implementation(self, index: int) -> Implementation:
        for impl in self.implementations:
            if impl.index == index:
                return impl
        raise UserError(
            f"task {self.name} has no implementation with index {index}",
            file=self.info_path,
            hint="Use one of: " + ", ".join(str(i.index) for i in self.implementations) + ".",
        )

    def to_info(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "instance_id": self.instance_id,
            "paper_name": self.paper_name,
            "folder_name": self.folder_name,
            "paper_url": self.paper_url,
            "year": self.year,
            "repo_url": self.repo_url,
            "repo_commit": self.repo_commit,
            "repo_folder_name": self.repo_folder_name,
            "implementations": [impl.to_info() for impl in self.implementations],
        }
        if not self.repo_commit:
            del data["repo_commit"]
        data.update(self.extra)
        return data


def is_inside_path(path: str) -> bool:
    """Whether ``path`` is a relative path that stays inside its folder (no ``..``)."""
    pure = PurePosixPath(path)
    return bool(path) and "\\" not in path and not pure.is_absolute() and ".." not in pure.parts


def goal_is_test_file(task: Task, impl: Implementation) -> bool:
    """Whether ``impl``'s goal file is part of the task's tests (published 03-DoLa,
    06-RepE and 20-CAD put the goal function in ``unit_test/unit_test_1.py``).

    A unit test file of any implementation, anything under the repository's
    ``unit_test/`` folder or a folder holding a unit test file, and files pytest or
    unittest would collect or load on their own (``test_*.py``, ``*_test.py``,
    ``conftest.py``) all count: a submission must not be able to change a test.
    """
    goal = PurePosixPath(impl.goal_file)
    tests = [PurePosixPath(other.unit_test_file) for other in task.implementations]
    if goal in tests or goal.parts[:1] == ("unit_test",):
        return True
    if any(goal.parent == test.parent and test.parent.parts for test in tests):
        return True
    name = goal.name
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


def read_info(task_dir: Path) -> dict[str, Any]:
    """Read and parse ``info.json`` of a task folder; raise `TaskLoadError` if unreadable."""
    info_path = task_dir / INFO_FILE
    try:  # even stat() fails in a folder we may not read; a FIFO would block the read
        if info_path.exists() and not info_path.is_file():
            raise TaskLoadError(
                "info.json is not a regular file",
                file=info_path,
                hint="Replace it with the task's metadata as a JSON file.",
            )
    except OSError as error:
        raise TaskLoadError(
            f"cannot read the file ({error.strerror})", file=info_path, hint="Check permissions."
        ) from None
    missing = TaskLoadError(
        "no info.json here, so this is not a task folder",
        file=info_path,
        hint="Point at a task folder (one with info.json) or at a folder of task folders.",
    )
    text = read_text(info_path, what="info.json", missing=missing, error=TaskLoadError)
    try:
        data = parse_json(text, file=info_path, what="info.json")  # depth, numbers
    except UserError as error:  # the JSON input owner's message, as a TaskLoadError
        raise TaskLoadError(
            error.message, file=info_path, where=error.where, hint="Fix the JSON syntax there."
        ) from None
    if not isinstance(data, dict):
        raise TaskLoadError(
            "info.json must hold a JSON object",
            file=info_path,
            where="$",
            hint="Wrap the fields in { ... }.",
        )
    return data


def task_from_info(task_dir: Path, data: dict[str, Any]) -> Task:
    """Build a `Task` from parsed info.json; raise `TaskLoadError` on shapes it cannot use."""
    info_path = task_dir / INFO_FILE

    def need_str(obj: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = obj.get(key, default)
        if value is None and default is not None:
            value = default  # published files sometimes hold null for an optional text
        if not isinstance(value, str):
            raise TaskLoadError(
                f"'{key}' must be a string, got "
                + (type(value).__name__ if key in obj else "nothing"),
                file=info_path,
                where=f"{where}.{key}",
                hint="Fix the value in info.json.",
            )
        return value

    repo_folder = need_str(data, "repo_folder_name", "$")
    raw_impls = data.get("implementations")
    if not isinstance(raw_impls, list):
        raise TaskLoadError(
            "'implementations' must be a list",
            file=info_path,
            where="$.implementations",
            hint="List the goal functions as objects in 'implementations'.",
        )
    repo_dir = task_dir / repo_folder
    implementations: list[Implementation] = []
    for position, raw in enumerate(raw_impls):
        where = f"$.implementations[{position}]"
        if not isinstance(raw, dict):
            raise TaskLoadError(
                "an implementation must be an object",
                file=info_path,
                where=where,
                hint="Make it { ... }.",
            )
        index = as_int(raw.get("index", position + 1))
        if index is None:
            raise TaskLoadError(
                "'index' must be an integer",
                file=info_path,
                where=f"{where}.index",
                hint="Number implementations 1, 2, ...",
            )
        retrieval = raw.get(RETRIEVAL_KEY, raw.get(RETRIEVAL_ALIAS, []))
        if retrieval is None:
            retrieval = []
        if not isinstance(retrieval, list) or not all(isinstance(x, str) for x in retrieval):
            raise TaskLoadError(
                f"'{RETRIEVAL_KEY}' must be a list of paths",
                file=info_path,
                where=f"{where}.{RETRIEVAL_KEY}",
                hint="Give paths relative to the repository folder.",
            )
        category = raw.get("category")
        known = set(_IMPLEMENTATION_ORDER) | {RETRIEVAL_ALIAS}
        implementations.append(
            Implementation(
                index=index,
                instruction=need_str(raw, "instruction", where, ""),
                goal_file=need_str(raw, "goal_file", where),
                goal_function=need_str(raw, "goal_function", where),
                golden_file=need_str(raw, "golden_file", where),
                unit_test_file=need_str(raw, "unit_test_file", where),
                class_name=need_str(raw, "class_name", where, "") or "",
                category=category if isinstance(category, str) else None,
                retrieval_context=list(retrieval),
                extra={k: v for k, v in raw.items() if k not in known},
                task_dir=task_dir,
                repo_dir=repo_dir,
            )
        )
    try:  # checked here so that a task that loads can always say what it needs
        parse_hardware(data.get(HARDWARE_KEY), file=info_path)
    except HardwareError as error:
        raise TaskLoadError(
            error.message, file=info_path, where=error.where, hint=error.hint
        ) from None
    instance_id = data.get("instance_id")
    year = data.get("year")
    return Task(
        path=task_dir,
        # published tasks spell numbers as digits ("29"); validate warns (number-string)
        instance_id=as_int(instance_id),
        folder_name=_str_or(data.get("folder_name"), task_dir.name),
        repo_folder_name=repo_folder,
        paper_name=_text(data.get("paper_name")),
        paper_url=_text(data.get("paper_url")),
        year=as_int(year),
        repo_url=_text(data.get("repo_url")),
        repo_commit=_text(data.get("repo_commit")),
        implementations=implementations,
        extra={k: v for k, v in data.items() if k not in _TOP_LEVEL_ORDER},
    )


def _str_or(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


def _text(value: Any) -> str:
    """Optional text fields: null means empty; other values keep their text on save."""
    return "" if value is None else str(value)


def load_task(path: str | Path) -> Task:
    """Load the task folder at ``path`` (the folder, or its info.json)."""
    task_dir = Path(path)
    if task_dir.name == INFO_FILE:
        task_dir = task_dir.parent
    task_dir = task_dir.resolve()
    return task_from_info(task_dir, read_info(task_dir))


def save_task(task: Task) -> Path:
    """Write the task's info.json atomically in canonical spelling; return its path."""
    atomic_write_json(task.info_path, task.to_info())
    return task.info_path


def is_task_dir(path: Path) -> bool:
    try:
        return (path / INFO_FILE).is_file()
    except PermissionError:  # a task folder we may not read: loading it will say so
        return True


def find_task_dirs(path: str | Path) -> list[Path]:
    """The task folders at ``path``: itself if it is one, else its child task folders.

    Children are sorted by name; hidden folders and ``submissions`` are skipped.
    """
    root = Path(path)
    if is_task_dir(root):
        return [root]
    if not root.is_dir():
        raise UserError(
            "no such folder",
            file=root,
            hint="Give a task folder (with info.json) or a folder of task folders.",
        )
    try:
        children = [
            child
            for child in sorted(root.iterdir())
            if child.is_dir() and not child.name.startswith(".") and is_task_dir(child)
        ]
    except OSError as error:
        raise UserError(
            f"cannot list the folder ({error.strerror or error})",
            file=root,
            hint="Check its permissions.",
        ) from None
    return children


def is_digits(value: Any) -> bool:
    """A string of ASCII digits: how published info.json files spell some numbers."""
    return isinstance(value, str) and value.isascii() and value.isdigit()


def as_int(value: Any) -> int | None:
    """An integer field's value: a number, or a string of digits read as one; else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return int(value) if is_digits(value) else None
