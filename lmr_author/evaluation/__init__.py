"""The unit-test half of scoring: submissions x tasks -> runs -> results, resumable.

The public API is re-exported by `lmr_author.evaluate`.
"""
