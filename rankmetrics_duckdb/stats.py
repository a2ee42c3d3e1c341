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

- tukey:         Tukey's honestly significant difference over every run at once, as scipy.stats.tukey_hsd
                 (ranx's stat_test='tukey'): the runs' per-query values as k independent groups, the pooled
                 variance MSE = sum of squared deviations from each run's mean / (N - k), and for a pair
                 q = |mean_i - mean_j| / sqrt(MSE / 2 x (1/n_i + 1/n_j)), p = P(Q > q) for the studentized
                 range of k means with N - k degrees of freedom. That tail is a double integral (the range of k
                 standard normals, mixed over the chi distribution of s), computed by Gauss-Legendre quadrature
                 to about 1e-13 of scipy's. The p-values are adjusted for the family of pairs already.

Corrections for multiple comparisons (applied per metric, over the runs compared with the baseline):
bonferroni p * m, holm's step-down (p sorted ascending, p_(i) * (m - i + 1), made monotone), both capped at 1.
"""
from __future__ import annotations

import functools
import math
import random

TESTS = ("t", "randomization", "bootstrap", "tukey")
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
    """Two-sided paired randomization (sign-flip) test; p = (hits + 1) / (trials + 1). A sign pattern whose sum is
    the observed one up to rounding counts as reaching it (a relative tolerance of 1e-12 of the differences'
    absolute sum, as scipy's permutation_test allows one): 1/3 - 0 and 2/3 - 1 are equal differences one ulp
    apart as doubles, and half the tied patterns fell below the observed sum (p 0.498 where the exact p is 1)."""
    n = len(diffs)
    if n == 0:
        return math.nan
    rng = random.Random(seed)
    observed = abs(math.fsum(diffs))
    reached = observed - 1e-12 * math.fsum(abs(x) for x in diffs)
    hits = 0
    for _ in range(trials):
        bits = rng.getrandbits(n)
        s = math.fsum([x if (bits >> i) & 1 else -x for i, x in enumerate(diffs)])
        if abs(s) >= reached:
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
    """(p, ci_low, ci_high): percentile interval of the mean difference, and the shifted-null bootstrap test.
    Fewer than two queries: no test (NaN, as the t-test's): a resample of one difference never varies, so the
    shifted null never reaches it and p was 1 / (trials + 1), 'significant' on one query."""
    n = len(diffs)
    if n < 2:
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
    # n queries have C(2n - 1, n) distinct resamples: a p below one over that is beyond what they resolve (two
    # differences of one sign: the shifted null never reaches the observed mean, and p was 1 / (trials + 1),
    # 'significant' whatever the effect; 1/3 now)
    floor = 1.0 / math.comb(2 * n - 1, n)
    return max((hits + 1) / (trials + 1), floor), _quantile(means, alpha), _quantile(means, 1.0 - alpha)


# ---- corrections ------------------------------------------------------------------------------------------
def correct(pvalues: list[float], method: str) -> list[float]:
    """Adjusted p-values for a family of comparisons, every one counted: a NaN p-value (a test with no answer, as
    the t-test of two runs equal on every query) stays NaN, and takes Holm's last place, as a p of 1 would. Left
    out of the count, it made the family smaller than the one the report names ("Holm correction over 2
    comparisons": p 0.03 kept 0.03 where 2 comparisons give 0.06), and marked a difference the stated
    correction does not."""
    if method == "none":
        return list(pvalues)
    present = [(p, i) for i, p in enumerate(pvalues) if not math.isnan(p)]
    m = len(pvalues)
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


# ---- Tukey's HSD: the studentized range -------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _gauss_legendre(n: int):
    """Nodes and weights of n-point Gauss-Legendre quadrature on [-1, 1] (Newton's method on P_n)."""
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for j in range(2, n + 1):
                p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
            dp = n * (x * p1 - p0) / (x * x - 1)
            dx = p1 / dp
            x -= dx
            if abs(dx) < 1e-16:
                break
        nodes.append(x)
        weights.append(2 / ((1 - x * x) * dp * dp))
    return tuple(nodes), tuple(weights)


def _panels(a, b, panels, n=24):
    """Composite Gauss-Legendre quadrature's nodes over [a, b]: per panel, its half width and its n nodes as
    (point, weight)."""
    xs, ws = _gauss_legendre(n)
    h = (b - a) / panels
    half = h / 2
    for p in range(panels):
        mid = a + p * h + half
        yield half, [(mid + half * x, w) for x, w in zip(xs, ws)]


def _integrate(f, a, b, panels=24, n=24):
    """Composite Gauss-Legendre quadrature of f over [a, b]: panels of n nodes each."""
    total = 0.0
    for half, nodes in _panels(a, b, panels, n):
        total += half * math.fsum(w * f(z) for z, w in nodes)
    return total


_SQRT2 = math.sqrt(2.0)

def _pdf(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)

def _cdf(z):
    return 0.5 * math.erfc(-z / _SQRT2)


def _range_nodes_on(lo: float, hi: float, panels: int, m: int) -> tuple:
    """_range_sf's quadrature nodes on [lo, hi] (panels of 24 Gauss-Legendre nodes), with what of its integrand
    does not depend on the range w: (z, Phi(z), the node's weight * phi(z) * Phi(z)^m) per node where Phi(z) > 0
    (the integrand is 0 elsewhere)."""
    nodes = []
    for half, points in _panels(lo, hi, panels):
        for z, w in points:
            a = _cdf(z)
            if a > 0:
                nodes.append((z, a, half * w * _pdf(z) * a ** m))
    return tuple(nodes)


@functools.lru_cache(maxsize=None)
def _range_nodes(m: int) -> tuple:
    """_range_nodes_on [-9, 9] in 32 panels: the same for every w, computed once per m."""
    return _range_nodes_on(-9.0, 9.0, 32, m)


def _range_sf(w: float, k: int) -> float:
    """P(range of k standard normals > w) = k * integral phi(z) (Phi(z)^(k-1) - (Phi(z) - Phi(z - w))^(k-1)) dz.

    On [-9, 9] by _range_nodes' fixed nodes, where only Phi(z - w) depends on w: Tukey's p-values call this
    thousands of times each (the outer integral over the standard deviation's distribution), and recomputing
    phi(z) and Phi(z)^m at nodes that moved with w was most of compare's time. Beyond 9, up to 9 + w / 2, where
    phi(z) < 1e-18, by the same rule in 2 panels."""
    if w <= 0:
        return 1.0
    m = k - 1
    erfc, log1p, expm1 = math.erfc, math.log1p, math.expm1
    terms = []
    for z, a, weighted in _range_nodes(m) + _range_nodes_on(9.0, 9.0 + w / 2, 2, m):
        b = 0.5 * erfc((w - z) / _SQRT2)  # _cdf(z - w)
        # a^m - (a - b)^m without cancellation
        terms.append(weighted * -expm1(m * log1p(-b / a)) if b < a else weighted)
    return k * math.fsum(terms)


def studentized_range_sf(q: float, k: int, df: float) -> float:
    """P(Q > q) for the studentized range of k means with df degrees of freedom."""
    if q <= 0:
        return 1.0
    if df > 1e5:
        return _range_sf(q, k)
    nu = float(df)
    logc = (nu / 2) * math.log(nu) - math.lgamma(nu / 2) - (nu / 2 - 1) * math.log(2)
    def g(s):
        if s <= 0:
            return 0.0
        return math.exp(logc + (nu - 1) * math.log(s) - nu * s * s / 2)
    spread = 1 / math.sqrt(2 * nu)
    lo = max(0.0, 1 - 14 * spread)
    hi = 1 + 14 * spread + (8.0 if nu < 10 else 0.0) + (40.0 if nu < 3 else 0.0)
    # P(range > q s) falls off past s of a few 1 / q: for a large q (few degrees of freedom, the mass of g near 0)
    # the integrand lives on [0, a few / q], which panels over [lo, hi] alone did not resolve (df 2, q 38: 37%
    # off the exact value): breakpoints at multiples of 1 / q
    points = sorted({lo, hi, *(x / q for x in (1, 2, 4, 8, 16, 32) if lo < x / q < hi)})
    return math.fsum(_integrate(lambda s: g(s) * _range_sf(q * s, k), a, b, panels=24)
                     for a, b in zip(points, points[1:]))




def tukey_hsd(groups: list[list[float]]) -> list[list[float]]:
    """The p-value of every pair of groups (a symmetric matrix, 1 on the diagonal), as scipy.stats.tukey_hsd."""
    k = len(groups)
    sizes = [len(g) for g in groups]
    df = sum(sizes) - k
    if k < 2 or df < 1 or min(sizes) < 1:
        return [[math.nan] * k for _ in range(k)]
    means = [math.fsum(g) / len(g) for g in groups]
    mse = math.fsum((x - m) ** 2 for g, m in zip(groups, means) for x in g) / df
    out = [[1.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            se = math.sqrt(mse / 2 * (1 / sizes[i] + 1 / sizes[j]))
            diff = abs(means[i] - means[j])
            p = (1.0 if diff == 0 else 0.0) if se == 0 else studentized_range_sf(diff / se, k, df)
            out[i][j] = out[j][i] = min(1.0, max(0.0, p))
    return out
