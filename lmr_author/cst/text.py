"""Source text as lines, so that a rewrite can touch a line range and nothing else.

Every rewrite of the engine replaces whole lines of one function and copies all other
lines as they are. This module turns ``str`` or ``bytes`` source into lines (keeping
each line's own terminator, so CRLF, lone CR and a missing final newline survive),
remembers the BOM and the encoding, and turns the result back into the input's type.
Line numbers match Python's own: only ``\\r\\n``, ``\\r`` and ``\\n`` end a line
(``str.splitlines`` would also split on form feeds and other control characters).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from lmr_author.util.errors import UserError

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_BOM_BYTES = b"\xef\xbb\xbf"
_BOM_CHAR = "\ufeff"


def split_lines(text: str) -> list[str]:
    """``text`` as lines, each with its own terminator (the last one may have none)."""
    return _LINE.findall(text)


def line_terminator(line: str) -> str:
    """The terminator at the end of ``line`` ("" when there is none)."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return ""


def leading_whitespace(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


@dataclass
class SourceText:
    """A Python file as decoded lines plus what it takes to give back identical bytes."""

    lines: list[str]
    is_bytes: bool
    encoding: str = "utf-8"
    bom: bool = False

    @classmethod
    def from_source(cls, source: str | bytes, *, filename: str | None = None) -> SourceText:
        if isinstance(source, bytes):
            bom = source.startswith(_BOM_BYTES)
            body = source[len(_BOM_BYTES) :] if bom else source
            try:
                encoding, _ = tokenize.detect_encoding(io.BytesIO(body).readline)
            except SyntaxError as error:
                raise UserError(
                    f"cannot tell the file's encoding: {error}", file=filename
                ) from None
            if encoding == "utf-8-sig":
                encoding = "utf-8"
            try:
                text = body.decode(encoding)
            except (UnicodeDecodeError, LookupError) as error:
                raise UserError(
                    f"the file is not valid {encoding}: {error}",
                    file=filename,
                    hint="Fix the encoding or its '# -*- coding: ... -*-' declaration.",
                ) from None
            if text.encode(encoding) != body:
                raise UserError(
                    f"the file's {encoding} bytes do not survive decoding and re-encoding, "
                    "so it cannot be rewritten byte for byte.",
                    file=filename,
                    hint="Convert the file to UTF-8 first.",
                )
            return cls(split_lines(text), True, encoding, bom)
        bom = source.startswith(_BOM_CHAR)
        return cls(split_lines(source[1:] if bom else source), False, "utf-8", bom)

    @property
    def text(self) -> str:
        """The decoded text without the BOM: what ``ast.parse`` and libcst accept."""
        return "".join(self.lines)

    def to_source(self, *, filename: str | None = None) -> str | bytes:
        """The lines back in the input's type, with BOM and encoding restored."""
        text = self.text
        if self.is_bytes:
            try:
                data = text.encode(self.encoding)
            except UnicodeEncodeError as error:
                line = text.count("\n", 0, error.start) + 1
                raise UserError(
                    f"the new code has characters ({error.object[error.start : error.end]!r}) "
                    f"that the file's encoding, {self.encoding}, cannot hold.",
                    file=filename,
                    where=f"line {line}",
                    hint="Use only characters of that encoding, or convert the file to UTF-8.",
                ) from None
            return (_BOM_BYTES if self.bom else b"") + data
        return (_BOM_CHAR if self.bom else "") + text

    def newline(self) -> str:
        """The file's line terminator: the first one used, ``\\n`` for one-line files."""
        for line in self.lines:
            ending = line_terminator(line)
            if ending:
                return ending
        return "\n"

    def region(self, start_line: int, end_line: int) -> str:
        """Lines ``start_line`` to ``end_line`` (1-based, inclusive), terminators included."""
        return "".join(self.lines[start_line - 1 : end_line])

    def replace(self, start_line: int, end_line: int, new_text: str) -> None:
        """Put ``new_text`` in place of lines ``start_line``..``end_line``.

        ``new_text`` comes without a final terminator: the one of the replaced last line
        is kept, so the end of the file (with or without a newline) does not change.
        """
        ending = line_terminator(self.lines[end_line - 1])
        self.lines[start_line - 1 : end_line] = split_lines(new_text + ending)

    def insert_before(self, line: int, new_text: str) -> None:
        """Insert ``new_text`` (whole lines, terminators included) before ``line``."""
        self.lines[line - 1 : line - 1] = split_lines(new_text)


def strip_terminator(text: str) -> str:
    ending = line_terminator(text)
    return text[: len(text) - len(ending)] if ending else text


def convert_newlines(text: str, newline: str) -> str:
    """Use ``newline`` for the line breaks of ``text`` unless it already uses it.

    Text that uses ``newline`` at least once is left alone: it came from a file of the
    same style (a stray other terminator inside it is kept, so round trips stay exact).
    """
    kinds = set(_NEWLINE.findall(text))
    if not kinds or newline in kinds:
        return text
    return _NEWLINE.sub(newline, text)


def lines_inside_strings(text: str) -> set[int]:
    """0-based indices of lines that begin inside a multi-line string literal.

    Re-indenting such a line would change the string's value, so it must be left alone.
    Text that does not tokenize gives an empty set (nothing is protected).
    """
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0], token.end[0]))  # rows start+1..end, 0-based
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set()
    return inside


def reindent(text: str, old: str, new: str) -> str:
    """Replace the leading ``old`` indentation of each line of ``text`` with ``new``.

    Lines inside multi-line strings, and lines that do not start with ``old`` (blank
    lines, comments further left), are kept as they are.
    """
    if old == new:
        return text
    protected = lines_inside_strings(text)
    out: list[str] = []
    for index, line in enumerate(split_lines(text)):
        if index in protected or not line.startswith(old) or not line.strip():
            out.append(line)
        else:
            out.append(new + line[len(old) :])
    return "".join(out)
