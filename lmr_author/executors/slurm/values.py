"""``--time``, ``--mem`` and ``--sbatch-arg`` read and checked before anything runs.

Slurm reads ``--time 0`` as no limit and a negative one as a huge one, and rounds
``--mem 1K`` up to a megabyte: every such value was accepted and turned into wrong jobs.
Here each is read in sbatch's own syntax and held to what one run needs, in numbers:
the walltime must hold one run's worst case (`run_budget_s`), the memory the run's
sandbox limit plus the worker's own need. Site defaults (``SBATCH_TIMELIMIT``,
``SBATCH_MEM_PER_NODE``) stand in for an option that was not given, and are held to
the same; a ``--sbatch-arg`` that would replace an option lmr-author sets is refused,
naming the option to use instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from lmr_author.util.errors import UserError

#: sbatch options lmr-author sets, and what to give instead (None: not the user's).
SET_BY_LMR_AUTHOR: dict[str, str | None] = {
    "--array": None,
    "-a": None,
    "--job-name": None,
    "-J": None,
    "--output": None,
    "-o": None,
    "--error": None,
    "-e": None,
    "--chdir": None,
    "-D": None,
    "--wrap": None,
    "--parsable": None,
    "--test-only": None,
    "--export": None,
    "--cpus-per-task": "the sandbox's CPU limit (lmr-author asks for it: the throttle and the "
    "container's --cpus rest on it)",
    "-c": "the sandbox's CPU limit (lmr-author asks for it: the throttle and the container's "
    "--cpus rest on it)",
    "--mem": "--mem",
    "--mem-per-cpu": "--mem",
    "--mem-per-gpu": "--mem",
    "--time": "--time",
    "-t": "--time",
    "--partition": "--partition",
    "-p": "--partition",
    "--account": "--account",
    "-A": "--account",
    "--qos": "--qos",
    "-q": "--qos",
    "--gres": "--gres",
    "--gpus": "--gres",
    "-G": "--gres",
    "--gpus-per-task": "--gres",
    "--gpus-per-node": "--gres",
}

#: Site defaults that stand in for an option lmr-author would otherwise set itself.
SITE_TIME = "SBATCH_TIMELIMIT"
SITE_MEMORY = ("SBATCH_MEM_PER_NODE", "SBATCH_MEM_PER_CPU", "SBATCH_MEM_PER_GPU")

_TIME = re.compile(
    r"^(?:(?P<days>\d+)-(?P<dh>\d+)(?::(?P<dm>\d+)(?::(?P<ds>\d+))?)?"
    r"|(?P<a>\d+)(?::(?P<b>\d+)(?::(?P<c>\d+))?)?)$"
)
_MEMORY = re.compile(r"^(?P<n>\d+)(?P<unit>[KMGT]?)B?$", re.IGNORECASE)
_UNIT_MB = {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 * 1024}

TIME_SYNTAX = "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS"


def time_seconds(text: str, *, what: str = "--time") -> int:
    """A walltime in sbatch's syntax, in seconds; `UserError` for garbage, 0 (Slurm's
    "no limit") or anything not positive."""
    value = text.strip()
    match = _TIME.match(value)
    if match is None:
        raise UserError(
            f"{what} {text!r} is not a Slurm time",
            hint=f"Give it as {TIME_SYNTAX} (e.g. 30, or 1:30:00), more than 0.",
        )
    parts = match.groupdict()
    if parts["days"] is not None:
        seconds = int(parts["days"]) * 86400 + int(parts["dh"]) * 3600
        seconds += int(parts["dm"] or 0) * 60 + int(parts["ds"] or 0)
    elif parts["c"] is not None:
        seconds = int(parts["a"]) * 3600 + int(parts["b"]) * 60 + int(parts["c"])
    elif parts["b"] is not None:
        seconds = int(parts["a"]) * 60 + int(parts["b"])
    else:
        seconds = int(parts["a"]) * 60
    if seconds <= 0:
        raise UserError(
            f"{what} {text!r} is no walltime: Slurm reads 0 as no limit at all",
            hint=f"Give a walltime more than 0 ({TIME_SYNTAX}), or leave {what} out for the "
            "default.",
        )
    return seconds


def memory_mb(text: str, *, what: str = "--mem") -> float:
    """A memory size in sbatch's syntax (a number, M by default, or with K, M, G, T),
    in MB; `UserError` for anything else."""
    match = _MEMORY.match(text.strip())
    if match is None:
        raise UserError(
            f"{what} {text!r} is not a Slurm memory size",
            hint="Give a number with K, M, G or T (M when none), e.g. 4G or 2048M.",
        )
    return int(match.group("n")) * _UNIT_MB[match.group("unit").upper()]


def check_time(text: str, *, needed_s: float, timeout_s: float, what: str = "--time") -> None:
    """``text`` (``--time`` or the site default) must hold one run's worst case."""
    seconds = time_seconds(text, what=what)
    if seconds < needed_s:
        raise UserError(
            f"{what} {text!r} ({_clock(seconds)}) is shorter than one run's worst case, "
            f"{_clock(needed_s)} (two test time limits of {timeout_s:g} s plus five minutes "
            "of start-up): a worker could be ended in the middle of its first run",
            hint=f"Give --time {_minutes(needed_s)} or more (the default is three test time "
            "limits plus ten minutes), or a shorter --timeout.",
        )


