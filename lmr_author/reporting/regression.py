"""The logistic regression of the paper's §5.1 / Table 5: what predicts success.

One row per system × implementation: success (0/1), the repository metrics of
`lmr_author.reporting.repo_metrics` and the system. The model is
``success ~ const + standardized predictors + one dummy per system but the reference``,
fitted by maximum likelihood with ``statsmodels.api.Logit`` (Newton's method). The
result is a typed coefficient table like Table 5. Degenerate data (one outcome class,
too few rows, a rank-deficient design, perfect separation) is a `UserError` that says
which, never a statsmodels traceback. Definitions are in ``docs/metrics.md``.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lmr_author.util.errors import UserError

#: The predictors of Table 5, under the names the paper prints.
DEFAULT_PREDICTORS = (
    "avg_dir_depth",
    "avg_branch_factor",
    "directory_imbalance",
    "goal_function_length",
)
CONST = "const"


class RegressionError(UserError):
    """The data cannot be fitted; the message says why and what to change."""


@dataclass(frozen=True)
class SuccessRow:
    """One system's outcome on one implementation, with the predictors of its task."""

    system: str
    item: str  # e.g. "01-DPO#1", for messages
    success: bool
    predictors: Mapping[str, float]


@dataclass
class LeftOut:
    """A task the success table could not use, why, and how many outcomes it took away."""

    task: str
    reason: str
    detail: str = ""
    outcomes: int = 0

    def line(self) -> str:
        detail = f": {self.detail}" if self.detail else ""
        counted = f"; {self.outcomes} outcome(s) not counted" if self.outcomes else ""
        return f"task {self.task} left out ({self.reason}){detail}{counted}"

    def to_json(self) -> dict[str, str | int]:
        return {
            "task": self.task,
            "reason": self.reason,
            "detail": self.detail,
            "outcomes": self.outcomes,
        }


@dataclass(frozen=True)
class Coefficient:
    """One row of the coefficient table (Table 5's columns)."""

    name: str
    coef: float
    std_err: float
    z: float
    p: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class RegressionResult:
    """The fitted model: coefficients in design order, and facts about the fit."""

    coefficients: list[Coefficient]
    n: int
    pseudo_r2: float  # McFadden
    log_likelihood: float
    converged: bool
    reference_system: str
    predictors: tuple[str, ...]
    #: Rows per system, the reference first, then the systems of the dummies.
    per_system: Mapping[str, int] = field(default_factory=dict)
    #: Tasks the success table left out (`lmr_author.reporting.success`).
    left_out: tuple[LeftOut, ...] = ()

    def coefficient(self, name: str) -> Coefficient:
        for row in self.coefficients:
            if row.name == name:
                return row
        raise KeyError(name)


def system_column(system: str) -> str:
    """The name of the dummy column of ``system``."""
    return f"system[{system}]"


def default_reference(rows: Sequence[SuccessRow]) -> str:
    """The system with the most rows; ties go to the first name in alphabetical order."""
    counts = Counter(row.system for row in rows)
    return min(counts, key=lambda name: (-counts[name], name))


