"""Record the golden function's inputs and outputs into unit-test fixtures.

The paper: "inputs and corresponding expected outputs are faithfully recorded". The
annotator gives a driver (a script of the repository, or a few lines of Python) that
calls the golden code; we wrap the goal function, run the driver in a subprocess with
the repository on ``sys.path``, and pickle the first calls: inputs as they were before
the call (the function may mutate them) and the output it returned. The scaffolded unit
test (templates/unit_test.py.tmpl) replays them.

The driver is the annotator's own code run on their machine, like running the
repository itself; candidate code from models never runs here but in the sandbox.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmr_author.authoring.scaffold import fixture_prefix
from lmr_author.errors import UserError

_RECORDER = r"""
import importlib, os, pickle, runpy, sys
repo, module_name, qualname, out_dir, prefix, limit, driver = sys.argv[1:8]
limit = int(limit)
sys.path.insert(0, repo)
os.chdir(repo)
module = importlib.import_module(module_name)
owner = module
parts = qualname.split(".")
for part in parts[:-1]:
    owner = getattr(owner, part)
raw = owner.__dict__[parts[-1]] if isinstance(owner, type) else getattr(owner, parts[-1])
is_method = isinstance(owner, type) and not isinstance(raw, (staticmethod, classmethod))
function = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
written = []

def recorder(*args, **kwargs):
    inputs = pickle.dumps((args, kwargs))
    result = function(*args, **kwargs)
    if len(written) < limit:
        call_args, call_kwargs = pickle.loads(inputs)
        case = {"args": list(call_args), "kwargs": call_kwargs, "output": result}
        if is_method:
            case["self"] = call_args[0]
            case["args"] = list(call_args[1:])
        path = os.path.join(out_dir, f"{prefix}_{len(written) + 1}.pkl")
        with open(path, "wb") as handle:
            pickle.dump(case, handle)
        written.append(path)
    return result

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
print("\n".join(written))
"""


def record_fixtures(
    repo_dir: Path,
    goal_file: str,
    goal_function: str,
    driver: str,
    *,
    class_name: str = "",
    out_dir: Path | None = None,
    limit: int = 3,
    timeout_s: float = 600.0,
) -> list[Path]:
    """Run ``driver`` (a script path or Python code) and record up to ``limit`` calls.

    Returns the fixture files written to ``out_dir`` (default
    ``<repo>/unit_test/fixtures``).
    """
    out = out_dir or repo_dir / "unit_test" / "fixtures"
    out.mkdir(parents=True, exist_ok=True)
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
                fixture_prefix(goal_function, class_name),
                str(limit),
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
        tail = "\n".join(completed.stderr.strip().splitlines()[-8:])
        raise UserError(f"the driver failed:\n{tail}", hint="Fix the driver and record again.")
    written = [Path(line) for line in completed.stdout.splitlines() if line.endswith(".pkl")]
    if not written:
        raise UserError(
            f"the driver never called {qualname}",
            hint="Make the driver call the goal function (directly or through the repository).",
        )
    return written


@dataclass(frozen=True)
class RecordedCall:
    """One call of the goal function a driver would record: a fixture's contents."""

    fixture: str  # file name, e.g. margin_loss_1.pkl
    args: Any
    output: Any

    def describe(self) -> str:
        """One short line: the fixture, its arguments and its expected output."""
        return f"{self.fixture}: args={self.args!r:.80} → {self.output!r:.60}"


def dry_run_fixtures(
    repo_dir: Path,
    goal_file: str,
    goal_function: str,
    driver: str,
    *,
    class_name: str = "",
) -> list[RecordedCall]:
    """What `record_fixtures` would record, without writing into the repository.

    The driver runs as the build runs it, into a scratch folder that is removed after
    the recorded calls are read back.
    """
    with tempfile.TemporaryDirectory(prefix="lmr-author-fixtures-") as scratch:
        paths = record_fixtures(
            repo_dir,
            goal_file,
            goal_function,
            driver,
            class_name=class_name,
            out_dir=Path(scratch),
        )
        calls = []
        for path in paths:
            with path.open("rb") as handle:
                case = pickle.load(handle)  # written just now by the annotator's own driver
            calls.append(RecordedCall(path.name, case["args"], case["output"]))
    return calls
