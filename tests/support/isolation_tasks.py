"""Stand-ins of the published torch tasks, in NumPy, for the isolation attacks (issue 29).

One task folder in the published LMR-Bench shape (``COPY . .`` Dockerfile, ``logging``
tests that write "Test Passed"/"Test Failed" to ``unit_test/logs``) with five
implementations in the shapes of the published tasks that hostile candidates forged:

1. ``Lion.step`` (27-Lion, 29-Sophia): an optimizer whose ``step()`` updates a list of
   parameter objects in place and keeps per-parameter state keyed by the parameter
   (``self.state[p]``, ``param_groups`` of dicts); the test trains a tiny model for a few
   steps and compares its parameters with reference values written inline
   (``REF_PARAMS_GROUPn``), through ``np.testing.assert_allclose``, logging and re-raising.
2. ``GatedConv.forward`` (26-Hyena): a module whose ``forward(x)`` reads its weights and
   updates a buffer (its call count); the test reads its inputs from a pickle fixture,
   holds the expected outputs inline (``expected_output_N``), checks them with
   ``self.assertTrue(np.allclose(...))`` and the buffer with ``assertEqual``, logging and
   re-raising.
3. ``SVDLinear.forward`` (25-AdaLora): an adapted linear layer; the test catches its own
   AssertionError and only logs "Test Failed" (the published verdict reads the log).
4. ``greedy_f1`` (07-bertscore): a plain function whose test reads its inputs and
   expected scores from a pickle in ``tensors/``, outside ``unit_test/``.
5. ``reciprocal_ranks``: a plain function whose test imports its cases (inputs and
   expected values) from a module of the repository, ``reference_outputs.py``.

``tinynn.py`` is the repository's stand-in for torch (parameters, modules, optimizer
base): not a goal file. Model weights come from ``np.random.RandomState`` and inputs from
closed formulas, so the inline expected values (computed once with the golden code in
the test image) hold on any NumPy. A faithful goal function crosses a process boundary
by value: arrays in, arrays out, parameters, state and buffers updated in place.
"""

from __future__ import annotations

import json
import math
import pickle
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.published_task import DOCKERFILE as PUBLISHED_DOCKERFILE
from tests.support.sandbox_tasks import task_name

REPO = "numnet"
TAG = "Iso"

LIBRARY = textwrap.dedent(
    '''\
    """The few pieces of a deep-learning library this repository uses, in NumPy.

    Parameters are objects (hashable by identity, as torch's are) holding an array
    ``data`` and its gradient ``grad``; optimizers keep per-parameter state keyed by them.
    """

    import collections

    import numpy as np


    class Parameter:
        def __init__(self, data):
            self.data = np.array(data, dtype=np.float64)
            self.grad = None

        @property
        def shape(self):
            return self.data.shape


    class Module:
        def __call__(self, *args, **kwargs):
            return self.forward(*args, **kwargs)

        def named_parameters(self, prefix=""):
            for name, value in vars(self).items():
                if isinstance(value, Parameter):
                    yield prefix + name, value
                elif isinstance(value, Module):
                    yield from value.named_parameters(prefix + name + ".")

        def parameters(self):
            return [param for _, param in self.named_parameters()]


    class Sequential(Module):
        def __init__(self, *layers):
            for index, layer in enumerate(layers):
                setattr(self, str(index), layer)

        def __getitem__(self, index):
            return getattr(self, str(index))

        def forward(self, x):
            for layer in list(vars(self).values()):
                x = layer(x)
            return x


    class Linear(Module):
        def __init__(self, in_features, out_features, seed=0):
            rng = np.random.RandomState(seed)
            bound = 1.0 / np.sqrt(in_features)
            self.weight = Parameter(rng.uniform(-bound, bound, (out_features, in_features)))
            self.bias = Parameter(rng.uniform(-bound, bound, out_features))

        def forward(self, x):
            return x @ self.weight.data.T + self.bias.data


    class Optimizer:
        def __init__(self, params, defaults):
            self.defaults = dict(defaults)
            self.state = collections.defaultdict(dict)
            self.param_groups = [dict(self.defaults, params=list(params))]

        def zero_grad(self):
            for group in self.param_groups:
                for param in group["params"]:
                    param.grad = None
    '''
)

