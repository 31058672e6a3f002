"""The ``dockerfile`` rule: the task's Dockerfile must build a usable, pinned test image.

Parsing uses the ``dockerfile`` package, which wraps Docker's own (BuildKit) parser,
so line continuations, heredocs and JSON forms are read exactly as ``docker build``
reads them. The package ships no type hints; `_parse` is the one typed doorway to it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lmr_author.domain.task import DOCKERFILE
from lmr_author.validate.context import TaskContext
from lmr_author.validate.findings import Finding
from lmr_author.validate.rules import rule

INSTRUCTIONS = frozenset(
    {
        "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK",
        "LABEL", "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME",
        "WORKDIR",
    }
)  # fmt: skip
#: Build arguments lmr-author passes to ``docker build`` (see templates/Dockerfile).
REPO_BUILD_ARG = "DIR"
_VARIABLE = re.compile(r"\$(?:\{(\w+)(?::?[-+][^}]*)?\}|(\w+))")
_MAX_DOCKERFILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Instruction:
    """One parsed Dockerfile instruction."""

    cmd: str  # upper case
    value: tuple[str, ...]
    flags: tuple[str, ...]
    line: int


class DockerfileSyntaxError(Exception):
    """Docker's parser rejected the file."""


class DockerfileParserMissing(Exception):
    """The ``dockerfile`` package is not installed."""


def _parse(text: str) -> list[Instruction]:
    try:
        library = importlib.import_module("dockerfile")
    except ImportError:
        raise DockerfileParserMissing from None
    try:
        commands = library.parse_string(text)
    except library.GoParseError as error:
        raise DockerfileSyntaxError(str(error)) from None
    return [
        Instruction(
            str(command.cmd).upper(),
            tuple(str(v) for v in command.value),
            tuple(str(f) for f in command.flags),
            int(command.start_line),
        )
        for command in commands
    ]


def _substitute(text: str, variables: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return variables.get(name, match.group(0))

    return _VARIABLE.sub(replace, text)


def _arg_defaults(instructions: list[Instruction]) -> dict[str, str]:
    values: dict[str, str] = {}
    for item in instructions:
        if item.cmd in ("ARG", "ENV"):
            for word in item.value:
                if "=" in word:
                    key, _, default = word.partition("=")
                    values[key] = default.strip("\"'")
    return values


def _base_image_problem(image: str) -> str | None:
    """Why a FROM image is not pinned to a tag, or None."""
    if "@" in image:
        return None  # pinned by digest
    name = image.rsplit("/", 1)[-1]
    if ":" not in name:
        return "has no tag, so it means ':latest' and changes over time"
    if name.rsplit(":", 1)[1] == "latest":
        return "uses the ':latest' tag, which changes over time"
    return None


@rule(
    "dockerfile", "error", "Dockerfile unparseable, without FROM, unpinned, or no COPY of the repo"
)
def check_dockerfile(ctx: TaskContext) -> Iterator[Finding]:
    path = ctx.root / DOCKERFILE
    try:
        if not path.is_file():
            return  # missing-path reports it
        raw = path.read_bytes()[: _MAX_DOCKERFILE_BYTES + 1]
    except OSError as error:
        yield ctx.finding(
            "unreadable-file", f"cannot read the Dockerfile ({error})", file=DOCKERFILE
        )
        return
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = ""
    if not text or "\x00" in text or len(raw) > _MAX_DOCKERFILE_BYTES:
        yield ctx.finding(
            "dockerfile",
            "the Dockerfile is not a text file",
            file=DOCKERFILE,
            hint="Write the Dockerfile as UTF-8 text.",
        )
        return
    try:
        instructions = _parse(text)
    except DockerfileSyntaxError as error:
        yield ctx.finding(
            "dockerfile",
            f"Docker cannot parse it: {error}",
            file=DOCKERFILE,
            hint="Fix the Dockerfile syntax (docker build would fail).",
        )
        return
    except DockerfileParserMissing:
        yield ctx.finding(
            "dockerfile",
            "the Dockerfile was not checked: the 'dockerfile' package is not installed",
            file=DOCKERFILE,
            severity="warning",
            hint="Reinstall lmr-author with its dependencies (pip install -e .).",
        )
        return
    yield from _check_instructions(ctx, instructions)


def _check_instructions(ctx: TaskContext, instructions: list[Instruction]) -> Iterator[Finding]:
    for item in instructions:
        if item.cmd not in INSTRUCTIONS:
            yield ctx.finding(
                "dockerfile",
                f"unknown instruction '{item.cmd}'",
                file=DOCKERFILE,
                where=f"line {item.line}",
                hint="Use a Dockerfile instruction such as RUN, COPY or ENV.",
            )
    first = next((i for i in instructions if i.cmd != "ARG"), None)
    if first is None or first.cmd != "FROM":
        yield ctx.finding(
            "dockerfile",
            "the Dockerfile does not start with FROM",
            file=DOCKERFILE,
            where=f"line {first.line}" if first else "",
            hint="Start with a pinned base image, e.g. 'FROM python:3.11-slim'.",
        )
        return
    variables = _arg_defaults(instructions)
    stages: set[str] = {"scratch"}
    for item in instructions:
        if item.cmd != "FROM" or not item.value:
            continue
        image = _substitute(item.value[0], variables)
        if len(item.value) >= 3 and item.value[1].upper() == "AS":
            stages.add(item.value[2].lower())
        if "$" in image or image.lower() in stages:
            continue
        problem = _base_image_problem(image)
        if problem is not None:
            yield ctx.finding(
                "dockerfile",
                f"base image '{image}' {problem}",
                file=DOCKERFILE,
                where=f"line {item.line}",
                severity="warning",
                hint="Pin a tag (e.g. python:3.11-slim) so the test image is reproducible.",
            )
    yield from _check_repo_copy(ctx, instructions, variables)


def _check_repo_copy(
    ctx: TaskContext, instructions: list[Instruction], variables: dict[str, str]
) -> Iterator[Finding]:
    folder = (ctx.raw or {}).get("repo_folder_name")
    if not isinstance(folder, str) or not folder:
        return
    folder = folder.strip("/")
    variables = {**variables, REPO_BUILD_ARG: folder}
    for item in instructions:
        if item.cmd not in ("COPY", "ADD") or any(f.startswith("--from") for f in item.flags):
            continue
        for source in item.value[:-1]:
            resolved = _substitute(source, variables)
            normal = resolved.removeprefix("./").rstrip("/") or "."
            if "$" in normal or normal in (".", "*", folder) or normal.startswith(folder + "/"):
                return
    yield ctx.finding(
        "dockerfile",
        f"no COPY or ADD brings the repository folder '{folder}' into the image",
        file=DOCKERFILE,
        hint=f"Add 'COPY {folder} /workspace/{folder}' (the build context is the task folder).",
    )
