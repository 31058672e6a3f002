"""The task draft: everything an annotator decided so far, saved as JSON.

A draft is what `lmr-author new-task --spec FILE` reads and what the TUI autosaves after
every change, so quitting at any step and starting again resumes it.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from lmr_author.authoring.source import source_folder_name
from lmr_author.util.atomic import atomic_write_json
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import load_json
from lmr_author.util.locations import data_dir, private_dir


@dataclass
class GoalSpec:
    """One goal function of the draft (becomes one implementation in info.json)."""

    goal_file: str  # relative to the repository root
    goal_function: str
    class_name: str = ""
    instruction: str = ""
    category: str = ""
    retrieval_context: list[str] = field(default_factory=list)
    mask_style: str = "lmr"
    line: int | None = None  # picks one definition when the name is ambiguous
    #: Script path or Python code that calls the golden function; its calls are
    #: recorded as unit-test fixtures (see `lmr_author.authoring.fixtures`).
    driver: str = ""
    #: Surviving mutants marked equivalent, with why: info.json ``equivalent_mutants``
    #: (`lmr_author.mutation.equivalents`): ``{"mutant": KEY, "reason": ..., "change": ...}``.
    equivalent_mutants: list[dict[str, str]] = field(default_factory=list)
    #: Copies of the goal elsewhere in the repository, masked like it when the task is
    #: built: ``"file:def line"`` (the Mask step; `lmr_author.authoring.preview.goal_copies`).
    masked_copies: list[str] = field(default_factory=list)


@dataclass
class TaskSpec:
    """A task draft. Paths are as the annotator gave them (absolute or relative)."""

    folder_name: str = ""
    source: str = ""  # a local repository path or a git URL
    ref: str = ""  # branch, tag or commit for a git URL ("" = default branch)
    #: The paper as given: a PDF, LaTeX (a .tex file, a source folder or tarball),
    #: Markdown or a paper.json (`lmr_author.authoring.paper_forms`). "" = none yet.
    paper_pdf: str = ""
    #: The annotator chose to give the paper later: the task is saved without one and
    #: `validate` says so until `lmr-author paper TASK FILE` adds it.
    paper_later: bool = False
    paper_name: str = ""
    paper_url: str = ""
    year: int | None = None
    instance_id: int | None = None
    repo_url: str = ""
    repo_commit: str = ""
    repo_folder_name: str = ""
    #: The checked-out working tree the goals are picked from (filled by step 1).
    repo_path: str = ""
    goals: list[GoalSpec] = field(default_factory=list)
    #: The step of the TUI the annotator was on (for resuming a draft).
    step: str = "source"
    #: The task's requirements.txt (beside its Dockerfile); "" = none yet.
    requirements: str = ""
    #: The task's Dockerfile as edited; "" = rendered from templates/Dockerfile.
    dockerfile: str = ""
    #: Render the CUDA variant of the Dockerfile (see `authoring.dockerfile.GPU_NOTE`).
    gpu: bool = False
    #: The image every build of the draft starts from instead of its Dockerfile's FROM
    #: (`--base-image`); "" = the Dockerfile's own.
    base_image: str = ""
    #: GPUs one run of the task needs (info.json ``hardware``; 0: none, the key is left out).
    gpus: int = 0
    #: Memory each of those GPUs needs, in GB (None: any).
    gpu_memory_gb: float | None = None
    #: Seed random, NumPy and torch before recording and before each replayed call.
    seed: bool = False
    #: Repository files whose top-level run code is guarded by ``if __name__ ==
    #: "__main__":`` in the task's copy (`lmr_author.authoring.guard`), so that
    #: importing them runs no analysis on data the task lacks.
    guarded_files: list[str] = field(default_factory=list)
    #: The benchmark folder chosen at the save step (kept across sessions).
    benchmark_dir: str = ""
    #: Set once the task was saved: a finished draft is never resumed.
    finished: bool = False

    def repo_folder(self, working_tree: Path | None = None) -> str:
        """The repository folder inside the task folder: the one rule that names it.

        The annotator's choice, else the repository's own name (never the cache folder
        a URL was cloned into), else the name of the working tree (``working_tree``, or
        the draft's ``repo_path``).
        """

        if self.repo_folder_name:
            return self.repo_folder_name
        name = source_folder_name(self.source)
        if name not in ("", ".", ".."):
            return name
        return Path(working_tree or self.repo_path or ".").resolve().name

    def hardware_info(self) -> dict[str, Any] | None:
        """The info.json ``hardware`` value the draft declares (None: no key, no GPU)."""
        if not self.gpus and self.gpu_memory_gb is None:
            return None
        info: dict[str, Any] = {"gpus": self.gpus}
        if self.gpu_memory_gb is not None:
            info["gpu_memory_gb"] = self.gpu_memory_gb
        return info

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any], *, file: Path | None = None) -> TaskSpec:
        if not isinstance(data, dict):
            raise UserError("a task spec must be a JSON object", file=file, where="$")
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise UserError(
                f"unknown key(s) {', '.join(unknown)}",
                file=file,
                where="$",
                hint="Known keys: " + ", ".join(sorted(known)) + ".",
            )
        from lmr_author.cst.mask import MASK_STYLES  # libcst loads only when a draft is read

        goals_raw = data.get("goals", [])
        if not isinstance(goals_raw, list):
            raise UserError("'goals' must be a list", file=file, where="$.goals")
        goals: list[GoalSpec] = []
        goal_keys = set(GoalSpec.__dataclass_fields__)
        for position, raw in enumerate(goals_raw):
            where = f"$.goals[{position}]"
            if not isinstance(raw, dict):
                raise UserError("a goal must be an object", file=file, where=where)
            extra = sorted(set(raw) - goal_keys)
            if extra:
                raise UserError(
                    f"unknown key(s) {', '.join(extra)}",
                    file=file,
                    where=where,
                    hint="Known keys: " + ", ".join(sorted(goal_keys)) + ".",
                )
            for key in ("goal_file", "goal_function"):
                if not isinstance(raw.get(key), str) or not raw[key]:
                    raise UserError(f"'{key}' is required", file=file, where=f"{where}.{key}")
            if raw.get("mask_style", "lmr") not in MASK_STYLES:
                raise UserError(
                    f"mask_style must be one of {', '.join(MASK_STYLES)}",
                    file=file,
                    where=f"{where}.mask_style",
                )
            _check_fields(raw, GoalSpec, file=file, where=where)
            from lmr_author.mutation.equivalents import parse_equivalents

            marked = parse_equivalents(
                raw.get("equivalent_mutants"), file=file, where=f"{where}.equivalent_mutants"
            )
            raw = {**raw, "equivalent_mutants": [item.to_json() for item in marked]}
            goals.append(GoalSpec(**raw))
        values = {k: v for k, v in data.items() if k != "goals"}
        _check_fields(values, cls, file=file, where="$")
        spec = cls(goals=goals, **values)
        _check_hardware(spec, file=file)
        return spec


#: Keys naming one folder inside another: a plain name, never a path out of it.
_FOLDER_NAMES = ("folder_name", "repo_folder_name")
#: Keys holding a path inside the repository.
_INSIDE_REPO = ("goal_file", "guarded_files")


def _check_fields(raw: dict[str, Any], kind: type, *, file: Path | None, where: str) -> None:
    """Every value has its field's JSON type; folder names stay inside their parent."""
    for key, value in raw.items():
        annotation = str({f.name: f.type for f in fields(kind)}[key])
        place = f"{where}.{key}"
        if annotation == "str":
            ok = isinstance(value, str)
        elif annotation == "int | None":
            ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
            ok = ok and (value is None or abs(value) < 10**9)
        elif annotation == "bool":
            ok = isinstance(value, bool)
        elif annotation == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif annotation == "float | None":
            ok = value is None or (isinstance(value, int | float) and not isinstance(value, bool))
        elif annotation == "list[str]":
            ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
        else:
            continue  # goals: checked item by item
        if not ok:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            expected = {
                "str": "a string",
                "int | None": "a whole number or null",
                "bool": "true or false",
                "int": "a whole number",
                "float | None": "a number or null",
            }.get(annotation, "a list of strings")
            raise UserError(f"'{key}' must be {expected}, got {shown}", file=file, where=place)
        if (
            key in _FOLDER_NAMES
            and value
            and (value in (".", "..") or "/" in value or "\\" in value or "\0" in value)
        ):
            raise UserError(
                f"'{key}' must be a plain folder name, got {value!r}",
                file=file,
                where=place,
                hint="Give a name such as 01-DPO, without slashes or '..'.",
            )
        if key in _INSIDE_REPO:
            for item in [value] if isinstance(value, str) else value:
                path = Path(item)
                if path.is_absolute() or ".." in path.parts or "\0" in item:
                    raise UserError(
                        f"'{key}' must hold paths inside the repository, got {item!r}",
                        file=file,
                        where=place,
                        hint="Give it relative to the repository root, without '..'.",
                    )


def _check_hardware(spec: TaskSpec, *, file: Path | None) -> None:
    """Each hardware value alone as info.json takes it. Memory without a GPU count is
    left to the live check and the save: a draft is autosaved between keystrokes."""
    hint = 'Give e.g. "gpus": 1, "gpu_memory_gb": 24 (or leave both out).'
    if spec.gpus < 0:
        raise UserError(
            f"'gpus' must be 0 or more, got {spec.gpus}", file=file, where="$.gpus", hint=hint
        )
    memory = spec.gpu_memory_gb
    if memory is not None and not (math.isfinite(memory) and memory > 0):
        raise UserError(
            f"'gpu_memory_gb' must be a positive number of gigabytes, got {memory!r}",
            file=file,
            where="$.gpu_memory_gb",
            hint=hint,
        )


def load_spec(path: str | Path) -> TaskSpec:
    """Read a spec / draft file."""
    spec_path = Path(path)
    data = load_json(spec_path, what="spec file")
    return TaskSpec.from_json(data, file=spec_path)


def save_spec(spec: TaskSpec, path: str | Path) -> None:

    private_dir(Path(path).parent)
    atomic_write_json(path, spec.to_json())


def draft_path(name: str) -> Path:
    """Where the autosaved draft called ``name`` lives (user data folder)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name) or "untitled"

    return private_dir(data_dir("drafts")) / f"{safe}.json"
