"""The goal among the packages installed in a task's image (``validate --run``).

An upstream library the goal was taken from may be installed in the image (a
``pip install`` of the paper's package, a framework that ships the method): the solver
runs there and can read it. One container run of the image does the looking, with our
script only (no code of the task's, no candidate's; no network): it walks the
interpreter's site-packages and dist-packages and prints, as JSON, the functions (cut at
their indentation) of the ``.py`` files that hold most of a goal's attribute and called
names, with the distribution each file belongs to (``importlib.metadata``'s RECORDs).
The host compares them with the golden code as `lmr_author.leaks.copies` compares
source, so the image's Python version does not matter and the golden code never enters
the container. The scan's output is kept by image id and words: an image does not change
under its id, so the next ``validate --run`` of the task reads it back.

Measured on this 2-core machine, shared: a scan of the torch stand-in image (torch and
the scientific stack) takes 6 s with its files in the page cache and up to 200 s without.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lmr_author.leaks.code_tokens import functions_of, normalized, tokens
from lmr_author.leaks.copies import WORD_SHARE, Copy
from lmr_author.leaks.goal_code import GoalCode
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.atomic import atomic_write_text
from lmr_author.util.locations import cache_dir

if TYPE_CHECKING:
    import docker

    from lmr_author.images.task_images import ImageRef

#: The scan may take this long (a framework's site-packages is tens of thousands of files).
SCAN_SECONDS = 300.0
#: What the scan may print: the container's log keeps 40 MB.
MAX_OUTPUT = 32 * 1024 * 1024

#: Runs in the image's Python (3.6 or later), with argv[1] = JSON list of word lists and
#: argv[2] = the share of a list a function must hold. Prints one JSON document.
SCRIPT = r"""
import json, os, re, site, stat, sys, sysconfig
wanted = [[w.encode() for w in words] for words in json.loads(sys.argv[1])]
share = float(sys.argv[2])
cap = int(sys.argv[3])
roots = set()
try:
    roots.update(site.getsitepackages())
except Exception:
    pass
try:
    roots.add(site.getusersitepackages())
except Exception:
    pass
for key in ("purelib", "platlib"):
    try:
        roots.add(sysconfig.get_paths()[key])
    except Exception:
        pass
roots.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
roots = sorted(r for r in roots if os.path.isdir(r))
DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+\w")
found, size = [], 0
def enough(data):
    # Bytes, failing fast: most files miss most words, and decoding them costs more.
    for words in wanted:
        allowed = len(words) - share * len(words)
        missing = 0
        for word in words:
            if word not in data:
                missing += 1
                if missing > allowed:
                    break
        else:
            return True
    return False
def blocks(lines):
    i = 0
    while i < len(lines):
        match = DEF.match(lines[i])
        if not match:
            i += 1
            continue
        indent = len(match.group(1).expandtabs())
        end = i + 1
        while end < len(lines):
            line = lines[end]
            stripped = line.lstrip()
            if stripped and len(line) - len(stripped) <= indent and stripped[0] not in ")]}":
                break
            end += 1
        yield i, end
        i = end if indent == 0 else i + 1
seen = set()
for root in roots:
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            try:
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode) or info.st_size > 4 * 1024 * 1024:
                    continue
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if b"def " not in data or not enough(data):
                continue
            lines = data.decode("utf-8", "replace").splitlines()
            for start, end in blocks(lines):
                body = "\n".join(lines[start:end])
                if enough(body.encode()) and size < cap:
                    relative = os.path.relpath(path, root)
                    found.append({"root": root, "path": relative, "line": start + 1, "text": body})
                    size += len(body)
owners = {}
if found:
    try:
        from importlib import metadata
        for dist in metadata.distributions():
            for entry in dist.files or ():
                owners[str(entry).replace(os.sep, "/")] = dist.metadata["Name"]
    except Exception:
        pass
for item in found:
    item["dist"] = owners.get(item["path"].replace(os.sep, "/"), "")
