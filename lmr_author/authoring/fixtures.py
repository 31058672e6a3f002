"""Record the golden function's inputs and outputs as replay fixtures.

The paper: "inputs and corresponding expected outputs are faithfully recorded". The
annotator gives a driver (a script of the repository, or a few lines of Python) that
calls the golden code; we wrap the goal function, run the driver in a subprocess with
the repository on ``sys.path``, and keep every call (up to `MAX_FIXTURES`, the
rest counted): the INPUTS as they were before
the call (the function may mutate them) go into the repository,
``unit_test/fixtures/<prefix>_<n>.json``, and the OUTPUT it returned goes outside it,
``<task>/expected_outputs/<unit test stem>/<prefix>_<n>.json``, so that it never enters
a candidate's container (docs/threat-model.md). Both are in the replay format
(`lmr_author.domain.replay_codec`: JSON, no pickle), a copy of which is put beside the test as
``unit_test/lmr_replay.py``; the scaffolded unit test (templates/unit_test.py.tmpl)
replays them.

The driver is the annotator's own code run on their machine, like running the
repository itself; candidate code from models never runs here but in the sandbox.
Interface for other recorders (e.g. in Docker): /work/notes/interface-13.md and
`record_fixtures` below.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from lmr_author.authoring.import_failure import IMPORT_MARKER, raise_if_import_failed
from lmr_author.authoring.scaffold import fixture_prefix
from lmr_author.domain import replay_codec, replay_random
from lmr_author.util.errors import UserError

#: The codec's name beside a replay test (the test imports it from its own folder).
CODEC_MODULE = "lmr_replay.py"
#: `lmr_author.domain.replay_random`'s name beside a replay test that restores random states.
RANDOM_MODULE = "lmr_random.py"
EXPECTED_OUTPUTS = "expected_outputs"
#: The line the recorder writes (to stderr) when a value cannot be stored in a fixture.
UNSTORABLE_MARKER = "LMR-AUTHOR-UNSTORABLE "
#: What a fixture can hold, said whenever a value cannot be stored.
_STORABLE = (
    "Inputs, outputs and the object a method belongs to must be values: numbers, "
    "strings, bytes, lists, tuples, dicts, sets, NumPy arrays, torch tensors and modules, "
    "objects of classes defined in the repository, and functions or lambdas of its modules "
    "that hold no closure; not closures, generators, open files or classes and functions "
    "made in the driver. Call the goal with values only (an optimizer's step without its "
    "closure), or pick another function as the goal."
)
#: Calls recorded at most per goal; the rest are counted and said, never dropped silently.
MAX_FIXTURES = 20


_RECORDER = (
    f"IMPORT_MARKER = {IMPORT_MARKER!r}\n"
    f"UNSTORABLE_MARKER = {UNSTORABLE_MARKER!r}\n"
    + r"""
import importlib, importlib.machinery, importlib.util, inspect, json, os, runpy, sys, types
repo, module_name, qualname, out_dir, expected_dir, prefix, limit, codec_path = sys.argv[1:9]
driver = sys.argv[9]
options = json.loads(sys.argv[10]) if len(sys.argv) > 10 else {}
limit = int(limit)
# "first": the first `limit` calls; "spread": calls spread over the whole run (every
# stride-th, the stride doubling whenever more than `limit` are kept), named by number.
spread = options.get("sample") == "spread"
goal_file = options.get("goal_file") or module_name.replace(".", "/") + ".py"
spec = importlib.util.spec_from_file_location("lmr_replay", codec_path)
codec = importlib.util.module_from_spec(spec)
spec.loader.exec_module(codec)
sys.path.insert(0, repo)
os.chdir(repo)
goal_path = os.path.realpath(os.path.join(repo, goal_file))
import builtins, io, traceback
opened = []
real_open = builtins.open

def tracking_open(file, *args, **kwargs):
    if isinstance(file, (str, bytes, os.PathLike)):
        opened.append(os.path.abspath(os.fsdecode(file)))
    return real_open(file, *args, **kwargs)

def import_failed(error):
    root = os.path.abspath(repo) + os.sep
    frames = [
        [os.path.relpath(f.filename, repo), f.lineno, (f.line or "").strip(), f.name]
        for f in traceback.extract_tb(error.__traceback__)
        if os.path.abspath(f.filename).startswith(root)
    ]
    pointers = []
    for path in dict.fromkeys(opened):
        try:
            with real_open(path, "rb") as handle:
                head = handle.read(64)
        except OSError:
            continue
        if head.startswith(b"version https://git-lfs."):
            pointers.append(os.path.relpath(path, repo))
    report = {
        "module": module_name,
        "error": "".join(traceback.format_exception_only(type(error), error)).strip(),
        "frames": frames,
        "lfs_pointers": pointers,
    }
    sys.stderr.write("\n" + IMPORT_MARKER + json.dumps(report) + "\n")
    sys.exit(3)

