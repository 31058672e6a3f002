"""Step 6 of new-task: the unit-test scaffold, from templates/ (the Dockerfile is
`lmr_author.authoring.dockerfile`'s).

Templates use ``string.Template`` (``$name``) for the unit test, since Python source is
full of braces.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path, PurePosixPath

from lmr_author.util.resources import resource_path


def template_path(name: str) -> Path:
    return resource_path("templates", name)


def render_unit_test(
    *,
    goal_file: str,
    goal_function: str,
    class_name: str = "",
    unit_test_file: str = "unit_test/unit_test_1.py",
    template: Path | None = None,
    seed: bool = False,
    module: str | None = None,
    fixtures_dir: str = "fixtures",
    restore_random: bool = False,
) -> str:
    """A replay unit test of the goal function's recorded fixtures (see fixtures.py).

    ``module`` is the name the test imports the goal module by (default: the goal file's
    path as a dotted name; a repository installed as a package may need its own name);
    ``fixtures_dir`` the folder of the fixtures, relative to the test's folder.
    ``restore_random``: each replayed call starts the random generators where the golden
    call did (the fixture's ``"random"``, `lmr_author.domain.replay_random`, copied beside
    the test as ``lmr_random.py``).
    """
    module = module or goal_file.removesuffix(".py").replace("/", ".")
    qualname = f"{class_name}.{goal_function}" if class_name else goal_function
    if class_name:
        import_name = class_name
        call_line = (
            f'actual = {class_name}.{goal_function}(case["self"], *case["args"], **case["kwargs"])'
        )
    else:
        import_name = goal_function
        call_line = f'actual = {goal_function}(*case["args"], **case["kwargs"])'
    if restore_random:
        call_line = f"import lmr_random; lmr_random.restore_file(path); {call_line}"
    if seed:  # the recording was seeded the same way (authoring.record_docker)
        call_line = f"import lmr_seed; lmr_seed.seed_all(); {call_line}"
    test_class = "".join(part.title() for part in re.split(r"[^A-Za-z0-9]+", qualname) if part)
    text = (template or template_path("unit_test.py.tmpl")).read_text(encoding="utf-8")
    return string.Template(text).substitute(
        qualname=qualname,
        goal_file=goal_file,
        module=module,
        import_name=import_name,
        call_line=call_line,
        test_class=test_class or "Goal",
        fixture_prefix=fixture_prefix(goal_function, class_name),
        unit_test_file=unit_test_file,
        test_stem=PurePosixPath(unit_test_file).stem,
        # A plain folder keeps the line of every test made before it could be another.
        fixtures_dir=", ".join(json.dumps(part) for part in PurePosixPath(fixtures_dir).parts),
        fixtures_shown=fixtures_dir,
    )


def fixture_prefix(goal_function: str, class_name: str = "") -> str:
    return f"{class_name}_{goal_function}" if class_name else goal_function
