"""Reading JSON and JSON Lines input files, so that no input can end in a traceback.

Every file a user hands us (info.json, predictions, run.json, results.json, label,
alias and spec files, paper.json, judgments) is read through here. Whatever is wrong
with it becomes one `UserError` naming the file, the line or JSON path, and what to do:

- unreadable (missing, a folder, no permission): ``OSError``;
- not UTF-8 (a binary file, Latin-1 text): ``UnicodeDecodeError``;
- not JSON, or numbers Python refuses (an integer of more than 4300 digits);
- nested deeper than `MAX_DEPTH`: checked *before* parsing, without recursion, because
  ``json`` and every recursive walk after it (schema validation, copies) would raise
  ``RecursionError`` somewhere downstream.

JSON Lines are split on ``"\\n"`` only: ``str.splitlines()`` also splits on U+2028 and
other separators that JSON allows raw inside strings, which cut valid lines in two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lmr_author.util.errors import UserError

#: Deeper than any real input: info.json, predictions and results are 2-5 levels deep.
MAX_DEPTH = 64
#: Strings (with escapes) and the brackets that open or close nesting.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')

PairsHook = Callable[[list[tuple[str, Any]]], Any]


def read_text(
    path: Path,
    *,
    what: str = "file",
    hint: str | None = None,
    missing: UserError | None = None,
    error: type[UserError] = UserError,
) -> str:
    """The UTF-8 text of ``path`` (a leading BOM dropped); `UserError` when unreadable.

    This is the one reader of a user's text file (templates, golden files, candidates,
    Dockerfiles, results.txt): whatever goes wrong names the file and what to do.

    Args:
        what: how the messages name the file ("judge prompt template").
        hint: what to do, for every failure (decoding errors default to "save as UTF-8").
        missing: raised instead when there is no file at ``path`` (nothing, or a
            folder), for callers that know better what to say (the flag or the
            info.json field that named it).
        error: the `UserError` subclass raised (`InfraError` for a task's Dockerfile),
            so that each caller keeps the error class it always raised.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError) as failure:
        if missing is not None:
            raise missing from None
        if isinstance(failure, IsADirectoryError):
            reason = "it is a folder, not a file"
        else:  # NotADirectoryError: the path goes through a file, so nothing is there
            reason = "it does not exist"
        raise error(f"cannot read the {what}: {reason}", file=path, hint=hint) from None
    except OSError as failure:
        reason = failure.strerror or type(failure).__name__
        raise error(f"cannot read the {what} ({reason})", file=path, hint=hint) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as failure:
        line = data[: failure.start].count(b"\n") + 1
        raise error(
            f"the {what} is not UTF-8 text (byte 0x{data[failure.start]:02x} at offset "
            f"{failure.start})",
            file=path,
            where=f"line {line}",
            hint=hint or "Save it as UTF-8, or check that it is the file you meant.",
        ) from None


def nesting_depth(text: str) -> int:
    """How deeply ``[`` and ``{`` nest in JSON text (strings skipped), without recursion."""
    depth = deepest = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def parse_json(
    text: str,
    *,
    file: Path | str | None = None,
    what: str = "JSON file",
    line: int | None = None,
    hint: str | None = None,
    object_pairs_hook: PairsHook | None = None,
) -> Any:
    """Parse JSON text; any failure is a `UserError` naming the file and line."""
    where_line = f"line {line}" if line is not None else None
    # Cheap test first: only text with that many brackets can nest that deep.
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(text) > MAX_DEPTH:
        raise UserError(
            f"the {what} is nested too deeply (lists and objects more than {MAX_DEPTH} "
            "levels deep)",
            file=file,
            where=where_line,
            hint=hint
            or "No input of lmr-author nests that deep; check that it is the file you meant.",
        )
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as error:
        if line is None:  # a whole file: the place is a line and column of it
            message = f"invalid JSON: {error.msg}"
            where = f"line {error.lineno}, column {error.colno}"
        else:  # one line of a JSON Lines file
            message = f"invalid JSON: {error.msg} (column {error.colno})"
            where = f"line {line}"
        raise UserError(message, file=file, where=where, hint=hint) from None
    except (ValueError, RecursionError, OverflowError) as error:
        raise UserError(
            f"the {what} cannot be read as JSON ({error})", file=file, where=where_line, hint=hint
        ) from None


def load_json(
    path: Path,
    *,
    what: str = "JSON file",
    hint: str | None = None,
    object_pairs_hook: PairsHook | None = None,
) -> Any:
    """The JSON value in ``path``; `UserError` for anything unreadable."""
    text = read_text(path, what=what, hint=hint)
    return parse_json(text, file=path, what=what, hint=hint, object_pairs_hook=object_pairs_hook)


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of text split on ``\\n`` only (a trailing ``\\r`` dropped)."""
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line.removesuffix("\r")


def iter_jsonl(
    path: Path, *, what: str = "JSON Lines file", hint: str | None = None
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of a JSON Lines file."""
    text = read_text(path, what=what, hint=hint)
    for number, line in split_lines(text):
        if line.strip():
            yield number, parse_json(line, file=path, what=what, line=number, hint=hint)