_LOG_SETUP = """\
log_dir = Path(__file__).resolve().parent / "logs"
log_dir.mkdir(parents=True, exist_ok=True)
log_file = log_dir / "{log}"
logging.basicConfig(
    filename=log_file, filemode="w", level=logging.INFO, format="%(asctime)s - %(message)s"
)
"""


@dataclass(frozen=True)
class Goal:
    """One implementation of the stand-in task: its goal file and its unit test."""

    index: int
    goal_file: str
    class_name: str
    function: str
    #: The goal method's parameters (``self, x``) and how to pass them on (``self, x``).
    params: str
    call: str
    #: The goal file around the goal method (``{goal}`` where it goes, indented).
    file: str
    golden: str
    #: A plausible wrong answer: the golden method with one mistake.
    wrong: str
    test: str
    category: str

    @property
    def masked_method(self) -> str:
        head = self.golden.split('"""')[0]
        doc = self.golden.split('"""')[1]
        return f'{head}"""{doc}"""\n    # TODO: Implement this function\n    pass\n'

    def goal_file_with(self, method: str) -> str:
        """The goal file with ``method`` (a ``def`` at column 0) as the goal function."""
        return self.file.replace(
            "{goal}", textwrap.indent(method, "    " if self.class_name else "")
        )

    @property
    def kind(self) -> str:
        """ "step" (an optimizer's, updating in place) or "forward" (returning its output)."""
        return "step" if self.function == "step" else "forward"

    @property
    def unit_test_file(self) -> str:
        return f"unit_test/unit_test_{self.index}.py"


def _literal(value: Any) -> str:
    """A nested list as the test file writes it (four decimals, as the published ones)."""
    return json.dumps(value)


def _grid(shape: tuple[int, ...], phase: float) -> Any:
    """Deterministic inputs (no random generator): sines of the index, four decimals."""

    def build(prefix: tuple[int, ...], rest: tuple[int, ...]) -> Any:
        if not rest:
            angle = sum((1.7 + 0.6 * axis) * i for axis, i in enumerate(prefix)) + phase
            return round(math.sin(angle), 4)
        return [build((*prefix, i), rest[1:]) for i in range(rest[0])]

    return build((), shape)


# --- 1. the optimizer (27-Lion, 29-Sophia) -----------------------------------------------

