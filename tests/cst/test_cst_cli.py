"""The four engine commands, run through `lmr_author.cli.main` as a user would."""

from __future__ import annotations

import io
import json
from pathlib import Path
from textwrap import dedent

import pytest

from lmr_author.cli import main

GOLDEN = dedent(
    '''\
    import torch\r
    \r
    \r
    class Trainer:\r
        def loss(self, a, b):  # goal\r
            """Loss."""\r
            losses = a - b\r
            return losses\r
    \r
        @property\r
        def v(self):\r
            return 1\r
    \r
        @v.setter\r
        def v(self, value):\r
            pass\r
    '''
).encode()

MASKED = GOLDEN.replace(
    b"        losses = a - b\r\n", b"        # TODO: Implement this function\r\n"
)


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    path = tmp_path / "trainers.py"
    path.write_bytes(GOLDEN)
    return path


def test_mask_to_stdout_and_to_file(
    golden: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["mask", str(golden), "loss", "--class", "Trainer"]) == 0
    assert capsysbinary.readouterr().out == MASKED
    out = tmp_path / "masked.py"
    assert main(["mask", str(golden), "Trainer.loss", "-o", str(out)]) == 0
    assert out.read_bytes() == MASKED


def test_mask_several_and_todo_style(
    golden: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["mask", str(golden), "Trainer", "--style", "todo"]) == 0
    out = capsysbinary.readouterr().out
    assert out.count(b"raise NotImplementedError") == 3 and b"losses = a - b" not in out


def test_ambiguity_is_a_usage_error_and_line_resolves_it(
    golden: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mask", str(golden), "v", "--class", "Trainer"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lmr-author: error: ") and "--line" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert main(["mask", str(golden), "v", "--class", "Trainer", "--line", "15"]) == 0


def test_splice_from_file_and_stdin(
    golden: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    masked = tmp_path / "masked.py"
    masked.write_bytes(MASKED)
    answer = tmp_path / "answer.md"
    answer.write_text(
        'Here:\n```python\ndef loss(self, a, b):  # goal\n    """Loss."""\n'
        "    losses = a - b\n    return losses\n```\n"
    )
    out = tmp_path / "spliced.py"
    assert main(["splice", str(masked), "loss", "--class", "Trainer", "--impl", str(answer),
                 "-o", str(out)]) == 0  # fmt: skip
    assert out.read_bytes() == GOLDEN
    monkeypatch.setattr("sys.stdin", io.StringIO(answer.read_text()))
    assert main(["splice", str(masked), "Trainer.loss", "--impl", "-"]) == 0
    assert capsysbinary.readouterr().out == GOLDEN


def test_bad_implementation_names_the_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    masked = tmp_path / "masked.py"
    masked.write_bytes(MASKED)
    answer = tmp_path / "answer.py"
    answer.write_text("def loss(self, a, b:\n    pass\n")
    out = tmp_path / "out.py"
    code = main(["splice", str(masked), "Trainer.loss", "--impl", str(answer), "-o", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{answer}: the implementation does not parse (line 1" in err
    assert not out.exists()


def test_extract_with_class(golden: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["extract", str(golden), "loss", "--class", "Trainer", "--with-class"]) == 0
    assert (
        capsysbinary.readouterr().out
        == GOLDEN[GOLDEN.index(b"class") : GOLDEN.index(b"\r\n\r\n    @") + 2]
    )


def test_functions_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "trainers.py").write_bytes(GOLDEN)
    (tmp_path / "broken.py").write_text("def (:\n")
    assert main(["functions", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "pkg/trainers.py:5-8 Trainer.loss (3 lines) - Loss.",
        "pkg/trainers.py:10-12 Trainer.v @property (1 line)",
        "pkg/trainers.py:14-16 Trainer.v @v.setter (1 line)",
    ]
    assert "skipped broken.py: line 1" in err
    assert main(["functions", str(tmp_path), "--json", "--no-cache"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["files"][0]["functions"][0]["qualname"] == "Trainer.loss"
    assert document["errors"][0]["path"] == "broken.py"
    assert main(["functions", str(tmp_path / "pkg" / "trainers.py"), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["files"][0]["functions"]) == 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["functions", "/nonexistent/x"], "does not exist"),
        (["functions", "{broken}"], "the file does not parse"),
        (["mask", "/nonexistent/x.py", "f"], "does not exist"),
        (["extract", "{golden}", "nope"], "defines no function `nope`"),
        # A bare method name: every qualified definition that ends with it is named.
        (["extract", "{golden}", "v"], "Did you mean Trainer.v?"),
        (["mask", "{golden}", "loss"], "Did you mean Trainer.loss?"),
        (["splice", "{golden}", "loss", "--impl", "{golden}"], "Did you mean Trainer.loss?"),
        (["mask", "{golden}", "loss", "other", "--line", "3"], "--line picks one"),
    ],
)
def test_user_errors_are_one_paragraph(
    argv: list[str], message: str, golden: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n")
    argv = [arg.format(golden=golden, broken=broken) for arg in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
