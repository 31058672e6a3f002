"""The user's sbatch options, checked once before anything is built: ``sbatch
--test-only`` (which submits nothing) with the options a run's array would carry."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

from lmr_author.executors.slurm.sbatch import Resources, SbatchOptions, resource_args
from lmr_author.util.errors import UserError

HINT = (
    "Check it with your cluster's own tools: 'sinfo -s' (partitions), 'sinfo -o \"%P %G "
    "%m %l\"' (generic resources, memory, time limits), 'sacctmgr show assoc user=$USER' "
    "(accounts and QOS); or leave the option out."
)


def _refusal(argv: Sequence[str]) -> str | None:
    """What ``sbatch --test-only ARGV`` says when it refuses them; None when accepted."""
    try:
        done = subprocess.run(
            ["sbatch", "--test-only", *argv, "--wrap", "true"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UserError(f"sbatch --test-only failed: {error}") from None
    if done.returncode == 0:
        return None
    said = [line for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in said if "error" in line.lower() or "unrecognized" in line]
    return " ".join(" ".join(errors or said).split()) or f"exit {done.returncode}"


def check_options(options: SbatchOptions, resources: Resources, *, defaults: str) -> None:
    """A `UserError` naming the first option Slurm refuses (``defaults`` says where the
    memory and time come from when not given)."""
    given = [*resource_args(resources), *options.fixed_args(), *options.extra]
    said = _refusal(given)
    if said is None:
        return
    # Which one: each alone (one call each, only when the whole was refused).
    for option in given:
        alone = _refusal([option])
        if alone is not None:
            source = ""
            if option.startswith(("--mem=", "--time=")):
                flag = option.split("=", 1)[0]
                if (flag == "--mem" and not options.mem) or (flag == "--time" and not options.time):
                    source = f" ({defaults}; give {flag} to ask for another)"
            raise UserError(f"Slurm refuses {option}{source}: {alone}", hint=HINT)
    raise UserError(f"Slurm refuses {' '.join(given)} together: {said}", hint=HINT)
