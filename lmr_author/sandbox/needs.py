"""Why a task cannot run here: a GPU, a model, data, packages or the network it lacks.

Decided first from what the task declares (info.json ``hardware``: a task that needs a
GPU is not run at all without ``--gpus``), then from the task's own golden run (and the
task's files), never from what a candidate prints or submits: a candidate that prints
"No CUDA GPUs are available" must not turn its failure into an infrastructure error,
which is left out of accuracy. When the task declares a GPU that is not given, or the
golden code fails for one of these reasons, every candidate of that implementation gets
the same infrastructure error, with what to do, instead of a verdict it could not earn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lmr_author.domain.hardware import HARDWARE_KEY
from lmr_author.domain.task import Implementation, Task
from lmr_author.sandbox.limits import Limits
from lmr_author.sandbox.run_result import ImplementationRun
from lmr_author.util import lfs

_GPU = re.compile(
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available"
    r"|no CUDA-capable device is detected|CUDA driver initialization failed"
    r"|deserialize object on a CUDA device but torch\.cuda\.is_available\(\) is False"
    r"|libcuda\.so[.\d]*: cannot open shared object file",
)
_GPU_MEMORY = re.compile(r"CUDA out of memory|CUDA error: out of memory")
_HUB = re.compile(
    r"outgoing traffic has been disabled|We couldn't connect to 'https://huggingface\.co'"
    r"|LocalEntryNotFoundError|OfflineModeIsEnabled|[Oo]ffline mode is enabled"
    r"|Connection error, and we cannot find the requested files in the cached path"
    r"|is not a local folder and is not a valid model identifier"
    r"|run the library in offline mode|Checkout your internet connection",
)
_HUB_NAME = (
    re.compile(r"Can't load (?:the )?[a-z ]{3,24}? (?:for|of) '([^'\s]{1,200})'"),
    re.compile(r"it looks like ([^\s']{1,200}) is not the path to a directory"),
    re.compile(r"\b([\w.\-]{1,100}(?:/[\w.\-]{1,100})?) is not a local folder"),
    re.compile(r"for (?:dataset|model) '([^'\s]{1,200})'"),
)
_NLTK = re.compile(r"Resource \W*(\w{1,80})\W* not found")
_NETWORK = re.compile(
    r"Temporary failure in name resolution|Name or service not known|Network is unreachable"
    r"|nodename nor servname provided|Failed to establish a new connection",
)
#: The harness's reason when the test file cannot import what it needs.
_IMPORT = re.compile(r"import error: (?:ModuleNotFoundError|ImportError)\b")
_MAX_EVIDENCE = 200


def unmet_hardware(task: Task, limits: Limits) -> str | None:
    """Why ``task``'s declared hardware rules out running it with ``limits``, before any run.

    Read from the task's info.json only, so no candidate can change it. Without it, a GPU
    task would run its golden code on the CPU until it fails or times out.
    """
    needs = task.hardware
    if not needs.needs_gpu:
        return None
    declared = f"the task declares it needs {needs.describe()} (info.json '{HARDWARE_KEY}')"
    if limits.gpus is None:
        return (
            f"not runnable here: {declared} and no --gpus was given, so nothing was run. "
            "Run it on a host with GPUs and the NVIDIA container toolkit with --gpus all, "
            "or on a Slurm cluster with --executor slurm --gpus all."
        )
    given = _gpu_count(limits.gpus)
    if given is not None and given < needs.gpus:
        return (
            f"not runnable here: {declared} and --gpus {limits.gpus} gives {given}, so "
            f"nothing was run. Give --gpus all (or --gpus {needs.gpus})."
        )
    return None


def _gpu_count(spec: str) -> int | None:
    """How many GPUs a ``--gpus`` value gives: a count, or devices; None for ``all``."""
    if spec.startswith("device="):
        return len(spec.removeprefix("device=").split(","))
    return int(spec) if spec.isdigit() else None


def gpu_evidence(golden: ImplementationRun) -> str | None:
    """The line of a failed golden run that says it needs a GPU (needs.py's GPU rule)."""
    if golden.passed or golden.infra_error is not None:
        return None
    return _first_line(_GPU, "\n".join(_texts(golden)))


def missing_resource(impl: Implementation, golden: ImplementationRun, limits: Limits) -> str | None:
    """Why ``golden`` (a failed run of the golden code) failed for want of a resource."""
    if golden.passed or golden.infra_error is not None:
        return None
    pointers = list(lfs.pointers_under(impl.repo_dir))
    if pointers:
        names = ", ".join(str(p.path.relative_to(impl.repo_dir)) for p in pointers[:3])
        more = f" and {len(pointers) - 3} more" if len(pointers) > 3 else ""
        return (
            f"not runnable here: its data is missing ({len(pointers)} Git LFS pointer "
            f"file(s): {names}{more}), so the golden code fails. Run 'git lfs pull' in the "
            "benchmark's repository and copy the data into the task."
        )
    text = "\n".join(_texts(golden))
    if (line := _first_line(_GPU, text)) is not None:
        if limits.gpus is None:
            return (
                f"not runnable here: needs a GPU (the golden code fails with {line!r}). "
                "Run on a host with GPUs and the NVIDIA container toolkit, with --gpus all."
            )
        return (
            f"not runnable here: needs a GPU, and the --gpus {limits.gpus} given did not "
            f"provide a working one (the golden code fails with {line!r})."
        )
    if (line := _first_line(_GPU_MEMORY, text)) is not None:
        return (
            f"not runnable here: needs more GPU memory than --gpus {limits.gpus} gives "
            f"(the golden code fails with {line!r})."
        )
    if (line := _first_line(_HUB, text)) is not None:
        name = _hub_name(text)
        what = f"model {name!r}" if name else "a model or dataset"
        where = (
            "which the --hf-cache given does not hold"
            if limits.hf_cache
            else "and no model cache was given"
        )
        fetch = f"'huggingface-cli download {name}'" if name else "its download"
        return (
            f"not runnable here: needs {what} from the Hugging Face Hub, {where} (the golden "
            f"code fails with {line!r}). On a machine with network, run {fetch}, then give "
            "that cache with --hf-cache DIR."
        )
    if (match := _NLTK.search(text)) is not None and "nltk" in text:
        return (
            f"not runnable here: needs the NLTK data {match.group(1)!r}, which the image lacks "
            "and cannot download (no network). Add 'RUN python -m nltk.downloader "
            f"{match.group(1)}' to the task's Dockerfile."
        )
    if (line := _first_line(_IMPORT, text)) is not None:
        return (
            "not runnable here: the golden code cannot import what it needs in this image "
            f"({line!r}). Fix the task's Dockerfile or requirements (or the --base-image)."
        )
    if (line := _first_line(_NETWORK, text)) is not None:
        return (
            f"not runnable here: the golden code needs the network, which tests never get "
            f"(it fails with {line!r}). Download what it fetches into the image in the "
            "task's Dockerfile."
        )
    return None


def _texts(run: ImplementationRun) -> Iterable[str]:
    for verdict in run.verdicts:
        yield verdict.reason
        yield verdict.log
        if verdict.legacy_log:
            yield verdict.legacy_log


def _first_line(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    if match is None:
        return None
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    line = text[start : end if end != -1 else len(text)].strip()
    return line if len(line) <= _MAX_EVIDENCE else line[: _MAX_EVIDENCE - 1] + "…"


def _hub_name(text: str) -> str | None:
    for pattern in _HUB_NAME:
        match = pattern.search(text)
        if match is not None:
            return match.group(1)
    return None
