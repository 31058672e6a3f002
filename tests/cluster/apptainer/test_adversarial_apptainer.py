"""The adversarial suite's in-process cases, run under Apptainer: no pass, none ours.

The test functions are the Docker suite's own (imported, so one source of truth); this
folder's autouse fixture selects the Apptainer runtime for each of them.
"""

from __future__ import annotations

import pytest

from tests.adversarial.test_in_process import (
    test_a_count_below_the_golden_count_fails,
    test_assertion_patching_is_tampering,
    test_early_exits_and_skips_fail,
    test_exit_inside_a_test_is_an_error,
    test_flooding_the_output_is_capped,
    test_forged_harness_reports_are_rejected,
    test_skipping_every_test_fails,
    test_tests_and_fixtures_cannot_be_rewritten,
    test_the_right_candidate_passes_with_the_golden_count,
    test_the_supervisor_cannot_be_killed_and_children_do_not_outlive,
)

pytestmark = [pytest.mark.docker, pytest.mark.apptainer]

__all__ = [
    "test_a_count_below_the_golden_count_fails",
    "test_assertion_patching_is_tampering",
    "test_early_exits_and_skips_fail",
    "test_exit_inside_a_test_is_an_error",
    "test_flooding_the_output_is_capped",
    "test_forged_harness_reports_are_rejected",
    "test_skipping_every_test_fails",
    "test_tests_and_fixtures_cannot_be_rewritten",
    "test_the_right_candidate_passes_with_the_golden_count",
    "test_the_supervisor_cannot_be_killed_and_children_do_not_outlive",
]
