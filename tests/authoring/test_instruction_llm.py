"""The LLM instruction draft, against a real local OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

from lmr_author.authoring.instruction_llm import draft_instruction_from_paper
from lmr_author.authoring.spec import GoalSpec
from lmr_author.llm.client import ChatClient, ClientSettings
from tests.support.openai_server import OpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "benchmark" / "01-DPO"
GOLDEN_REPO = ROOT / "benchmark" / "_sources" / "tasks" / "01-DPO" / "repo"


def _pages() -> dict[str, str]:
    info = json.loads((TASK / "info.json").read_text(encoding="utf-8"))
    paper = TASK / info["repo_folder_name"] / "paper.json"
    return dict(json.loads(paper.read_text(encoding="utf-8")))


def _goal() -> GoalSpec:
    info = json.loads((TASK / "info.json").read_text(encoding="utf-8"))
    impl = info["implementations"][0]
    return GoalSpec(impl["goal_file"], impl["goal_function"], impl.get("class_name", ""))


def test_llm_draft_gets_the_passage_and_cites_the_section() -> None:
    with OpenAIServer() as server:
        server.enqueue(Reply(content="Implement the `preference_loss` function as described."))
        client = ChatClient(ClientSettings(api_key="k", model="m", base_url=server.base_url))
        try:
            draft = draft_instruction_from_paper(
                GOLDEN_REPO, _goal(), _pages(), complete=lambda m: client.complete(m).text
            )
        finally:
            client.close()
        [request] = server.requests
    prompt = request.body["messages"][1]["content"]
    assert "def preference_loss(" in prompt and "Signature:" in prompt
    assert draft.source == "llm" and draft.section
    assert draft.text.startswith("Implement the `preference_loss` function")
    assert f"Section “{draft.section}”" in draft.text  # cited even when the model did not


def test_without_an_endpoint_the_template_draft_is_kept() -> None:
    draft = draft_instruction_from_paper(GOLDEN_REPO, _goal(), _pages(), complete=None)
    assert draft.source == "template"
    assert "based on the method described in paper.pdf" in draft.text
