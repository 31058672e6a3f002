"""Record fixtures inside the task's own image, never in lmr-author's Python.

The recording environment is the test environment: the recorder of
`lmr_author.authoring.fixtures` (issue 13's replay format) runs in a container of the
draft's environment image (`authoring.image_build`), in the sandbox's own container
(`lmr_author.sandbox.container_life.sandbox_container`: the limits and the user of every test
run, no network), and the files it writes are copied back with ``get_archive``. So the host needs
none of the repository's dependencies (pandas, torch, a spaCy model...).

Recording runs twice and the two recordings are compared: a golden that draws random
numbers gives different outputs, and the tests would then fail on the golden code.
Seeding (the draft's ``seed``) seeds ``random``, NumPy and torch before every recorded
call, and the generated test does the same before every replayed call
(``unit_test/lmr_seed.py``).
"""

from __future__ import annotations

import io
import json
import tarfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from lmr_author.authoring import fixtures
from lmr_author.authoring.import_failure import IMPORT_MARKER, raise_if_import_failed
from lmr_author.authoring.scaffold import fixture_prefix
from lmr_author.authoring.spec import GoalSpec, TaskSpec
from lmr_author.authoring.task_layout import unit_test_file as default_unit_test_file
from lmr_author.domain import replay_codec
from lmr_author.images.task_images import ImageRef
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    import docker
    from docker.models.containers import Container

#: Outside /tmp, which is the sandbox's scratch tmpfs (mounted over what is staged there).
STAGE = PurePosixPath("/opt/lmr-record")
SEED_MODULE = "lmr_seed.py"
#: Seeds the generators a golden may draw from; copied beside the tests when seeding.
SEED_SOURCE = '''"""Seed random, NumPy and torch (when present) before each call of the goal."""
import random


def seed_all(seed=0):
    random.seed(seed)
    try:
        import numpy
    except ImportError:
        pass
    else:
        numpy.random.seed(seed)
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.manual_seed(seed)
'''
#: Wraps the (already recording) goal function so each call is seeded first.
_SEED_PRELUDE = """
import importlib, sys
sys.path.insert(0, {stage!r})
import lmr_seed
_module = importlib.import_module({module!r})
_owner = _module
for _part in {parts!r}[:-1]:
    _owner = getattr(_owner, _part)
_name = {parts!r}[-1]
_raw = _owner.__dict__[_name] if isinstance(_owner, type) else getattr(_owner, _name)
_kind = type(_raw) if isinstance(_raw, (staticmethod, classmethod)) else None
_inner = _raw.__func__ if _kind else _raw
def _seeded(*args, **kwargs):
    lmr_seed.seed_all()
    return _inner(*args, **kwargs)
setattr(_owner, _name, _kind(_seeded) if _kind else _seeded)
"""


@dataclass(frozen=True)
class FixtureDifference:
    """Where two recordings of the same driver disagree."""

    fixture: str  # e.g. "robust_scores_2.json"
    field: str  # "output", "inputs" or "count"
    detail: str


@dataclass(frozen=True)
class RecordingResult:
    inputs: list[Path]
    expected: list[Path]
    deterministic: bool
    differences: list[FixtureDifference] = field(default_factory=list)
    log: str = ""
    seconds: float = 0.0
    #: Calls the driver made in all (more than the fixtures when over the limit).
    calls: int = 0
    #: Inputs a call changed into values a fixture cannot store: not compared after it.
    unchecked: list[str] = field(default_factory=list)
    #: Inputs some call changed in place (``self``, ``args[0]``): compared after the call.
    changed: list[str] = field(default_factory=list)
    #: Every call returned None and changed nothing: the test would pass any such function.
    tests_nothing: bool = False

    @property
    def dropped(self) -> int:
        return max(0, self.calls - len(self.inputs))

    def message(self) -> str:
        """One paragraph for the annotator."""
        if self.deterministic:
            text = f"recorded {len(self.inputs)} call(s) in the task's image"
            if self.changed:
                text += f", each compared on what it returns and on {', '.join(self.changed)}"
            if self.dropped:
                text += (
                    f"; the driver made {self.calls}: {self.dropped} over the limit of "
                    f"{len(self.inputs)} were not kept"
                )
            if self.tests_nothing:
                text += (
                    ". Every call returned None and changed none of its inputs: such "
                    "fixtures pass any function that returns None (validate refuses them). "
                    "Call the goal so that its work shows"
                )
            if self.unchecked:
                text += (
                    "; not compared after the call, as they hold values a fixture cannot "
                    f"store: {'; '.join(self.unchecked)}"
                )
            return text
        first = self.differences[0]
        return (
            f"the golden function is not deterministic: recording twice gave a different "
            f"{first.field} for {first.fixture} ({first.detail}). Turn on seeding (random, "
            "NumPy and torch are seeded before each call) or make the driver deterministic."
        )


