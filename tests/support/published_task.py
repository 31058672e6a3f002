"""A task of our own written in the published LMR-Bench shape (issue 21's "Must hold").

The published tests configure a log file beside themselves at import time
(``logging.basicConfig(filename=<test dir>/logs/<name>.log, filemode="w")``), load pickle
fixtures, run ``unittest`` test cases that catch their own assertions and log
"Test Passed"/"Test Failed" lines; their Dockerfiles start from a PyTorch image, copy the
whole task folder, ``mkdir -p`` the logs folder and ``chown`` it to a ``USER`` created
from the ``UID``/``GID`` build arguments. This writes the same shapes (``FROM
python:3.11-slim`` instead of PyTorch; nothing here needs torch) so that CI pins the
published protocol without the published files.
"""

from __future__ import annotations

import json
import pickle
import textwrap
from pathlib import Path
from typing import Any

REPO = "scorer"
GOAL_FILE = "metrics.py"

GOLDEN = textwrap.dedent(
    '''\
    """Scoring helpers of a small research repository."""


    def weighted_mean(values, weights):
        """The mean of ``values`` weighted by ``weights`` (0.0 when the weights sum to 0)."""
        total = sum(weights)
        if total == 0:
            return 0.0
        return sum(v * w for v, w in zip(values, weights)) / total
    '''
)
MASKED = textwrap.dedent(
    '''\
    """Scoring helpers of a small research repository."""


    def weighted_mean(values, weights):
        """The mean of ``values`` weighted by ``weights`` (0.0 when the weights sum to 0)."""
        # TODO: implement
        pass
    '''
)
#: A plausible wrong answer: the unweighted mean.
WRONG = GOLDEN.replace(
    "return sum(v * w for v, w in zip(values, weights)) / total",
    "return sum(values) / len(values)",
)

#: The published test shape. ``{log_name}`` is the log file's name (published tests
#: mostly use the test's own name; some share ``unit_test.log``).
TEST = textwrap.dedent(
    """\
    import logging
    import pickle
    import sys
    import unittest
    from pathlib import Path

    sys.path.append("../")

    from metrics import weighted_mean

    log_dir = Path(__file__).resolve().parent / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = log_dir / "{log_name}"
    logging.basicConfig(
        filename=log_file, filemode="w", level=logging.INFO, format="%(asctime)s - %(message)s"
    )


    class TestWeightedMean(unittest.TestCase):
        def setUp(self):
            with open("unit_test/pickles/cases.pkl", "rb") as handle:
                self.cases = pickle.load(handle)

        def test_cases(self):
            for values, weights, expected in self.cases:
                got = weighted_mean(values, weights)
                try:
                    self.assertAlmostEqual(got, expected, places=6)
                    logging.info(f"Test Passed: expected {{expected}}, got {{got}}")
                except AssertionError as error:
                    logging.info(f"Test Failed: {{error}}")

        def test_zero_weights(self):
            got = weighted_mean([1.0, 2.0], [0.0, 0.0])
            if got == 0.0:
                logging.info("Test Passed: zero weights")
            else:
                logging.error(f"Test Failed: zero weights gave {{got}}")


    if __name__ == "__main__":
        unittest.main()
    """
)

DOCKERFILE = textwrap.dedent(
    """\
    ARG DIR={repo}
    ARG UID
    ARG GID

    # The published images start from pytorch/pytorch; nothing here needs torch.
    FROM python:3.11-slim

    ARG UID
    ARG GID
    ARG DIR

    RUN groupadd -g ${{GID}} usergroup \\
        && useradd -m -u ${{UID}} -g usergroup user

    WORKDIR /workspace

    COPY . .

    # Prepare unit_test results directory and set permissions
    RUN mkdir -p /workspace/${{DIR}}/unit_test/logs \\
        && chown -R user:usergroup /workspace/${{DIR}}/unit_test/logs

    USER user
    """
)

#: (values, weights, expected) triples: the pickle fixture.
CASES = [
    ([1.0, 2.0, 3.0], [1.0, 1.0, 2.0], 2.25),
    ([4.0, 0.0], [0.25, 0.75], 1.0),
    ([10.0], [3.0], 10.0),
]
#: "Passed" lines the golden code writes: one per case, one for the zero weights.
GOLDEN_PASSED = len(CASES) + 1


def write_published_task(root: Path, name: str, *, log_name: str = "unit_test_1.log") -> Path:
    """Write one published-shape task folder ``root/name`` and return it."""
    task_dir = root / name
    repo = task_dir / REPO
    (repo / "unit_test" / "pickles").mkdir(parents=True)
    (task_dir / "golden_files").mkdir()
    (repo / GOAL_FILE).write_text(MASKED)
    (repo / "unit_test" / "unit_test_1.py").write_text(TEST.format(log_name=log_name))
    with open(repo / "unit_test" / "pickles" / "cases.pkl", "wb") as handle:
        pickle.dump(CASES, handle)
    (task_dir / "golden_files" / "metrics_golden.py").write_text(GOLDEN)
    (task_dir / "Dockerfile").write_text(DOCKERFILE.format(repo=REPO))
    info: dict[str, Any] = {
        "instance_id": 87,
        "paper_name": "Weighted scoring",
        "folder_name": name,
        "paper_url": "",
        "year": 2024,
        "repo_url": "",
        "repo_folder_name": REPO,
        "implementations": [
            {
                "instruction": "Implement weighted_mean.",
                "index": 1,
                "category": "Evaluation Metrics",
                "goal_file": GOAL_FILE,
                "goal_function": "weighted_mean",
                "class_name": "",
                "golden_file": "golden_files/metrics_golden.py",
                "retrieval_context": [],
                "unit_test_file": "unit_test/unit_test_1.py",
            }
        ],
    }
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))
    return task_dir


def write_submission(root: Path, system: str, task_dir: Path, goal_source: str) -> Path:
    """A mirrored-folder submission (``<system>/<task>/<repo>/<goal file>``)."""
    target = root / system / task_dir.name / REPO / GOAL_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(goal_source)
    return root / system
