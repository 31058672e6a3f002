"""Build the draft's environment image, streaming the log, and say why a build failed.

The environment image is the task's own Dockerfile and requirements.txt over the
unmasked repository: fixtures are recorded in it, so the recording environment is the
test environment. It is built from a staging folder in the cache (mode 0700) through
`lmr_author.images.task_images.ensure_image`, so the image is tagged by content and an
unchanged environment is never rebuilt; the dependency layers come before the
repository in the Dockerfile, so the final task (masked repository) reuses them.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lmr_author.authoring.draft_images import built, draft_key, working_tree
from lmr_author.authoring.guard import apply_guards
from lmr_author.authoring.spec import TaskSpec
from lmr_author.images.task_images import ImageRef
from lmr_author.runtime.infra_error import InfraError
from lmr_author.sandbox.housekeeping import ENVIRONMENT_INFIX
from lmr_author.util.locations import cache_dir, private_dir

_IGNORED = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache")
_STEP = re.compile(r"^Step (\d+/\d+) : (.*)$")


@dataclass(frozen=True)
class BuildDiagnosis:
    """Why a build failed: the step, the last lines of the log, and what to do."""

    step: str  # e.g. "Step 7/14 : RUN pip install -r /tmp/lmr-author/requirements.txt"
    tail: list[str]
    cause: str  # short name of a known cause, or "unknown"
    hint: str

    def render(self) -> str:
        lines = [f"failed at {self.step or 'an unknown step'}", *self.tail, f"hint: {self.hint}"]
        return "\n".join(lines)


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    image: ImageRef | None
    seconds: float
    cached: bool
    diagnosis: BuildDiagnosis | None = None
    log: list[str] = field(default_factory=list)


#: Known causes: (name, pattern in the log, hint). First match wins.
_CAUSES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "certificate",
        re.compile(r"CERTIFICATE_VERIFY_FAILED|SSLCertVerificationError", re.I),
        "pip in the image does not trust your network's TLS proxy. Set SSL_CERT_FILE, "
        "PIP_CERT or REQUESTS_CA_BUNDLE to the CA bundle your machine trusts and build "
        "again (docs/tls-proxy.md).",
    ),
    (
        "no-matching-distribution",
        re.compile(r"No matching distribution found for (\S+)|Could not find a version", re.I),
        "A requirement does not exist on the package index for this Python/platform: "
        "check its name (import names differ: sklearn is scikit-learn) and its version.",
    ),
    (
        "network",
        re.compile(
            r"Temporary failure in name resolution|Network is unreachable|"
            r"Failed to establish a new connection|ProxyError|Could not resolve host",
            re.I,
        ),
        "The build has no network access to the package index; check the engine's "
        "network and proxy settings (HTTP(S)_PROXY) or pre-install the packages.",
    ),
    (
        "compiler",
        re.compile(
            r"gcc: (?:command )?not found|error: command '[^']*gcc'|fatal error: [\w/.]+\.h: "
            r"No such file|Python\.h: No such file|cc1: ",
            re.I,
        ),
        "A package is built from source and needs a compiler or system headers: pin a "
        "version that has a wheel for this Python, or add "
        "'RUN apt-get update && apt-get install -y build-essential <lib>-dev' before pip.",
    ),
    (
        "system-library",
        re.compile(r"lib[\w.+-]+\.so[.\d]*: cannot open shared object file", re.I),
        "A system library is missing in the image: install it with apt-get in the "
        "Dockerfile (e.g. libgl1 for opencv-python).",
    ),
    (
        "base-image",
        re.compile(r"pull access denied|manifest unknown|not found: manifest|No such image", re.I),
        "The base image is not in the engine and cannot be pulled: build one with "
        "'lmr-author sandbox base-image' or pass --base-image.",
    ),
)


def diagnose_build(lines: Sequence[str]) -> BuildDiagnosis:
    """The failing step, the last lines, and a hint for the known causes."""
    step = ""
    for line in lines:
        match = _STEP.match(line.strip())
        if match:
            step = f"Step {match.group(1)} : {match.group(2)}"
    text = "\n".join(lines)
    tail = [line for line in lines if line.strip()][-12:]
    for name, pattern, hint in _CAUSES:
        if pattern.search(text):
            return BuildDiagnosis(step=step, tail=tail, cause=name, hint=hint)
    return BuildDiagnosis(
        step=step,
        tail=tail,
        cause="unknown",
        hint="Read the log above the failing step; fix the Dockerfile or requirements.txt.",
    )


def stage_environment(spec: TaskSpec) -> Path:
    """The staging task folder of the draft's environment (repo + Dockerfile + requirements)."""
    from lmr_author.authoring.dockerfile import render_task_dockerfile

    repo = working_tree(spec)
    folder = spec.repo_folder(repo)
    key = draft_key(spec)
    # <task>-env-<key>: the task's images (sandbox prune --task knows them); the key is
    # the draft's working tree, so a task named later still replaces its "untitled" one.
    stage_name = f"{_safe(spec.folder_name or 'untitled')}{ENVIRONMENT_INFIX}{key}"
    root = private_dir(cache_dir("environments"))
    for other in root.glob(f"*{ENVIRONMENT_INFIX}{key}"):
        if other.name != stage_name:
            shutil.rmtree(other, ignore_errors=True)
    stage = private_dir(root / stage_name)
    target = stage / folder
    if target.exists():
        shutil.rmtree(target)
    for child in stage.iterdir():  # a folder left by an earlier repo folder name
        if child.is_dir() and child.name != folder:
            shutil.rmtree(child)
    shutil.copytree(repo, target, ignore=_IGNORED, symlinks=True)
    apply_guards(spec.guarded_files, target)
    dockerfile = spec.dockerfile or render_task_dockerfile(folder, gpu=spec.gpu)
    (stage / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    (stage / "requirements.txt").write_text(spec.requirements, encoding="utf-8")
    return stage


def build_environment(
    spec: TaskSpec,
    *,
    on_log: Callable[[str], None] | None = None,
    base_image: str | None = None,
    rebuild: bool = False,
) -> BuildResult:
    """Build (or reuse) the draft's environment image; a failed build is a result.

    ``base_image`` replaces the Dockerfile's FROM; None: the draft's own choice, if any.
    """
    from lmr_author.authoring.task_layout import task_from_spec
    from lmr_author.images.task_images import ensure_image

    stage = stage_environment(spec)
    task = task_from_spec(spec, stage, repo_folder=spec.repo_folder(working_tree(spec)))
    log: list[str] = []

    def line(text: str) -> None:
        log.append(text)
        if on_log is not None:
            on_log(text)

    started = time.monotonic()
    try:
        image = ensure_image(
            task, base_image=base_image or spec.base_image or None, rebuild=rebuild, on_log=line
        )
    except InfraError as error:
        lines = log or error.message.splitlines()
        return BuildResult(
            ok=False,
            image=None,
            seconds=time.monotonic() - started,
            cached=False,
            diagnosis=diagnose_build(lines + error.message.splitlines()[:1]),
            log=log,
        )
    _prune_older_environments(spec, image.tag)
    return BuildResult(
        ok=True,
        image=image,
        seconds=time.monotonic() - started,
        cached=not image.built,
        log=log,
    )


def _prune_older_environments(spec: TaskSpec, keep_tag: str) -> None:
    """A draft keeps one environment image: its older contents are removed."""
    built(spec, "environment", keep_tag)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)