class NondeterministicGolden(UserError):
    """Recording twice gave different fixtures; the task would fail on its own golden."""


def record_goal_in_docker(
    spec: TaskSpec,
    goal_index: int,
    task_dir: Path,
    *,
    image: ImageRef | None = None,
    on_log: Callable[[str], None] | None = None,
    twice: bool = True,
    unit_test_file: str | None = None,
    limit: int = fixtures.MAX_FIXTURES,
    timeout_s: float = 600.0,
    base_image: str | None = None,
) -> RecordingResult:
    """Record the goal's fixtures in the task image into ``task_dir`` (issue 13's layout).

    Inputs go to ``<task_dir>/<repo>/unit_test/fixtures/``, expected outputs to
    ``<task_dir>/expected_outputs/<test stem>/``, the codec (and, when seeding, the
    seed module) beside the tests. Nothing is written when the two recordings differ.
    """
    goal = _goal(spec, goal_index)
    if not goal.driver:
        raise UserError(
            f"goal {goal.goal_function} has no driver",
            hint="Give a driver: Python code or a script that calls the goal function.",
        )
    if image is None:
        from lmr_author.authoring.image_build import build_environment

        built = build_environment(spec, on_log=on_log, base_image=base_image)
        if not built.ok or built.image is None:
            detail = built.diagnosis.render() if built.diagnosis else "the build failed"
            raise InfraError(f"the task's image did not build:\n{detail}")
        image = built.image
    started = time.monotonic()
    first = _record_once(image, goal, spec.seed, on_log, limit, timeout_s)
    differences: list[FixtureDifference] = []
    log = first.log
    if twice:
        second = _record_once(image, goal, spec.seed, on_log, limit, timeout_s)
        differences = compare_recordings(first.files, second.files)
        log += second.log
    result_inputs: list[Path] = []
    result_expected: list[Path] = []
    if not differences:
        test_file = unit_test_file or default_unit_test_file(goal_index + 1)
        repo_dir = task_dir / spec.repo_folder()
        fixtures_dir = repo_dir / "unit_test" / "fixtures"
        expected_dir = fixtures.expected_outputs_dir(task_dir, test_file)
        fixtures_dir.mkdir(parents=True, exist_ok=True)
        expected_dir.mkdir(parents=True, exist_ok=True)
        fixtures.install_codec(repo_dir / "unit_test")
        if spec.seed:
            (repo_dir / "unit_test" / SEED_MODULE).write_text(SEED_SOURCE, encoding="utf-8")
        for name, (inputs, expected) in sorted(first.files.items()):
            (fixtures_dir / name).write_text(inputs, encoding="utf-8")
            (expected_dir / name).write_text(expected, encoding="utf-8")
            result_inputs.append(fixtures_dir / name)
            result_expected.append(expected_dir / name)
    return RecordingResult(
        inputs=result_inputs,
        expected=result_expected,
        deterministic=not differences,
        differences=differences,
        log=log,
        seconds=time.monotonic() - started,
        calls=first.calls,
        unchecked=first.unchecked,
        changed=_changed_inputs(first),
        tests_nothing=replay_codec.show_no_work([output for _, output in first.files.values()]),
    )


def _changed_inputs(recording: CallRecording) -> list[str]:
    """The inputs any recorded call changed in place, in the order first met."""
    names: dict[str, None] = {}
    for inputs, _ in recording.files.values():
        try:
            names.update(dict.fromkeys(replay_codec.watched(inputs)))
        except replay_codec.CodecError:
            continue
    return list(names)


def compare_recordings(
    first: dict[str, tuple[str, str]], second: dict[str, tuple[str, str]]
) -> list[FixtureDifference]:
    """The fixtures whose inputs or outputs differ between two recordings."""
    differences: list[FixtureDifference] = []
    if sorted(first) != sorted(second):
        differences.append(
            FixtureDifference(
                "(all)", "count", f"{len(first)} call(s) recorded, then {len(second)}"
            )
        )
    for name in sorted(set(first) & set(second)):
        for position, label in ((0, "inputs"), (1, "output")):
            a, b = first[name][position], second[name][position]
            if a == b:
                continue
            try:
                # An output's changed inputs count; a fixture's are read as one.
                same = not replay_codec.outcome_mismatches(
                    replay_codec.read_outcome(a), replay_codec.read_outcome(b)
                ) and replay_codec.watched(a) == replay_codec.watched(b)
            except replay_codec.CodecError:
                same = False
            if not same:
                differences.append(FixtureDifference(name, label, f"{_short(a)} then {_short(b)}"))
    return differences


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _goal(spec: TaskSpec, index: int) -> GoalSpec:
    if not 0 <= index < len(spec.goals):
        raise UserError(f"the draft has no goal number {index + 1}", hint="Pick a goal first.")
    return spec.goals[index]


