"""Submissions x tasks -> runs -> results, resumable (unit-test half of scoring)."""