parts = qualname.split(".")
written = {}  # call number -> fixture name
calls = [0]
stride = [1]
unchecked = []
goal = {"is_method": False, "parameters": [], "module": None, "patched": 0}

def refuse(what, name, error):
    # A value a fixture cannot store: say which, in which call, and stop.
    where = name
    if name.startswith("args["):
        number = int(name[5:-1]) + (1 if goal["is_method"] else 0)
        if number < len(goal["parameters"]):
            where = f"{name} ({goal['parameters'][number]})"
    report = {"what": what, "input": where, "error": str(error), "call": calls[0]}
    sys.stderr.write("\n" + UNSTORABLE_MARKER + json.dumps(report) + "\n")
    sys.exit(4)

def encoded(value):
    return json.dumps(codec.encode(value, allow_objects=True))

def random_states():
    # The global generators a goal may draw from (torch and NumPy only when loaded).
    import random
    states = {"random": random.getstate()}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        states["numpy"] = numpy.random.get_state()
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "get_rng_state"):
        states["torch"] = torch.get_rng_state()
    return states

def encoded_states(states):
    found = {}
    for name, state in states.items():
        try:
            found[name] = codec.encode(state, allow_objects=True)
        except codec.CodecError:
            continue
    return found

def remove(number):
    name = written.pop(number)
    for folder in (out_dir, expected_dir):
        try:
            os.unlink(os.path.join(folder, name))
        except FileNotFoundError:
            pass

def record_call(function, module, args, kwargs):
    calls[0] += 1
    number = calls[0]
    if spread:
        recording = (number - 1) % stride[0] == 0
    else:
        recording = len(written) < limit
    if not recording:
        return function(*args, **kwargs)
    case = {"args": list(args), "kwargs": kwargs}
    if goal["is_method"]:
        case = {"self": args[0], "args": list(args[1:]), "kwargs": kwargs}
    named = codec.case_inputs(case)
    # Encoded before the call: the function may change its inputs in place.
    before = {}
    for name, value in named.items():
        try:
            before[name] = encoded(value)
        except codec.CodecError as error:
            refuse("input", name, error)
    inputs = codec.encode(case, allow_objects=True)
    start = encoded_states(random_states())
    result = function(*args, **kwargs)
    # The generators the call drew from: the replay starts it where the golden call did.
    after = encoded_states(random_states())
    drawn = {name: state for name, state in start.items() if after.get(name) != state}
    # What the call changed in its inputs is part of what it does (an optimizer's
    # step returns None and updates its parameters): those inputs are compared too.
    changed = {}
    for name, value in named.items():
        try:
            if encoded(value) != before[name]:
                changed[name] = value
        except codec.CodecError as error:  # said, not compared
            unchecked.append(f"{name}: {error}")
    try:
        output = codec.dumps(result, allow_objects=True, changed=changed)
    except codec.CodecError as error:
        refuse("output", "the value returned", error)
    name = f"{prefix}_{number if spread else len(written) + 1}.json"
    extra = {"watch": list(changed)} if changed else {}
    if drawn:
        extra["random"] = drawn
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as handle:
        handle.write(codec.document(inputs, **extra))
    with open(os.path.join(expected_dir, name), "w", encoding="utf-8") as handle:
        handle.write(output)
    written[number] = name
    if goal["module"] is None:
        goal["module"] = module
    while spread and len(written) > limit:
        stride[0] *= 2
        for kept in [n for n in written if (n - 1) % stride[0]]:
            remove(kept)
    return result

CALL_NAME = "__lmr_record_call__"

def definition(raw):
    # The function the goal file's def made, under descriptors and decorators.
    current, seen = raw, 0
    while current is not None and seen < 20:
        seen += 1
        if isinstance(current, (staticmethod, classmethod)):
            current = current.__func__
            continue
        if isinstance(current, types.FunctionType):
            code = current.__code__
            if code.co_name == parts[-1] and os.path.realpath(code.co_filename) == goal_path:
                return current
        current = getattr(current, "__wrapped__", None)
    return None

def trampoline(original):
    # A code object that calls the recorder, with the original's free variables (so it
    # can replace the original's code: every way a test reaches the goal is recorded).
    free = original.co_freevars
    touch = "; ".join(free) if free else "pass"
    source = (
        f"def _outer({', '.join(free)}):\n"
        f"    def _goal(*args, **kwargs):\n"
        f"        {touch}\n"
        f"        return {CALL_NAME}(args, kwargs)\n"
        f"    return _goal\n"
    )
    namespace = {}
    exec(compile(source, original.co_filename, "exec"), namespace)
    [code] = [c for c in namespace["_outer"].__code__.co_consts if isinstance(c, types.CodeType)]
    code = code.replace(co_name=original.co_name, co_firstlineno=original.co_firstlineno)
    if hasattr(original, "co_qualname"):
        code = code.replace(co_qualname=original.co_qualname)
    return code

