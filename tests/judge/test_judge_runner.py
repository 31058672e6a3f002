"""Judging eval output folders end to end against a real local chat-completions server."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lmr_author.judge import load_judgments, run_judging
from lmr_author.judge.config import JudgeConfig
from lmr_author.judge.prompt import REASK
from lmr_author.util.errors import UserError
from tests.support.eval_output import RunSpec, build_eval_output, candidate_source
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

Config = Callable[..., JudgeConfig]


def _one(tmp_path: Path, system: str = "sys") -> Path:
    return build_eval_output(tmp_path, [RunSpec(system)])


def _judgment(output: Path) -> dict[str, object]:
    (path,) = (output / "judgments").glob("*/*/*.json")
    data: dict[str, object] = json.loads(path.read_text())
    return data


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        (Reply.answer(3, ["all good"]), "CC"),
        (Reply.answer("2", ["off by one"], fenced=True), "LC"),
        (Reply.answer(1, ["wrong"], prose="Let me know if you need more."), "LI"),
    ],
)
def test_readable_answers(
    tmp_path: Path, server: OpenAIServer, make_config: Config, reply: Reply, label: str
) -> None:
    output = _one(tmp_path)
    server.enqueue(reply)
    summary = run_judging(output, make_config())
    data = _judgment(output)
    shared_keys = {
        "schema_version", "system", "task", "implementation", "candidate_sha256", "category",
        "label", "rationale", "raw", "model", "endpoint", "scope", "prompt_sha256", "usage",
        "cached",
    }  # fmt: skip
    assert shared_keys <= set(data)
    assert data["label"] == label
    assert data["schema_version"] == 1
    assert (data["system"], data["task"], data["implementation"]) == ("sys", "01-Toy", 1)
    assert data["model"] == "judge-model"
    assert data["endpoint"] == server.base_url
    assert data["cached"] is False
    assert data["raw"] == reply.content
    assert isinstance(data["usage"], dict) and data["usage"]["total_tokens"] > 0
    assert server.request_count == 1
    assert (summary.asked, summary.cached, summary.unparsed) == (1, 0, 0)
    assert summary.usage.total_tokens == data["usage"]["total_tokens"]
    saved = json.loads((output / "judgments/summary.json").read_text())
    assert saved["usage"]["total_tokens"] == data["usage"]["total_tokens"]
    assert [j.label for j in load_judgments(output)] == [label]  # summary.json is not one
    prompt = server.requests[0].prompt
    assert "Implement scale in toy.py" in prompt
    assert "golden_files/toy_golden.py" in prompt
    assert "offset = 'sys/01-Toy'" in prompt  # the candidate is shown


def test_garbage_then_good_asks_again_once(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = _one(tmp_path)
    server.enqueue(Reply.text("I believe this is mostly right."), Reply.answer(2))
    summary = run_judging(output, make_config())
    assert server.request_count == 2
    followup = server.requests[1].messages
    assert followup[-2] == {"role": "assistant", "content": "I believe this is mostly right."}
    assert followup[-1]["content"] == REASK
    data = _judgment(output)
    assert data["label"] == "LC"
    assert summary.unparsed == 0


def test_garbage_twice_is_unparsed_with_raw_text(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = _one(tmp_path)
    server.enqueue(Reply.text("no idea"), Reply.text("still no idea"))
    summary = run_judging(output, make_config())
    assert server.request_count == 2
    data = _judgment(output)
    assert (data["label"], data["category"]) == ("unparsed", None)
    assert "no idea" in str(data["raw"]) and "still no idea" in str(data["raw"])
    assert "error" not in data
    assert summary.unparsed == 1 and summary.errors == 0
    # An unreadable answer is not an answer: neither cached nor kept, asked again.
    server.enqueue(Reply.answer(2))
    again = run_judging(output, make_config())
    assert server.request_count == 3
    assert (again.asked, again.unparsed) == (1, 0)
    assert _judgment(output)["category"] == 2


def test_repeated_500s_are_recorded_and_the_batch_continues(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a"), RunSpec("b"), RunSpec("c")])

    def script(request: RecordedRequest) -> Reply:
        return Reply.error(500, "down") if "'b/01-Toy'" in request.prompt else Reply.answer(3)

    server.default = script
    summary = run_judging(output, make_config(max_attempts=3))
    assert server.request_count == 2 + 3  # a and c once, b three times
    labels = {j.system: (j.label, j.error) for j in load_judgments(output)}
    assert labels["a"] == ("CC", None) and labels["c"] == ("CC", None)
    assert labels["b"][0] == "unparsed" and "500" in str(labels["b"][1])
    assert (summary.errors, summary.unparsed, summary.retries) == (1, 0, 2)
    assert summary.systems["b"].unanswered == 1  # the table counts it too
    assert list(summary.failures.values()) == [1] and "HTTP 500" in next(iter(summary.failures))
    assert summary.systems["b"].judge.total == 0  # failed judgments do not count

    # The failed judgment is asked again next time; the others come from disk.
    server.default = Reply.answer(2)
    second = run_judging(output, make_config())
    assert (second.kept, second.asked) == (2, 1)
    assert {j.system: j.label for j in load_judgments(output)}["b"] == "LC"


def test_slow_answer_times_out_then_retries(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = _one(tmp_path)
    server.enqueue(Reply.answer(1, delay_s=2.0), Reply.answer(3))
    summary = run_judging(output, make_config(timeout_s=0.3))
    assert _judgment(output)["label"] == "CC"
    assert (summary.requests, summary.retries) == (2, 1)


def test_concurrency_is_bounded(tmp_path: Path, server: OpenAIServer, make_config: Config) -> None:
    output = build_eval_output(tmp_path, [RunSpec(f"s{i}") for i in range(9)])
    server.default = Reply.answer(3, delay_s=0.2)
    run_judging(output, make_config(concurrency=3))
    assert server.request_count == 9
    assert server.max_in_flight == 3


def test_progress_is_reported_through_the_callback(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec(f"s{i}") for i in range(4)])
    server.default = Reply.answer(3)
    seen: list[tuple[int, int]] = []
    run_judging(output, make_config(concurrency=2), on_progress=lambda *n: seen.append(n))
    assert seen == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]


def test_cache_hits_make_zero_requests(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a"), RunSpec("b", verdict="fail")])
    first = run_judging(output, make_config())
    assert server.request_count == 2

    copy = tmp_path / "copy"
    shutil.copytree(output, copy, ignore=shutil.ignore_patterns("judgments"))
    second = run_judging(copy, make_config())
    assert server.request_count == 2
    assert (second.cached, second.asked, second.requests) == (2, 0, 0)
    assert all(j.cached for j in load_judgments(copy))
    assert second.usage.total_tokens == 0
    assert second.usage_total == first.usage_total

    forced = run_judging(output, make_config(), force=True)  # --force bypasses the cache
    assert (forced.cached, forced.asked, server.request_count) == (0, 2, 4)
    no_cache = run_judging(copy, make_config(use_cache=False), force=True)
    assert (no_cache.asked, server.request_count) == (2, 6)
    other_model = run_judging(copy, make_config(model="other"))
    assert (other_model.asked, server.request_count) == (2, 8)


def test_resume_and_changed_candidate(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a"), RunSpec("b")])
    run_judging(output, make_config())
    again = run_judging(output, make_config())
    assert (again.kept, again.asked, again.cached, server.request_count) == (2, 0, 0, 2)
    (output / "runs/b/01-Toy/1/candidate.py").write_text(candidate_source("changed"))
    changed = run_judging(output, make_config())
    assert (changed.kept, changed.asked, server.request_count) == (1, 1, 3)


def test_summary_per_system(tmp_path: Path, server: OpenAIServer, make_config: Config) -> None:
    runs = [
        RunSpec("gpt", "01-Toy", 1, "pass"),
        RunSpec("gpt", "01-Toy", 2, "fail"),
        RunSpec("gpt", "02-Two", 1, "error"),
        RunSpec("gpt", "02-Two", 2, "pass"),
        RunSpec("agent", "01-Toy", 1, "fail"),
    ]
    output = build_eval_output(tmp_path, runs)
    answers = {"gpt/01-Toy": 3, "gpt/02-Two": 1, "agent/01-Toy": 2}

    def script(request: RecordedRequest) -> Reply:
        for key, category in answers.items():
            if f"'{key}'" in request.prompt:
                return Reply.answer(category)
        return Reply.text("??")

    server.default = script
    summary = run_judging(output, make_config())
    gpt = summary.systems["gpt"]
    assert (gpt.runs, gpt.passed, gpt.unit_tests.percent, gpt.judge.total) == (4, 2, 50.0, 4)
    assert [gpt.judge.percent(label) for label in ("CC", "LC", "LI")] == [50.0, 0.0, 50.0]
    agent = summary.systems["agent"]
    assert (agent.unit_tests.percent, agent.judge.percent("LC")) == (0.0, 100.0)
    assert summary.to_json()["systems"]["gpt"]["percent"]["CC"] == 50.0


def test_broken_runs_are_reported_not_fatal(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a"), RunSpec("b"), RunSpec("c")])
    (output / "runs/b/01-Toy/1/candidate.py").unlink()
    (output / "runs/c/01-Toy/1/run.json").write_text("{not json")
    bad_task = output / "runs/d/99-Gone/1"
    shutil.copytree(output / "runs/a/01-Toy/1", bad_task)
    run = json.loads((bad_task / "run.json").read_text())
    (bad_task / "run.json").write_text(json.dumps({**run, "system": "d", "task": "99-Gone"}))
    summary = run_judging(output, make_config())
    assert summary.asked == 1
    assert len(summary.problems) == 3
    assert any("99-Gone" in p for p in summary.problems)


def test_fatal_endpoint_error_stops_with_user_error(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec(f"s{i}") for i in range(6)])
    server.default = Reply.error(401, "bad key")
    with pytest.raises(UserError, match="refused"):
        run_judging(output, make_config(concurrency=1))
    assert server.request_count == 1


def test_bad_output_folder(tmp_path: Path, make_config: Config) -> None:
    with pytest.raises(UserError, match=r"results\.json"):
        run_judging(tmp_path, make_config())


def test_file_scope_shows_whole_files(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = _one(tmp_path)
    run_judging(output, make_config(scope="file"))
    assert "def helper" in server.requests[0].prompt
    assert _judgment(output)["scope"] == "file"


def test_function_scope_uses_the_goal_function(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    pytest.importorskip("lmr_author.cst.extract")
    output = _one(tmp_path)
    run_judging(output, make_config(scope="function"))
    prompt = server.requests[0].prompt
    assert "def scale" in prompt and "def helper" not in prompt
    assert _judgment(output)["scope"] == "function"


def test_function_scope_falls_back_when_the_candidate_lost_the_function(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a", candidate="def other():\n    pass\n")])
    run_judging(output, make_config(scope="function"))
    assert "def other" in server.requests[0].prompt
    assert _judgment(output)["scope"] == "file"


def test_unspliced_prediction_is_judged(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a", verdict="error")])
    folder = output / "runs/a/01-Toy/1"
    (folder / "candidate.py").unlink()
    (folder / "prediction.py").write_text("def scale(values, factor):\n    return None\n")
    summary = run_judging(output, make_config())
    assert summary.asked == 1 and not summary.problems
    assert "return None" in server.requests[0].prompt


def test_an_eval_of_one_task_folder_is_judged(
    tmp_path: Path, server: OpenAIServer, make_config: Config
) -> None:
    """'eval TASK_FOLDER' (and Inspect's -T benchmark=TASK_FOLDER) records the task
    folder itself as the benchmark in results.json."""
    output = _one(tmp_path)
    results = output / "results.json"
    data = json.loads(results.read_text())
    data["benchmark"] = str(tmp_path / "benchmark" / "01-Toy")
    results.write_text(json.dumps(data))
    server.enqueue(Reply.answer(3))
    summary = run_judging(output, make_config())
    assert (summary.asked, server.request_count) == (1, 1)
    assert _judgment(output)["label"] == "CC"