_LION_FILE = textwrap.dedent(
    '''\
    """The Lion optimizer (the sign of an interpolated momentum), for tinynn parameters."""

    import numpy as np

    from tinynn import Optimizer


    class Lion(Optimizer):
        """Implements Lion (Chen et al., 2023, Algorithm 2)."""

        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
            if not 0.0 <= lr:
                raise ValueError(f"Invalid learning rate: {lr}")
            if not 0.0 <= betas[0] < 1.0 or not 0.0 <= betas[1] < 1.0:
                raise ValueError(f"Invalid betas: {betas}")
            super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    {goal}'''
)
_LION_STEP = textwrap.dedent(
    '''\
    def step(self, closure=None):
        """Performs a single optimization step; returns the closure's loss."""
        loss = None
        if closure is not None:
            loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                # Perform stepweight decay
                p.data *= 1 - group["lr"] * group["weight_decay"]
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = np.zeros_like(p.data)
                exp_avg = state["exp_avg"]
                beta1, beta2 = group["betas"]
                update = exp_avg * beta1 + p.grad * (1 - beta1)
                p.data -= group["lr"] * np.sign(update)
                exp_avg *= beta2
                exp_avg += (1 - beta2) * p.grad
        return loss
    '''
)
#: (lr, betas, weight decay) of the three groups; five steps each.
LION_GROUPS = (
    (1e-3, (0.965, 0.99), 0.1),
    (1e-3, (0.9, 0.99), 0.1),
    (1e-2, (0.965, 0.99), 0.1),
)
_LION_TEST_HEAD = (
    textwrap.dedent(
        """\
        import logging
        import unittest
        from pathlib import Path

        import numpy as np

        from lion import Lion
        from tinynn import Linear, Module

        """
    )
    + _LOG_SETUP
    + textwrap.dedent(
        '''

        class TinyModel(Module):
            """A tiny two-layer network, with its cross-entropy gradient by hand."""

            def __init__(self, in_dim=3, hidden_dim=4, out_dim=2):
                self.fc1 = Linear(in_dim, hidden_dim, seed=42)
                self.fc2 = Linear(hidden_dim, out_dim, seed=43)

            def forward(self, x):
                return self.fc2(np.maximum(self.fc1(x), 0.0))

            def backward(self, x, y):
                hidden = self.fc1(x)
                active = np.maximum(hidden, 0.0)
                logits = self.fc2(active)
                shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
                probs = shifted / shifted.sum(axis=1, keepdims=True)
                rows = np.arange(len(y))
                loss = -np.log(probs[rows, y]).mean()
                d_logits = probs.copy()
                d_logits[rows, y] -= 1.0
                d_logits /= len(y)
                self.fc2.weight.grad = d_logits.T @ active
                self.fc2.bias.grad = d_logits.sum(axis=0)
                d_hidden = (d_logits @ self.fc2.weight.data) * (hidden > 0)
                self.fc1.weight.grad = d_hidden.T @ x
                self.fc1.bias.grad = d_hidden.sum(axis=0)
                return loss


        class TestLion(unittest.TestCase):
            """Train for a few steps with three sets of hyperparameters; compare the final
            parameters with known-good reference values."""

            def setUp(self):
                self.X = np.sin(np.arange(48, dtype=np.float64).reshape(16, 3) * 1.3 + 0.4)
                self.y = (np.arange(16) * 7 % 5 > 2).astype(int)

            def run_lion_test(self, lr, betas, weight_decay, steps, ref_params):
                model = TinyModel()
                optimizer = Lion(model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
                for step in range(steps):
                    optimizer.zero_grad()
                    model.backward(self.X, self.y)
                    optimizer.step()
                for name, param in model.named_parameters():
                    self.assertIn(name, ref_params, f"Missing reference for parameter '{name}'")
                    self.assertEqual(
                        param.data.shape, ref_params[name].shape, f"Shape mismatch in '{name}'"
                    )
                    np.testing.assert_allclose(
                        param.data,
                        ref_params[name],
                        rtol=1e-3,
                        atol=1e-4,
                        err_msg=f"Parameter '{name}' not close to reference",
                    )
        '''
    )
)
_LION_TEST_CASE = '''
    def test_lion_group{n}(self):
        """Lion with hyperparameter group {n}."""
        REF_PARAMS_GROUP{n} = {{
{refs}
        }}
        lr = {lr!r}
        betas = {betas!r}
        weight_decay = {wd!r}
        steps = 5
        log_details = f"lr={{lr}}, betas={{betas}}, wd={{weight_decay}}, steps={{steps}}"
        try:
            self.run_lion_test(
                lr=lr, betas=betas, weight_decay=weight_decay, steps=steps,
                ref_params=REF_PARAMS_GROUP{n},
            )
            logging.info(f"Test Passed: {{self._testMethodName}}. Details: {{log_details}}")
        except AssertionError as e:
            logging.error(
                f"Test Failed: {{self._testMethodName}}. Details: {{log_details}}. Error: {{e}}"
            )
            raise
'''
_MAIN = '\n\nif __name__ == "__main__":\n    unittest.main()\n'


def _lion_test(refs: list[dict[str, Any]]) -> str:
    cases = []
    for n, ((lr, betas, wd), ref) in enumerate(zip(LION_GROUPS, refs, strict=True), start=1):
        lines = ",\n".join(
            f'            "{name}": np.array({_literal(value)})' for name, value in ref.items()
        )
        cases.append(_LION_TEST_CASE.format(n=n, refs=lines, lr=lr, betas=betas, wd=wd))
    return _LION_TEST_HEAD + "".join(textwrap.indent(c, "") for c in cases) + _MAIN


# --- 2. the module (26-Hyena) -------------------------------------------------------------

