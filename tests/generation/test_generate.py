"""`lmr-author generate` against a real local OpenAI-compatible server: predictions that
`eval` reads, a rerun that asks nothing, a dry run that asks nothing, samples, failures
retried on the next run, truncation reported per item."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.domain.benchmark import load_benchmark
from lmr_author.eval_loop import Submission, load_candidates, read_predictions
from tests.generation.generate_support import SAMPLE, answering, correct_sources
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

SOURCES = correct_sources()


@pytest.fixture
def server() -> OpenAIServer:
    with OpenAIServer(answering(SOURCES)) as running:
        yield running  # type: ignore[misc]


def _argv(server: OpenAIServer, out: Path, *extra: str) -> list[str]:
    return [
        "generate", str(SAMPLE), "--out", str(out), "--base-url", server.base_url,
        "--model", "gpt-4o", "--system", "base", "--max-attempts", "1", *extra,
    ]  # fmt: skip


def _json(capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_generate_writes_predictions_eval_reads_and_a_rerun_asks_nothing(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "predictions.jsonl"
    assert main([*_argv(server, out), "--json"]) == 0
    summary = _json(capsys)
    assert server.request_count == 8 and summary["asked"] == 8
    assert summary["usage"] == {
        "prompt_tokens": 8000,
        "completion_tokens": 400,
        "total_tokens": 8400,
    }
    assert summary["estimated_cost_usd"] == pytest.approx((8000 * 2.5 + 400 * 10) / 1e6)
    # eval's own reader and splicer take the file as it is
    predictions = read_predictions(out)
    assert {(p.system, p.task, p.implementation) for p in predictions} == {
        ("base", t.name, i.index) for t in load_benchmark(SAMPLE).tasks for i in t.implementations
    }
    candidates = load_candidates(Submission(out), load_benchmark(SAMPLE).tasks)
    assert all(c.source is not None for c in candidates), [c.reason for c in candidates]
    record = json.loads(out.read_text().splitlines()[0])
    assert record["usage"]["prompt_tokens"] == 1000 and record["setting"] == "full"
    assert record["prompt_tokens_estimate"] > 0 and record["truncations"] == []
    # the prompt is appendix D's, with the retrieval snippet of the full setting
    dpo = next(r for r in server.requests if "preference_loss" in r.prompt)
    assert "=== FILE BEGIN ===" in dpo.prompt and "# Path: dpo/train.py" in dpo.prompt

    before = out.read_bytes()
    assert main([*_argv(server, out), "--json"]) == 0
    assert _json(capsys)["kept"] == 8
    assert server.request_count == 8  # the rerun made no request
    assert out.read_bytes() == before
    out.unlink()  # the predictions are gone: the on-disk cache answers
    assert main([*_argv(server, out), "--json"]) == 0
    assert _json(capsys)["cached"] == 8
    assert server.request_count == 8
    assert read_predictions(out)


def test_dry_run_asks_nothing_and_shows_sizes_and_one_prompt(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.jsonl"
    assert main([*_argv(server, out), "--dry-run", "--setting", "paper-only"]) == 0
    text = capsys.readouterr().out
    assert server.request_count == 0 and not out.exists()
    assert "dry run: 8 requests to make" in text
    assert text.count(" tokens") >= 8 and "05-RoPE#1" in text
    assert "Paper (JSON):" in text and "=== FILE BEGIN ===" not in text  # paper-only
    assert main([*_argv(server, out), "--dry-run", "--json", "--samples", "2"]) == 0
    plan = _json(capsys)
    assert plan["requests"] == 16 and len(plan["items"]) == 16
    assert plan["prompt_tokens_estimate"] == sum(i["prompt_tokens_estimate"] for i in plan["items"])


def test_samples_are_separate_systems_with_their_own_requests(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.jsonl"
    assert main([*_argv(server, out), "--samples", "3", "--task", "01-DPO", "--json"]) == 0
    assert server.request_count == 3
    assert {r.body["temperature"] for r in server.requests} == {0.8}
    systems = sorted(p.system for p in read_predictions(out))
    assert systems == ["base+s1", "base+s2", "base+s3"]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len({r["request_key"] for r in records}) == 3  # the cache tells samples apart
    assert [r["sample"] for r in records] == [1, 2, 3]


def test_requests_without_an_answer_are_asked_again_next_run(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.jsonl"
    server.enqueue(Reply.error(500, "boom"), Reply.error(500, "boom"))
    argv = [*_argv(server, out), "--concurrency", "1", "--json"]
    assert main(argv) == 1
    summary = _json(capsys)
    assert len(summary["failed"]) == 2 and "HTTP 500" in summary["failed"][0]
    assert len(read_predictions(out)) == 6  # whole lines only, the answered ones
    assert main(argv) == 0
    assert _json(capsys)["asked"] == 2 and server.request_count == 10


def test_truncation_is_reported_per_item(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.jsonl"
    argv = [*_argv(server, out), "--task", "07-IntegratedGradients"]
    assert main([*argv, "--dry-run", "--json"]) == 0
    size = _json(capsys)["items"][0]["prompt_tokens_estimate"]
    assert main([*argv, "--max-prompt-tokens", str(size - 1)]) == 0
    text = capsys.readouterr().out
    assert "07-IntegratedGradients#1: prompt truncated to fit the budget: " in text
    record = json.loads(out.read_text().splitlines()[0])
    assert record["truncations"] and "tokens)" in record["truncations"][0]


def test_unspliceable_answers_are_recorded_and_eval_scores_them_as_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.jsonl"
    with OpenAIServer(Reply.text("I cannot help with that.")) as server:
        assert main([*_argv(server, out), "--task", "03-TopP"]) == 1  # a finding
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("1 of 1 answers cannot be spliced")
    assert printed[1].startswith("cannot be spliced: 03-TopP#1 (base): ")
    record = json.loads(out.read_text())
    assert record["splice_error"]
    candidates = load_candidates(Submission(out), load_benchmark(SAMPLE, ["03-TopP"]).tasks)
    assert candidates[0].source is None and "cannot splice" in candidates[0].reason


def test_unspliceable_answers_are_counted_first_and_listed_in_task_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def reply(request: RecordedRequest) -> Reply:
        # The first task answers last: lines in completion order would put it at the end.
        slow = "preference_loss" in request.prompt
        return Reply.text("I cannot help with that.", delay_s=0.3 if slow else 0.0)

    out = tmp_path / "p.jsonl"
    with OpenAIServer(reply) as server:
        assert main([*_argv(server, out), "--concurrency", "4"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("8 of 8 answers cannot be spliced")
    items = [line.split()[3] for line in printed if line.startswith("cannot be spliced: ")]
    expected = [
        f"{t.name}#{i.index}" for t in load_benchmark(SAMPLE).tasks for i in t.implementations
    ]
    assert items == expected


def test_no_endpoint_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["generate", str(SAMPLE), "--model", "m", "--out", str(tmp_path / "p")]) == 2
    assert "no LLM endpoint" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"task": 1}\n')
    assert main(["generate", str(SAMPLE), "--model", "m", "--out", str(bad), "--dry-run"]) == 2
    assert "line 1" in capsys.readouterr().err


def test_a_prompt_that_never_fits_is_listed_and_the_others_are_asked(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = tmp_path / "bench"
    for name in ("01-DPO", "03-TopP"):
        shutil.copytree(SAMPLE / name, bench / name)
    info = json.loads((bench / "01-DPO" / "info.json").read_text())
    info["implementations"][0]["instruction"] += " Be careful." * 8000  # never cut
    (bench / "01-DPO" / "info.json").write_text(json.dumps(info))
    out = tmp_path / "p.jsonl"
    argv = [*_argv(server, out), "--max-prompt-tokens", "20000"]
    argv[1] = str(bench)
    assert main([*argv, "--dry-run"]) == 0
    assert "not asked, over the budget: 01-DPO#1" in capsys.readouterr().out
    assert server.request_count == 0
    assert main([*argv, "--json"]) == 1
    summary = _json(capsys)
    assert len(summary["too_long"]) == 1 and "over the budget of 20000" in summary["too_long"][0]
    assert [p.task for p in read_predictions(out)] == ["03-TopP"]
    assert server.request_count == 1


def test_many_cuts_are_one_short_phrase(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(SAMPLE / "07-IntegratedGradients", bench / "07-IntegratedGradients")
    pages = {str(n): f"Page {n}. " + "Attribution words here. " * 150 for n in range(1, 31)}
    paper = bench / "07-IntegratedGradients" / "attribution-toolkit" / "paper.json"
    paper.write_text(json.dumps(pages))
    argv = [*_argv(server, tmp_path / "p.jsonl"), "--dry-run"]
    argv[1] = str(bench)
    assert main([*argv, "--json"]) == 0
    size = _json(capsys)["items"][0]["prompt_tokens_estimate"]
    budget = ["--max-prompt-tokens", str(size // 3)]
    assert main([*argv, "--json", *budget]) == 0
    cuts = _json(capsys)["items"][0]["truncations"]
    assert len(cuts) > 10
    assert main([*argv, *budget]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("07-"))
    assert f"truncated: {len(cuts)} cuts, -" in line and "--json lists each" in line
    assert len(line) < 150 + len(cuts[0]) + len(cuts[-1])
