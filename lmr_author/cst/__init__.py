"""The code engine: index, mask, splice and extract functions without touching anything else.

Listing uses the standard library's ``ast`` (fast enough for million-line repositories);
rewriting uses libcst, which keeps every byte outside the goal function.
"""