_CONV_FILE = textwrap.dedent(
    '''\
    """A gated long convolution (a Hyena-style operator of order 2), for tinynn."""

    import numpy as np

    from tinynn import Module, Parameter


    def fftconv(u, k):
        """Causal convolution of ``u`` (batch, length, channels) with ``k`` (length, channels)."""
        length = u.shape[1]
        n = 2 * length
        u_f = np.fft.rfft(u, n=n, axis=1)
        k_f = np.fft.rfft(k, n=n, axis=0)
        return np.fft.irfft(u_f * k_f, n=n, axis=1)[:, :length]


    class GatedConv(Module):
        """``out_proj(tanh(gate) * long_conv(value))`` with ``value, gate = in_proj(u)``."""

        def __init__(self, d_model, l_max, seed=0):
            rng = np.random.RandomState(seed)
            scale = 1.0 / np.sqrt(d_model)
            self.d_model = d_model
            self.l_max = l_max
            self.in_proj = Parameter(rng.normal(0.0, scale, (d_model, 2 * d_model)))
            decay = np.exp(-np.arange(l_max) / l_max)[:, None]
            self.filter = Parameter(rng.normal(0.0, 0.5, (l_max, d_model)) * decay)
            self.out_proj = Parameter(rng.normal(0.0, scale, (d_model, d_model)))
            # How many batches the layer has seen: a buffer, not a parameter.
            self.calls = np.zeros(1)

    {goal}'''
)
_CONV_FORWARD = textwrap.dedent(
    '''\
    def forward(self, u):
        """Mix ``u`` (batch, length, d_model) along its length; count the call."""
        length = min(u.shape[1], self.l_max)
        projected = u[:, :length] @ self.in_proj.data
        value, gate = projected[..., : self.d_model], projected[..., self.d_model :]
        mixed = fftconv(value, self.filter.data[:length])
        y = mixed * np.tanh(gate)
        self.calls += 1
        return y @ self.out_proj.data
    '''
)
#: (batch, length, d_model, seed) of the three cases; the layer's l_max is the length.
CONV_CASES = ((1, 6, 4, 1), (2, 5, 4, 2), (1, 4, 6, 3))
CONV_INPUTS = [
    _grid((b, length, d), phase=0.3 * n) for n, (b, length, d, _) in enumerate(CONV_CASES)
]
#: The fixture the test loads its inputs from (published tests keep theirs in pickles).
CONV_FIXTURE = "unit_test/fixtures/inputs.pkl"

_CONV_TEST_HEAD = (
    textwrap.dedent(
        """\
        import logging
        import pickle
        import unittest
        from pathlib import Path

        import numpy as np

        from gated_conv import GatedConv
        from tinynn import Sequential

        """
    )
    + _LOG_SETUP
    + textwrap.dedent(
        f'''

        class TestGatedConv(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                with open("{CONV_FIXTURE}", "rb") as handle:
                    inputs = pickle.load(handle)
                cls.input_1, cls.input_2, cls.input_3 = (np.array(x) for x in inputs)
        '''
    )
)
_CONV_SETUP_CASE = """\
        cls.layer_{n} = Sequential(GatedConv(d_model={d}, l_max={length}, seed={seed}))
        cls.expected_output_{n} = np.array({expected})
"""
_CONV_TEST_CASE = '''
    def test_gated_conv_case_{n}(self):
        """The output for a ({b}, {length}, {d}) input, and the call counted."""
        computed_output = None
        log_details = "Output not computed"
        try:
            computed_output = self.layer_{n}(self.input_{n})
            log_details = (
                f"output_shape={{np.shape(computed_output)}}, "
                f"output_mean={{np.mean(computed_output):.4f}}"
            )
            self.assertEqual(np.shape(computed_output), self.expected_output_{n}.shape)
            self.assertTrue(
                np.allclose(computed_output, self.expected_output_{n}, atol=1e-4, rtol=1e-3),
                f"Case {n}: output differs from expected by more than tol ({{log_details}})",
            )
            self.assertEqual(float(self.layer_{n}[0].calls[0]), 1.0, "the call was not counted")
            logging.info(f"Test Passed: {{self._testMethodName}}. Details: {{log_details}}")
        except AssertionError as e:
            logging.error(
                f"Test Failed: {{self._testMethodName}}. Details: {{log_details}}. Error: {{e}}"
            )
            raise
'''


def _conv_test(expected: list[Any]) -> str:
    setup = "".join(
        _CONV_SETUP_CASE.format(n=n, d=d, length=length, seed=seed, expected=_literal(value))
        for n, ((_, length, d, seed), value) in enumerate(zip(CONV_CASES, expected, strict=True), 1)
    )
    cases = "".join(
        _CONV_TEST_CASE.format(n=n, b=b, length=length, d=d)
        for n, (b, length, d, _) in enumerate(CONV_CASES, start=1)
    )
    return _CONV_TEST_HEAD + setup + cases + _MAIN


# --- 3. the adapter (25-AdaLora) ------------------------------------------------------------

