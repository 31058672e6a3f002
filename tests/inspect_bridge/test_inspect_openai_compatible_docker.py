"""docs/inspect.md's two ways to an OpenAI-compatible server, run as documented: the real
`inspect eval` command line against a local server that speaks Chat Completions only.

One small task whose test reports values and prints as it goes; the server answers a
wrong function, which is spliced, run in Docker and judged, and the Inspect log carries
the failure's values and the test's output. Both documented models run in one command
(`--model A,B`), so the task image is built and Inspect started once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from lmr_author.domain.task import Task
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

pytestmark = [pytest.mark.docker, pytest.mark.slow]

#: The documented models: Inspect's OpenAI-compatible provider, and its OpenAI provider
#: for a model name it would send to the Responses API, kept on Chat Completions.
#: The `inspect` command the docs give, from this environment. (`python -m inspect_ai`
#: run from a source checkout reads the checkout's stale lmr_author.egg-info, where
#: Inspect sees no editable install and registers the task without its namespace.)
INSPECT = str(Path(sys.executable).with_name("inspect"))
COMPATIBLE = "openai-api/local/served-model"
OPENAI = "openai/gpt-5-mini"
JUDGE_MODEL = "judge-model"

VALUES_TEST = textwrap.dedent(
    """\
    import sys

    from calc import add

    CASES = [(2, 3, 5), (-1, 1, 0)]
    print(f"checking add on {len(CASES)} cases", file=sys.stderr)
    for a, b, want in CASES:
        got = add(a, b)
        assert got == want, f"add({a}, {b}) = {got!r}, expected {want!r}"
    """
)
WRONG = '```python\ndef add(a, b):\n    """Return the sum of a and b."""\n    return a - b\n```'


def _answer(request: RecordedRequest) -> Reply:
    if request.body.get("model") == JUDGE_MODEL:
        return Reply.answer(1, ["it subtracts where the paper adds"])
    return Reply.text(WRONG)


def test_both_documented_ways_reach_a_chat_completions_only_server(
    tmp_path: Path, docker_client: Any, task_factory: Callable[..., Task]
) -> None:
    task = task_factory(tag="oai", test_source=VALUES_TEST)
    (task.repo_dir / "paper.json").write_text(json.dumps({"1": "We add two numbers."}))
    logs = tmp_path / "logs"
    with OpenAIServer(_answer) as server:
        env = {
            **os.environ,
            "LOCAL_BASE_URL": server.base_url,
            "LOCAL_API_KEY": "test",
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test",
            "OPENAI_MODEL": JUDGE_MODEL,
        }
        command = [
            INSPECT, "eval", "lmr_author/lmr_bench",
            "-T", f"benchmark={task.path}", "-T", "judge=true",
            "-T", f"output={tmp_path / 'runs'}", "-T", "timeout=60",
            "--model", f"{COMPATIBLE},{OPENAI}", "-M", "responses_api=false",
            "--log-dir", str(logs), "--display", "none",
        ]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.refused == []  # nothing went to the Responses, Files or Batch APIs
    asked = sorted({str(r.body.get("model")) for r in server.requests})
    assert asked == sorted(["served-model", "gpt-5-mini", JUDGE_MODEL])

    found = [read_eval_log(info) for info in list_eval_logs(str(logs))]
    assert sorted(str(log.eval.model) for log in found) == sorted([COMPATIBLE, OPENAI])
    for log in found:
        assert log.status == "success", log.error
        (sample,) = log.samples or []
        verdict = sample.scores["lmr_verdict"]  # type: ignore[index]
        meta = verdict.metadata or {}
        assert verdict.value == "I"
        assert "return a - b" in meta["candidate"]  # the answer, spliced into calc.py
        assert meta["lmr_run"]["verdict"] == "fail"
        # The failure's values and the test's output, in the explanation and metadata.
        explanation = str(verdict.explanation)
        assert "add(2, 3) = -1, expected 5" in explanation
        assert "checking add on 2 cases" in explanation
        (failure,) = meta["lmr_failures"]
        assert failure["test_file"] == "unit_test/unit_test_1.py"
        assert "add(2, 3) = -1, expected 5" in failure["reason"]
        assert failure["log_tail"] == "checking add on 2 cases"
        assert "checking add on 2 cases" in meta["logs"]["unit_test/unit_test_1.py"]
        judged = sample.scores["lmr_judge"]  # type: ignore[index]
        assert judged.value == "LI"
        assert judged.explanation == "it subtracts where the paper adds"
