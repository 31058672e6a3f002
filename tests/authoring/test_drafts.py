"""Stale state: what a draft keeps and what a new checkout or a saved task resets."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from lmr_author.authoring.drafts import apply_checkout, mark_finished, resume_draft, save_draft
from lmr_author.authoring.paper_pdf import make_paper_pdf
from lmr_author.authoring.paper_title import guess_paper_title
from lmr_author.authoring.save import fill_identity
from lmr_author.authoring.spec import TaskSpec, draft_path
from lmr_author.util.errors import UserError
from tests.support.git_repo import commit_files


def test_second_checkout_does_not_keep_the_first_folder_name(tmp_path: Path) -> None:
    plain = tmp_path / "plain-folder"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    real = tmp_path / "RealRepo"
    commit_files(real, {"b.py": "y = 2\n"}, "init")
    spec = TaskSpec()
    apply_checkout(spec, str(plain))
    assert spec.repo_folder_name == "plain-folder"
    apply_checkout(spec, str(real))
    assert spec.repo_folder_name == "RealRepo"
    assert spec.repo_commit != ""


def test_finished_draft_is_not_resumed_but_keeps_the_benchmark_folder_and_base(
    tmp_path: Path,
) -> None:
    spec = TaskSpec(
        folder_name="07-X", benchmark_dir=str(tmp_path / "bench"), base_image="lmr-standin:recipe"
    )
    path = save_draft(spec, "current")
    assert resume_draft("current").folder_name == "07-X"
    mark_finished(spec, path)
    fresh = resume_draft("current")
    assert fresh.folder_name == "" and fresh.benchmark_dir == str(tmp_path / "bench")
    assert fresh.base_image == "lmr-standin:recipe"


def test_resumed_draft_keeps_its_paper_and_title(tmp_path: Path) -> None:
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf("A Title", [("Intro", "text")], pdf)
    save_draft(TaskSpec(paper_pdf=str(pdf), paper_name="A Title", step="paper"), "d")
    resumed = resume_draft("d")
    assert (resumed.paper_pdf, resumed.paper_name, resumed.step) == (str(pdf), "A Title", "paper")


def test_draft_folder_is_private() -> None:
    folder = draft_path("x").parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_identity_is_derived_never_null(tmp_path: Path) -> None:
    spec = TaskSpec(folder_name="07-MyTask", year=2023)
    assert fill_identity(spec) == ["instance_id 7 (from the folder name)"]
    assert spec.instance_id == 7
    with pytest.raises(UserError, match="no year"):
        fill_identity(TaskSpec(folder_name="08-X"))


def test_title_from_metadata_then_from_the_largest_lines(tmp_path: Path) -> None:
    import pymupdf

    long_title = "Robust Outlier Scores With a Title Long Enough to Need Two Lines on Page One"
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf(long_title, [("Method", "We use the median.")], pdf)
    with pymupdf.open(pdf) as doc:
        doc.set_metadata({"title": "Microsoft Word - draft.docx"})
        doc.save(tmp_path / "placeholder.pdf")
    assert guess_paper_title(pdf) == long_title
    assert guess_paper_title(tmp_path / "placeholder.pdf") == long_title


def test_new_draft_fields_are_type_checked(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="'seed' must be true or false") as caught:
        TaskSpec.from_json({"seed": "yes"}, file=tmp_path / "d.json")
    assert caught.value.render().count("$.seed") == 1
    spec = TaskSpec.from_json({"requirements": "pandas\n", "gpu": True})
    assert (spec.requirements, spec.gpu) == ("pandas\n", True)


def test_clone_cache_and_environment_staging_are_private(tmp_path: Path) -> None:
    from lmr_author.authoring.image_build import stage_environment
    from lmr_author.authoring.source import resolve_source

    repo = tmp_path / "Repo"
    commit_files(repo, {"m.py": "import numpy\n"}, "init")
    clone = resolve_source(repo.as_uri(), "main")
    assert stat.S_IMODE(clone.path.parent.stat().st_mode) == 0o700
    stage = stage_environment(TaskSpec(folder_name="07-X", source=str(repo), repo_path=str(repo)))
    assert stat.S_IMODE(stage.stat().st_mode) == 0o700
    assert (stage / "Repo" / "m.py").is_file() and (stage / "requirements.txt").is_file()
