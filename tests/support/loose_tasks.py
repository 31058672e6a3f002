"""A task of our own in the published shape whose tests accept wrong answers (issue 41).

One task folder like the published LMR-Bench ones (``COPY . .`` Dockerfile, tests that
log "Test Passed"/"Test Failed" to ``unit_test/logs``), on the NumPy stand-in of torch of
`tests.support.isolation_tasks`, with four implementations whose published tests check
too little, as 25-AdaLora, 27-Lion and 29-Sophia do:

1. ``SignMomentum.step``: an optimizer's step, in place (returns None); its test trains
   a layer for three steps and checks only that the parameters moved and stay finite.
2. ``Mixer.forward``: a module's forward; its test checks only the output's shape.
3. ``weighted_error``: a metric; its test checks only that it returns a float.
4. ``noisy_score``: a metric that adds noise from a generator seeded by the operating
   system on every call, so no two runs agree; its test checks only the type.

`WRONG` holds, per implementation, plausible wrong goal files that pass the published
test: after ``strengthen`` each of them must fail.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from tests.support.isolation_tasks import LIBRARY
from tests.support.published_task import DOCKERFILE as PUBLISHED_DOCKERFILE
from tests.support.sandbox_tasks import task_name

REPO = "loosenet"
_LOG_SETUP = """\
log_dir = Path(__file__).resolve().parent / "logs"
log_dir.mkdir(parents=True, exist_ok=True)
logging.basicConfig(
    filename=log_dir / "{log}", filemode="w", level=logging.INFO, format="%(message)s"
)
"""
_HEAD = "import logging\nimport unittest\nfrom pathlib import Path\n\nimport numpy as np\n\n"
_MAIN = '\n\nif __name__ == "__main__":\n    unittest.main()\n'

OPTIMIZER = textwrap.dedent(
    '''\
    """Sign momentum, for tinynn parameters."""

    import numpy as np

    from tinynn import Optimizer


    class SignMomentum(Optimizer):
        def __init__(self, params, lr=0.1, beta=0.9):
            super().__init__(params, dict(lr=lr, beta=beta))

        def step(self, closure=None):
            """Move each parameter against the sign of its momentum-blended gradient."""
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["momentum"] = np.zeros_like(p.data)
                    momentum = state["momentum"]
                    p.data -= group["lr"] * np.sign(momentum * group["beta"] + p.grad)
                    momentum *= group["beta"]
                    momentum += p.grad
            return None
    '''
)
OPTIMIZER_TEST = (
    _HEAD
    + "from optim import SignMomentum\nfrom tinynn import Linear\n\n"
    + _LOG_SETUP.format(log="unit_test_1.log")
    + textwrap.dedent(
        """

        class TestSignMomentum(unittest.TestCase):
            def test_parameters_move(self):
                layer = Linear(3, 2, seed=1)
                before = [p.data.copy() for p in layer.parameters()]
                optimizer = SignMomentum(layer.parameters(), lr=0.05)
                for step in range(3):
                    x = np.linspace(-1, 1, 6).reshape(2, 3) * (step + 1)
                    y = layer(x)
                    layer.weight.grad = y.T @ x / 2
                    layer.bias.grad = y.sum(axis=0)
                    optimizer.step()
                try:
                    for old, p in zip(before, layer.parameters()):
                        self.assertFalse(np.allclose(old, p.data), "a parameter did not move")
                        self.assertTrue(np.isfinite(p.data).all())
                    logging.info("Test Passed: test_parameters_move")
                except AssertionError as e:
                    logging.info(f"Test Failed: test_parameters_move: {e}")
                    raise
        """
    )
    + _MAIN
)

MIXER = textwrap.dedent(
    '''\
    """A gated token mixer, for tinynn."""

    import numpy as np

    from tinynn import Module, Parameter


    class Mixer(Module):
        def __init__(self, d_model, seed=0):
            rng = np.random.RandomState(seed)
            self.w_value = Parameter(rng.normal(0.0, 0.5, (d_model, d_model)))
            self.w_gate = Parameter(rng.normal(0.0, 0.5, (d_model, d_model)))

        def forward(self, u):
            """``tanh(u W_gate) * cumsum(u W_value)`` along the length (batch, length, d)."""
            value = np.cumsum(u @ self.w_value.data, axis=1)
            gate = np.tanh(u @ self.w_gate.data)
            return value * gate
    '''
)
MIXER_TEST = (
    _HEAD
    + "from mixer import Mixer\n\n"
    + _LOG_SETUP.format(log="unit_test_2.log")
    + textwrap.dedent(
        """

        class TestMixer(unittest.TestCase):
            def test_shapes(self):
                for batch, length, d in ((1, 4, 3), (2, 5, 4)):
                    layer = Mixer(d, seed=length)
                    u = np.sin(np.arange(batch * length * d).reshape(batch, length, d) * 0.7)
                    out = layer(u)
                    try:
                        self.assertEqual(np.shape(out), (batch, length, d))
                        logging.info(f"Test Passed: shape {(batch, length, d)}")
                    except AssertionError as e:
                        logging.info(f"Test Failed: {e}")
                        raise
        """
    )
    + _MAIN
)

METRIC = textwrap.dedent(
    '''\
    """Weighted errors."""

    import numpy as np


    def weighted_error(pred, target, weights):
        """The weighted mean squared error of ``pred`` against ``target``."""
        diff = np.asarray(pred) - np.asarray(target)
        return float((weights * diff * diff).sum() / np.sum(weights))
    '''
)
METRIC_TEST = (
    _HEAD
    + "from metric import weighted_error\n\n"
    + _LOG_SETUP.format(log="unit_test_3.log")
    + textwrap.dedent(
        """

        class TestWeightedError(unittest.TestCase):
            def test_returns_a_float(self):
                pred = np.array([0.5, 1.5, 2.0, -1.0])
                target = np.array([1.0, 1.0, 2.5, 0.0])
                for weights in (np.ones(4), np.array([1.0, 2.0, 0.5, 3.0])):
                    value = weighted_error(pred, target, weights)
                    try:
                        self.assertIsInstance(value, float)
                        logging.info("Test Passed: a float")
                    except AssertionError as e:
                        logging.info(f"Test Failed: {e}")
                        raise
        """
    )
    + _MAIN
)

NOISY = textwrap.dedent(
    '''\
    """A score with noise that no seed controls."""

    import numpy as np


    def noisy_score(values):
        """The mean of ``values`` plus noise from a generator the system seeds each call."""
        return float(np.mean(values) + np.random.default_rng().normal(0.0, 0.1))
    '''
)
NOISY_TEST = (
    _HEAD
    + "from noisy import noisy_score\n\n"
    + _LOG_SETUP.format(log="unit_test_4.log")
    + textwrap.dedent(
        """

        class TestNoisyScore(unittest.TestCase):
            def test_returns_a_float(self):
                value = noisy_score(np.array([1.0, 2.0, 3.0]))
                try:
                    self.assertIsInstance(value, float)
                    logging.info("Test Passed: a float")
                except AssertionError as e:
                    logging.info(f"Test Failed: {e}")
                    raise
        """
    )
    + _MAIN
)

#: index -> (goal file, class, function, golden file text, published test).
GOALS: dict[int, tuple[str, str, str, str, str]] = {
    1: ("optim.py", "SignMomentum", "step", OPTIMIZER, OPTIMIZER_TEST),
    2: ("mixer.py", "Mixer", "forward", MIXER, MIXER_TEST),
    3: ("metric.py", "", "weighted_error", METRIC, METRIC_TEST),
    4: ("noisy.py", "", "noisy_score", NOISY, NOISY_TEST),
}

#: Wrong goal files that pass the published tests, per implementation: name -> source.
WRONG: dict[int, dict[str, str]] = {
    1: {
        "ascends": OPTIMIZER.replace(
            'p.data -= group["lr"] * np.sign(', 'p.data += group["lr"] * np.sign('
        ),
        "no momentum": OPTIMIZER.replace(
            'np.sign(momentum * group["beta"] + p.grad)', "np.sign(p.grad)"
        ),
        "momentum never kept": OPTIMIZER.replace("momentum += p.grad", "momentum += 0.0"),
    },
    2: {
        "no gate": MIXER.replace("return value * gate", "return value"),
        "no running sum": MIXER.replace(
            "np.cumsum(u @ self.w_value.data, axis=1)", "u @ self.w_value.data"
        ),
    },
    3: {
        "unweighted": METRIC.replace(
            "(weights * diff * diff).sum() / np.sum(weights)", "(diff * diff).mean()"
        ),
        "absolute error": METRIC.replace("weights * diff * diff", "weights * np.abs(diff)"),
        "zero": METRIC.replace(
            "return float((weights * diff * diff).sum() / np.sum(weights))", "return 0.0"
        ),
    },
}


def masked(source: str, function: str) -> str:
    """``source`` with ``function``'s body replaced by ``pass`` (its docstring kept)."""
    lines = source.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if f"def {function}(" in line)
    indent = len(lines[start]) - len(lines[start].lstrip()) + 4
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) >= indent
    ):
        end += 1
    body = lines[start + 1 : end]
    doc = [body[0]] if body and '"""' in body[0] else []
    return "".join([*lines[: start + 1], *doc, " " * indent + "pass\n", *lines[end:]])


