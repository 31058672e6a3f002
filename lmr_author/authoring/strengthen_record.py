"""What `lmr-author strengthen` records: the calls an implementation's own tests make to
the golden goal function, kept as a replay test beside the published one.

The task's published test runs under the recorder of `lmr_author.authoring.fixtures`,
in a container of the task's image with the golden goal file staged over the masked
one (`record_docker.record_calls`), and every call it makes to the goal function is
recorded: the arguments and the object a method belongs to, what it returns, what it
changes in place, and where the random generators stood when it started. It is
recorded twice: a call whose two recordings differ beyond the replay tolerance
(`replay_codec.close`: relative 1e-5, absolute 1e-6) is left out and named, so a
nondeterministic goal never becomes a flaky fixture. An author's driver (``--driver``)
adds calls the tests do not make.

A test that calls the goal 10,000 times in a training loop does not make 10,000
fixtures: calls are sampled over the whole run (every call while there are at most
`fixtures.MAX_FIXTURES`, then every 2nd, 4th, ... so that the kept ones stay spread from
the first call to the last), repeated calls are kept once, and the fixtures of one
implementation are capped at `MAX_FIXTURE_BYTES`; each step says what it left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lmr_author.authoring import fixtures
from lmr_author.authoring.record_docker import CallRecording, compare_recordings, record_calls
from lmr_author.authoring.scaffold import fixture_prefix, render_unit_test
from lmr_author.domain import replay_codec
from lmr_author.domain.task import Implementation, Task, goal_is_test_file
from lmr_author.images.task_images import ImageRef
from lmr_author.util.errors import UserError

#: The fixtures of one implementation's replay test, inputs and expected outputs, at most.
MAX_FIXTURE_BYTES = 8 << 20
#: Where the replay test goes: beside the published test, outside the
#: ``unit_test/unit_test_*.py`` glob that the published loop runs.
REPLAY_FOLDER = "unit_test"


def replay_test_file(impl: Implementation) -> str:
    """The repository path of ``impl``'s replay test (``unit_test/replay_test_<k>.py``)."""
    return f"{REPLAY_FOLDER}/replay_test_{impl.index}.py"


def fixtures_folder(impl: Implementation) -> str:
    """Its fixtures' folder, relative to the test's folder (apart from any other test's)."""
    return f"fixtures/{PurePosixPath(replay_test_file(impl)).stem}"


def test_driver(test_file: str) -> str:
    """Python that runs ``test_file`` as ``python <test_file>`` from the repository folder
    would: itself as ``__main__``, its folder first on ``sys.path``, its exit caught."""
    return (
        "import os, runpy, sys\n"
        f"_test = {test_file!r}\n"
        "sys.argv = [_test]\n"
        "# The recorder's own folders give way to the test's, as under `python TEST`.\n"
        "sys.path[:2] = [os.path.dirname(os.path.abspath(_test))]\n"
        "try:\n"
        "    runpy.run_path(_test, run_name='__main__')\n"
        "except SystemExit as _exit:\n"
        "    if _exit.code not in (0, None):\n"
        "        print(f'the test exited with {_exit.code!r}', file=sys.stderr)\n"
    )


@dataclass(frozen=True)
class Call:
    """One recorded call: where it came from, its fixture and its expected outcome."""

    origin: str  # "test call 7", "driver call 2"
    inputs: str
    expected: str

    @property
    def size(self) -> int:
        return len(self.inputs.encode()) + len(self.expected.encode())


@dataclass
class ReplayPlan:
    """What strengthening one implementation writes, and what it left out and why."""

    impl_index: int
    test_file: str
    module: str
    calls: list[Call]
    #: The calls the tests (and the driver) made in all.
    made: int = 0
    notes: list[str] = field(default_factory=list)

    def files(self, impl: Implementation) -> dict[str, tuple[str, str]]:
        """Fixture name -> (inputs text, expected text), numbered in the order kept."""
        prefix = fixture_prefix(impl.goal_function, impl.class_name)
        return {
            f"{prefix}_{n}.json": (call.inputs, call.expected)
            for n, call in enumerate(self.calls, start=1)
        }


def plan_replay(
    task: Task,
    impl: Implementation,
    image: ImageRef,
    *,
    driver: str | None = None,
    limit: int = fixtures.MAX_FIXTURES,
    max_bytes: int = MAX_FIXTURE_BYTES,
    timeout_s: float = 600.0,
    on_log: Callable[[str], None] | None = None,
    record: Callable[..., CallRecording] = record_calls,
) -> ReplayPlan:
    """Record ``impl``'s calls from its own test (and ``driver``, Python code) twice in
    ``image`` with the golden goal file, and choose the fixtures of its replay test.

    Raises `UserError` naming why nothing can be recorded: the goal is in the test
    file, a value cannot be stored, no call is deterministic, the calls show no work.
    """
    if goal_is_test_file(task, impl):
        raise UserError(
            f"the goal function {impl.qualified_name} is defined in the task's tests "
            f"({impl.goal_file}), so its calls cannot be replayed apart from them",
            file=task.info_path,
            hint="Strengthen tasks whose goal function lives in the repository's code.",
        )
    try:
        golden = impl.golden_path.read_bytes()
    except OSError as error:
        raise UserError(
            f"cannot read the golden file ({error.strerror})",
            file=impl.golden_path,
            hint="Restore the golden file named by golden_file in info.json.",
        ) from None
    logs = str(PurePosixPath(impl.unit_test_file).parent / "logs")

    def twice(code: str, source: str) -> tuple[list[Call], CallRecording, list[str]]:
        runs = [
            record(
                image,
                goal_file=impl.goal_file,
                goal_function=impl.goal_function,
                class_name=impl.class_name,
                driver=code,
                on_log=on_log,
                limit=limit,
                timeout_s=timeout_s,
                staged={impl.goal_file: golden},
                writable=(logs,),
                sample="spread",
                preimport=False,
            )
            for _ in range(2)
        ]
        return _agreeing(runs[0], runs[1], source)

    plan = ReplayPlan(impl.index, replay_test_file(impl), "", [])
    sources = [(test_driver(impl.unit_test_file), f"{impl.unit_test_file}")]
    if driver is not None:
        sources.append((driver, "the driver"))
    for code, source in sources:
        calls, recording, notes = twice(code, source)
        plan.calls += calls
        plan.made += recording.calls
        plan.notes += notes
        plan.module = plan.module or recording.module or ""
    _dedupe(plan)
    _cap(plan, max_bytes)
    if not plan.calls:
        raise UserError(
            f"no call of {impl.qualified_name} is left to replay: "
            + "; ".join(plan.notes or ["the tests made none"]),
            hint="Give a driver (--driver FILE) whose calls give the same results each time.",
        )
    if replay_codec.show_no_work([call.expected for call in plan.calls]):
        raise UserError(
            f"every recorded call of {impl.qualified_name} returned None and changed none of "
            "its inputs: a replay test of them would pass any function that returns None",
            hint="Give a driver (--driver FILE) whose calls show the goal's work.",
        )
    if not plan.module or plan.module == "__main__":
        plan.module = impl.goal_file.removesuffix(".py").replace("/", ".")
    return plan