print(json.dumps({"roots": roots, "found": found, "cut": size >= cap}))
"""


@dataclass(frozen=True)
class Snippet:
    """A function in an installed file: its site-packages folder, path, line and text."""

    root: str
    path: str
    line: int
    text: str
    distribution: str

    @property
    def module(self) -> str:
        return self.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def installed_copies(
    goals: Iterable[GoalCode],
    image: ImageRef,
    client: docker.DockerClient,
    *,
    task_name: str = "",
    timeout_s: float = SCAN_SECONDS,
) -> list[Copy]:
    """The copies of ``goals`` among the image's installed packages; `InfraError` when
    the image could not be looked into."""
    comparable = [goal for goal in goals if goal.comparable]
    if not comparable:
        return []
    words = [sorted(goal.words) for goal in comparable]
    cached = _cache_file(image, words)
    try:
        snippets = parse_scan(cached.read_text(encoding="utf-8"))
    except (OSError, InfraError):
        out = scan_output(image, client, words, task_name=task_name, timeout_s=timeout_s)
        snippets = parse_scan(out)
        with contextlib.suppress(OSError):
            atomic_write_text(cached, out)
    return compare_snippets(comparable, snippets)


def _cache_file(image: ImageRef, words: list[list[str]]) -> Path:
    """Where a scan's output is kept: an image is never changed under its id, so the same
    image, words and script give the same output (a second ``validate --run`` is free)."""
    key = hashlib.sha256(
        json.dumps([image.image_id or image.tag, words, SCRIPT, WORD_SHARE]).encode()
    ).hexdigest()
    return cache_dir("installed-scans") / f"{key}.json"


def compare_snippets(goals: list[GoalCode], snippets: list[Snippet]) -> list[Copy]:
    """The snippets that are copies of ``goals``, as `Copy` items of kind ``installed``."""
    copies = []
    for snippet in snippets:
        found = tokens(snippet.text)
        units = functions_of(found)
        if not units:
            continue
        unit = units[0]  # the snippet is one function (and what is nested in it)
        sequence = normalized(found[unit.start : unit.end])
        for goal in goals:
            score = goal.golden.compare(sequence, unit.name)
            if score is None or not score.level:
                continue
            package = snippet.distribution or snippet.module.split(".")[0]
            copies.append(
                Copy(
                    goal.implementation,
                    goal.qualname,
                    "installed",
                    f"{snippet.root}/{snippet.path}",
                    f"lines {snippet.line}-{snippet.line + unit.end_line - unit.line}",
                    f"{snippet.module}.{unit.name}",
                    score.similarity,
                    score.containment,
                    score.level,
                    detail=f"package {package}, module {snippet.module}",
                )
            )
    return sorted(copies, key=lambda c: (c.implementation, -c.strength, c.file))


def scan_output(
    image: ImageRef,
    client: docker.DockerClient,
    words: list[list[str]],
    *,
    task_name: str = "",
    timeout_s: float = SCAN_SECONDS,
) -> str:
    """Run the scan in one locked-down container of ``image`` (no network); its output."""
    from lmr_author.sandbox.container_life import (
        RUN_GID,
        RUN_UID,
        final_state,
        read_stream,
        run_labels,
        sandbox_container,
        scratch_tmpfs,
    )
    from lmr_author.sandbox.limits import Limits

    limits = Limits(timeout_s=timeout_s)
    argv = [json.dumps(words), str(WORD_SHARE), str(MAX_OUTPUT)]
    # python3, else python: images name their interpreter either way.
    command = [
        "sh",
        "-c",
        'command -v python3 >/dev/null && exec python3 -c "$0" "$@"; exec python -c "$0" "$@"',
        SCRIPT,
        *argv,
    ]
    try:
        with sandbox_container(
            client,
            image=image,
            command=command,
            workdir="/",
            environment={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": ""},
            user=f"{RUN_UID}:{RUN_GID}",
            limits=limits,
            tmpfs=scratch_tmpfs(limits),
            labels=run_labels(task_name or image.tag, timeout_s),
        ) as container:
            container.start()
            try:
                container.wait(timeout=timeout_s)
            except Exception as error:
                raise InfraError(
                    f"the scan of the image's installed packages did not end in {timeout_s:.0f} s "
                    f"({type(error).__name__})"
                ) from None
            state = final_state(container)
            out = read_stream(container, stdout=True, cap=MAX_OUTPUT + 1024 * 1024, tail=False)
            err = read_stream(container, stdout=False, cap=4000, tail=True)
    except InfraError:
        raise
    except Exception as error:  # the engine's failure, never the task's
        raise InfraError(
            f"the image's installed packages could not be scanned: {type(error).__name__}: {error}"
        ) from None
    if state.get("ExitCode") != 0:
        raise InfraError(
            f"the scan of the image's installed packages failed (exit {state.get('ExitCode')}): "
            f"{err.strip()[-500:]}"
        )
    return out


def parse_scan(out: str) -> list[Snippet]:
    """The snippets of the scan's output; `InfraError` when it is not the script's JSON."""
    try:
        document: Any = json.loads(out)
        return [
            Snippet(
                str(item["root"]),
                str(item["path"]),
                int(item["line"]),
                str(item["text"]),
                str(item.get("dist") or ""),
            )
            for item in document["found"]
        ]
    except (ValueError, KeyError, TypeError) as error:
        raise InfraError(
            f"the scan of the image's installed packages printed no result ({error})"
        ) from None
