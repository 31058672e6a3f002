"""``--executor local|slurm`` and ``--gres``: where ``eval`` and ``validate --run`` run."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.errors import UserError
from lmr_author.executors import EXECUTORS
from lmr_author.executors.gres import GpuType, parse_gpu_types

if TYPE_CHECKING:
    from lmr_author.executors.slurm import Progress, SlurmBackend


def add_executor_options(parser: argparse.ArgumentParser | Any) -> None:
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="local: runs here; slurm: each run is a Slurm job-array element (sbatch), its "
        "result read back through a folder the nodes share (eval: OUTPUT/slurm/; validate: "
        "--slurm-dir), same run keys and verdicts (default: %(default)s)",
    )
    parser.add_argument(
        "--gres",
        metavar="SPEC",
        help="with --executor slurm: generic resources for every run, e.g. gpu:1 (sbatch "
        "--gres); without it, a run asks for the GPUs its task's info.json declares",
    )
    parser.add_argument(
        "--gpu-types",
        type=_gpu_types,
        metavar="MAP",
        help="with --executor slurm: GPU memory to your cluster's gres type names, e.g. "
        "16=v100,40=a100: a task declaring GPUs with N GB gets the smallest type with N GB "
        "(without it, tasks' GPU memory is not asked of Slurm)",
    )
    parser.add_argument(
        "--images",
        type=Path,
        metavar="DIR",
        help="with --executor slurm: a shared folder 'lmr-author sandbox save' wrote; a "
        "node whose engine lacks a run's image loads it from there (checked by id)",
    )
    parser.add_argument(
        "--registry",
        type=registry_arg,
        metavar="HOST[:PORT][/NS]",
        help="with --executor slurm: a registry 'lmr-author sandbox push' pushed the task "
        "images to; a node whose engine lacks a run's image pulls it from there (checked "
        "by id)",
    )
    parser.add_argument(
        "--partition",
        metavar="NAME",
        help="with --executor slurm: the partition the jobs go to (sbatch --partition)",
    )


def registry_arg(text: str) -> str:
    """A registry option as argparse reads it (``--registry``, ``sandbox push --to``)."""
    from lmr_author.sandbox.registry import check_registry

    try:
        return check_registry(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(error.render()) from None


def _check_with_slurm(args: argparse.Namespace) -> None:
    """``--partition`` and ``--gres`` as Slurm reads them (``sbatch --test-only``, which
    submits nothing): a wrong one is said once, before any image is built."""
    import subprocess

    asked = [f"--partition={args.partition}"] if args.partition else []
    asked += [f"--gres={args.gres}"] if args.gres else []
    if not asked:
        return
    try:
        done = subprocess.run(
            ["sbatch", "--test-only", *asked, "--wrap", "true"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UserError(f"sbatch --test-only failed: {error}") from None
    if done.returncode != 0:
        said = " ".join(line for line in done.stderr.splitlines() if "error" in line.lower())
        raise UserError(
            f"Slurm refuses {' '.join(asked)}: {' '.join(said.split()) or done.stderr.strip()}",
            hint="Check the name with 'sinfo -s' (partitions) or 'sinfo -o \"%P %G\"' "
            "(generic resources).",
        )


def _gpu_types(text: str) -> tuple[GpuType, ...]:
    """``--gpu-types`` as argparse reads it: a bad map is a usage error, not a traceback."""
    try:
        return parse_gpu_types(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(error.render()) from None


def slurm_backend(
    args: argparse.Namespace,
    on_progress: Callable[[Progress], None],
    shared: Path,
    *,
    on_note: Callable[[str], None] | None = None,
    command: str = "eval",
) -> SlurmBackend | None:
    """The Slurm backend ``args`` ask for, or None for the local executor.

    ``shared`` is the folder (on a file system the nodes share) for requests and results;
    ``command`` names the jobs (``lmr-<command>-<id>``).
    """
    if args.executor != "slurm":
        given = (
            ("--gres", args.gres),
            ("--partition", args.partition),
            ("--gpu-types", args.gpu_types),
            ("--images", args.images),
            ("--registry", args.registry),
        )
        for option, value in given:
            if value:
                raise UserError(f"{option} is for --executor slurm", hint="Add --executor slurm.")
        return None
    import shutil

    if args.images is not None and not args.images.is_dir():
        raise UserError(
            f"--images {args.images}: no such folder",
            hint="Give the folder 'lmr-author sandbox save BENCHMARK --to DIR' wrote.",
        )

    from lmr_author.evaluation.backend import DockerBackend
    from lmr_author.executors.slurm import SlurmBackend

    if shutil.which("sbatch") is None:
        raise UserError(
            "--executor slurm needs Slurm's sbatch, squeue and scancel on PATH",
            hint="Run on a Slurm login node, or use --executor local.",
        )
    _check_with_slurm(args)
    from lmr_author.commands._provisions import hub_of

    # The same sandbox as the local executor's, provisions included: same run keys.
    inner = DockerBackend(
        base_image=args.base_image,
        timeout_s=args.timeout,
        gpus=args.gpus,
        hf_cache=hub_of(args),
    )
    return SlurmBackend(
        inner,
        shared,
        gres=args.gres,
        gpu_types=args.gpu_types or (),
        partition=args.partition,
        images=args.images,
        registry=args.registry,
        on_progress=on_progress,
        on_note=on_note,
        command=command,
    )
