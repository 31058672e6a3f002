"""Utilities every layer uses, with no knowledge of benchmarks.

``errors`` (`UserError`: one readable paragraph, never a traceback; exit codes),
``atomic`` (every file we write), ``json_input`` (every JSON, JSON Lines and user text
file we read), ``schema`` (JSON Schema loading and readable errors), ``resources``
(the schemas and templates shipped beside the code), ``locations`` (user cache and data
folders), ``lfs`` (Git LFS pointer files), ``python_parse`` (the one ``ast.parse``).
"""