def owner_of(module):
    owner = module
    for part in parts[:-1]:
        owner = getattr(owner, part)
    return owner

def describe(owner, raw, function):
    goal["is_method"] = isinstance(owner, type) and not isinstance(
        raw, (staticmethod, classmethod)
    )
    try:
        goal["parameters"] = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        goal["parameters"] = []

def patch(module):
    # The goal function of a freshly run goal module records every call, whatever name
    # the module was imported under (a test may import it as an installed package).
    owner = owner_of(module)
    if isinstance(owner, type):
        raw = owner.__dict__.get(parts[-1])
    else:
        raw = getattr(owner, parts[-1], None)
    function = definition(raw)
    if function is None:
        return False
    describe(owner, raw, function)
    original = types.FunctionType(
        function.__code__, function.__globals__, function.__name__,
        function.__defaults__, function.__closure__,
    )
    original.__kwdefaults__ = function.__kwdefaults__
    name = module.__name__

    def call(args, kwargs):
        return record_call(original, name, args, kwargs)

    vars(module)[CALL_NAME] = call
    function.__code__ = trampoline(function.__code__)
    goal["patched"] += 1
    return True

loader_class = importlib.machinery.SourceFileLoader
original_exec = loader_class.exec_module

def exec_module(loader, module):
    original_exec(loader, module)
    origin = getattr(module, "__file__", None)
    if isinstance(origin, str) and os.path.realpath(origin) == goal_path:
        patch(module)

loader_class.exec_module = exec_module
if options.get("preimport", True):
    # Which files the import reads: a Git LFS pointer among them is named in the report.
    builtins.open = io.open = tracking_open
    try:
        module = importlib.import_module(module_name)
    except BaseException as error:
        builtins.open = io.open = real_open
        import_failed(error)
    builtins.open = io.open = real_open
    if not goal["patched"]:
        # Not a function of the goal file (a name bound to one made elsewhere): the
        # attribute is wrapped instead.
        owner = owner_of(module)
        raw = owner.__dict__[parts[-1]] if isinstance(owner, type) else getattr(owner, parts[-1])
        function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        describe(owner, raw, function)

        def recorder(*args, **kwargs):
            return record_call(function, module_name, args, kwargs)

        wrapped = recorder
        if isinstance(raw, staticmethod):
            wrapped = staticmethod(recorder)
        elif isinstance(raw, classmethod):
            wrapped = classmethod(recorder)
        setattr(owner, parts[-1], wrapped)
if os.path.isfile(driver):
    runpy.run_path(driver, run_name="__main__")
else:
    exec(compile(driver, "<driver>", "exec"), {"__name__": "__main__"})
summary = {
    "written": [written[n] for n in sorted(written)],
    "calls": calls[0],
    "unchecked": sorted(set(unchecked)),
    "stride": stride[0],
    "module": goal["module"],
}
print(json.dumps(summary))
"""
)


def driver_failure_hint(stderr: str) -> str:
    """What to do about a recording that failed with ``stderr``: the driver is not always
    the one to fix."""
    if "CodecError" in stderr:
        return f"A recorded value cannot be stored. {_STORABLE}"
    if "ModuleNotFoundError" in stderr:
        return (
            "The image lacks a package the goal imports: add it to the task's "
            "requirements.txt and build again."
        )
    return "Fix the driver and record again."


@dataclass(frozen=True)
class RecorderSummary:
    """What the recorder said at the end: its fixtures, the calls made in all, the inputs
    a call changed into something a fixture cannot store (so not compared), every how
    many calls one was kept ("spread" sampling), and the name the goal module was
    imported under when it was first called (None: never)."""

    written: list[str]
    calls: int
    unchecked: list[str]
    stride: int = 1
    module: str | None = None


def recorder_summary(stdout: str) -> RecorderSummary:
    """The recorder's last word (nothing written when it never got there)."""
    for line in reversed(stdout.splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("written"), list):
            names = [str(name) for name in value["written"]]
            calls = value.get("calls")
            unchecked = value.get("unchecked")
            stride = value.get("stride")
            module = value.get("module")
            return RecorderSummary(
                names,
                calls if isinstance(calls, int) else len(names),
                [str(item) for item in unchecked] if isinstance(unchecked, list) else [],
                stride if isinstance(stride, int) and stride > 0 else 1,
                module if isinstance(module, str) else None,
            )
    return RecorderSummary([], 0, [])


