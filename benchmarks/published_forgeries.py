"""Forged verdicts on the published tasks: a wrong goal function plus an attack, scored by
`lmr-author eval`, task by task (issue 29).

    python benchmarks/published_forgeries.py BENCH --base-image IMG [--task NAME]...
        [--timeout S] [--work DIR] [--json FILE]

For each task of BENCH (LMR-Bench's ``benchmark/``; by default 25-AdaLora, 26-Hyena,
27-Lion and 29-Sophia, the tasks whose tests run here on a CPU torch base image), the
golden goal function is given one plausible mistake (the "wrong" answer), and each
attack of ``tests/adversarial/isolation_forgeries.py`` runs inside it after the wrong
computation: the seven forgeries of the issue (the test file read, the test's frames
walked, torch's ``isclose``/``allclose`` patched, ``torch.testing`` faked,
``logging.root`` proxied, the harness's reporter used with its token, the assertions
patched and the harness's snapshot overwritten), then the token used to make the run an
infra-error, a result with a custom ``__eq__``/``__bool__``, and ``gc`` for anything of
the harness. Everything goes to one `lmr-author eval` (a subprocess, as a user runs it,
``--base-image IMG``) as a predictions JSONL, one system per attack, with the golden
and the wrong answers as controls. Printed: attack x task -> verdict, and how many
attacks passed (every one of them is a wrong answer scored "pass").
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lmr_author.cst.extract import extract_function  # noqa: E402
from lmr_author.domain.benchmark import load_benchmark  # noqa: E402
from lmr_author.domain.task import Implementation  # noqa: E402
from lmr_author.util.errors import UserError  # noqa: E402
from tests.adversarial.isolation_forgeries import (  # noqa: E402
    FORGERIES,
    ISSUE_SEVEN,
    function_candidate,
)

#: The published tasks runnable here, and the one mistake that makes each answer wrong.
WRONG = {
    "25-AdaLora": ("if self.r > 0 and not self.merged:", "if False:"),
    "26-Hyena": ("y = rearrange(v * x[0], 'b d l -> b l d')", "y = rearrange(v, 'b d l -> b l d')"),
    "27-Lion": ("alpha=-group['lr']", "alpha=group['lr']"),
    "29-Sophia": ("lr=group['lr'],", "lr=-group['lr'],"),
}
CONTROLS = ("golden", "golden-reformatted", "wrong")
#: A correct candidate as an agent may leave it (issue 39): the whole golden file, with
#: comment lines at its top and before the goal function, so every line below them is
#: shifted (26-Hyena's TorchScript function compiles from its own file's lines).
HEADER = "".join(f"# A comment line an agent added ({n} of 10).\n" for n in range(1, 11))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("benchmark", type=Path, metavar="BENCH")
    parser.add_argument("--base-image", required=True, metavar="IMG")
    parser.add_argument("--task", action="append", default=[], metavar="NAME")
    parser.add_argument(
        "--attack", action="append", default=[], metavar="NAME", help="only these (default: all)"
    )
    parser.add_argument("--timeout", type=float, default=300.0, metavar="S")
    parser.add_argument("--work", type=Path, metavar="DIR", help="keep the eval output here")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the runs here")
    args = parser.parse_args()
    names = args.task or sorted(WRONG)
    unknown = [name for name in args.attack if name not in FORGERIES]
    if unknown:
        print(f"no attack {', '.join(unknown)}; use of: {', '.join(FORGERIES)}", file=sys.stderr)
        return 2
    unknown = [name for name in names if name not in WRONG]
    if unknown:
        print(
            f"no wrong answer is written for {', '.join(unknown)}; use of: "
            f"{', '.join(sorted(WRONG))}",
            file=sys.stderr,
        )
        return 2
    try:
        runs = run(args, names)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 2
    print_table(runs, names, args.attack)
    if args.json:
        args.json.write_text(json.dumps(list(runs.values()), indent=2, default=str))
    return 0


def signature(method: str) -> tuple[str, str]:
    """A method's parameters as written, and the call that passes them on."""
    node = ast.parse(method).body[0]
    assert isinstance(node, ast.FunctionDef)
    spec = node.args
    call = [a.arg for a in [*spec.posonlyargs, *spec.args]]
    if spec.vararg:
        call.append("*" + spec.vararg.arg)
    call += [f"{a.arg}={a.arg}" for a in spec.kwonlyargs]
    if spec.kwarg:
        call.append("**" + spec.kwarg.arg)
    return ast.unparse(spec), ", ".join(call)


def candidates(
    task_name: str, impl: Implementation, attacks: list[str] | None = None
) -> dict[str, str]:
    """System -> goal function source: the golden, the wrong, and each attack."""
    golden = textwrap.dedent(
        extract_function(impl.golden_path.read_text(), impl.goal_function, impl.class_name)
    )
    old, new = WRONG[task_name]
    if old not in golden:
        raise UserError(f"{task_name}: its golden {impl.goal_function} no longer holds {old!r}")
    wrong = golden.replace(old, new)
    params, call = signature(golden[golden.index("def ") :])
    kind = "step" if impl.goal_function == "step" else "forward"
    sources = {"golden": golden, "wrong": wrong}
    for name, (step, forward) in FORGERIES.items():
        if attacks and name not in attacks:
            continue
        snippet = step if kind == "step" else forward
        if snippet is not None:
            sources[name] = function_candidate(
                function=impl.goal_function,
                params=params,
                call=call,
                wrong=wrong,
                snippet=snippet,
                kind=kind,
            )
    return sources