def write_loose_task(
    root: Path, *, tag: str = "Loose", goals: tuple[int, ...] = (1, 2, 3, 4)
) -> Path:
    """Write the task folder ``root/<name>`` with the implementations ``goals``."""
    task_dir = root / task_name(tag)
    repo = task_dir / REPO
    (repo / "unit_test").mkdir(parents=True)
    (task_dir / "golden_files").mkdir()
    (repo / "tinynn.py").write_text(LIBRARY)
    implementations: list[dict[str, Any]] = []
    for index in goals:
        goal_file, class_name, function, golden, test = GOALS[index]
        (repo / goal_file).write_text(masked(golden, function))
        golden_file = f"golden_files/{goal_file.removesuffix('.py')}_golden.py"
        (task_dir / golden_file).write_text(golden)
        (repo / f"unit_test/unit_test_{index}.py").write_text(test)
        implementations.append(
            {
                "instruction": f"Implement {function}.",
                "index": index,
                "category": "Evaluation Metrics",
                "goal_file": goal_file,
                "goal_function": function,
                "class_name": class_name,
                "golden_file": golden_file,
                "retrieval_context": [],
                "unit_test_file": f"unit_test/unit_test_{index}.py",
            }
        )
    dockerfile = PUBLISHED_DOCKERFILE.format(repo=REPO).replace(
        "WORKDIR /workspace",
        'RUN python -c "import numpy" 2>/dev/null || pip install "numpy>=1.24,<3"\n\n'
        "WORKDIR /workspace",
    )
    (task_dir / "Dockerfile").write_text(dockerfile)
    info = {
        "instance_id": 89,
        "paper_name": "Loose tests",
        "folder_name": task_dir.name,
        "paper_url": "",
        "year": 2024,
        "repo_url": "",
        "repo_folder_name": REPO,
        "implementations": implementations,
    }
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))
    return task_dir