def _agreeing(
    first: CallRecording, second: CallRecording, source: str
) -> tuple[list[Call], CallRecording, list[str]]:
    """The calls of ``first`` that ``second`` recorded alike, and notes on the rest."""
    kind = "driver" if source == "the driver" else "test"
    notes: list[str] = []
    if first.stride > 1:
        notes.append(
            f"{source} called the goal {first.calls} times: every {first.stride}th call "
            f"was recorded ({len(first.files)}), from the first to the last"
        )
    if first.unchecked:
        notes.append(
            "not compared after the call, as they hold values a fixture cannot store: "
            + "; ".join(first.unchecked)
        )
    differing = {d.fixture: d for d in compare_recordings(first.files, second.files)}
    counted = differing.pop("(all)", None)
    if counted is not None:
        notes.append(f"{source} made a different number of calls each time ({counted.detail})")
    calls = []
    for name in sorted(first.files, key=_number):
        if name not in second.files:
            continue
        number = _number(name)
        if name in differing:
            notes.append(
                f"{kind} call {number} left out: not deterministic (recording twice gave a "
                f"different {differing[name].field}: {differing[name].detail})"
            )
            continue
        inputs, expected = first.files[name]
        calls.append(Call(f"{kind} call {number}", inputs, expected))
    return calls, first, notes


def _number(name: str) -> int:
    tail = Path(name).stem.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _dedupe(plan: ReplayPlan) -> None:
    """Calls with the same inputs and outcome are kept once."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for call in plan.calls:
        key = (_without_random(call.inputs), call.expected)
        if key not in seen:
            seen.add(key)
            kept.append(call)
    if len(kept) < len(plan.calls):
        plan.notes.append(
            f"{len(plan.calls) - len(kept)} call(s) repeated an earlier one (same inputs, same "
            "outcome) and were kept once"
        )
    plan.calls = kept


def _without_random(inputs: str) -> str:
    """A fixture's text without its random states (two calls alike but for them repeat)."""
    import json

    try:
        document = json.loads(inputs)
    except ValueError:
        return inputs
    if isinstance(document, dict):
        document.pop("random", None)
    return json.dumps(document, sort_keys=True)


def _cap(plan: ReplayPlan, max_bytes: int) -> None:
    """Keep calls in order while their fixtures fit in ``max_bytes``."""
    kept, total, dropped = [], 0, []
    for call in plan.calls:
        if total + call.size > max_bytes:
            dropped.append(call)
            continue
        kept.append(call)
        total += call.size
    if dropped:
        plan.notes.append(
            f"{len(dropped)} call(s) left out to keep the fixtures under "
            f"{max_bytes / (1 << 20):.0f} MiB ({', '.join(c.origin for c in dropped[:3])}"
            + (", ..." if len(dropped) > 3 else "")
            + f": {max(c.size for c in dropped) / (1 << 20):.1f} MiB the largest)"
        )
    plan.calls = kept


def write_replay(task: Task, impl: Implementation, plan: ReplayPlan) -> list[Path]:
    """Write ``plan`` into the task folder (a scratch copy: the caller swaps it in): the
    fixtures beside the test, the expected outputs outside the repository, the codec and
    the replay test. Returns the paths written."""
    test_path = impl.repo_dir / plan.test_file
    folder = test_path.parent / fixtures_folder(impl)
    expected = fixtures.expected_outputs_dir(task.path, plan.test_file)
    folder.mkdir(parents=True, exist_ok=True)
    expected.mkdir(parents=True, exist_ok=True)
    written = [fixtures.install_codec(test_path.parent), fixtures.install_random(test_path.parent)]
    for name, (inputs, output) in plan.files(impl).items():
        (folder / name).write_text(inputs, encoding="utf-8")
        (expected / name).write_text(output, encoding="utf-8")
        written += [folder / name, expected / name]
    test_path.write_text(
        render_unit_test(
            goal_file=impl.goal_file,
            goal_function=impl.goal_function,
            class_name=impl.class_name,
            unit_test_file=plan.test_file,
            module=plan.module,
            fixtures_dir=fixtures_folder(impl),
            restore_random=True,
        ),
        encoding="utf-8",
    )
    return [*written, test_path]