_ADAPTER_FILE = textwrap.dedent(
    '''\
    """SVD-based adaptation of a dense layer (AdaLoRA), for tinynn."""

    import numpy as np

    from tinynn import Linear, Parameter


    class SVDLinear(Linear):
        """``W x + b + B (E * A) x * scaling / ranknum``: the adapter in SVD form."""

        def __init__(self, in_features, out_features, r=0, lora_alpha=1, seed=0):
            super().__init__(in_features, out_features, seed=seed)
            rng = np.random.RandomState(seed + 1)
            self.r = r
            self.lora_A = Parameter(rng.normal(0.0, 0.02, (r, in_features)))
            self.lora_E = Parameter(np.zeros((r, 1)))
            self.lora_B = Parameter(rng.normal(0.0, 0.02, (out_features, r)))
            self.ranknum = np.full(1, float(r))
            self.scaling = lora_alpha if lora_alpha > 0 else float(r)

    {goal}'''
)
_ADAPTER_FORWARD = textwrap.dedent(
    '''\
    def forward(self, x):
        """The adapted layer's output for ``x`` (batch, in_features)."""
        result = x @ self.weight.data.T + self.bias.data
        if self.r > 0:
            adapter = (self.lora_A.data * self.lora_E.data).T @ self.lora_B.data.T
            result = result + (x @ adapter) * self.scaling / (self.ranknum + 1e-5)
        return result
    '''
)
ADAPTER_INPUT = _grid((3, 5), phase=1.1)
_ADAPTER_TEST = (
    textwrap.dedent(
        """\
        import logging
        import unittest
        from pathlib import Path

        import numpy as np

        from adapter import SVDLinear

        """
    )
    + _LOG_SETUP
    + textwrap.dedent(
        f'''

        class TestSVDLinearForward(unittest.TestCase):
            def setUp(self):
                self.svd = SVDLinear(in_features=5, out_features=4, r=2, lora_alpha=1, seed=7)
                self.x = np.array({_literal(ADAPTER_INPUT)})

            def test_zero_adapter_matches_base(self):
                """With its singular values at zero, the layer is its base layer."""
                expected = np.array({{zero}})
                out_svd = self.svd(self.x)
                try:
                    np.testing.assert_allclose(out_svd, expected, rtol=1e-3, atol=1e-4)
                    logging.info("test_zero_adapter_matches_base: Test Passed")
                except AssertionError as e:
                    logging.info("test_zero_adapter_matches_base: Test Failed – %s", e)

            def test_nonzero_adapter_changes_output(self):
                """With an active adapter, the output moves by it."""
                self.svd.lora_A.data[...] = 0.3
                self.svd.lora_B.data[...] = -0.2
                self.svd.lora_E.data[...] = 1.0
                expected = np.array({{active}})
                out_svd = self.svd(self.x[:2])
                try:
                    np.testing.assert_allclose(out_svd, expected, rtol=1e-3, atol=1e-4)
                    logging.info("test_nonzero_adapter_changes_output: Test Passed")
                except AssertionError as e:
                    logging.info("test_nonzero_adapter_changes_output: Test Failed – %s", e)

        '''
    )
    + _MAIN
)

# --- 4. a function whose expected values are in a fixture outside unit_test/ (07-bertscore) ---

_SCORES_FILE = textwrap.dedent(
    '''\
    """Similarity scores of a small evaluation toolkit."""

    import numpy as np


    {goal}'''
)
_SCORES_FUNCTION = textwrap.dedent(
    '''\
    def greedy_f1(ref, hyp, idf_ref, idf_hyp):
        """Precision, recall and F1 of greedy cosine matching, weighted by idf (BERTScore)."""
        ref = ref / np.linalg.norm(ref, axis=-1, keepdims=True)
        hyp = hyp / np.linalg.norm(hyp, axis=-1, keepdims=True)
        similarity = hyp @ ref.T
        precision = (similarity.max(axis=1) * idf_hyp).sum() / idf_hyp.sum()
        recall = (similarity.max(axis=0) * idf_ref).sum() / idf_ref.sum()
        return np.array([precision, recall, 2 * precision * recall / (precision + recall)])
    '''
)
#: The recorded cases, inputs and expected scores, kept where 07-bertscore keeps its
#: tensors: ``tensors/`` at the top of the repository, not in ``unit_test/``.
SCORES_FIXTURE = "tensors/greedy_f1_cases.pkl"
_SCORES_TEST = (
    textwrap.dedent(
        """\
        import logging
        import pickle
        import unittest
        from pathlib import Path

        import numpy as np

        from scores import greedy_f1

        """
    )
    + _LOG_SETUP
    + textwrap.dedent(
        f'''

        class TestGreedyF1(unittest.TestCase):
            def setUp(self):
                with open("{SCORES_FIXTURE}", "rb") as handle:
                    self.cases = pickle.load(handle)

            def test_recorded_cases(self):
                for number, case in enumerate(self.cases, start=1):
                    inputs = [np.array(case[k]) for k in ("ref", "hyp", "idf_ref", "idf_hyp")]
                    got = greedy_f1(*inputs)
                    try:
                        self.assertTrue(
                            np.allclose(got, np.array(case["expected"]), atol=1e-4),
                            f"case {{number}}: {{got}}",
                        )
                        logging.info(f"Test Passed: case {{number}}")
                    except AssertionError as e:
                        logging.error(f"Test Failed: case {{number}}: {{e}}")
                        raise
        '''
    )
    + _MAIN
)