def fit_success_model(
    rows: Sequence[SuccessRow],
    predictors: Sequence[str] = DEFAULT_PREDICTORS,
    reference_system: str | None = None,
) -> RegressionResult:
    """Fit success on the standardized ``predictors`` and system dummies."""
    import numpy as np

    if not rows:
        raise RegressionError("no rows to fit", hint="Score some implementations first.")
    names = tuple(predictors)
    systems = sorted({row.system for row in rows})
    reference = reference_system if reference_system is not None else default_reference(rows)
    if reference not in systems:
        raise RegressionError(
            f"the reference system {reference!r} has no rows",
            hint="Choose one of: " + ", ".join(systems) + ".",
        )
    outcomes = {row.success for row in rows}
    if len(outcomes) == 1:
        raise RegressionError(
            f"every one of the {len(rows)} rows is a "
            + ("success" if True in outcomes else "failure")
            + ", so there is nothing to explain",
            hint="A logistic regression needs both successes and failures.",
        )
    dummies = [s for s in systems if s != reference]
    counts = Counter(row.system for row in rows)
    columns = [CONST, *names, *(system_column(s) for s in dummies)]
    if len(rows) <= len(columns):
        raise RegressionError(
            f"{len(rows)} rows for {len(columns)} parameters",
            hint="A fit needs more rows than parameters: add tasks or systems, "
            "or use fewer predictors.",
        )
    raw = np.array([[_value(row, name) for name in names] for row in rows], dtype=float)
    raw = raw.reshape(len(rows), len(names))
    means = raw.mean(axis=0)
    spreads = raw.std(axis=0)  # ddof=0, as scikit-learn's StandardScaler
    for name, spread in zip(names, spreads, strict=True):
        if not spread > 0:
            raise RegressionError(
                f"the predictor {name} has the same value on every row",
                hint="It cannot be standardized or estimated; leave it out.",
            )
    design = np.column_stack(
        [
            np.ones(len(rows)),
            (raw - means) / spreads,
            *([[1.0 if row.system == s else 0.0 for row in rows] for s in dummies]),
        ]
    )
    _check_rank(design, columns)
    outcome = np.array([1.0 if row.success else 0.0 for row in rows])
    fitted = _fit(outcome, design)
    params, bse = fitted.params, fitted.bse
    if not np.all(np.isfinite(bse)):
        raise RegressionError(
            "the standard errors cannot be computed (the information matrix is singular)",
            hint="The data does not identify every coefficient; use fewer predictors or more rows.",
        )
    interval = fitted.conf_int(alpha=0.05)
    table = [
        Coefficient(
            name=name,
            coef=float(params[i]),
            std_err=float(bse[i]),
            z=float(fitted.tvalues[i]),
            p=float(fitted.pvalues[i]),
            ci_low=float(interval[i][0]),
            ci_high=float(interval[i][1]),
        )
        for i, name in enumerate(columns)
    ]
    return RegressionResult(
        coefficients=table,
        n=len(rows),
        pseudo_r2=float(fitted.prsquared),
        log_likelihood=float(fitted.llf),
        converged=bool(fitted.mle_retvals.get("converged", False)),
        reference_system=reference,
        predictors=names,
        per_system={s: counts[s] for s in (reference, *dummies)},
    )


def _value(row: SuccessRow, name: str) -> float:
    if name not in row.predictors:
        raise RegressionError(
            f"the row of {row.system} on {row.item} has no value for {name}",
            hint="Compute the repository metrics of every task before the regression.",
        )
    value = float(row.predictors[name])
    if not math.isfinite(value):
        raise RegressionError(
            f"the row of {row.system} on {row.item} has {name} = {value}",
            hint="Predictors must be finite numbers.",
        )
    return value


def _check_rank(design: Any, columns: list[str]) -> None:
    """Name the first column that the columns before it already determine."""
    import numpy as np

    for end in range(1, len(columns) + 1):
        if np.linalg.matrix_rank(design[:, :end]) < end:
            raise RegressionError(
                f"the column {columns[end - 1]} is a linear combination of "
                + ", ".join(columns[: end - 1])
                + " (the design matrix is singular)",
                hint="Leave out one of the predictors that move together, or add rows "
                "where they differ.",
            )


def _fit(outcome: Any, design: Any) -> Any:
    import numpy as np
    import statsmodels.api as sm
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        HessianInversionWarning,
        PerfectSeparationError,
        PerfectSeparationWarning,
    )

    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        warnings.simplefilter("error", HessianInversionWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow on the way to separation
        warnings.simplefilter("ignore", ConvergenceWarning)  # returned as `converged`
        try:
            return sm.Logit(outcome, design).fit(disp=0)
        except (PerfectSeparationWarning, PerfectSeparationError):
            raise RegressionError(
                "perfect separation: the predictors split successes from failures "
                "exactly, so the coefficients run off to infinity",
                hint="Add rows, or leave out the predictor or system that decides the "
                "outcome on its own.",
            ) from None
        except (np.linalg.LinAlgError, HessianInversionWarning) as error:
            raise RegressionError(
                f"the fit hit a singular matrix ({error})",
                hint="The data does not identify every coefficient; use fewer predictors "
                "or more rows.",
            ) from None
