"""A model server that lacks the endpoint Inspect calls: the sample fails saying what to
use instead, for the prompting solver and the agent; and Inspect's command line leaves
batching and its answer cache off unless asked (click 8.4.0 turned them on).

The server is the real chat-completions test server on loopback, which answers 404 to
every other path; no Docker is needed, as no answer reaches the scorer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog

from lmr_author.inspect_bridge.endpoints import missing_endpoint
from lmr_author.inspect_bridge.solvers import lmr_agent
from lmr_author.inspect_bridge.task import lmr_bench
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "benchmark"


def _failed(log: EvalLog) -> str:
    """The error of a log whose only sample failed."""
    assert log.status == "error"
    assert log.error is not None
    return log.error.message


def _run(task: Task, server: OpenAIServer, tmp_path: Path, model: str, **args: Any) -> EvalLog:
    (log,) = inspect_eval(
        task,
        model=model,
        model_base_url=server.base_url,
        log_dir=str(tmp_path / "logs"),
        display="none",
        **args,
    )
    return log


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    with OpenAIServer() as running:
        yield running


def test_a_server_without_the_responses_api_says_what_to_use(
    server: OpenAIServer, tmp_path: Path
) -> None:
    task = lmr_bench(benchmark=str(SAMPLE), tasks="01-DPO", output=str(tmp_path / "runs"))
    # Inspect sends gpt-5 model names to the Responses API.
    message = _failed(_run(task, server, tmp_path, "openai/gpt-5-mini"))
    assert f"{server.base_url}/responses" in message
    assert "Responses API" in message
    assert "--model openai-api/NAME/MODEL" in message
    assert "-M responses_api=false" in message
    assert "docs/inspect.md" in message
    assert server.requests == []  # nothing went to Chat Completions
    assert server.refused and set(server.refused) == {"/v1/responses"}


def test_the_agent_says_it_too(server: OpenAIServer, tmp_path: Path) -> None:
    task = Task(dataset=[Sample(input="write the function")], solver=lmr_agent())
    message = _failed(_run(task, server, tmp_path, "openai/o3-mini"))
    assert "Responses API" in message and "-M responses_api=false" in message


def _status(code: int, path: str) -> openai.APIStatusError:
    """An error answer as the openai client raises it."""
    import httpx

    request = httpx.Request("POST", f"http://127.0.0.1:9/v1{path}?x=1")
    response = httpx.Response(code, request=request, json={"error": {"message": "m"}})
    return openai.APIStatusError("m", response=response, body=None)


def test_batching_against_a_server_without_the_batch_api_is_explained() -> None:
    # Inspect's batcher fails the whole eval with the raw error (its worker's), so only
    # the sample's copy, shown as a sample error, carries this: tested without an eval.
    advice = missing_endpoint(_status(404, "/files"))
    assert advice is not None
    assert "http://127.0.0.1:9/v1/files " in advice  # the URL, without its query string
    assert "--batch=false" in advice and "openai-api/NAME/MODEL" in advice


def test_other_errors_are_left_alone_and_a_wrapped_404_is_found() -> None:
    assert missing_endpoint(_status(429, "/responses")) is None
    assert missing_endpoint(RuntimeError("no status")) is None
    wrapped = RuntimeError("while generating")
    wrapped.__cause__ = _status(404, "/chat/completions")
    advice = missing_endpoint(wrapped)
    assert advice is not None
    assert "ends in /v1" in advice and "model name" in advice


def test_inspects_command_line_leaves_batching_and_the_cache_off() -> None:
    """With click 8.4.0, every `inspect eval` batched and cached answers for 7 days:
    click's get_parameter_source() was None in Inspect's option callbacks (click issue
    3458, fixed in 8.4.1), so "not given" read as "given"."""
    from inspect_ai._cli.eval import eval_command

    context = eval_command.make_context("eval", ["lmr_author/lmr_bench"])
    assert (context.params["batch"], context.params["cache"]) == (None, None)
