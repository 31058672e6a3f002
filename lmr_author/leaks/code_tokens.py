"""Python code as a sequence of normalized tokens, and the functions in it.

The tokens are lexical (one compiled regular expression), not the standard library's
``tokenize``, for two reasons measured on the published benchmark: ``tokenize`` raises on
text that is not a whole Python file (a function cut out of a PDF's text, a notebook cell
with ``%magic`` lines, Python 2 code, a truncated listing), and Pygments' lexer, which
never raises, reads 0.3 MB/s (2.2 s for 26-Hyena's 620 KB; the vendored libraries of
03-DoLa and 25-AdaLora are 81 MB). This never raises, on any text.

Normalization is what lets a copy survive the edits a solver or a second author makes:
comments and layout are dropped (reformatting), a function's signature and docstring are
dropped (the masked goal file shows them anyway) and every other string literal becomes
one token (messages), names other than attributes, keywords and builtins become one token
``N`` (renamed variables and parameters), and ``self.x`` reads as a plain name (a method
made a function). Attribute names (``.logsigmoid``), operators, numbers and the order of
it all stay: they are what the computation is.
"""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass

#: One token of Python. Strings come before names (``f"..."``, ``rb'...'``); a string that
#: never closes matches as far as it can, so no text ever fails to tokenize.
_TOKEN = re.compile(
    r"""
    (?P<comment>\#[^\r\n]*)
  | (?P<string>(?:[rRbBuUfF]{1,2})?(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''
        |"(?:\\.|[^"\\\r\n])*"|'(?:\\.|[^'\\\r\n])*'))
  | (?P<number>(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJlL]?)
  | (?P<name>[^\W\d]\w*)
  | (?P<op>\*\*=?|//=?|>>=?|<<=?|->|:=|\.\.\.|[-+*/%&|^@=!<>]=|[-+*/%&|^~@<>=.,:;()\[\]{}])
  | (?P<newline>\r\n|\r|\n)
    """,
    re.VERBOSE,
)
_KEYWORDS = frozenset(keyword.kwlist) | (frozenset(keyword.softkwlist) - {"_"})
#: Names kept as they are: the language's words and its built-in functions.
KEPT_NAMES = _KEYWORDS | frozenset(dir(builtins))
STRING = "'S'"
NAME = "N"
_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")
_SELF = frozenset({"self", "cls"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Token:
    """One lexical token: its kind (``string``, ``number``, ``name``, ``op``) and text."""

    kind: str
    text: str
    line: int  # 1-based, of its first character
    column: int  # of its first character, from its line's start
    depth: int  # brackets open before it
    first: bool  # the first token of its physical line


@dataclass(frozen=True)
class CodeFunction:
    """A function found in a token sequence: tokens ``[start, end)``, lines inclusive."""

    qualname: str
    name: str
    line: int
    end_line: int
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """The tokens of ``text`` (comments and layout dropped), with lines and bracket depth."""
    found: list[Token] = []
    line = 1
    line_start = 0
    depth = 0
    last_line = 0
    append = found.append
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "op"
        if kind == "newline":
            line += 1
            line_start = match.end()
            continue
        if kind == "comment":
            continue
        value = match.group()
        start = match.start()
        append(Token(kind, value, line, start - line_start, depth, line != last_line))
        last_line = line
        if kind == "string":
            breaks = list(_LINE_BREAK.finditer(value))
            if breaks:
                line += len(breaks)
                line_start = start + breaks[-1].end()
                last_line = line
        elif value in _OPENING:
            depth += 1
        elif value in _CLOSING and depth:
            depth -= 1
    return found


def functions_of(found: list[Token], *, flat: bool = False) -> list[CodeFunction]:
    """The functions (and methods, nested functions) of a token sequence, in order.

    A function ends before the next line that starts at its ``def``'s column or left of
    it, outside brackets and strings. ``flat`` text lost its indentation (a PDF's): there
    a function ends at the next ``def`` or ``class`` that starts a line.
    """
    done: list[CodeFunction] = []
    # Open scopes: (column, qualname, is_function, start token, def line).
    open_scopes: list[tuple[int, str, bool, int, int]] = []

    def close(until: int, end: int) -> None:
        while len(open_scopes) > until:
            _column, qualname, is_function, start, line = open_scopes.pop()
            if is_function:
                last = _end_line(found[end - 1]) if end > start else line
                name = qualname.rpartition(".")[2]
                done.append(CodeFunction(qualname, name, line, last, start, end))

    for position, token in enumerate(found):
        if not token.first or token.depth:
            continue
        keeps = len(open_scopes)
        if flat:
            keeps = 0 if token.text in ("def", "class", "async", "@") else keeps
        else:
            while keeps and open_scopes[keeps - 1][0] >= token.column:
                keeps -= 1
        close(keeps, position)
        word = token.text
        at = position + 1 if word == "async" else position
        if at >= len(found) or found[at].text not in ("def", "class"):
            continue
        if at + 1 >= len(found) or found[at + 1].kind != "name":
            continue
        name = found[at + 1].text
        prefix = open_scopes[-1][1] + "." if open_scopes else ""
        is_function = found[at].text == "def"
        open_scopes.append((token.column, prefix + name, is_function, position, token.line))
    close(0, len(found))
    done.sort(key=lambda f: f.start)
    return done


def _end_line(token: Token) -> int:
    """The line a token ends on (a triple-quoted string spans several)."""
    if token.kind != "string":
        return token.line
    return token.line + len(_LINE_BREAK.findall(token.text))


def normalized(found: list[Token]) -> tuple[str, ...]:
    """The normalized sequence of a function's tokens (see the module's docstring).

    When ``found`` starts with a ``def`` its signature and docstring are left out: only
    the body is compared.
    """
    out: list[str] = []
    body = _body_start(found)
    skipped = _docstring_at(found, body)
    previous = ""
    for position in range(body, len(found)):
        if position in skipped:
            continue
        token = found[position]
        text = token.text
        if token.kind == "string":
            if previous != STRING:  # "a" "b" is one literal
                out.append(STRING)
            previous = STRING
            continue
        if text in _SELF and previous != "." and _next_text(found, position) == ".":
            skipped.add(position + 1)  # and its dot: the attribute reads as a name
            previous = ""
            continue
        if token.kind == "name" and previous != "." and text not in KEPT_NAMES:
            text = NAME
        out.append(text)
        previous = text
    return tuple(out)


def _next_text(found: list[Token], position: int) -> str:
    return found[position + 1].text if position + 1 < len(found) else ""


def _body_start(found: list[Token]) -> int:
    """Where the body starts when ``found`` starts with a (decorated) ``def``, else 0."""
    start = 0
    while start < len(found) and found[start].text == "@":
        start = _next_line(found, start)
    if start + 1 < len(found) and found[start].text == "async":
        start += 1
    if start >= len(found) or found[start].text != "def":
        return 0
    for position in range(start, len(found)):
        token = found[position]
        if token.text == ":" and token.depth == 0:
            return position + 1
    return 0


def _docstring_at(found: list[Token], body: int) -> set[int]:
    """Positions of the docstring's tokens, right at the start of a function's body."""
    if body == 0:
        return set()
    strings = set()
    while body < len(found) and found[body].kind == "string":
        strings.add(body)
        body += 1
    return strings


def _next_line(found: list[Token], position: int) -> int:
    position += 1
    while position < len(found) and not (found[position].first and not found[position].depth):
        position += 1
    return position


def stable_words(found: list[Token]) -> set[str]:
    """The words a renamed copy keeps: attribute names and the names it calls.

    Local names (parameters, variables) are what a copy renames; attributes
    (``.logsigmoid``) and called functions (``softmax(``) are what it computes with.
    """
    body = _body_start(found)
    kept = set()
    for position in range(body, len(found)):
        token = found[position]
        if token.kind != "name" or token.text in _KEYWORDS or token.text in _SELF:
            continue
        before = found[position - 1].text if position else ""
        if before == "." or _next_text(found, position) == "(":
            kept.add(token.text)
    return kept


def has_words(text: str, wanted: set[str], share: float) -> bool:
    """Whether ``text`` holds at least ``share`` of ``wanted`` as substrings (a first look
    that reads nothing more: a file without most of the golden's words holds no copy)."""
    if not wanted:
        return True
    needed = share * len(wanted)
    missing_allowed = len(wanted) - needed
    missing = 0
    for word in wanted:
        if word not in text:
            missing += 1
            if missing > missing_allowed:
                return False
    return True