def _scores_cases(expected: list[Any]) -> list[dict[str, Any]]:
    """Three recorded cases: embeddings, positive idf weights, the golden scores."""
    cases = []
    for number, scores in enumerate(expected or [None] * 3):
        phase = 0.7 * number
        case = {
            "ref": _grid((5, 6), phase),
            "hyp": _grid((4, 6), phase + 0.35),
            "idf_ref": [abs(v) + 0.1 for v in _grid((5,), phase + 0.2)],
            "idf_hyp": [abs(v) + 0.1 for v in _grid((4,), phase + 0.4)],
        }
        cases.append({**case, "expected": scores})
    return cases


# --- 5. a function whose test imports its cases from a module of the repository -------------

_RANKING_FILE = textwrap.dedent(
    '''\
    """Ranking metrics of a small retrieval toolkit."""

    import numpy as np


    {goal}'''
)
_RANKING_FUNCTION = textwrap.dedent(
    '''\
    def reciprocal_ranks(scores, relevant):
        """1 / rank of the first relevant item of each row (higher scores rank first)."""
        order = np.argsort(-scores, axis=1, kind="stable")
        hits = np.take_along_axis(relevant, order, axis=1)
        first = hits.argmax(axis=1)
        return np.where(hits.any(axis=1), 1.0 / (first + 1), 0.0)
    '''
)
#: The module of the repository (not a test file, not in a test folder) holding the cases.
RANKING_MODULE = "reference_outputs.py"


def _ranking_cases() -> list[dict[str, Any]]:
    """Three cases of four queries over six items, with their reciprocal ranks."""
    cases = []
    for number in range(3):
        scores = _grid((4, 6), 0.9 * number + 0.2)
        relevant = [
            [int((3 * row + 5 * col + number) % 7 < 2) for col in range(6)] for row in range(4)
        ]
        expected = []
        for row, marks in zip(scores, relevant, strict=True):
            order = sorted(range(6), key=lambda col, row=row: -row[col])
            ranks = [rank for rank, col in enumerate(order, start=1) if marks[col]]
            expected.append(1.0 / ranks[0] if ranks else 0.0)
        cases.append({"scores": scores, "relevant": relevant, "expected": expected})
    return cases


RANKING_CASES = _ranking_cases()
_RANKING_TEST = (
    textwrap.dedent(
        """\
        import logging
        import unittest
        from pathlib import Path

        import numpy as np

        from ranking import reciprocal_ranks
        from reference_outputs import CASES

        """
    )
    + _LOG_SETUP
    + textwrap.dedent(
        """

        class TestReciprocalRanks(unittest.TestCase):
            def test_reference_cases(self):
                for number, case in enumerate(CASES, start=1):
                    got = reciprocal_ranks(np.array(case["scores"]), np.array(case["relevant"]))
                    try:
                        self.assertTrue(np.allclose(got, case["expected"]), f"case {number}: {got}")
                        logging.info(f"Test Passed: case {number}")
                    except AssertionError as e:
                        logging.error(f"Test Failed: case {number}: {e}")
                        raise
        """
    )
    + _MAIN
)


# --- the expected values -------------------------------------------------------------------

