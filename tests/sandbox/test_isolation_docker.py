"""The candidate in a process of its own, for real: what it sees, and where a goal
cannot cross, what validate and eval say and do.

The hostile candidates against published-shape tasks are in
``tests/adversarial/test_isolation*.py``; these check the mechanism's own promises.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lmr_author.domain.task import Task
from lmr_author.images.task_images import ensure_image
from lmr_author.sandbox.run_spec import RunSpec
from lmr_author.sandbox.runner import run_tests
from lmr_author.validate.dynamic import run_dynamic_checks
from tests.support.eval_cli import eval_json
from tests.support.sandbox_tasks import GOLDEN

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("image_cleanup", "no_leftovers")]

#: A goal that takes a callback from the test: it cannot cross (the test's function is
#: never sent), so candidates run in the test's process.
CALLBACK_GOLDEN = textwrap.dedent(
    '''\
    """A tiny repository module with one goal function."""


    def add(a, b, check=None):
        """Return the sum of a and b (and let ``check`` see it)."""
        total = a + b
        if check is not None:
            check(total)
        return total
    '''
)
CALLBACK_MASKED = CALLBACK_GOLDEN.split("    total = a + b")[0] + "    pass\n"
CALLBACK_TEST = textwrap.dedent(
    """\
    from calc import add

    seen = []


    def check(total):
        seen.append(total)


    assert add(2, 3, check) == 5
    assert seen == [5]
    """
)

#: What a candidate finds of the test from its own process: it answers it in its result.
PROBE = textwrap.dedent(
    '''\
    import os


    def add(a, b):
        """Report what this process can read of the test, as the answer."""
        seen = []
        for root, _dirs, files in os.walk(os.getcwd()):
            for name in files:
                path = os.path.join(root, name)
                try:
                    with open(path) as handle:
                        if "add(2, 3) == 5" in handle.read():
                            seen.append(path)
                except OSError:
                    pass
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                for what in ("environ", "mem", "fd"):
                    try:
                        if what == "fd":
                            os.listdir(f"/proc/{pid}/fd")
                        else:
                            open(f"/proc/{pid}/{what}", "rb").read(1)
                        seen.append(f"/proc/{pid}/{what}")
                    except OSError:
                        pass
        return (a + b) if not seen else repr(seen)
    '''
)


def test_a_goal_that_cannot_cross_runs_in_the_tests_process_and_says_so(
    task_factory: Callable[..., Task], tmp_path: Path, capsys: Any
) -> None:
    task = task_factory(
        tag="callback", golden=CALLBACK_GOLDEN, masked=CALLBACK_MASKED, test_source=CALLBACK_TEST
    )
    findings = run_dynamic_checks(task, timeout_s=60)
    assert [(f.rule, f.severity) for f in findings] == [("not-isolated", "warning")]
    assert "is the test's" in findings[0].message  # what could not cross
    submission = tmp_path / "golden"
    goal = submission / task.name / task.repo_folder_name / "calc.py"
    goal.parent.mkdir(parents=True)
    goal.write_text(CALLBACK_GOLDEN)
    results = eval_json(task.path.parent, [submission], tmp_path / "out", capsys)
    [run] = results["runs"]
    assert run["verdict"] == "pass" and run["isolated"] is False
    assert "is the test's" in run["not_isolated_why"]
    assert results["systems"]["golden"]["in_process"]["implementations"] == 1
    assert results["systems"]["golden"]["isolated"]["implementations"] == 0


def test_the_candidates_process_reads_nothing_of_the_test(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    """Its user cannot read the test folder or the test's /proc; the answer says what it
    found, and only a candidate that found nothing can answer right."""
    task = task_factory(tag="probe")
    impl = task.implementations[0]
    image = ensure_image(task, client=docker_client)
    run = run_tests(RunSpec(task, impl, PROBE.encode(), image), client=docker_client)
    assert run.isolated and run.verdict == "pass", (run.reason, run.verdicts[0].log[-2000:])


def test_validate_proves_an_isolated_golden_and_eval_isolates(
    task_factory: Callable[..., Task], tmp_path: Path, capsys: Any
) -> None:
    task = task_factory(tag="isogold")
    assert run_dynamic_checks(task, timeout_s=60) == []
    submission = tmp_path / "golden"
    goal = submission / task.name / task.repo_folder_name / "calc.py"
    goal.parent.mkdir(parents=True)
    goal.write_bytes(task.implementations[0].golden_path.read_bytes())
    capsys.readouterr()
    results = eval_json(task.path.parent, [submission], tmp_path / "out", capsys)
    [run] = results["runs"]
    assert run["verdict"] == "pass" and run["isolated"] is True and not run["not_isolated_why"]


#: A test that keeps its expected value beside the code, outside unit_test/.
READS_DATA_TEST = textwrap.dedent(
    """\
    import json

    from calc import add

    with open("data/expected.json") as handle:
        assert add(2, 3) == json.load(handle)
    """
)
#: Answers with the test's own expected value when it can read it.
READS_DATA_CANDIDATE = textwrap.dedent(
    '''\
    import json


    def add(a, b):
        """Wrong, unless the test's expected value can be read."""
        try:
            with open("data/expected.json") as handle:
                return json.load(handle)
        except OSError:
            return a - b
    '''
)


def test_what_only_the_tests_read_is_private_to_them(
    task_factory: Callable[..., Task], tmp_path: Path, capsys: Any
) -> None:
    """The golden proof sees the test read data/expected.json and the golden code not:
    candidates then cannot read it, wherever in the repository it is."""
    task = task_factory(tag="readsdata", test_source=READS_DATA_TEST)
    data = task.path / task.repo_folder_name / "data"
    data.mkdir()
    (data / "expected.json").write_text("5\n")
    systems = []
    for name, source in (("golden", GOLDEN), ("reader", READS_DATA_CANDIDATE)):
        goal = tmp_path / name / task.name / task.repo_folder_name / "calc.py"
        goal.parent.mkdir(parents=True)
        goal.write_text(source)
        systems.append(tmp_path / name)
    results = eval_json(task.path.parent, systems, tmp_path / "out", capsys)
    verdicts = {run["system"]: run["verdict"] for run in results["runs"]}
    assert verdicts == {"golden": "pass", "reader": "fail"}, results["runs"]


#: A test that imports its expected value from a module of the repository.
IMPORTS_EXPECTED_TEST = textwrap.dedent(
    """\
    from calc import add
    from expected_values import SUM

    assert add(2, 3) == SUM
    """
)
#: Answers with the value that module holds, read as text or from its bytecode.
IMPORTS_EXPECTED_CANDIDATE = textwrap.dedent(
    '''\
    import glob
    import marshal
    import os


    def add(a, b):
        """Wrong, unless the test's module can be read, as source or as bytecode."""
        here = os.path.dirname(os.path.abspath(__file__))
        try:
            with open(os.path.join(here, "expected_values.py")) as handle:
                return int(handle.read().split("=")[1])
        except OSError:
            pass
        for path in glob.glob(os.path.join(here, "__pycache__", "expected_values.*.pyc")):
            try:
                with open(path, "rb") as handle:
                    code = marshal.loads(handle.read()[16:])
                return next(c for c in code.co_consts if isinstance(c, int))
            except (OSError, StopIteration, ValueError):
                pass
        return a - b
    '''
)


def test_a_module_only_the_tests_import_is_private_source_and_bytecode(
    task_factory: Callable[..., Task], tmp_path: Path, capsys: Any
) -> None:
    task = task_factory(tag="importsexp", test_source=IMPORTS_EXPECTED_TEST)
    repo = task.path / task.repo_folder_name
    (repo / "expected_values.py").write_text("SUM = 5\n")
    # Bytecode in the image, as an image built by pip or a run at build time leaves it.
    dockerfile = task.path / "Dockerfile"
    dockerfile.write_text(
        dockerfile.read_text() + "\nUSER root\nRUN python -m compileall -q /workspace\n"
    )
    systems = []
    for name, source in (("golden", GOLDEN), ("reader", IMPORTS_EXPECTED_CANDIDATE)):
        goal = tmp_path / name / task.name / task.repo_folder_name / "calc.py"
        goal.parent.mkdir(parents=True)
        goal.write_text(source)
        systems.append(tmp_path / name)
    results = eval_json(task.path.parent, systems, tmp_path / "out", capsys)
    verdicts = {run["system"]: run["verdict"] for run in results["runs"]}
    assert verdicts == {"golden": "pass", "reader": "fail"}, results["runs"]


#: The candidate looks for a place to leave something for the test's process (or to
#: find what the test left): the shared scratch, the test's home, its temporary files.
SCRATCH_PROBE = textwrap.dedent(
    '''\
    import os
    import tempfile


    def add(a, b):
        """Say every place this process shares with the test's, as the answer."""
        found = []
        for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/tmp/lmr-test-home"):
            try:
                with open(os.path.join(folder, "planted"), "w") as handle:
                    handle.write("for the test")
                found.append("wrote in " + folder)
            except OSError:
                pass
            try:
                os.listdir(folder)
                found.append("listed " + folder)
            except OSError:
                pass
        for path in ("/tmp/the-tests-own", "/dev/shm/the-tests-own"):
            try:
                open(path).read()
                found.append("read " + path)
            except OSError:
                pass
        home = os.environ["HOME"]
        if not home.startswith("/tmp/lmr-candidate-home"):
            found.append("HOME " + home)
        for name in ("TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "MPLCONFIGDIR", "HF_HOME",
                     "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):
            if not os.environ.get(name, "").startswith(home + "/"):
                found.append(name + " " + os.environ.get(name, "unset"))
        with tempfile.NamedTemporaryFile() as handle:
            if not handle.name.startswith(home + "/"):
                found.append("a temporary file in " + handle.name)
        return a + b if not found else repr(found)
    '''
)
#: The test writes to the shared scratch (it may: only the candidate may not), keeps a
#: private environment of its own, and checks the candidate's answer.
SCRATCH_TEST = textwrap.dedent(
    """\
    import os

    from calc import add

    for path in ("/tmp/the-tests-own", "/dev/shm/the-tests-own"):
        with open(path, "w") as handle:
            handle.write("expected: 5")
    assert os.environ["HOME"].startswith("/tmp/lmr-test-home"), os.environ["HOME"]
    assert os.environ["MPLCONFIGDIR"].startswith(os.environ["HOME"] + "/")
    assert not os.path.exists("/tmp/planted") and not os.path.exists("/dev/shm/planted")
    answer = add(2, 3)
    assert answer == 5, answer
    assert not os.path.exists("/tmp/planted") and not os.path.exists("/dev/shm/planted")
    """
)


def test_the_runs_users_share_no_writable_place_and_no_cache(
    task_factory: Callable[..., Task], docker_client: Any
) -> None:
    """Issue 39: /tmp, /var/tmp, /dev/shm and /run/lock are the test's (the candidate may
    only pass through /tmp to its own home), HOME, TMPDIR and the caches of matplotlib,
    Hugging Face and torch's compilers are each user's own, and what the test writes is
    its own: the candidate can neither plant a file for the test nor read the test's."""
    task = task_factory(tag="scratch", test_source=SCRATCH_TEST)
    image = ensure_image(task, client=docker_client)
    impl = task.implementations[0]
    run = run_tests(RunSpec(task, impl, SCRATCH_PROBE.encode(), image), client=docker_client)
    assert run.isolated and run.verdict == "pass", (run.reason, run.verdicts[0].log[-2000:])
