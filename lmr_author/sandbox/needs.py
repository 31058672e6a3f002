"""Why a task cannot run here: a GPU, a model, data, packages or the network it lacks.

Decided only from the task's own golden run (and the task's files), never from what a
candidate prints: a candidate that prints "No CUDA GPUs are available" must not turn its
failure into an infrastructure error, which is left out of accuracy. When the golden
code fails for one of these reasons, every candidate of that implementation gets the
same infrastructure error, with what to do, instead of a verdict it could not earn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lmr_author import lfs
from lmr_author.sandbox.results import ImplementationRun, Limits
from lmr_author.task import Implementation

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