def _driver_code(goal: GoalSpec, seed: bool) -> str:
    driver = goal.driver
    path = Path(driver)
    if "\n" not in driver and path.suffix == ".py" and path.is_file():
        driver = path.read_text(encoding="utf-8")
    if not seed:
        return driver
    module = goal.goal_file.removesuffix(".py").replace("/", ".")
    parts = (
        [*goal.class_name.split("."), goal.goal_function]
        if goal.class_name
        else [goal.goal_function]
    )
    prelude = _SEED_PRELUDE.format(stage=str(STAGE), module=module, parts=parts)
    return prelude + "\n" + driver


def _record_once(
    image: ImageRef,
    goal: GoalSpec,
    seed: bool,
    on_log: Callable[[str], None] | None,
    limit: int,
    timeout_s: float,
) -> CallRecording:
    return record_calls(
        image,
        goal_file=goal.goal_file,
        goal_function=goal.goal_function,
        class_name=goal.class_name,
        driver=_driver_code(goal, seed),
        on_log=on_log,
        limit=limit,
        timeout_s=timeout_s,
    )


@dataclass(frozen=True)
class CallRecording:
    """One recording of a driver's calls in the task's image: each kept call's fixture
    (inputs text, expected output text) by name, and what the recorder said."""

    files: dict[str, tuple[str, str]]
    log: str
    calls: int = 0
    unchecked: list[str] = field(default_factory=list)
    #: Every how many calls one was kept (``sample="spread"``).
    stride: int = 1
    #: The name the goal module was imported under when the driver first called it.
    module: str | None = None


def record_calls(
    image: ImageRef,
    *,
    goal_file: str,
    goal_function: str,
    class_name: str,
    driver: str,
    on_log: Callable[[str], None] | None = None,
    limit: int = fixtures.MAX_FIXTURES,
    timeout_s: float = 600.0,
    staged: dict[str, bytes] | None = None,
    writable: tuple[str, ...] = (),
    sample: str = "first",
    preimport: bool = True,
) -> CallRecording:
    """Run ``driver`` (Python code) under the recorder in a container of ``image``.

    ``staged`` maps repository paths to the bytes they hold for this run (the golden goal
    file over the masked one); ``writable`` names repository folders given a scratch
    tmpfs (a published test's ``unit_test/logs``); ``sample`` is "first" (the first
    ``limit`` calls) or "spread" (calls spread over the run, named by their number);
    ``preimport`` imports the goal module by its path's name before the driver runs
    (False: the driver imports it, under whatever name: every import of the goal file
    records). Raises `UserError` naming what went wrong.
    """
    import docker.errors
    import requests

    from lmr_author.runtime.engine import get_client

    module = goal_file.removesuffix(".py").replace("/", ".")
    qualname = f"{class_name}.{goal_function}" if class_name else goal_function
    options = {"sample": sample, "preimport": preimport, "goal_file": goal_file}
    command = [
        "python",
        str(STAGE / "recorder.py"),
        image.workdir,
        module,
        qualname,
        str(STAGE / "out"),
        str(STAGE / "expected"),
        fixture_prefix(goal_function, class_name),
        str(limit),
        str(STAGE / "lmr_replay.py"),
        driver,
        json.dumps(options),
    ]
    files = {
        "recorder.py": fixtures._RECORDER.encode(),
        "lmr_replay.py": Path(replay_codec.__file__).read_bytes(),
        SEED_MODULE: SEED_SOURCE.encode(),
    }
    client = get_client()
    try:
        with _container(client, image, command, timeout_s, writable) as container:
            container.put_archive("/", _stage_archive(files))
            if staged:
                container.put_archive("/", _repository_archive(image.workdir, staged))
            container.start()
            try:
                status = container.wait(timeout=timeout_s)
            except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                raise UserError(
                    f"the driver ran longer than {timeout_s:.0f} s", hint="Give a shorter driver."
                ) from None
            out = container.logs(stdout=True, stderr=False).decode("utf-8", "replace")
            err = container.logs(stdout=False, stderr=True).decode("utf-8", "replace")
            for line in (out + err).splitlines():
                if on_log is not None and not line.startswith(IMPORT_MARKER):
                    on_log(line)
            if int(status.get("StatusCode", -1)) != 0:
                raise_if_import_failed(err, None, goal_file)
                fixtures.raise_if_unstorable(err, qualname)
                raise UserError(
                    f"the driver failed in the task's image:\n{_tail(err)}",
                    hint=fixtures.driver_failure_hint(err),
                )
            summary = fixtures.recorder_summary(out)
            names = summary.written
            if not names:
                raise UserError(
                    f"the driver never called {qualname}",
                    hint="Make the driver call the goal function (directly or through the "
                    "repository).",
                )
            inputs = _read_folder(container, STAGE / "out")
            expected = _read_folder(container, STAGE / "expected")
    except docker.errors.DockerException as error:
        raise InfraError(f"the Docker engine failed while recording: {error}") from None
    return CallRecording(
        files={name: (inputs.get(name, ""), expected.get(name, "")) for name in names},
        log=out + err,
        calls=summary.calls,
        unchecked=summary.unchecked,
        stride=summary.stride,
        module=summary.module,
    )


