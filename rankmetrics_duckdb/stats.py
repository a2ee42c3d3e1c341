"""Paired significance tests over per-query values, in pure Python (no numpy or scipy at run time).

All tests are two-sided and take the per-query differences d_i = run_i - baseline_i of the paired queries.

- t:             Student's paired t-test, t = mean(d) / (sd(d) / sqrt(n)), n - 1 degrees of freedom; the same
                 number as scipy.stats.ttest_rel. The t distribution's tail comes from the regularized
                 incomplete beta function, I_x(df/2, 1/2) with x = df / (df + t^2), evaluated by its continued
                 fraction (modified Lentz), as in Numerical Recipes 6.4.
- randomization: Fisher's randomization (permutation) test for paired data: each trial flips the sign of every
                 difference with probability 1/2 (the run and baseline labels of a query are exchanged);
                 p = (hits + 1) / (trials + 1), where hits counts trials with |sum| >= the observed |sum|.
                 Sums are computed with math.fsum (correctly rounded), so sign patterns whose sums are equal
                 compare equal, without a tolerance.
- bootstrap:     queries resampled with replacement, `trials` times. The confidence interval of the mean
                 difference is the percentile interval (2.5% and 97.5% quantiles of the resampled means, linear
                 interpolation between order statistics, numpy's default). The p-value is the bootstrap
                 hypothesis test of Efron & Tibshirani (1993, section 16.4) as used for IR by Sakai (2006): the
                 differences are shifted to mean 0 (the null hypothesis), resampled the same way, and
                 p = (hits + 1) / (trials + 1) with hits the resamples whose |mean| >= the observed |mean|.

Corrections for multiple comparisons (applied per metric, over the runs compared with the baseline):
bonferroni p * m, holm's step-down (p sorted ascending, p_(i) * (m - i + 1), made monotone), both capped at 1.
"""
from __future__ import annotations

import math
import random

TESTS = ("t", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "none")


# ---- the t distribution -----------------------------------------------------------------------------------
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny, eps = 1e-300, 1e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def _mean(xs) -> float:
    return math.fsum(xs) / len(xs)


def paired_t(diffs: list[float]) -> tuple[float, float]:
    """(t statistic, two-sided p) of the paired t-test on the differences; NaN when undefined (n < 2, or all
    differences 0), p = 0 when the differences are equal and not 0 (scipy.stats.ttest_rel does the same)."""
    n = len(diffs)
    if n < 2:
        return math.nan, math.nan
    m = _mean(diffs)
    var = math.fsum((x - m) ** 2 for x in diffs) / (n - 1)
    if var == 0.0:
        if m == 0.0:
            return math.nan, math.nan
        return math.copysign(math.inf, m), 0.0
    t = m / math.sqrt(var / n)
    return t, t_two_sided(t, n - 1)


# ---- resampling tests -------------------------------------------------------------------------------------
def randomization(diffs: list[float], trials: int = 10_000, seed: int = 42) -> float:
    """Two-sided paired randomization (sign-flip) test; p = (hits + 1) / (trials + 1)."""
    n = len(diffs)
    if n == 0:
        return math.nan
    rng = random.Random(seed)
    observed = abs(math.fsum(diffs))
    hits = 0
    for _ in range(trials):
        bits = rng.getrandbits(n)
        s = math.fsum([x if (bits >> i) & 1 else -x for i, x in enumerate(diffs)])
        if abs(s) >= observed:
            hits += 1
    return (hits + 1) / (trials + 1)


def _quantile(sorted_xs: list[float], q: float) -> float:
    """numpy.quantile's default ('linear'): interpolate between the order statistics around (n - 1) q."""
    h = (len(sorted_xs) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (h - lo) * (sorted_xs[hi] - sorted_xs[lo])


def bootstrap(diffs: list[float], trials: int = 10_000, seed: int = 42,
              level: float = 0.95) -> tuple[float, float, float]:
    """(p, ci_low, ci_high): percentile interval of the mean difference, and the shifted-null bootstrap test."""
    n = len(diffs)
    if n == 0:
        return math.nan, math.nan, math.nan
    rng = random.Random(seed)
    observed = _mean(diffs)
    centred = [x - observed for x in diffs]
    index = range(n)
    means, hits = [], 0
    for _ in range(trials):
        sample = rng.choices(index, k=n)
        means.append(math.fsum(diffs[i] for i in sample) / n)
        if abs(math.fsum(centred[i] for i in sample) / n) >= abs(observed):
            hits += 1
    means.sort()
    alpha = (1.0 - level) / 2.0
    return (hits + 1) / (trials + 1), _quantile(means, alpha), _quantile(means, 1.0 - alpha)


# ---- corrections ------------------------------------------------------------------------------------------
def correct(pvalues: list[float], method: str) -> list[float]:
    """Adjusted p-values for a family of comparisons; NaN p-values stay NaN and are not counted."""
    if method == "none":
        return list(pvalues)
    present = [(p, i) for i, p in enumerate(pvalues) if not math.isnan(p)]
    m = len(present)
    out = [math.nan] * len(pvalues)
    if method == "bonferroni":
        for p, i in present:
            out[i] = min(1.0, p * m)
        return out
    if method == "holm":
        running = 0.0
        for rank, (p, i) in enumerate(sorted(present)):
            running = max(running, min(1.0, (m - rank) * p))
            out[i] = running
        return out
    raise ValueError(f"unknown correction {method!r}")
