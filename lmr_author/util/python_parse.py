"""``ast.parse`` that turns Python's own limits into a `SyntaxError` every caller handles,
and that is safe to call from several threads at once.

A file with a 200,000-term expression (``x = 1 + 1 + ...``, generated code does this)
makes ``ast.parse`` raise ``RecursionError`` (or ``MemoryError``) instead of
``SyntaxError``; every reader of Python code in the engine goes through here, so such
a file is reported like any file that does not parse, with its name and no traceback.

CPython 3.11's AST constructor keeps its recursion count per interpreter, not per
thread: two threads parsing at once can fail with ``SystemError: AST constructor
recursion depth mismatch`` (an eval's worker threads, Inspect's, the app's workers
did). One lock makes parses take turns; they are short.
"""

from __future__ import annotations

import ast
import threading

_PARSING = threading.RLock()  # re-entered if a finaliser parses mid-parse


def parse_python(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """Parse ``source``; raise `SyntaxError` for anything Python cannot parse."""
    try:
        with _PARSING:
            return ast.parse(source, filename=filename)
    except (RecursionError, MemoryError) as error:
        raise SyntaxError(
            "the code nests too deeply for Python's parser "
            f"({type(error).__name__}: an expression or block of extreme depth or length)"
        ) from None
