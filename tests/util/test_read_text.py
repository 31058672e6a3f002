"""The one reader of a user's text file: `read_text`'s ``missing`` and ``error`` options,
and callers that keep the error class and message they always raised through it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, cast

import pytest

from lmr_author.domain.task import TaskLoadError, load_task, read_info
from lmr_author.images.task_images import plan_build
from lmr_author.judge.prompt import load_template
from lmr_author.reporting.published_results import load_published_results
from lmr_author.runtime.infra_error import InfraError
from lmr_author.util.errors import UserError
from lmr_author.util.json_input import read_text

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmark"


def test_missing_replaces_the_message_when_no_file_is_there(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    instead = UserError("the template does not exist", hint="Pass an existing file.")
    for path in (tmp_path / "none.md", blocker / "inside.md", tmp_path):
        with pytest.raises(UserError) as caught:
            read_text(path, what="template", missing=instead)
        assert caught.value is instead
    assert read_text(blocker, missing=instead) == "x"  # a readable file: no error at all


def test_error_class_is_the_callers(tmp_path: Path) -> None:
    binary = tmp_path / "Dockerfile"
    binary.write_bytes(b"FROM x\n\xff\n")
    with pytest.raises(InfraError, match="not UTF-8") as caught:
        read_text(binary, what="Dockerfile", error=InfraError)
    assert caught.value.where == "line 2"
    with pytest.raises(InfraError, match="does not exist"):
        read_text(tmp_path / "none", error=InfraError)
    with pytest.raises(InfraError, match="is a folder"):
        read_text(tmp_path, error=InfraError)


def test_the_dockerfile_stays_an_infra_error(tmp_path: Path) -> None:
    shutil.copytree(BENCHMARK / "02-BLEU", tmp_path / "02-BLEU")
    task = load_task(tmp_path / "02-BLEU")
    no_client = cast(Any, None)  # the Dockerfile is read before the engine is asked
    task.dockerfile_path.write_bytes(b"\xff\xfe")
    with pytest.raises(InfraError, match="Dockerfile is not UTF-8"):
        plan_build(task, client=no_client)
    task.dockerfile_path.unlink()
    with pytest.raises(InfraError, match="has no Dockerfile"):
        plan_build(task, client=no_client)


def test_callers_keep_their_messages(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="judge prompt template does not exist"):
        load_template(tmp_path / "none.md")
    bad = tmp_path / "t.md"
    bad.write_bytes(b"\xff")
    with pytest.raises(UserError, match="judge prompt template is not UTF-8"):
        load_template(bad)
    with pytest.raises(UserError, match=r"a folder, not a results\.txt"):
        load_published_results(tmp_path)
    with pytest.raises(UserError, match="no such file"):
        load_published_results(tmp_path / "results.txt")
    with pytest.raises(TaskLoadError, match=r"no info\.json here"):
        read_info(tmp_path)
    (tmp_path / "info.json").write_bytes(b"{\xff}")
    with pytest.raises(TaskLoadError, match=r"info\.json is not UTF-8"):
        read_info(tmp_path)
