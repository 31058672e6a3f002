"""The unbiased pass@k estimator of Chen et al. (2021), "Evaluating Large Language Models
Trained on Code", section 2.1.

With ``n`` samples of an implementation of which ``c`` pass, pass@k is the chance that at
least one of ``k`` samples drawn without replacement passes: 1 - C(n-c, k) / C(n, k).
The binomials overflow for large ``n``, so this is the paper's numerically stable product
1 - prod_{i=n-c+1..n} (1 - k/i). The benchmark-level figure is the mean over items.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lmr_author.util.errors import UserError


@dataclass(frozen=True)
class SampleCount:
    """How many samples one item (task implementation) got, and how many passed."""

    item: str
    samples: int
    passed: int


def pass_at_k(samples: int, passed: int, k: int) -> float:
    """pass@k of one item with ``samples`` samples of which ``passed`` pass."""
    if samples < 1 or not 0 <= passed <= samples:
        raise ValueError(f"need 0 <= passed <= samples and samples >= 1, got {passed}/{samples}")
    if not 1 <= k <= samples:
        raise ValueError(f"need 1 <= k <= samples, got k={k} with {samples} samples")
    if samples - passed < k:  # every draw of k samples contains a passing one
        return 1.0
    product = 1.0
    for i in range(samples - passed + 1, samples + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def mean_pass_at_k(counts: Iterable[SampleCount], k: int) -> float:
    """The mean pass@k over items; every item needs at least ``k`` samples."""
    if k < 1:
        raise UserError(f"pass@{k} is not defined", hint="Choose k = 1 or more.")
    values: list[float] = []
    for count in counts:
        if count.samples < k:
            raise UserError(
                f"pass@{k} needs at least {k} samples per item, "
                f"but {count.item} has {count.samples}",
                hint=f"Generate more samples (--samples {k} or more) or report a smaller k.",
            )
        if not 0 <= count.passed <= count.samples:
            raise UserError(
                f"{count.item} has {count.passed} passing samples out of {count.samples}",
                hint="Count each sample's verdict once; passed cannot exceed samples.",
            )
        values.append(pass_at_k(count.samples, count.passed, k))
    if not values:
        raise UserError(
            f"pass@{k} of no items", hint="Score at least one implementation before reporting."
        )
    return sum(values) / len(values)