def reformatted(impl: Implementation) -> str:
    """The golden goal file with lines added at its top and before the goal function."""
    lines = impl.golden_path.read_text().splitlines(keepends=True)
    at = next(
        (
            n
            for n, line in enumerate(lines)
            if line.lstrip().startswith(f"def {impl.goal_function}(")
        ),
        len(lines),
    )
    while at > 0 and lines[at - 1].lstrip().startswith("@"):
        at -= 1  # above its decorators
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())] if at < len(lines) else ""
    note = [f"{indent}# Reformatted by hand: the lines below moved down.\n"] * 3
    return HEADER + "".join(lines[:at] + note + lines[at:])


def run(args: argparse.Namespace, names: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
    loaded = load_benchmark(args.benchmark, names)
    if loaded.broken:
        raise UserError(
            f"cannot load: {', '.join(b.name + ' (' + b.reason + ')' for b in loaded.broken)}"
        )
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        predictions = work / "forgeries.jsonl"
        mirrored = work / "golden-reformatted"
        with open(predictions, "w", encoding="utf-8") as handle:
            for task in loaded.tasks:
                for impl in task.implementations:
                    for system, source in candidates(task.name, impl, args.attack).items():
                        line = {"task": task.name, "implementation": impl.index}
                        line |= {"system": system, "source": source}
                        handle.write(json.dumps(line) + "\n")
                    goal = mirrored / task.name / task.repo_folder_name / impl.goal_file
                    goal.parent.mkdir(parents=True, exist_ok=True)
                    goal.write_text(reformatted(impl))
        argv = [sys.executable, "-m", "lmr_author", "eval", str(args.benchmark)]
        for name in names:
            argv += ["--task", name]
        argv += ["-s", str(predictions), "-s", str(mirrored)]
        argv += ["--output", str(work / "out"), "--json"]
        argv += ["--base-image", args.base_image, "--timeout", str(args.timeout)]
        argv += ["--workers", "2"]
        print(
            f"eval of {len(args.attack or FORGERIES) + 3} systems on {', '.join(names)}…",
            file=sys.stderr,
        )
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace")
        runs: dict[tuple[str, str], dict[str, Any]] = {}
        for path in sorted((work / "out" / "runs").glob("*/*/*/run.json")):
            record = json.loads(path.read_text(encoding="utf-8", errors="replace"))
            runs[(record["system"], record["task"])] = record
        if done.returncode != 0:
            print(f"eval exited {done.returncode}: {done.stderr.strip()[-1500:]}", file=sys.stderr)
    return runs


def _verdict(runs: dict[tuple[str, str], dict[str, Any]], system: str, task: str) -> str:
    """The run's verdict; "n/a" for an attack written for the other kind of goal."""
    record = runs.get((system, task))
    if record is None:
        return "-"
    if record.get("reason") == "no submission":
        return "n/a"
    return str(record.get("verdict"))


def print_table(
    runs: dict[tuple[str, str], dict[str, Any]], names: list[str], attacks: list[str]
) -> None:
    systems = [*CONTROLS, *(attacks or FORGERIES)]
    width = max(len(s) for s in systems) + 4
    print(f"{'attack':<{width}}" + "".join(f"{name:<13}" for name in names))
    print("-" * (width + 13 * len(names)))
    for system in systems:
        row = [_verdict(runs, system, name) for name in names]
        label = system + (" *" if system in ISSUE_SEVEN else "")
        print(f"{label:<{width}}" + "".join(f"{verdict:<13}" for verdict in row))
    print()
    seven = [_verdict(runs, s, n) for s in ISSUE_SEVEN for n in names]
    seven = [verdict for verdict in seven if verdict != "-"]
    attacks_run = attacks or list(FORGERIES)
    verdicts = [_verdict(runs, s, n) for s in attacks_run for n in names]
    verdicts = [verdict for verdict in verdicts if verdict not in ("n/a", "-")]
    golden = [_verdict(runs, "golden", n) for n in names]
    moved = [_verdict(runs, "golden-reformatted", n) for n in names]
    isolated = [
        n for n in names if (runs.get(("golden-reformatted", n)) or {}).get("isolated") is True
    ]
    print(
        f"* the issue's seven forgeries: {seven.count('pass')} of {len(seven)} runs passed; "
        f"all {len(attacks_run)} attacks: {verdicts.count('pass')} of {len(verdicts)} passed, "
        f"{verdicts.count('infra-error')} infra-error; golden passes on "
        f"{golden.count('pass')} of {len(names)} tasks; the golden file reformatted (lines "
        f"shifted) passes on {moved.count('pass')} of {len(names)}, isolated on "
        f"{len(isolated)}"
    )
    for (system, task), record in sorted(runs.items()):
        if system in CONTROLS[:2] and _verdict(runs, system, task) != "pass":
            print(f"  {system} on {task}: {record.get('verdict')}: {record.get('reason')}")
        if system in FORGERIES and _verdict(runs, system, task) not in ("pass", "fail", "n/a"):
            print(
                f"  {system} on {task}: {record.get('verdict')}: {str(record.get('reason'))[:150]}"
            )


if __name__ == "__main__":
    sys.exit(main())
