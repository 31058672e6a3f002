"""Parsing from several threads at once (an eval's workers, Inspect's, the app's).

CPython 3.11 fails such a parse with ``SystemError: AST constructor recursion depth
mismatch`` when another thread parses while the first builds its tree (a collection
mid-parse whose finaliser yields the GIL lets it happen); in a fresh process the first
concurrent parses do so reliably. `parse_python` makes parses take turns.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import gc, sys, time
    from concurrent.futures import ThreadPoolExecutor
    from lmr_author.util.python_parse import parse_python

    SOURCE = "x = " + "(" * 60 + "1" + ")" * 60 + "\\n"
    SOURCE += "def f(a):\\n    return [a, {'k': (a,)}]\\n" * 40

    class Yields:
        def __init__(self):
            self.me = self

        def __del__(self):
            time.sleep(0.0002)

    gc.set_threshold(20)
    sys.setswitchinterval(1e-5)

    def parse(_):
        for _ in range(3):
            Yields()
        try:
            return str(len(parse_python(SOURCE).body))
        except SystemError as error:
            return str(error)

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(parse, range(1000)))
    print(sorted({o for o in outcomes if o != "41"}))
    """
)


def test_parses_in_threads_never_fail() -> None:
    for _ in range(3):  # a fresh process each time: the first parses are the ones at risk
        shown = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
        ).stdout
        assert shown.strip() == "[]", shown
