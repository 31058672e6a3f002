"""Every copy a solver can read, in tasks of our own in the published shape."""

from __future__ import annotations

import shutil
from pathlib import Path

import git

from lmr_author.leaks.copies import Copy
from tests.leaks.support import (
    FIXTURES,
    GOLDEN,
    MASKED,
    RENAMED,
    SAME_NAME_DIFFERENT,
    compile_here,
    copies_of,
    notebook,
    published_task,
    repo,
)


def _found(copies: list[Copy]) -> list[tuple[str, str, str, str]]:
    return [(c.level, c.kind, c.file, c.function) for c in copies if c.level]


def test_a_clean_task_with_a_same_named_different_function_has_no_copy(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    (repo(task) / "baseline.py").write_text(SAME_NAME_DIFFERENT)
    assert _found(copies_of(task)) == []
    # The masked goal itself is not a copy, whatever it keeps.
    assert all(
        c.function != "weighted_mean" or c.file.endswith("baseline.py")
        for c in copies_of(task, floor=0.0)
    )


def test_a_renamed_copy_in_another_module_is_an_error(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    (repo(task) / "lib").mkdir()
    (repo(task) / "lib" / "scoring.py").write_text("import math\n\n\n" + RENAMED)
    [copy] = [c for c in copies_of(task) if c.level]
    assert (copy.level, copy.kind, copy.file, copy.function) == (
        "error",
        "source",
        "scorer/lib/scoring.py",
        "Scorer.combine",
    )
    assert copy.where == "lines 5-13" and copy.similarity == 1.0 and copy.fix == "mask"


def test_a_copy_in_a_notebook_cell_is_found_with_its_cell(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    inline = "values, weights = [1, 2], [3, 4]\n" + GOLDEN.split('"""\n', 2)[2].replace(
        "    ", ""
    ).replace("def weighted_mean(values, weights):\n", "")
    (repo(task) / "explore.ipynb").write_text(
        notebook("import numpy as np\n%matplotlib inline", GOLDEN, "print(1)")
    )
    (repo(task) / "inline.ipynb").write_text(notebook(inline))
    found = {
        (c.file, c.where.split(",")[0], c.function, c.level) for c in copies_of(task) if c.level
    }
    assert ("scorer/explore.ipynb", "cell 3", "weighted_mean", "error") in found


def test_golden_bytecode_of_310_and_311_in_pycache_is_an_error(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    cache = repo(task) / "__pycache__"
    cache.mkdir()
    shutil.copy(FIXTURES / "golden.cpython-310.pyc", cache / "metrics.cpython-310.pyc")
    compile_here(GOLDEN, cache / "metrics_golden.cpython-311.pyc")
    shutil.copy(FIXTURES / "masked.cpython-312.pyc", cache / "metrics.cpython-312.pyc")
    found = {c.file: c for c in copies_of(task) if c.level}
    assert set(found) == {
        "scorer/__pycache__/metrics.cpython-310.pyc",
        "scorer/__pycache__/metrics_golden.cpython-311.pyc",
    }
    old = found["scorer/__pycache__/metrics.cpython-310.pyc"]
    assert old.level == "error" and old.kind == "bytecode" and old.fix == "delete"
    assert "compiled from another version of metrics.py" in old.detail
    assert old.where.startswith("Python 3.10")
    named = found["scorer/__pycache__/metrics_golden.cpython-311.pyc"]
    assert "a golden file" in named.detail and named.similarity == 1.0


def test_unreadable_golden_named_bytecode_is_still_an_error(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    cache = repo(task) / "__pycache__"
    cache.mkdir()
    (cache / "metrics_golden.cpython-27.pyc").write_bytes(b"\x03\xf3\r\n" + b"\0" * 40)
    [copy] = [c for c in copies_of(task) if c.level]
    assert copy.level == "error" and copy.fix == "delete" and "golden file" in copy.detail


def test_build_backup_and_checkpoint_copies_are_found_and_deletable(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    (repo(task) / "build" / "lib").mkdir(parents=True)
    (repo(task) / "build" / "lib" / "metrics.py").write_text(GOLDEN)
    (repo(task) / "metrics.py.orig").write_text(GOLDEN)
    (repo(task) / "metrics.py~").write_text(GOLDEN)
    (repo(task) / ".ipynb_checkpoints").mkdir()
    (repo(task) / ".ipynb_checkpoints" / "metrics-checkpoint.py").write_text(GOLDEN)
    found = {(c.kind, c.file, c.fix) for c in copies_of(task) if c.level}
    assert found == {
        ("build", "scorer/build/lib/metrics.py", "delete"),
        ("backup", "scorer/metrics.py.orig", "delete"),
        ("backup", "scorer/metrics.py~", "delete"),
        ("backup", "scorer/.ipynb_checkpoints/metrics-checkpoint.py", "delete"),
    }


def test_a_latex_listing_and_a_markdown_block_are_found(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    (repo(task) / "paper").mkdir()
    (repo(task) / "paper" / "main.tex").write_text(
        "\\section{Method}\nWe weigh.\n\\begin{lstlisting}[language=Python]\n"
        + GOLDEN
        + "\\end{lstlisting}\n\\begin{algorithmic}\\State $t \\gets \\sum w$\\end{algorithmic}\n"
    )
    (repo(task) / "README.md").write_text(
        "# Use\n\n```bash\npip install .\n```\n\n```python\n" + RENAMED + "```\n"
    )
    found = {(c.kind, c.file, c.where, c.level) for c in copies_of(task) if c.level}
    assert ("document", "scorer/paper/main.tex", "lines 7-12", "error") in found
    assert ("document", "scorer/README.md", "lines 9-17", "error") in found


def test_code_in_the_papers_text_is_found_with_its_page(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    flat = "\n".join(line.strip() for line in GOLDEN.splitlines())  # a PDF loses indentation
    (repo(task) / "paper.json").write_text(
        '{"1": "Weighted scoring. We propose a mean.", "2": '
        + __import__("json").dumps("Listing 1.\n" + flat + "\n5 Experiments\nWe ran it.")
        + "}"
    )
    [copy] = [c for c in copies_of(task) if c.level]
    assert (copy.kind, copy.file, copy.where.split(",")[0]) == (
        "paper",
        "scorer/paper.json",
        "page 2",
    )


def test_a_shipped_git_history_hands_out_the_unmasked_goal(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    source = git.Repo.init(repo(task))
    with source.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.invalid")
    (repo(task) / "metrics.py").write_text(GOLDEN)
    source.index.add(["metrics.py"])
    source.index.commit("the paper's code")
    (repo(task) / "metrics.py").write_text(MASKED)
    source.index.add(["metrics.py"])
    source.index.commit("masked")
    [copy] = [c for c in copies_of(task) if c.level]
    assert (copy.kind, copy.file, copy.function, copy.level) == (
        "git",
        "scorer/.git",
        "weighted_mean",
        "error",
    )
    assert copy.where.startswith("object ") and "(metrics.py)" in copy.where


def test_a_symlinked_file_is_not_followed(tmp_path: Path) -> None:
    task = published_task(tmp_path)
    outside = tmp_path / "outside.py"
    outside.write_text(GOLDEN)
    (repo(task) / "linked.py").symlink_to(outside)
    assert _found(copies_of(task)) == []
