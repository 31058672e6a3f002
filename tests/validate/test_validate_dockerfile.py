"""The dockerfile rule, parsed with Docker's own parser (the ``dockerfile`` package)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.validate.samples import REPO

MakeTask = Callable[..., Path]


def dockerfile_findings(make_task: MakeTask, findings: Callable, text: str | bytes) -> list:
    return findings(make_task(files={"Dockerfile": text}), "dockerfile")


@pytest.mark.parametrize(
    ("text", "severity", "words", "where"),
    [
        (f"RUN echo hi\nCOPY {REPO} /w\n", "error", "does not start with FROM", "line 1"),
        ("# nothing but a comment\n", "error", "cannot parse", ""),
        ("FROM python:3.11-slim\nRUN <<EOF\necho\n", "error", "cannot parse", ""),
        (f"FROM ubuntu\nCOPY {REPO} /w\n", "warning", "has no tag", "line 1"),
        (f"FROM pytorch/pytorch:latest\nCOPY {REPO} /w\n", "warning", "':latest'", "line 1"),
        ("FROM python:3.11-slim\nRUN pip install numpy\n", "error", "no COPY", ""),
        (
            f"FROM python:3.11-slim\nCOPY {REPO} /w\nFROZ x\n",
            "error",
            "unknown instruction",
            "line 3",
        ),
        (b"\x00\x01\x02", "error", "not a text file", ""),
    ],
    ids=["no-from", "empty", "heredoc", "untagged", "latest", "no-copy", "unknown", "binary"],
)
def test_bad_dockerfiles(
    text: str, severity: str, words: str, where: str, make_task: MakeTask, findings: Callable
) -> None:
    [found] = dockerfile_findings(make_task, findings, text)
    assert found.severity == severity and words in found.message and found.where == where


@pytest.mark.parametrize(
    "text",
    [
        f"FROM python:3.11-slim\nCOPY {REPO} /workspace/{REPO}\n",
        f"FROM python:3.11-slim\nCOPY ./{REPO}/ /workspace/\n",
        "FROM python:3.11-slim\nCOPY . /workspace\n",
        f'FROM python:3.11-slim\nCOPY ["{REPO}", "/workspace/{REPO}"]\n',
        "ARG BASE=python:3.11-slim\nFROM ${BASE}\nARG DIR\nCOPY ${DIR} /w/${DIR}\n",
        "FROM python@sha256:" + "a" * 64 + f"\nADD {REPO}/src /w\n",
        "FROM python:3.11 AS build\nRUN make\nFROM build\nCOPY --from=build /x /x\n"
        f"COPY {REPO} /w\n",
        "FROM python:3.11-slim\nRUN apt-get update && \\\n    apt-get install -y git\n"
        f"COPY {REPO} /w\n",
    ],
    ids=["plain", "dot-slash", "context", "json", "build-args", "digest", "stages", "continued"],
)
def test_good_dockerfiles_are_quiet(text: str, make_task: MakeTask, findings: Callable) -> None:
    assert dockerfile_findings(make_task, findings, text) == []


def test_template_dockerfile_is_quiet(
    make_task: MakeTask, findings: Callable, repo_root: Path
) -> None:
    template = (repo_root / "templates" / "Dockerfile").read_text()
    text = template.replace("{repo_folder_name}", REPO)
    assert dockerfile_findings(make_task, findings, text) == []
