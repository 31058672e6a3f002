"""The driver template: the goal's import and a commented call with the parameters a call
must give; nothing in it runs the goal."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lmr_author.authoring.driver_template import TEMPLATE_MARK, driver_template
from lmr_author.authoring.spec import GoalSpec

SOURCE = textwrap.dedent(
    """\
    class Outer:
        class Opt:
            def __init__(self, params, lr=1e-4, *, betas, eps=1e-8):
                self.params = params

            def step(self, closure=None):
                return None

            @staticmethod
            def scale(x, factor):
                return x * factor


    def loss(chosen, rejected, beta=0.1, *args, reduction="mean", **kwargs):
        return 0.0
    """
)


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "opt.py").write_text(SOURCE)
    return tmp_path


def test_a_function_is_imported_and_called_with_its_required_parameters(tmp_path: Path) -> None:
    text = driver_template(_repo(tmp_path), GoalSpec("pkg/opt.py", "loss"))
    assert text.splitlines()[0] == TEMPLATE_MARK
    assert "from pkg.opt import loss\n" in text
    assert "# loss(chosen, rejected)\n" in text
    compile(text, "driver.py", "exec")  # valid Python, that calls nothing
    assert [line for line in text.splitlines() if line and not line.startswith("#")] == [
        "from pkg.opt import loss"
    ]


def test_a_method_builds_its_class_first(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    text = driver_template(repo, GoalSpec("pkg/opt.py", "step", class_name="Outer.Opt"))
    assert "from pkg.opt import Outer\n" in text
    assert "# obj = Outer.Opt(params, betas=...)\n" in text
    assert "# obj.step()\n" in text
    static = driver_template(repo, GoalSpec("pkg/opt.py", "scale", class_name="Outer.Opt"))
    assert "# obj.scale(x, factor)\n" in static


def test_a_file_that_does_not_parse_still_gives_the_import(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n")
    text = driver_template(tmp_path, GoalSpec("broken.py", "f"))
    assert "from broken import f\n" in text and "# f()\n" in text
