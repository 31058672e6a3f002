"""One identity for systems and tasks: every published spelling names the same thing."""

from __future__ import annotations

import pytest

from lmr_author.domain.identity import (
    Identity,
    canonical_task,
    display_task,
    natural_key,
    paper_index,
    split_system,
    task_name,
)


@pytest.mark.parametrize(
    "spelling",
    ["openhands_agent-gpt4o", "OpenHands/gpt4o", "OpenHands-gpt4o", "openhands_agent/gpt4o"],
)
def test_published_system_spellings_are_one_system(spelling: str) -> None:
    assert Identity().canonical_system(spelling) == "openhands_agent-gpt4o"


def test_base_agent_folders_are_standard_prompting() -> None:
    identity = Identity()
    assert identity.canonical_system("BaseAgent/gpt4.1") == "no_agent-gpt4.1"
    assert identity.system("BaseAgent", "o4mini") == "no_agent-o4mini"


def test_names_the_identity_does_not_know_pass_through() -> None:
    identity = Identity()
    assert identity.canonical_system("gpt-4.1") == "gpt-4.1"
    assert identity.canonical_system("oracle") == "oracle"
    assert split_system("no_agent-gpt-4o") == ("no_agent", "gpt-4o")


def test_user_aliases_win() -> None:
    identity = Identity(models={"gpt-4o": "gpt4o"}, systems={"mine": "no_agent-gpt4o"})
    assert identity.canonical_system("no_agent-gpt-4o") == "no_agent-gpt4o"
    assert identity.canonical_system("mine") == "no_agent-gpt4o"


@pytest.mark.parametrize("spelling", ["01-DPO", "1-DPO", "1", "01", " 1 "])
def test_task_spellings_share_the_paper_index(spelling: str) -> None:
    identity = Identity()
    assert paper_index(spelling) == 1
    assert identity.task_key(spelling) == "1"
    assert identity.canonical_task(spelling, {1: "01-DPO"}) == "01-DPO"


def test_canonical_spelling_is_the_benchmark_folder() -> None:
    assert canonical_task("1-DPO") == "01-DPO"
    assert canonical_task("7") == "07"
    assert canonical_task("19-Native-Sparse-Attention") == "19-Native-Sparse-Attention"
    assert canonical_task("toy") == "toy"
    assert task_name("01-DPO") == "DPO" and task_name("01") == ""
    assert display_task is canonical_task


def test_item_keys_match_across_sources() -> None:
    identity = Identity()
    assert identity.item_key("OpenHands/gpt4o", "1-DPO", 1) == identity.item_key(
        "openhands_agent-gpt4o", "01-DPO", 1
    )
    assert identity.item_key("OpenHands/gpt4o", "1-DPO", 1) != identity.item_key(
        "OpenHands/gpt4o", "1-DPO", 2
    )


def test_natural_order() -> None:
    assert sorted(["11-a", "2-b", "1-c"], key=natural_key) == ["1-c", "2-b", "11-a"]