def check_memory(text: str, *, limit_mb: int, margin_mb: int, what: str = "--mem") -> None:
    """``text`` (``--mem`` or the site default) must hold the run's sandbox limit (all
    of its containers) plus the worker's own need: a job's cgroup below it would kill
    the test for memory the run was allowed."""
    if text.strip() == "0":
        return  # Slurm's "all the memory of the node"
    asked = memory_mb(text, what=what)
    needed = limit_mb + margin_mb
    if asked < needed:
        shown = f"{asked:g} MB" if asked >= 1 else f"{asked * 1024:g} KB"
        raise UserError(
            f"{what} {text!r} ({shown}) is below what one run needs: {needed} MB, the "
            f"sandbox's memory limit of {limit_mb} MB plus {margin_mb} MB for the worker "
            "(Python, the engine client)",
            hint=f"Give --mem {needed}M or more, or leave it out for that default.",
        )


def check_sbatch_args(args: Sequence[str]) -> None:
    """Each ``--sbatch-arg`` is one sbatch option that lmr-author does not set itself."""
    for arg in args:
        if not arg.startswith("-") or arg in ("-", "--"):
            raise UserError(
                f"--sbatch-arg {arg!r}: not an sbatch option",
                hint="Give one sbatch option per --sbatch-arg, with its value after '=', "
                "e.g. --sbatch-arg=--constraint=skylake.",
            )
        flag = arg.split("=", 1)[0] if arg.startswith("--") else arg[:2]
        if flag not in SET_BY_LMR_AUTHOR:
            continue
        instead = SET_BY_LMR_AUTHOR[flag]
        if instead is None:
            raise UserError(
                f"--sbatch-arg {arg!r}: lmr-author sets {flag} itself",
                hint="Leave it out: the job arrays need their own value of it.",
            )
        if instead.startswith("--"):
            raise UserError(
                f"--sbatch-arg {arg!r}: lmr-author sets {flag} itself; give {instead} instead",
                hint=f"lmr-author checks {instead} against what a run needs before anything "
                "runs; through --sbatch-arg it would silently replace that.",
            )
        raise UserError(
            f"--sbatch-arg {arg!r}: lmr-author sets {flag} from {instead}",
            hint="Change the sandbox's limit instead, or leave the option out.",
        )


def site_time(environ: Mapping[str, str]) -> str | None:
    """The site's default walltime (``SBATCH_TIMELIMIT``), if set."""
    return environ.get(SITE_TIME) or None


def site_memory(environ: Mapping[str, str]) -> tuple[str, str] | None:
    """The site's default memory option (variable, value), if one is set."""
    for name in SITE_MEMORY:
        if environ.get(name):
            return name, environ[name]
    return None


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _minutes(seconds: float) -> str:
    return str(-(-int(seconds) // 60))
