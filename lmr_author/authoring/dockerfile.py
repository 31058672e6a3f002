"""The task's Dockerfile (and requirements.txt) as text: rendered, chosen, checked.

The one place Dockerfile text is written: from the one template (templates/Dockerfile),
with the requirements section and, for the GPU option, a CUDA base. The checks run the
validator's own Dockerfile rule on the edited text before anything is built.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement as _PackagingRequirement

from lmr_author.authoring.scaffold import template_path
from lmr_author.authoring.spec import TaskSpec
from lmr_author.validate.findings import Finding

GPU_NOTE = (
    "The GPU option renders a Dockerfile FROM a CUDA runtime image (like the published "
    "tasks); it cannot be verified on a machine without a GPU, and tests must then be run "
    "with a GPU engine (docker run --gpus all)."
)


def render_dockerfile(repo_folder_name: str, template: Path | None = None) -> str:
    text = (template or template_path("Dockerfile")).read_text(encoding="utf-8")
    return text.replace("{repo_folder_name}", repo_folder_name)


_DEPENDENCY_BLOCK = re.compile(r"^# Dependencies[^\n]*\n(?:[^\n]+\n)*", re.MULTILINE)
#: The dependency section the task Dockerfile gets (replaces the template's NumPy line).
DEPENDENCY_SECTION = """\
# Dependencies of the task: requirements.txt beside this Dockerfile (lmr-author proposes
# it from the repository; builds behind a TLS-inspecting proxy: see docs/tls-proxy.md).
COPY requirements.txt /tmp/lmr-author/requirements.txt
RUN pip install -r /tmp/lmr-author/requirements.txt && rm -rf /tmp/lmr-author
"""
GPU_BASE = "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04"
_GPU_PYTHON = """\
# CUDA runtime image (GPU option): its Python comes from Ubuntu.
RUN apt-get update \\
    && apt-get install -y --no-install-recommends python3 python3-pip python-is-python3 \\
    && rm -rf /var/lib/apt/lists/*
"""


def render_task_dockerfile(repo_folder_name: str, *, gpu: bool = False) -> str:
    """templates/Dockerfile with the requirements section (and the CUDA base for ``gpu``).

    Composed from the one template, so its ownership lines stay the template's own.
    """
    text = render_dockerfile(repo_folder_name)
    block = _DEPENDENCY_BLOCK.search(text)
    if block:
        text = _args_after_install(text[: block.start()], text[block.end() :])
    else:
        text = text.rstrip("\n") + "\n\n" + DEPENDENCY_SECTION
    if gpu:
        text = re.sub(
            r"^FROM\s+\S+[^\n]*\n",
            lambda _m: f"FROM {GPU_BASE}\n\n{_GPU_PYTHON}",
            text,
            count=1,
            flags=re.MULTILINE,
        )
    return text


_ARG_LINE = re.compile(r"^ARG\s[^\n]*\n", re.MULTILINE)


def _args_after_install(before: str, after: str) -> str:
    """The dependency section, with the build args declared before it moved below it.

    The install layer is then one for every task of the same base and requirements:
    an ``ARG`` above a ``RUN`` puts its value (``DIR``: the repository folder) into that
    step's cache key, so the environment image's install was never reused by the task
    image (nor by any other task) once the folder names differed (issue 30).
    """
    froms = list(re.finditer(r"^FROM\s[^\n]*\n", before, re.MULTILINE))
    cut = froms[-1].end() if froms else 0  # ARGs before FROM only parameterise FROM
    stage = before[cut:]
    args = "".join(_ARG_LINE.findall(stage))
    stage = re.sub(r"\n{3,}", "\n\n", "\n" + _ARG_LINE.sub("", stage).lstrip("\n"))
    moved = f"\n{args}" if args else ""
    return before[:cut] + stage + DEPENDENCY_SECTION + moved + after


def check_environment(dockerfile: str, requirements: str, repo_folder_name: str) -> list[Finding]:
    """Problems of an edited Dockerfile and requirements.txt, before building."""
    findings = _dockerfile_findings(dockerfile, repo_folder_name)
    for number, line in enumerate(requirements.splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text or text.startswith("-"):
            continue
        try:
            _PackagingRequirement(text)
        except InvalidRequirement as error:
            findings.append(
                Finding(
                    rule="requirements",
                    severity="error",
                    message=f"line {number} is not a requirement: {str(error).splitlines()[0]}",
                    file="requirements.txt",
                    hint="Write one 'name[extras] [version specifier]' per line (PEP 508).",
                )
            )
    if "requirements.txt" not in dockerfile and requirements.strip():
        findings.append(
            Finding(
                rule="requirements",
                severity="warning",
                message="the Dockerfile never installs requirements.txt",
                file="Dockerfile",
                hint="Add 'COPY requirements.txt ...' and 'RUN pip install -r ...'.",
            )
        )
    return findings


def _dockerfile_findings(dockerfile: str, repo_folder_name: str) -> list[Finding]:
    """The validator's own Dockerfile rule, run on the edited text in a scratch folder."""
    import json
    import tempfile

    from lmr_author.validate.context import TaskContext
    from lmr_author.validate.rules_docker import check_dockerfile

    with tempfile.TemporaryDirectory(prefix="lmr-author-env-") as scratch:
        root = Path(scratch)
        (root / "Dockerfile").write_text(dockerfile, encoding="utf-8")
        info = {"repo_folder_name": repo_folder_name, "implementations": []}
        (root / "info.json").write_text(json.dumps(info), encoding="utf-8")
        return list(check_dockerfile(TaskContext(root)))


def task_dockerfile(spec: TaskSpec, repo_folder: str) -> str:
    """The draft's Dockerfile: as edited, else the template (with requirements when any)."""
    if spec.dockerfile.strip():
        return spec.dockerfile
    if spec.requirements.strip() or spec.gpu:
        return render_task_dockerfile(repo_folder, gpu=spec.gpu)
    return render_dockerfile(repo_folder)
