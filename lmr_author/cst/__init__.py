"""The code engine: index, mask, splice and extract functions without touching anything else.

Listing uses the standard library's ``ast`` (fast enough for million-line repositories);
rewriting uses libcst on the goal function's own lines, and every other line of the file
is copied as it is, so comments, CRLF, tabs, BOM and encoding declarations survive.
"""

from lmr_author.cst.candidate import SpliceError
from lmr_author.cst.extract import extract_function
from lmr_author.cst.index import FunctionInfo, find_function, list_functions
from lmr_author.cst.locate import AmbiguousFunctionError, FunctionNotFoundError, locate_function
from lmr_author.cst.mask import mask_class, mask_function, mask_functions
from lmr_author.cst.splice import splice_function

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