#: Groups 1 and 2 end alike: Lion's first steps move by the sign of the gradient, whatever
#: beta1 (the published 27-Lion's reference values show the same).
_LION_GROUP_1: dict[str, Any] = {
    "fc1.weight": [
        [-0.1498, 0.5152, 0.2628],
        [0.1089, -0.402, -0.392],
        [-0.505, 0.4176, 0.1117],
        [0.2451, -0.5483, 0.5373],
    ],
    "fc1.bias": [0.3787, -0.337, -0.3722, -0.3704],
    "fc2.weight": [[-0.3798, 0.106, -0.3614, -0.2543], [-0.1778, 0.362, 0.161, 0.0361]],
    "fc2.bias": [-0.4658, 0.2286],
}
#: What the golden code computes (four decimals), made once in the test image by
#: a script (python:3.11-slim, NumPy 1.24); the tolerances cover the rounding.
_REFERENCE: dict[str, Any] = {
    "lion": [
        _LION_GROUP_1,
        _LION_GROUP_1,
        {
            "fc1.weight": [
                [-0.194, 0.4679, 0.2166],
                [0.0635, -0.4451, -0.3453],
                [-0.4578, 0.3708, 0.0663],
                [0.289, -0.5009, 0.49],
            ],
            "fc1.bias": [0.3321, -0.3404, -0.4155, -0.4136],
            "fc2.weight": [[-0.3331, 0.0785, -0.3149, -0.2082], [-0.2219, 0.3873, 0.1154, -0.0089]],
            "fc2.bias": [-0.4187, 0.1827],
        },
    ],
    "conv": [
        [
            [
                [-0.0045, -0.0089, 0.005, 0.0029],
                [-0.0713, 0.0562, 0.2251, 0.2229],
                [0.1854, -0.0906, 0.3308, 0.4843],
                [0.1076, -0.0698, 0.1474, 0.2426],
                [0.0861, -0.0761, -0.2133, -0.1954],
                [0.4095, -0.2495, -0.0425, 0.1758],
            ]
        ],
        [
            [
                [0.0273, 0.0017, -0.0056, -0.0222],
                [0.0856, 0.0005, 0.0566, 0.1105],
                [0.044, 0.0039, 0.1332, 0.2676],
                [0.0095, -0.0134, 0.0789, 0.2223],
                [0.0318, -0.014, -0.0063, 0.0584],
            ],
            [
                [0.0757, -0.0085, 0.1121, 0.2716],
                [-0.0382, -0.0049, 0.075, 0.1862],
                [0.0052, -0.0135, -0.0111, 0.0407],
                [0.0994, 0.001, 0.0283, 0.0701],
                [0.0861, 0.0041, 0.1092, 0.2112],
            ],
        ],
        [
            [
                [-0.0141, 0.0037, -0.0387, -0.0497, 0.022, -0.0057],
                [-0.0593, -0.0346, -0.1747, -0.1238, -0.0092, 0.3194],
                [-0.1689, 0.0844, -0.127, -0.3632, -0.073, 0.3055],
                [-0.2327, 0.1322, -0.327, -0.6504, 0.0945, 0.1285],
            ]
        ],
    ],
    "zero": [
        [-0.4119, 0.439, -0.3478, 1.1668],
        [-0.6021, 0.1256, -0.3275, 0.4881],
        [0.7701, 0.4376, -0.1124, -1.1946],
    ],
    "active": [
        [-0.4303, 0.4206, -0.3662, 1.1484],
        [-0.572, 0.1556, -0.2975, 0.5182],
    ],
    "scores": [
        [0.9506, 0.9525, 0.9515],
        [0.9558, 0.9478, 0.9518],
        [0.9535, 0.9556, 0.9546],
    ],
}