def _tail(text: str, lines: int = 40) -> str:
    """The end of a long error output (a test's whole log is not one paragraph)."""
    kept = text.strip().splitlines()
    return "\n".join(["…", *kept[-lines:]] if len(kept) > lines else kept)


def _repository_archive(workdir: str, files: dict[str, bytes]) -> bytes:
    """A tar of ``files`` (repository paths -> bytes) under ``workdir``, readable by all."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(str(PurePosixPath(workdir, name)).lstrip("/"))
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _stage_archive(files: dict[str, bytes]) -> bytes:
    from lmr_author.sandbox.container_life import RUN_GID, RUN_UID

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for folder in ("", "out", "expected"):
            info = tarfile.TarInfo(str(PurePosixPath(STAGE, folder)).lstrip("/"))
            info.type = tarfile.DIRTYPE
            info.mode = 0o700
            info.uid, info.gid = RUN_UID, RUN_GID
            tar.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(f"{str(STAGE).lstrip('/')}/{name}")
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _read_folder(container: Container, folder: PurePosixPath) -> dict[str, str]:
    stream, _ = container.get_archive(str(folder))
    data = io.BytesIO(b"".join(stream))
    found: dict[str, str] = {}
    with tarfile.open(fileobj=data) as tar:
        for member in tar.getmembers():
            if member.isfile():
                handle = tar.extractfile(member)
                if handle is not None:
                    found[PurePosixPath(member.name).name] = handle.read().decode("utf-8")
    return found


@contextmanager
def _container(
    client: docker.DockerClient,
    image: ImageRef,
    command: list[str],
    timeout_s: float,
    writable: tuple[str, ...] = (),
) -> Iterator[Container]:
    """A created container of the task image, as every test run gets it (the sandbox's
    limits, its user, no network; ``writable`` repository folders on scratch tmpfs, as
    a test run's logs folder), always removed."""
    from lmr_author.runtime.engine import tmpfs_owner
    from lmr_author.sandbox.container_life import (
        RUN_GID,
        RUN_UID,
        run_labels,
        sandbox_container,
        scratch_tmpfs,
        tmpfs_options,
    )
    from lmr_author.sandbox.limits import Limits

    limits = Limits(timeout_s=timeout_s)
    tmpfs = scratch_tmpfs(limits)
    if writable:
        owner = tmpfs_owner(client, RUN_UID, RUN_GID)
        for folder in writable:
            path = str(PurePosixPath(image.workdir, folder))
            tmpfs[path] = tmpfs_options(f"{max(1, limits.memory_mb // 16)}m", 0o700, owner)
    with sandbox_container(
        client,
        image=image,
        command=command,
        workdir=image.workdir,
        environment={"PYTHONPATH": image.workdir, "HOME": "/tmp", "PYTHONHASHSEED": "0"},
        user=f"{RUN_UID}:{RUN_GID}",
        limits=limits,
        tmpfs=tmpfs,
        labels=run_labels("recording", timeout_s),
    ) as container:
        yield container


def dry_run_in_docker(
    spec: TaskSpec,
    goal_index: int,
    *,
    image: ImageRef | None = None,
    on_log: Callable[[str], None] | None = None,
) -> list[fixtures.RecordedCall]:
    """What recording would keep (one `RecordedCall` per call), written nowhere."""
    import tempfile

    calls = []
    with tempfile.TemporaryDirectory(prefix="lmr-author-dry-run-") as scratch:
        result = record_goal_in_docker(
            spec, goal_index, Path(scratch), image=image, on_log=on_log, twice=False
        )
        for inputs, expected in zip(result.inputs, result.expected, strict=True):
            case = replay_codec.loads(inputs.read_text(encoding="utf-8"))
            output = replay_codec.loads(expected.read_text(encoding="utf-8"))
            args = case.get("args") if isinstance(case, dict) else case
            calls.append(fixtures.RecordedCall(inputs.name, args, output))
    return calls
