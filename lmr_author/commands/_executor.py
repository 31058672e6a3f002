"""``--executor local|slurm`` and ``--gres``: where ``eval`` and ``validate --run`` run."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.executors import EXECUTORS
from lmr_author.executors.gres import GpuType, parse_gpu_types
from lmr_author.util.errors import UserError

if TYPE_CHECKING:
    from lmr_author.eval_loop.backend import DockerBackend
    from lmr_author.executors.slurm import Progress, SbatchOptions, SlurmBackend


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
    parser.add_argument(
        "--mem",
        metavar="SIZE",
        help="with --executor slurm: memory per run, e.g. 4G (sbatch --mem; default: "
        "the sandbox's memory limit plus 512 MB)",
    )
    parser.add_argument(
        "--time",
        metavar="TIME",
        help="with --executor slurm: walltime per run, e.g. 30 or 1:00:00 (sbatch --time; "
        "default: three test time limits plus ten minutes)",
    )
    parser.add_argument("--account", metavar="NAME", help="with --executor slurm: sbatch --account")
    parser.add_argument("--qos", metavar="NAME", help="with --executor slurm: sbatch --qos")
    parser.add_argument(
        "--sbatch-arg",
        action="append",
        default=[],
        metavar="OPT",
        help="with --executor slurm: one more sbatch option for every job, as "
        "--sbatch-arg=--constraint=skylake (repeatable)",
    )
    parser.add_argument(
        "--max-in-flight",
        type=int,
        metavar="N",
        help="with --executor slurm: elements of an array running at once (--array "
        "%%N; default: the partition's CPUs over the CPUs per run)",
    )


def registry_arg(text: str) -> str:
    """A registry option as argparse reads it (``--registry``, ``sandbox push --to``)."""
    from lmr_author.images.registry import check_registry

    try:
        return check_registry(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(error.render()) from None


def _sbatch_options(args: argparse.Namespace) -> SbatchOptions:
    import os

    from lmr_author.executors.slurm import SbatchOptions
    from lmr_author.executors.slurm.values import check_sbatch_args, site_memory, site_time

    check_sbatch_args(args.sbatch_arg)
    if args.max_in_flight is not None and args.max_in_flight < 1:
        raise UserError(f"--max-in-flight must be at least 1, got {args.max_in_flight}")
    return SbatchOptions(
        partition=args.partition,
        mem=args.mem,
        time=args.time,
        account=args.account,
        qos=args.qos,
        extra=tuple(args.sbatch_arg),
        max_in_flight=args.max_in_flight,
        site_time=site_time(os.environ) is not None,
        site_memory=site_memory(os.environ) is not None,
    )


def _gpu_types(text: str) -> tuple[GpuType, ...]:
    """``--gpu-types`` as argparse reads it: a bad map is a usage error, not a traceback."""
    try:
        return parse_gpu_types(text)
    except UserError as error:
        raise argparse.ArgumentTypeError(error.render()) from None


def slurm_options_given(args: argparse.Namespace) -> list[str]:
    """The ``--executor slurm`` options given on the command line."""
    given = (
        ("--gres", args.gres),
        ("--partition", args.partition),
        ("--gpu-types", args.gpu_types),
        ("--images", args.images),
        ("--registry", args.registry),
        ("--mem", args.mem),
        ("--time", args.time),
        ("--account", args.account),
        ("--qos", args.qos),
        ("--sbatch-arg", args.sbatch_arg),
        ("--max-in-flight", args.max_in_flight is not None),
    )
    return [option for option, value in given if value]


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
        for option in slurm_options_given(args):
            raise UserError(f"{option} is for --executor slurm", hint="Add --executor slurm.")
        return None
    import shutil

    if args.images is not None and not args.images.is_dir():
        raise UserError(
            f"--images {args.images}: no such folder",
            hint="Give the folder 'lmr-author sandbox save BENCHMARK --to DIR' wrote.",
        )

    from lmr_author.eval_loop.backend import DockerBackend
    from lmr_author.executors.slurm import SlurmBackend

    if shutil.which("sbatch") is None:
        raise UserError(
            "--executor slurm needs Slurm's sbatch, squeue and scancel on PATH",
            hint="Run on a Slurm login node, or use --executor local.",
        )
    options = _sbatch_options(args)
    from lmr_author.commands._provisions import hub_of

    # The same sandbox as the local executor's, provisions included: same run keys.
    inner = DockerBackend(
        base_image=args.base_image,
        timeout_s=args.timeout,
        gpus=args.gpus,
        hf_cache=hub_of(args),
    )
    _check_with_slurm(inner, options, args.gres)
    return SlurmBackend(
        inner,
        shared,
        gres=args.gres,
        gpu_types=args.gpu_types or (),
        options=options,
        images=args.images,
        registry=args.registry,
        on_progress=on_progress,
        on_note=on_note,
        command=command,
    )


def _check_with_slurm(inner: DockerBackend, options: SbatchOptions, gres: str | None) -> None:
    """The options a run's array carries, held to what one run needs (`values`) and
    read by Slurm (``sbatch --test-only``, which submits nothing): a refused one is said
    once, before any image is built."""
    import math
    import os

    from lmr_author.executors.slurm.check import check_options
    from lmr_author.executors.slurm.sbatch import MEMORY_MARGIN_MB, run_budget_s
    from lmr_author.executors.slurm.values import (
        check_memory,
        check_time,
        site_memory,
        site_time,
    )
    from lmr_author.runtime.engine import current_runtime

    limits = inner.limits()
    # Under Apptainer an isolated run is two containers, each with the limit, in the job.
    containers = 2 if current_runtime().runs_from_sif else 1
    needed_s = run_budget_s(limits.timeout_s)
    site = site_time(os.environ)
    if options.time or site:
        what = "--time" if options.time else "SBATCH_TIMELIMIT (the site's default)"
        check_time(
            options.time or site or "", needed_s=needed_s, timeout_s=limits.timeout_s, what=what
        )
    memory = options.mem
    what = "--mem"
    if not memory and (found := site_memory(os.environ)) is not None:
        name, value = found
        what = f"{name} (the site's default)"
        memory = None if name.endswith("GPU") else value
        if memory and name.endswith("CPU"):  # per CPU: the job's is that times its CPUs
            from lmr_author.executors.slurm.values import memory_mb

            memory = f"{math.ceil(memory_mb(value, what=what) * max(1, math.ceil(limits.cpus)))}M"
    if memory:
        check_memory(
            memory, limit_mb=limits.memory_mb * containers, margin_mb=MEMORY_MARGIN_MB, what=what
        )
    resources = options.resources(
        cpus=limits.cpus, memory_mb=limits.memory_mb, timeout_s=limits.timeout_s, gres=gres
    )
    defaults = (
        f"the default: the sandbox's {limits.memory_mb} MB plus a margin, "
        f"{limits.timeout_s:g} s per test file times three plus ten minutes"
    )
    check_options(options, resources, defaults=defaults)
