"""Indexing files and whole repositories, with the mtime/size cache."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path
from textwrap import dedent

import pytest

from lmr_author.cst.cache import FunctionCache
from lmr_author.cst.index import list_functions
from lmr_author.cst.repository import index_repository, iter_repository_functions, python_files
from tests.support.unprivileged import shared_tmp_dir, unprivileged


def test_definitions_in_every_kind_of_block_are_listed() -> None:
    source = dedent(
        """\
        try:
            from fast import f
        except ImportError:
            def f(x):
                return x
        match 1:
            case 1:
                def g():
                    pass
        class A:
            if True:
                async def m(self):
                    '''First line.

                    More.'''
                    def inner():
                        pass
        """
    )
    infos = list_functions(source)
    assert [(i.qualname, i.class_name, i.start_line, i.end_line) for i in infos] == [
        ("f", "", 4, 5),
        ("g", "", 8, 9),
        ("A.m", "A", 12, 17),
        ("A.m.inner", "", 16, 17),
    ]
    method = infos[2]
    assert method.is_async and method.docstring == "First line." and method.body_lines == 5


def make_repo(root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "__pycache__").mkdir()
    (root / "a.py").write_text("def a():\n    return 1\n")
    (root / "pkg" / "b.py").write_text("class B:\n    @property\n    def b(self):\n        pass\n")
    (root / "pkg" / "sub" / "broken.py").write_text("def broken(:\n")
    (root / "pkg" / "notes.txt").write_text("def not_python(): pass\n")
    (root / ".git" / "hook.py").write_text("def hidden(): pass\n")
    (root / "__pycache__" / "x.py").write_text("def cached(): pass\n")
    (root / "venv" / "lib").mkdir(parents=True)
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "venv" / "lib" / "dep.py").write_text("def dep(): pass\n")


def test_iter_repository_functions_yields_file_by_file_and_reports_errors(
    tmp_path: Path,
) -> None:
    make_repo(tmp_path)
    errors: list[tuple[str, str]] = []
    found = list(iter_repository_functions(tmp_path, on_error=lambda p, e: errors.append((p, e))))
    assert [(path, [i.qualname for i in infos]) for path, infos in found] == [
        ("a.py", ["a"]),
        ("pkg/b.py", ["B.b"]),
    ]
    assert found[1][1][0].decorators == ("property",)
    assert errors == [("pkg/sub/broken.py", "line 1: invalid syntax")]
    # The second pass comes from the cache and says the same.
    again = list(iter_repository_functions(tmp_path, on_error=lambda p, e: None))
    assert again == found


def test_index_repository_uses_and_refreshes_the_cache(tmp_path: Path) -> None:
    make_repo(tmp_path)
    cold = index_repository(tmp_path)
    assert cold.cached_files == 0
    assert sorted(cold.files) == ["a.py", "pkg/b.py"]
    assert cold.errors == {"pkg/sub/broken.py": "line 1: invalid syntax"}
    assert cold.function_count == 2 and cold.lines == 7

    warm = index_repository(tmp_path)
    assert warm.cached_files == 3 and warm.files == cold.files and warm.errors == cold.errors

    (tmp_path / "a.py").write_text("def a():\n    return 1\n\n\ndef a2():\n    pass\n")
    (tmp_path / "pkg" / "sub" / "broken.py").unlink()
    changed = index_repository(tmp_path)
    assert changed.cached_files == 1
    assert [i.qualname for i in changed.files["a.py"]] == ["a", "a2"]
    assert changed.errors == {}
    assert set(FunctionCache.load(tmp_path.resolve())._entries) == {"a.py", "pkg/b.py"}


def test_no_cache_neither_reads_nor_writes(tmp_path: Path) -> None:
    make_repo(tmp_path)
    index = index_repository(tmp_path, use_cache=False)
    assert index.cached_files == 0
    assert not FunctionCache.path_for(tmp_path.resolve()).exists()
    index_repository(tmp_path)
    assert index_repository(tmp_path, use_cache=False).cached_files == 0


def test_cache_lives_under_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LMR_AUTHOR_CACHE_DIR")
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    repo = tmp_path / "repo"
    repo.mkdir()
    make_repo(repo)
    index_repository(repo)
    cached = list((xdg / "lmr-author" / "functions").glob("*.json"))
    assert len(cached) == 1


def test_corrupt_cache_is_ignored(tmp_path: Path) -> None:
    make_repo(tmp_path)
    index_repository(tmp_path)
    FunctionCache.path_for(tmp_path.resolve()).write_text("{not json")
    assert index_repository(tmp_path).cached_files == 0
    assert index_repository(tmp_path).cached_files == 3


def test_parallel_and_serial_indexing_agree(tmp_path: Path) -> None:
    for number in range(60):
        (tmp_path / f"m{number:02d}.py").write_text(
            f"class C{number}:\n    def m(self):\n        return {number}\n" * (number % 3 + 1)
        )
    parallel = index_repository(tmp_path, use_cache=False, workers=2)
    serial = index_repository(tmp_path, use_cache=False, workers=1)
    assert parallel.files == serial.files and len(parallel.files) == 60
    assert python_files(tmp_path) == sorted(f"m{n:02d}.py" for n in range(60))


def test_unreadable_file_is_an_error_not_a_crash() -> None:
    with shared_tmp_dir() as root:
        target = root / "locked.py"
        target.write_text("def f(): pass\n")
        target.chmod(0)
        with unprivileged():
            found = index_repository(root, use_cache=False, workers=1)
    assert "cannot read" in found.errors["locked.py"]


def test_iteration_from_a_thread_uses_worker_processes_safely(tmp_path: Path) -> None:
    """The new-task TUI iterates in a thread: worker processes are spawned, not forked."""
    for number in range(50):
        (tmp_path / f"f{number:02d}.py").write_text(f"def f{number}():\n    pass\n")
    results: list[list[str]] = []

    def run() -> None:
        found = iter_repository_functions(tmp_path, use_cache=False, workers=2)
        results.append([infos[0].qualname for _, infos in found])

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=120)
    assert results == [[f"f{number}" for number in range(50)]]


def test_abandoned_iteration_still_saves_what_it_parsed(tmp_path: Path) -> None:
    make_repo(tmp_path)
    iterator = iter_repository_functions(tmp_path)
    next(iterator)
    iterator.close()
    assert set(FunctionCache.load(tmp_path.resolve())._entries) == {"a.py"}


def test_progress_reports_every_file(tmp_path: Path) -> None:
    make_repo(tmp_path)
    seen: list[tuple[int, int]] = []
    index_repository(tmp_path, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]
    seen.clear()
    index_repository(tmp_path, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(3, 3)]


def test_syntax_warnings_of_indexed_files_are_not_shown() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [i.name for i in list_functions('def f():\n    return "\\d"\n')] == ["f"]
