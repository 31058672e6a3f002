"""A misbehaving server: no traceback, nothing bad cached, healed servers are asked again.

Each run (system) is answered by the test server according to its system name, so the
outcome per run does not depend on the order the worker threads ask in.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from lmr_author.cli import main
from lmr_author.judge import load_judgments
from lmr_author.util.locations import cache_dir
from tests.support.eval_output import RunSpec, build_eval_output
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

BAD = {
    "notjson": Reply.not_json(),
    "html": Reply.html(),
    "nochoices": Reply.no_choices(),
    "prose": Reply.text("I think this looks mostly fine but I am not sure."),
    "http500": Reply.error(500, "internal trouble"),
    "ratelimit": Reply.error(429, "too many requests"),
}


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _by_system(request: RecordedRequest) -> Reply:
    text = " ".join(str(message.get("content", "")) for message in request.messages)
    for system, reply in BAD.items():
        if f"'{system}/01-Toy'" in text:
            return reply
    return Reply.answer(3)


def _cached_entries() -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in cache_dir("judge").rglob("*.json")]


def test_bad_answers_cause_no_traceback_are_not_cached_and_are_asked_again(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec(name) for name in [*BAD, "good"]])
    server.default = _by_system
    # One attempt each: 4 failures that count for the circuit breaker (429 does not), fewer
    # than the 8 in a row that open it, whatever order the workers ask in.
    args = ["judge", str(output), "--base-url", server.base_url, "--max-attempts", "1"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    first = captured.err.splitlines()[0]
    assert "5 run(s) got no answer" in first  # notjson, html, nochoices, 500, 429
    for cause in ("not JSON", "HTML page", "no choices", "HTTP 500", "HTTP 429"):
        assert cause in first
    assert "1 answer(s) could not be read" in captured.err.splitlines()[1]  # prose
    # Only the one real answer was cached.
    assert [entry["category"] for entry in _cached_entries()] == [3]
    table = {line.split()[0]: line.split() for line in captured.out.splitlines()[1:-1]}
    assert table["prose"][-2:] == ["1", "0"]  # unparsed 1, no answer 0
    assert table["html"][-2:] == ["0", "1"]
    assert table["good"][-2:] == ["0", "0"]

    server.default = Reply.answer(2)  # healed
    before = server.request_count
    assert main(args) == 0
    capsys.readouterr()
    assert server.request_count - before == len(BAD)  # each bad run asked again, once
    labels = {j.system: j.category for j in load_judgments(output)}
    assert labels == {**dict.fromkeys(BAD, 2), "good": 3}
    assert sorted(entry["category"] for entry in _cached_entries()) == [2] * len(BAD) + [3]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_server_that_is_down_stops_early_with_the_cause_then_heals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec(f"s{n:02}") for n in range(24)])
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    args = ["judge", str(output), "--base-url", base_url, "--concurrency", "2"]
    assert main(args) == 1
    captured = capsys.readouterr()
    first = captured.err.splitlines()[0]
    assert "stopped early" in first and "Connection refused" in first
    assert f"127.0.0.1:{port}/v1/chat/completions" in first
    assert "Traceback" not in captured.err
    summary = json.loads((output / "judgments" / "summary.json").read_text())
    # The breaker opens after 8 failed attempts in a row: far fewer than 24 x 5.
    assert summary["requests"] <= 8 + 2  # +1 per worker already on the wire
    assert summary["not_asked"] >= 20
    assert _cached_entries() == []

    with OpenAIServer(port=port, default=Reply.answer(1)) as healed:
        assert main(args) == 0
        capsys.readouterr()
        assert healed.request_count == 24
    assert [j.category for j in load_judgments(output)] == [1] * 24


def test_dry_run_counts_requests_tokens_and_cost_and_asks_nothing(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec("a"), RunSpec("b"), RunSpec("c")])
    base = ["judge", str(output), "--base-url", server.base_url]
    assert main([*base, "--dry-run", "--model", "gpt-4o"]) == 0
    out = capsys.readouterr().out
    assert server.request_count == 0
    assert "3 to ask" in out and "at least 3 to" in out
    assert "estimated cost: $" in out and "$2.5 / $10" in out
    assert "the prompt for a/01-Toy/1:" in out and "----- user -----" in out
    assert main([*base, "--dry-run", "--json", "--model", "local-llama"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["requests"] == 3 and plan["estimated_cost_usd"] is None
    assert plan["estimated_usage"]["completion_tokens"] == 3 * 400
    prompt_chars = sum(len(m["content"]) for m in plan["sample_messages"])
    assert plan["estimated_usage"]["prompt_tokens"] >= 3 * prompt_chars // 4
    priced = [*base, "--dry-run", "--json", "--model", "local-llama", "--price-in", "1"]
    assert main([*priced, "--price-out", "1000000"]) == 0
    assert json.loads(capsys.readouterr().out)["estimated_cost_usd"] >= 3 * 400
    # After judging a (really), only b and c remain to ask.
    assert main([*base, "--model", "gpt-4o"]) == 0
    capsys.readouterr()
    (output / "judgments" / "b").rename(tmp_path / "gone")
    assert main([*base, "--dry-run", "--json", "--model", "gpt-4o"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert (plan["kept"], plan["cached"], plan["requests"]) == (2, 1, 0)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_numeric_options_are_checked_by_argparse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(["judge", str(tmp_path), "--timeout", value]) == 2
    assert "argument --timeout:" in capsys.readouterr().err


def test_a_live_judge_answering_in_the_trailing_digit_shape_is_read(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    output = build_eval_output(tmp_path, [RunSpec(f"s{n}") for n in range(4)])
    shape = Path(__file__).parent / "published" / "judge-output-trailing-digit.txt"
    server.default = Reply.text(shape.read_text(encoding="utf-8"))
    assert main(["judge", str(output), "--base-url", server.base_url]) == 0
    capsys.readouterr()
    assert server.request_count == 4  # read at once: no second ask
    assert [j.category for j in load_judgments(output)] == [2] * 4


def test_a_new_model_with_the_server_down_shows_no_earlier_judgments_as_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 7: gpt-4o judged all 8; m2 got no answer, so m2's table counts 0 judged."""
    output = build_eval_output(tmp_path, [RunSpec(f"s{n}") for n in range(8)])
    port = _free_port()
    args = ["judge", str(output), "--base-url", f"http://127.0.0.1:{port}/v1", "--json"]
    with OpenAIServer(port=port, default=Reply.answer(3)):
        assert main([*args, "--model", "gpt-4o"]) == 0
    capsys.readouterr()
    assert main([*args, "--model", "m2"]) == 1  # the server is down now
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert {name: (s["judged"], s["unanswered"]) for name, s in systems.items()} == {
        f"s{n}": (0, 1) for n in range(8)
    }
    # Asking gpt-4o again (down server or not) keeps and counts its own judgments.
    assert main([*args, "--model", "gpt-4o"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert all(s["judged"] == 1 and s["counts"]["CC"] == 1 for s in systems.values())
