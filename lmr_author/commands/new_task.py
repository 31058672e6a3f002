"""`lmr-author new-task`: author a task, interactively or from a spec file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lmr_author.util.errors import EXIT_FINDINGS, EXIT_OK

EXAMPLE_SPEC: dict[str, Any] = {
    "folder_name": "07-MyMethod",
    "source": "path/to/repository or a git URL",
    "ref": "",
    "paper_pdf": "path/to/paper: a PDF, .tex, LaTeX folder or tarball, .md or paper.json",
    "paper_name": "Title of the paper",
    "paper_url": "",
    "year": 2025,
    "instance_id": 7,
    "goals": [
        {
            "goal_file": "src/losses.py",
            "goal_function": "my_loss",
            "class_name": "",
            "instruction": "Implement the `my_loss` function in src/losses.py ...",
            "category": "Training Objectives & Optimization",
            "retrieval_context": [],
            "mask_style": "lmr",
            "driver": "python code or a script that calls my_loss, to record fixtures",
        }
    ],
    "requirements": "pandas>=2.0\nscikit-learn\n",
    "seed": False,
    "gpus": 0,
    "gpu_memory_gb": None,
}


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "new-task",
        help="author a task: repository + paper -> verified task folder",
        description=(
            "Author a benchmark task from a repository and a paper. With --spec, build the "
            "task folder non-interactively from a JSON spec (the same steps the interactive "
            "app takes): check out the repository, convert the paper, record fixtures, mask "
            "the goal functions, scaffold unit tests and the Dockerfile, write info.json. "
            "Without --spec, open the interactive app (keys: ctrl+n next step, ctrl+b back, "
            "ctrl+q quit; the draft is autosaved and resumed)."
        ),
    )
    parser.add_argument("--spec", type=Path, help="build from this JSON spec file")
    parser.add_argument(
        "--into",
        type=Path,
        default=Path("benchmark"),
        help="the benchmark folder to create the task in (default: %(default)s)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing task folder")
    parser.add_argument(
        "--allow-unverified",
        action="store_true",
        help="write the task even when its checks or its Docker proof fail (default: exit 1)",
    )
    parser.add_argument(
        "--base-image",
        default=None,
        help="build the task's images from this base instead of its Dockerfile's FROM "
        "(the app keeps it in the draft and shows it in its Environment step)",
    )
    parser.add_argument(
        "--example-spec", action="store_true", help="print an example spec file and exit"
    )
    parser.add_argument(
        "--draft",
        default="current",
        help="name of the autosaved draft to resume or start (default: %(default)s)",
    )
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.example_spec:
        print(json.dumps(EXAMPLE_SPEC, indent=4))
        return EXIT_OK
    if args.spec is None:
        from lmr_author.tui.new_task import run_new_task

        return run_new_task(args.into, draft_name=args.draft, base_image=args.base_image)
    from lmr_author.authoring.environment import propose_for_draft
    from lmr_author.authoring.record_docker import NondeterministicGolden
    from lmr_author.authoring.save import UnverifiedTask, save_draft_task
    from lmr_author.authoring.spec import load_spec

    spec = load_spec(args.spec)
    proposal = propose_for_draft(spec)
    if proposal is not None:
        print("- environment proposed (requirements.txt):", flush=True)
        for req in proposal.requirements:
            print(f"    {req.line}  ({req.source})")
        for req in proposal.declared_unused:
            print(f"    not needed by the goal: {req.line}  ({req.source})")
    try:
        task = save_draft_task(
            spec,
            args.into,
            allow_unverified=args.allow_unverified,
            overwrite=args.force,
            base_image=args.base_image,
            on_step=lambda s: print(f"- {s}", flush=True),
        )
    except (UnverifiedTask, NondeterministicGolden) as error:
        print(error.render(), file=sys.stderr)
        return EXIT_FINDINGS
    print(f"task written: {task.path}")
    print(f"next: lmr-author validate --run {task.path}")
    return EXIT_OK
