"""``validate --run`` says what its "ok" rests on: per implementation, the golden code
passes N of N tests and the masked code fails M of them, as text and in ``--json``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lmr_author.cli import main
from lmr_author.validate.evidence import ImplementationProof
from tests.support.sandbox_tasks import write_task

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.usefixtures("image_cleanup")]

#: Three tests; on the masked code (``add`` returns None) two fail and one passes.
THREE_TESTS = textwrap.dedent(
    """\
    import unittest

    from calc import add


    class TestAdd(unittest.TestCase):
        def test_positive(self):
            self.assertEqual(add(2, 3), 5)

        def test_zero(self):
            self.assertEqual(add(-1, 1), 0)

        def test_callable(self):
            self.assertTrue(callable(add))


    if __name__ == "__main__":
        unittest.main()
    """
)


def test_the_proof_is_counted_in_text_and_json(
    tmp_path: Path, docker_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write_task(tmp_path / "bench", tag="proofn", test_source=THREE_TESTS)

    assert main(["validate", "--run", "--json", "--timeout", "60", str(task.path)]) == 0
    [report] = json.loads(capsys.readouterr().out)["tasks"]
    [proof] = report["proof"]
    assert proof["implementation"] == 1
    assert proof["golden"] == {"verdict": "pass", "tests": 3, "passed": 3}
    assert proof["masked"]["verdict"] == "fail"
    assert (proof["masked"]["tests"], proof["masked"]["failed"]) == (3, 2)

    assert main(["validate", "--run", "--timeout", "60", str(task.path)]) == 0
    out = capsys.readouterr().out
    assert "#1: golden passes 3 of 3 tests; masked fails 2 of 3" in out


def test_a_proof_line_says_what_did_not_hold() -> None:
    unproven = ImplementationProof(2, 4, 4, "pass", "pass", "all tests passed", 4, 0)
    assert not unproven.proven
    assert unproven.describe() == "#2: golden passes 4 of 4 tests; masked passes too (4 tests)"
    by_log = ImplementationProof(1, 1, 1, "pass", "fail", "log says Failed; more", 1, 0)
    assert by_log.proven
    assert by_log.describe().endswith("masked fails (log says Failed; …)")
    cut_short = ImplementationProof(1, 5, 5, "pass", "error", "import failed", 1, 1)
    assert cut_short.describe().endswith("masked fails 1 of 5 (1 ran)")
