from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmr_author.authoring.spec import GoalSpec, TaskSpec, draft_path, load_spec, save_spec
from lmr_author.util.errors import UserError


def test_spec_round_trip(tmp_path: Path) -> None:
    spec = TaskSpec(folder_name="07-Toy", source="/x", goals=[GoalSpec("a.py", "f", line=3)])
    save_spec(spec, tmp_path / "s.json")
    assert load_spec(tmp_path / "s.json") == spec


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({"goals": [{"goal_file": "a.py"}]}, "$.goals[0].goal_function"),
        ({"bogus": 1}, "$"),
        (
            {"goals": [{"goal_file": "a.py", "goal_function": "f", "mask_style": "x"}]},
            "$.goals[0].mask_style",
        ),
        ({"goals": {}}, "$.goals"),
    ],
)
def test_bad_spec_names_the_json_path(tmp_path: Path, document: object, where: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(document))
    with pytest.raises(UserError) as error:
        load_spec(path)
    assert error.value.where == where
    assert str(path) in str(error.value)


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{\n  "folder_name": \n}')
    with pytest.raises(UserError, match="line 3, column 1"):
        load_spec(path)


def test_draft_path_is_in_the_user_data_folder(tmp_path: Path) -> None:
    path = draft_path("07 My/Task")
    assert path.name == "07_My_Task.json"
    assert "drafts" in path.parts


def test_the_base_image_is_kept_in_the_draft_and_changes_what_is_verified(
    tmp_path: Path,
) -> None:
    from lmr_author.authoring.save import content_key

    spec = TaskSpec(folder_name="07-Toy", source=str(tmp_path), base_image="lmr-standin:recipe")
    save_spec(spec, tmp_path / "s.json")
    assert load_spec(tmp_path / "s.json").base_image == "lmr-standin:recipe"
    # A verification made on one base image is not one made on another.
    assert content_key(spec) != content_key(TaskSpec(folder_name="07-Toy", source=str(tmp_path)))
    (tmp_path / "s.json").write_text(json.dumps({"base_image": 3}))
    with pytest.raises(UserError) as error:
        load_spec(tmp_path / "s.json")
    assert error.value.where == "$.base_image"
