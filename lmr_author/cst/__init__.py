"""The code engine: index, mask, splice and extract functions without touching anything else.

Listing uses the standard library's ``ast`` (fast enough for million-line repositories);
rewriting uses libcst on the goal function's own lines, and every other line of the file
is copied as it is, so comments, CRLF, tabs, BOM and encoding declarations survive.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lmr_author.cst.candidate import SpliceError
    from lmr_author.cst.extract import extract_function
    from lmr_author.cst.index import FunctionInfo, find_function, list_functions
    from lmr_author.cst.locate import (
        AmbiguousFunctionError,
        FunctionNotFoundError,
        locate_function,
    )
    from lmr_author.cst.mask import mask_class, mask_function, mask_functions
    from lmr_author.cst.splice import splice_function

# Exports load on first use: importing `lmr_author.cst.index` (the fast, ast-based
# listing the validator and the new-task app use) must not pay for importing libcst.
_EXPORTS = {
    "SpliceError": "candidate",
    "extract_function": "extract",
    "FunctionInfo": "index",
    "find_function": "index",
    "list_functions": "index",
    "AmbiguousFunctionError": "locate",
    "FunctionNotFoundError": "locate",
    "locate_function": "locate",
    "mask_class": "mask",
    "mask_function": "mask",
    "mask_functions": "mask",
    "splice_function": "splice",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = [
    "AmbiguousFunctionError",
    "FunctionInfo",
    "FunctionNotFoundError",
    "SpliceError",
    "extract_function",
    "find_function",
    "list_functions",
    "locate_function",
    "mask_class",
    "mask_function",
    "mask_functions",
    "splice_function",
]
