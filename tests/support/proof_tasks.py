"""A stand-in task for what a golden proof can end in, and the isolation's edges (issue 39).

One task folder in the published shape (``COPY . .``, NumPy, unittest tests), with
three implementations:

1. ``Mixer.forward`` (26-Hyena, 25-AdaLora): the goal module compiles a helper again
   from its own source at import (``scripted``, as ``torch.jit.script`` does through
   ``inspect.getsource``), and the test computes its expected value from the inputs
   *after* the call, as 25-AdaLora's test does: a candidate that zeroes its inputs and
   returns zeros would agree with it.
2. ``smooth`` (29-Sophia on a loaded machine): the golden code never ends in the
   candidate's process (its user's id), so its isolated run always runs out of time;
   in the test's process it is quick.
3. ``row_norms`` (the issue's matplotlib case): the golden code keeps a note in a
   folder of ``/tmp`` that the test's process made first, so it fails isolated with a
   PermissionError (an isolated-only difference, nothing that could not cross) and
   passes in the test's process.

Each has a forgery that passes only in the test's process: it reads the expected values
out of the test file (``__main__``) or, for the first, zeroes its inputs.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.isolation_tasks import PUBLISHED_DOCKERFILE
from tests.support.sandbox_tasks import task_name

REPO = "proofs"
TAG = "Proof"
#: Seconds the golden ``smooth`` sleeps in the candidate's process: past any time limit.
SLOW_S = 3600
CANDIDATE_UID = 65533

_MIXER_FILE = textwrap.dedent(
    '''\
    """A mixing layer whose helper is compiled from its own source, as TorchScript does."""

    import ast
    import inspect
    import textwrap

    import numpy as np


    def scripted(function):
        """Compile ``function`` again from its source lines (``inspect.getsource``), as
        ``torch.jit.script`` does: lines read from another file do not compile to it."""
        source = textwrap.dedent(inspect.getsource(function))
        node = ast.parse(source).body[0]
        if not isinstance(node, ast.FunctionDef) or node.name != function.__name__:
            raise RuntimeError(f"scripted: the source of {function.__name__} is {source[:80]!r}")
        node.decorator_list = []
        namespace = {}
        code = compile(ast.Module([node], []), inspect.getsourcefile(function), "exec")
        exec(code, function.__globals__, namespace)
        return namespace[function.__name__]


    @scripted
    def mul_sum(q, y):
        return (q * y).sum(axis=1)


    class Mixer:
        """``scale * sum(q * y)`` over the last axis."""

        def __init__(self, scale):
            self.scale = scale

    {goal}'''
)
_MIXER_FORWARD = textwrap.dedent(
    '''\
    def forward(self, q, y):
        """Mix the rows of ``q`` and ``y``."""
        return self.scale * mul_sum(q, y)
    '''
)
_MIXER_TEST = textwrap.dedent(
    """\
    import unittest

    import numpy as np

    from mixer import Mixer


    class TestMixer(unittest.TestCase):
        def test_forward(self):
            q = np.sin(np.arange(12.0).reshape(3, 4))
            y = np.cos(np.arange(12.0).reshape(3, 4))
            out = Mixer(2.0).forward(q, y)
            # As 25-AdaLora's test: the expected value from the inputs after the call.
            expected = 2.0 * (q * y).sum(axis=1)
            np.testing.assert_allclose(out, expected, rtol=1e-6)


    if __name__ == "__main__":
        unittest.main()
    """
)

_SMOOTH_FILE = textwrap.dedent(
    '''\
    """Smoothing of a signal."""

    import os
    import time

    import numpy as np


    {goal}'''
)
_SMOOTH_FUNCTION = textwrap.dedent(
    f'''\
    def smooth(x):
        """The signal smoothed with a (1, 2, 1) / 4 kernel."""
        if os.getuid() == {CANDIDATE_UID}:
            time.sleep({SLOW_S})  # stands for a machine loaded while the golden runs isolated
        return np.convolve(x, [0.25, 0.5, 0.25], mode="same")
    '''
)
SMOOTH_INPUT = [0.0, 1.0, 4.0, 9.0, 16.0, 9.0, 4.0, 1.0]
SMOOTH_EXPECTED = [0.25, 1.5, 4.5, 9.5, 12.5, 9.5, 4.5, 1.5]
_SMOOTH_TEST = textwrap.dedent(
    f"""\
    import unittest

    import numpy as np

    from smooth import smooth

    EXPECTED = {SMOOTH_EXPECTED!r}


    class TestSmooth(unittest.TestCase):
        def test_smooth(self):
            got = smooth(np.array({SMOOTH_INPUT!r}))
            np.testing.assert_allclose(got, np.array(EXPECTED))


    if __name__ == "__main__":
        unittest.main()
    """
)

#: The folder the test's process makes first, as matplotlib's cache folder was.
NOTE_FOLDER = "/tmp/lmr-scratch-note"
_NORMS_FILE = textwrap.dedent(
    '''\
    """Norms, with a scratch note kept in /tmp as some research code does."""

    import os

    import numpy as np


    {goal}'''
)
_NORMS_FUNCTION = textwrap.dedent(
    f'''\
    def row_norms(x):
        """The Euclidean norm of each row of ``x``."""
        os.makedirs("{NOTE_FOLDER}", exist_ok=True)
        with open(os.path.join("{NOTE_FOLDER}", "rows.txt"), "w") as handle:
            handle.write(str(len(x)))
        return np.sqrt((x * x).sum(axis=1))
    '''
)
_NORMS_TEST = textwrap.dedent(
    f"""\
    import os
    import unittest

    import numpy as np

    os.makedirs("{NOTE_FOLDER}", exist_ok=True)  # as a library's import makes its cache

    from norms import row_norms

    EXPECTED = [5.0, 13.0]


    class TestNorms(unittest.TestCase):
        def test_row_norms(self):
            got = row_norms(np.array([[3.0, 4.0], [5.0, 12.0]]))
            np.testing.assert_allclose(got, np.array(EXPECTED))


    if __name__ == "__main__":
        unittest.main()
    """
)

#: Reads the expected values out of the test file: passes only in the test's process.
READ_TEST_FILE = textwrap.dedent(
    '''\
    def {name}({params}):
        """The expected values, read from the test file (the test's ``__main__``)."""
        import ast
        import __main__

        import numpy as np

        with open(__main__.__file__) as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXPECTED":
                return np.array(ast.literal_eval(node.value))
        return None
    '''
)
#: Zeroes the inputs the test computes its expected value from, and answers zeros.
ZERO_INPUTS = textwrap.dedent(
    '''\
    def forward(self, q, y):
        """Wrong: zeroes its inputs in place, so the test expects zeros, and says zeros."""
        q[...] = 0.0
        y[...] = 0.0
        return np.zeros(len(q))
    '''
)


@dataclass(frozen=True)
class Goal:
    index: int
    goal_file: str
    class_name: str
    function: str
    params: str
    file: str
    golden: str
    test: str

    def goal_file_with(self, function: str) -> str:
        return self.file.replace(
            "{goal}", textwrap.indent(function, "    " if self.class_name else "")
        )

    @property
    def masked(self) -> str:
        head, doc = self.golden.split('"""')[0], self.golden.split('"""')[1]
        return f'{head}"""{doc}"""\n    pass\n'

    def forgery(self) -> str:
        """The goal function that passes only in the test's process."""
        if self.index == 1:
            return ZERO_INPUTS
        return READ_TEST_FILE.format(name=self.function, params=self.params)


MIXER = Goal(
    1, "mixer.py", "Mixer", "forward", "self, q, y", _MIXER_FILE, _MIXER_FORWARD, _MIXER_TEST
)
SMOOTH = Goal(2, "smooth.py", "", "smooth", "x", _SMOOTH_FILE, _SMOOTH_FUNCTION, _SMOOTH_TEST)
NORMS = Goal(3, "norms.py", "", "row_norms", "x", _NORMS_FILE, _NORMS_FUNCTION, _NORMS_TEST)
GOALS = (MIXER, SMOOTH, NORMS)
#: A correct candidate reformatted: comment lines at its top, so every line is shifted.
HEADER = "".join(f"# A comment line an agent added ({n} of 10).\n" for n in range(1, 11))


def write_proof_task(root: Path, *, tag: str = TAG) -> Path:
    """Write the task folder ``root/<name>`` and return it."""
    task_dir = root / task_name(tag)
    repo = task_dir / REPO
    (repo / "unit_test").mkdir(parents=True)
    (task_dir / "golden_files").mkdir()
    implementations: list[dict[str, Any]] = []
    for goal in GOALS:
        stem = goal.goal_file.removesuffix(".py")
        (repo / goal.goal_file).write_text(goal.goal_file_with(goal.masked))
        golden = f"golden_files/{stem}_golden.py"
        (task_dir / golden).write_text(goal.goal_file_with(goal.golden))
        test = f"unit_test/unit_test_{goal.index}.py"
        (repo / test).write_text(goal.test)
        implementations.append(
            {
                "instruction": f"Implement {goal.function}.",
                "index": goal.index,
                "category": "Evaluation Metrics",
                "goal_file": goal.goal_file,
                "goal_function": goal.function,
                "class_name": goal.class_name,
                "golden_file": golden,
                "retrieval_context": [],
                "unit_test_file": test,
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
        "paper_name": "Golden proof stand-ins",
        "folder_name": task_dir.name,
        "paper_url": "",
        "year": 2024,
        "repo_url": "",
        "repo_folder_name": REPO,
        "implementations": implementations,
    }
    (task_dir / "info.json").write_text(json.dumps(info, indent=4))
    return task_dir
