"""The legacy-log and replay cases under Apptainer: their scratch folders are bound from
the run's own host folder there, so forging in them must still gain nothing."""

from __future__ import annotations

import pytest

from tests.adversarial.test_legacy_and_replay import (
    test_legacy_crash_after_pass_fails,
    test_legacy_golden_passes_with_its_counts,
    test_legacy_is_held_to_the_golden_number_of_passed_lines,
    test_legacy_log_forged_by_the_candidate_fails,
    test_legacy_log_that_is_not_a_file_is_the_candidates_fail,
    test_replay_cannot_be_fooled,
    test_replay_expected_outputs_are_not_in_the_container,
    test_replay_golden_passes_and_wrong_fails,
    test_sparse_huge_legacy_log_is_read_capped,
)

pytestmark = [pytest.mark.docker, pytest.mark.apptainer]

__all__ = [
    "test_legacy_crash_after_pass_fails",
    "test_legacy_golden_passes_with_its_counts",
    "test_legacy_is_held_to_the_golden_number_of_passed_lines",
    "test_legacy_log_forged_by_the_candidate_fails",
    "test_legacy_log_that_is_not_a_file_is_the_candidates_fail",
    "test_replay_cannot_be_fooled",
    "test_replay_expected_outputs_are_not_in_the_container",
    "test_replay_golden_passes_and_wrong_fails",
    "test_sparse_huge_legacy_log_is_read_capped",
]