def _build_goals(reference: dict[str, Any]) -> tuple[Goal, ...]:
    lion = Goal(
        index=1,
        goal_file="lion.py",
        class_name="Lion",
        function="step",
        params="self, closure=None",
        call="self, closure",
        file=_LION_FILE,
        golden=_LION_STEP,
        wrong=_LION_STEP.replace(
            'p.data -= group["lr"] * np.sign(update)', 'p.data += group["lr"] * np.sign(update)'
        ),
        test=_lion_test(reference["lion"]),
        category="Optimizers & Training Loops",
    )
    conv = Goal(
        index=2,
        goal_file="gated_conv.py",
        class_name="GatedConv",
        function="forward",
        params="self, u",
        call="self, u",
        file=_CONV_FILE,
        golden=_CONV_FORWARD,
        wrong=_CONV_FORWARD.replace("y = mixed * np.tanh(gate)", "y = mixed"),
        test=_conv_test(reference["conv"]),
        category="Neural Network Architectures & Modules",
    )
    adapter = Goal(
        index=3,
        goal_file="adapter.py",
        class_name="SVDLinear",
        function="forward",
        params="self, x",
        call="self, x",
        file=_ADAPTER_FILE,
        golden=_ADAPTER_FORWARD,
        wrong=_ADAPTER_FORWARD.replace("if self.r > 0:", "if False:"),
        test=_ADAPTER_TEST.replace("{zero}", _literal(reference["zero"])).replace(
            "{active}", _literal(reference["active"])
        ),
        category="Neural Network Architectures & Modules",
    )
    scores = Goal(
        index=4,
        goal_file="scores.py",
        class_name="",
        function="greedy_f1",
        params="ref, hyp, idf_ref, idf_hyp",
        call="ref, hyp, idf_ref, idf_hyp",
        file=_SCORES_FILE,
        golden=_SCORES_FUNCTION,
        wrong=_SCORES_FUNCTION.replace("* idf_hyp).sum() / idf_hyp.sum()", ").mean()"),
        test=_SCORES_TEST,
        category="Evaluation Metrics",
    )
    ranking = Goal(
        index=5,
        goal_file="ranking.py",
        class_name="",
        function="reciprocal_ranks",
        params="scores, relevant",
        call="scores, relevant",
        file=_RANKING_FILE,
        golden=_RANKING_FUNCTION,
        wrong=_RANKING_FUNCTION.replace("np.argsort(-scores", "np.argsort(scores"),
        test=_RANKING_TEST,
        category="Evaluation Metrics",
    )
    return (lion, conv, adapter, scores, ranking)


GOALS = _build_goals(_REFERENCE)
LION, CONV, ADAPTER, SCORES, RANKING = GOALS
SCORES_CASES = _scores_cases(_REFERENCE["scores"])


def goal(index: int) -> Goal:
    return GOALS[index - 1]


def write_isolation_task(root: Path, *, tag: str = TAG) -> Path:
    """Write the stand-in task folder ``root/<name>`` and return it."""
    task_dir = root / task_name(tag)
    repo = task_dir / REPO
    (repo / "unit_test" / "fixtures").mkdir(parents=True)
    (repo / "tensors").mkdir()
    (task_dir / "golden_files").mkdir()
    (repo / "tinynn.py").write_text(LIBRARY)
    with open(repo / CONV_FIXTURE, "wb") as handle:
        pickle.dump(CONV_INPUTS, handle)
    with open(repo / SCORES_FIXTURE, "wb") as handle:
        pickle.dump(SCORES_CASES, handle)
    (repo / RANKING_MODULE).write_text(f"CASES = {RANKING_CASES!r}\n")
    implementations = []
    for item in GOALS:
        stem = item.goal_file.removesuffix(".py")
        (repo / item.goal_file).write_text(item.goal_file_with(item.masked_method))
        golden = f"golden_files/{stem}_golden.py"
        (task_dir / golden).write_text(item.goal_file_with(item.golden))
        (repo / item.unit_test_file).write_text(item.test)
        implementations.append(
            {
                "instruction": f"Implement {item.class_name}.{item.function}.",
                "index": item.index,
                "category": item.category,
                "goal_file": item.goal_file,
                "goal_function": item.function,
                "class_name": item.class_name,
                "golden_file": golden,
                "retrieval_context": [],
                "unit_test_file": item.unit_test_file,
            }
        )
    dockerfile = PUBLISHED_DOCKERFILE.format(repo=REPO).replace(
        "WORKDIR /workspace",
        'RUN python -c "import numpy" 2>/dev/null || pip install "numpy>=1.24,<3"\n\n'
        "WORKDIR /workspace",
    )
    (task_dir / "Dockerfile").write_text(dockerfile)
    info: dict[str, Any] = {
        "instance_id": 88,
        "paper_name": "Isolation stand-ins",
        "folder_name": task_dir.name,
        "paper_url": "",
        "year": 2024,
        "repo_url": "",
        "repo_folder_name": REPO,
        "implementations": implementations,
    }
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))
    return task_dir
