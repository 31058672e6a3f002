"""The Table 5 regression against statsmodels called directly, and every degenerate case."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from lmr_author.reporting.regression import (
    DEFAULT_PREDICTORS,
    RegressionError,
    SuccessRow,
    default_reference,
    fit_success_model,
)

SYSTEMS = ("GPT-4.1", "GPT-4o", "o4-mini")


def synthetic_rows() -> list[SuccessRow]:
    """28 implementations x 3 systems, success drawn from a known logistic model."""
    rng = np.random.default_rng(20250601)
    metrics = {
        "avg_dir_depth": rng.uniform(1.0, 4.0, 28),
        "avg_branch_factor": rng.uniform(0.0, 3.0, 28),
        "directory_imbalance": rng.uniform(0.0, 0.8, 28),
        "goal_function_length": rng.integers(20, 800, 28).astype(float),
    }
    shift = {"GPT-4.1": 0.0, "GPT-4o": -0.5, "o4-mini": 0.3}
    rows = []
    for system in SYSTEMS:
        for i in range(28):
            values = {name: float(column[i]) for name, column in metrics.items()}
            logit = (
                -0.4
                + 0.8 * (values["avg_dir_depth"] - 2.5)
                - 0.7 * (values["avg_branch_factor"] - 1.5)
                + shift[system]
            )
            success = bool(rng.uniform() < 1 / (1 + np.exp(-logit)))
            rows.append(SuccessRow(system, f"{i + 1:02d}-Task#1", success, values))
    return rows


def test_matches_statsmodels_called_directly() -> None:
    rows = synthetic_rows()
    result = fit_success_model(rows, reference_system="GPT-4.1")

    raw = np.array([[row.predictors[n] for n in DEFAULT_PREDICTORS] for row in rows])
    z = (raw - raw.mean(axis=0)) / raw.std(axis=0)
    dummies = np.array([[row.system == s for s in ("GPT-4o", "o4-mini")] for row in rows])
    design = sm.add_constant(np.column_stack([z, dummies.astype(float)]))
    outcome = np.array([float(row.success) for row in rows])
    direct = sm.Logit(outcome, design).fit(disp=0)

    names = [c.name for c in result.coefficients]
    assert names == ["const", *DEFAULT_PREDICTORS, "system[GPT-4o]", "system[o4-mini]"]
    interval = direct.conf_int()
    for i, row in enumerate(result.coefficients):
        assert row.coef == pytest.approx(direct.params[i], abs=1e-9)
        assert row.std_err == pytest.approx(direct.bse[i], abs=1e-9)
        assert row.z == pytest.approx(direct.tvalues[i], abs=1e-9)
        assert row.p == pytest.approx(direct.pvalues[i], abs=1e-9)
        assert row.ci_low == pytest.approx(interval[i][0], abs=1e-9)
        assert row.ci_high == pytest.approx(interval[i][1], abs=1e-9)
    assert result.n == 84
    assert result.pseudo_r2 == pytest.approx(direct.prsquared, abs=1e-9)
    assert result.log_likelihood == pytest.approx(direct.llf, abs=1e-9)
    assert result.converged is True
    assert result.reference_system == "GPT-4.1"
    # the simulated effects come back with their signs
    assert result.coefficient("avg_dir_depth").coef > 0
    assert result.coefficient("avg_branch_factor").coef < 0


def test_default_reference_is_the_largest_system_then_alphabetical() -> None:
    rows = synthetic_rows()
    assert default_reference(rows) == "GPT-4.1"  # all tie: first alphabetically
    assert default_reference(rows[:-1]) == "GPT-4.1"
    assert default_reference(rows[28:]) == "GPT-4o"
    extra = [*rows, SuccessRow("o4-mini", "x", True, rows[0].predictors)]
    assert default_reference(extra) == "o4-mini"
    assert fit_success_model(extra).reference_system == "o4-mini"


def one_system(successes: list[bool], depth: list[float]) -> list[SuccessRow]:
    return [
        SuccessRow("m", f"{i}", s, {"avg_dir_depth": d})
        for i, (s, d) in enumerate(zip(successes, depth, strict=True))
    ]


def test_quasi_separation_is_reported_as_not_converged() -> None:
    rows = one_system([False, False, False, True, False, True], [1.0, 2.0, 3.0, 3.0, 3.0, 6.0])
    result = fit_success_model(rows, predictors=["avg_dir_depth"])
    assert result.converged is False


@pytest.mark.parametrize(
    ("rows", "predictors", "needle"),
    [
        ([], ["avg_dir_depth"], "no rows"),
        (one_system([True] * 5, [1, 2, 3, 4, 5]), ["avg_dir_depth"], "every one of the 5 rows"),
        (one_system([True, False], [1, 2]), ["avg_dir_depth"], "2 rows for 2 parameters"),
        (
            one_system([True, False, True, False], [2, 2, 2, 2]),
            ["avg_dir_depth"],
            "same value on every row",
        ),
        (
            one_system([False, False, False, True, True, True], [1, 2, 3, 4, 5, 6]),
            ["avg_dir_depth"],
            "perfect separation",
        ),
        (one_system([True, False, True], [1, 2, 3]), ["goal_function_length"], "no value"),
    ],
)
def test_degenerate_data_is_a_user_error(
    rows: list[SuccessRow], predictors: list[str], needle: str
) -> None:
    with pytest.raises(RegressionError, match=needle):
        fit_success_model(rows, predictors=predictors)


def test_collinear_predictors_name_the_column() -> None:
    rows = [
        SuccessRow("m", str(i), i % 3 == 0, {"a": float(i), "b": 2.0 * i + 1.0}) for i in range(10)
    ]
    with pytest.raises(RegressionError, match=r"column b is a linear combination of const, a"):
        fit_success_model(rows, predictors=["a", "b"])


def test_a_system_dummy_that_repeats_a_predictor_is_singular() -> None:
    rows = [
        SuccessRow(system, str(i), i % 2 == 0, {"a": 1.0 if system == "x" else 0.0})
        for i, system in enumerate(["x", "y"] * 5)
    ]
    with pytest.raises(RegressionError, match=r"system\[x\] is a linear combination"):
        fit_success_model(rows, predictors=["a"], reference_system="y")


def test_unknown_reference_and_non_finite_values() -> None:
    rows = synthetic_rows()
    with pytest.raises(RegressionError, match="'GPT-5' has no rows"):
        fit_success_model(rows, reference_system="GPT-5")
    bad = [
        *rows[:-1],
        SuccessRow("GPT-4o", "x", True, {**rows[0].predictors, "avg_dir_depth": float("nan")}),
    ]
    with pytest.raises(RegressionError, match="avg_dir_depth = nan"):
        fit_success_model(bad)