def raise_if_unstorable(stderr: str, qualname: str) -> None:
    """A `UserError` naming the input (or output) a fixture could not store, if the
    recorder stopped on one."""
    for line in reversed(stderr.splitlines()):
        if not line.startswith(UNSTORABLE_MARKER):
            continue
        try:
            report = json.loads(line[len(UNSTORABLE_MARKER) :])
        except ValueError:
            return
        if not isinstance(report, dict):
            return
        what = str(report.get("what", "input"))
        where = str(report.get("input", "?"))
        subject = where if what == "output" else f"the {what} {where}"
        raise UserError(
            f"call {report.get('call', '?')} of {qualname} cannot be recorded: {subject} "
            f"holds a value a fixture cannot store ({report.get('error', '')})",
            hint=_STORABLE,
        )


def expected_outputs_dir(task_dir: Path, unit_test_file: str) -> Path:
    """Where the expected outputs of a replay test live: in the task, outside the repo."""
    return task_dir / EXPECTED_OUTPUTS / PurePosixPath(unit_test_file).stem


def install_codec(unit_test_dir: Path) -> Path:
    """Copy the replay codec beside the replay tests (``unit_test/lmr_replay.py``)."""
    unit_test_dir.mkdir(parents=True, exist_ok=True)
    target = unit_test_dir / CODEC_MODULE
    shutil.copyfile(replay_codec.__file__, target)
    return target


def install_random(unit_test_dir: Path) -> Path:
    """Copy what puts the random generators back beside the replay tests
    (``unit_test/lmr_random.py``, which reads the codec's copy)."""
    unit_test_dir.mkdir(parents=True, exist_ok=True)
    target = unit_test_dir / RANDOM_MODULE
    shutil.copyfile(replay_random.__file__, target)
    return target


def record_fixtures(
    repo_dir: Path,
    goal_file: str,
    goal_function: str,
    driver: str,
    *,
    class_name: str = "",
    out_dir: Path | None = None,
    expected_dir: Path | None = None,
    unit_test_file: str = "unit_test/unit_test_1.py",
    limit: int = MAX_FIXTURES,
    timeout_s: float = 600.0,
) -> list[Path]:
    """Run ``driver`` (a script path or Python code) and record up to ``limit`` calls.

    Inputs go to ``out_dir`` (default ``<repo>/unit_test/fixtures``, and then the codec
    is copied to ``<repo>/unit_test/lmr_replay.py``); outputs to ``expected_dir``
    (default `expected_outputs_dir` of the task holding ``repo_dir``, or
    ``<out_dir>/expected`` when ``out_dir`` is given). Returns the input files written;
    each expected output has the same name in ``expected_dir``.
    """
    if out_dir is None:
        out = repo_dir / "unit_test" / "fixtures"
        expected = expected_dir or expected_outputs_dir(repo_dir.parent, unit_test_file)
        install_codec(repo_dir / "unit_test")
    else:
        out = out_dir
        expected = expected_dir or out_dir / "expected"
    out.mkdir(parents=True, exist_ok=True)
    expected.mkdir(parents=True, exist_ok=True)
    module = goal_file.removesuffix(".py").replace("/", ".")
    qualname = f"{class_name}.{goal_function}" if class_name else goal_function
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(_RECORDER)
    try:
        completed = subprocess.run(
            [
                sys.executable,
                script.name,
                str(repo_dir.resolve()),
                module,
                qualname,
                str(out.resolve()),
                str(expected.resolve()),
                fixture_prefix(goal_function, class_name),
                str(limit),
                str(Path(replay_codec.__file__).resolve()),
                driver,
            ],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UserError(
            f"the driver ran longer than {timeout_s:.0f} s", hint="Give a shorter driver."
        ) from None
    finally:
        Path(script.name).unlink(missing_ok=True)
    if completed.returncode != 0:
        raise_if_import_failed(completed.stderr, repo_dir, goal_file)
        raise_if_unstorable(completed.stderr, qualname)
        tail = "\n".join(completed.stderr.strip().splitlines()[-8:])
        raise UserError(f"the driver failed:\n{tail}", hint=driver_failure_hint(tail))
    names = recorder_summary(completed.stdout).written
    if not names:
        raise UserError(
            f"the driver never called {qualname}",
            hint="Make the driver call the goal function (directly or through the repository).",
        )
    return [out / name for name in names]


@dataclass(frozen=True)
class RecordedCall:
    """One call of the goal function a driver would record: a fixture's contents."""

    fixture: str  # file name, e.g. margin_loss_1.json
    args: Any
    output: Any

    def describe(self) -> str:
        """One short line: the fixture, its arguments and its expected output."""
        return f"{self.fixture}: args={self.args!r:.80} → {self.output!r:.60}"
