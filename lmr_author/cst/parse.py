"""``ast.parse`` that turns Python's own limits into a `SyntaxError` every caller handles.

A file with a 200,000-term expression (``x = 1 + 1 + ...``, generated code does this)
makes ``ast.parse`` raise ``RecursionError`` (or ``MemoryError``) instead of
``SyntaxError``; every reader of Python code in the engine goes through here, so such
a file is reported like any file that does not parse, with its name and no traceback.
"""

from __future__ import annotations

import ast


def parse_python(source: str | bytes) -> ast.Module:
    """Parse ``source``; raise `SyntaxError` for anything Python cannot parse."""
    try:
        return ast.parse(source)
    except (RecursionError, MemoryError) as error:
        raise SyntaxError(
            "the code nests too deeply for Python's parser "
            f"({type(error).__name__}: an expression or block of extreme depth or length)"
        ) from None
