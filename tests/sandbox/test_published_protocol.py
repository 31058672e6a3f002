"""The published LMR-Bench test shape, scored under ``eval`` as the published loop does.

A task of our own in that shape (``tests/support/published_task.py``): its golden file
passes, its masked file and a wrong answer fail, a test that writes a differently named
log passes, and none of the ways a candidate in the test's process could write "Passed"
around the test's own logging passes.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.support.eval_cli import eval_json
from tests.support.published_task import (
    GOLDEN,
    GOLDEN_PASSED,
    MASKED,
    WRONG,
    write_published_task,
    write_submission,
)
from tests.support.sandbox_tasks import task_name

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

#: Writes the log by hand at import, "Passed" only, and answers wrong.
_HANDWRITTEN_LOG = textwrap.dedent(
    """\
    import logging
    import pathlib

    _logs = pathlib.Path(__file__).resolve().parent / "unit_test" / "logs"
    _logs.mkdir(exist_ok=True)
    (_logs / "unit_test_1.log").write_text("Test Passed\\n" * 4)
    """
)
_WRONG_BODY = textwrap.dedent(
    """\

    def weighted_mean(values, weights):
        return sum(values) / len(values)
    """
)
#: Each: a candidate that answers wrong and tries to make the log say "Passed" only.
FORGERIES = {
    # The root logger already has a handler, so the test's basicConfig does nothing.
    "null-handler": _HANDWRITTEN_LOG
    + "logging.getLogger().addHandler(logging.NullHandler())\n"
    + _WRONG_BODY,
    "disable": _HANDWRITTEN_LOG + "logging.disable(logging.CRITICAL)\n" + _WRONG_BODY,
    "class-method": _HANDWRITTEN_LOG
    + "logging.Logger.info = lambda *args, **kwargs: None\n"
    + "logging.Logger.error = lambda *args, **kwargs: None\n"
    + _WRONG_BODY,
    "instance-method": _HANDWRITTEN_LOG
    + "logging.root.info = lambda *args, **kwargs: None\n"
    + "logging.root.error = lambda *args, **kwargs: None\n"
    + _WRONG_BODY,
    # The test module's own name ``logging`` swapped for a fake that logs nothing.
    "swapped-module": _HANDWRITTEN_LOG
    + textwrap.dedent(
        """\
        import __main__


        class _Quiet:
            def __getattr__(self, name):
                return lambda *args, **kwargs: None


        __main__.logging = _Quiet()
        """
    )
    + _WRONG_BODY,
    # Says "Passed" through logging itself, and filters the test's "Failed" away.
    "filter": textwrap.dedent(
        """\
        import logging


        class _Drop(logging.Filter):
            def filter(self, record):
                return "Failed" not in record.getMessage()


        def weighted_mean(values, weights):
            logging.getLogger().addFilter(_Drop())
            for handler in logging.getLogger().handlers:
                handler.addFilter(_Drop())
            logging.info("Test Passed")
            return sum(values) / len(values)
        """
    ),
    # The log is a symlink (the test's basicConfig follows it); a FIFO beside it.
    "symlink": textwrap.dedent(
        """\
        import os
        import pathlib

        _logs = pathlib.Path(__file__).resolve().parent / "unit_test" / "logs"
        _logs.mkdir(exist_ok=True)
        os.symlink("/tmp/elsewhere.log", _logs / "unit_test_1.log")
        os.mkfifo(_logs / "extra.log")
        """
    )
    + _WRONG_BODY,
}


def test_published_shape_scores_as_the_published_loop(
    tmp_path: Path, docker_client: Any, capsys: Any
) -> None:
    bench = tmp_path / "bench"
    bench.mkdir()
    same_log = write_published_task(bench, task_name("Pub"))
    shared_log = write_published_task(bench, task_name("PubShared"), log_name="unit_test.log")
    subs = tmp_path / "subs"
    systems = []
    for system, source in {"golden": GOLDEN, "masked": MASKED, "wrong": WRONG}.items():
        for task_dir in (same_log, shared_log):
            systems.append(write_submission(subs, system, task_dir, source))
    for name, source in FORGERIES.items():
        systems.append(write_submission(subs, f"forge-{name}", same_log, source))

    results = eval_json(bench, sorted(set(systems)), tmp_path / "out", capsys)
    runs = {(run["system"], run["task"]): run for run in results["runs"]}
    for task_dir in (same_log, shared_log):
        golden = runs[("golden", task_dir.name)]
        assert golden["verdict"] == "pass", golden
        assert runs[("masked", task_dir.name)]["verdict"] != "pass"
        wrong = runs[("wrong", task_dir.name)]
        assert wrong["verdict"] == "fail", wrong
        assert "Failed" in wrong["reason"], wrong
    log = tmp_path / "out" / "runs" / "golden" / same_log.name / "1" / "logs" / "unit_test_1.log"
    assert log.read_text().count("Test Passed") == GOLDEN_PASSED
    for name in FORGERIES:
        run = runs[(f"forge-{name}", same_log.name)]
        assert run["verdict"] != "pass", (name, run)
