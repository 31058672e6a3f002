"""Extracting the exact source of one function."""

from __future__ import annotations

from textwrap import dedent

import pytest

from lmr_author.cst import AmbiguousFunctionError
from lmr_author.cst.extract import extract_function

SOURCE = dedent(
    '''\
    import os

    @decorator(
        "multi-line",
    )
    class Model(Base,
                metaclass=Meta):
        """Doc."""

        # comment before
        @staticmethod
        def forward(x):  # trailing
            return x  # end

        class Inner:
            def deep(self):
                return 2


    def top():
        return 1
    '''
)


def test_extract_is_the_exact_lines() -> None:
    assert extract_function(SOURCE, "forward", "Model") == (
        "    @staticmethod\n    def forward(x):  # trailing\n        return x  # end\n"
    )
    assert extract_function(SOURCE, "top") == "def top():\n    return 1\n"


def test_with_class_context_prepends_the_class_headers() -> None:
    assert extract_function(SOURCE, "forward", "Model", with_class_context=True) == dedent(
        """\
        @decorator(
            "multi-line",
        )
        class Model(Base,
                    metaclass=Meta):
            @staticmethod
            def forward(x):  # trailing
                return x  # end
        """
    )
    assert extract_function(SOURCE, "Model.Inner.deep", with_class_context=True).splitlines() == [
        "@decorator(",
        '    "multi-line",',
        ")",
        "class Model(Base,",
        "            metaclass=Meta):",
        "    class Inner:",
        "        def deep(self):",
        "            return 2",
    ]
    # A top-level function has no class context to add.
    assert extract_function(SOURCE, "top", with_class_context=True) == "def top():\n    return 1\n"


def test_bytes_crlf_are_decoded_but_keep_their_line_endings() -> None:
    source = b"# coding: latin-1\r\ndef f():\r\n    return '\xe9'\r\n"
    assert extract_function(source, "f") == "def f():\r\n    return 'é'\r\n"


def test_ambiguous_extract_needs_line() -> None:
    source = "def f():\n    return 1\ndef f():\n    return 2\n"
    with pytest.raises(AmbiguousFunctionError, match="`f` at line 1, `f` at line 3"):
        extract_function(source, "f")
    assert extract_function(source, "f", line=4) == "def f():\n    return 2\n"
