"""The adversarial suite's in-process cases, run in Podman: the same verdicts, no pass.

The test functions are the Docker suite's own (imported, so one source of truth); the
fixtures of this folder hand them a Podman client.
"""

from __future__ import annotations

import pytest

from tests.adversarial.test_in_process import (
    test_assertion_patching_is_tampering,
    test_early_exits_and_skips_fail,
    test_exit_inside_a_test_is_an_error,
    test_forged_harness_reports_are_rejected,
    test_skipping_every_test_fails,
    test_tests_and_fixtures_cannot_be_rewritten,
    test_the_right_candidate_passes_with_the_golden_count,
    test_the_supervisor_cannot_be_killed_and_children_do_not_outlive,
)

pytestmark = [pytest.mark.docker, pytest.mark.podman, pytest.mark.usefixtures("no_leftovers")]

__all__ = [
    "test_assertion_patching_is_tampering",
    "test_early_exits_and_skips_fail",
    "test_exit_inside_a_test_is_an_error",
    "test_forged_harness_reports_are_rejected",
    "test_skipping_every_test_fails",
    "test_tests_and_fixtures_cannot_be_rewritten",
    "test_the_right_candidate_passes_with_the_golden_count",
    "test_the_supervisor_cannot_be_killed_and_children_do_not_outlive",
]
