"""Compare runs against a baseline: per metric and run the mean, the difference to the baseline (the first run)
and a paired two-sided significance test over the per-query values, corrected for multiple comparisons.

The per-query values of every run come from ONE DuckDB query: the runs are stacked with their position as a
prefix of the query id ('0:301', '1:301', ...) and the judgments are repeated under each prefix, so the fused
query of sqlgen evaluates every (run, query) pair as its own query, exactly as `eval` would evaluate it alone
(same stream, same query-set rules); the prefix is split off afterwards.

Which queries are paired: those with a value for both the run and the baseline under the convention. With the
default (trec_eval) convention a query missing from a run is not evaluated for that run, so it drops out of the
pairs (a warning says so); with -c (queries='judged') every judged query is evaluated for every run (a missing
one scores 0), which is what papers usually mean. Queries whose value is NaN (empty='nan') are not paired.

delta is the mean of the paired differences (for the counts num_q, num_ret, num_rel, num_rel_ret, whose mean row
is a sum as in trec_eval, their sum, and the bootstrap interval likewise); mean is the run's own mean, exactly as
`eval` computes it.
"""
from __future__ import annotations

import math
import numbers
import operator
import os
import warnings
from dataclasses import dataclass, field

from . import connections, conventions, diversity, measures as measures_mod, stats
from ._lazy import LazyModule
from .engine import duckdb
from .errors import InputError, UsageError, first_line
from .inputs import JUDGMENTS, RUN, Reader, check_rank_positions, query_overlap, run_sql, table_like
from .shape import Shape

# sqlglot and the query builder when a comparison runs, not when the module is imported (_lazy.py)
exp = LazyModule("sqlglot.expressions")
sqlglot = LazyModule("sqlglot")
determinism = LazyModule("rankmetrics_duckdb.determinism")
sqlgen = LazyModule("rankmetrics_duckdb.sqlgen")
sqlsource = LazyModule("rankmetrics_duckdb.sqlsource")

COLUMNS = ("measure", "run", "versus", "mean", "delta", "p_value", "p_adjusted", "ci_low", "ci_high", "significant",
           "queries", "wins", "ties", "losses")
TEST_NAMES = {"t": "paired t-test", "randomization": "randomization test", "bootstrap": "bootstrap test",
              "tukey": "Tukey's HSD test"}
PAIRS = ("baseline", "all")


@dataclass
class Comparison:
    """Everything a comparison produced: the rows, and the per-query values behind them (for the report)."""
    measures: list
    runs: list[str]                       # labels: the paths as given, or names
    conv: dict
    convention: str
    test: str
    correction: str
    alpha: float
    trials: int
    seed: int
    per_query: dict = field(default_factory=dict)   # (measure, run index) -> {query_id: value}
    means: dict = field(default_factory=dict)       # (measure, run index) -> mean as `eval` reports it
    rows: list = field(default_factory=list)
    pairs: str = "baseline"                         # 'baseline': each run against the first; 'all': every pair
    tests: dict = field(default_factory=dict)       # (measure, i, j), i < j -> the row of run j against run i

    def summary(self) -> str:
        """One sentence saying what the marks mean."""
        corr = {"none": "no correction", "holm": "Holm correction", "bonferroni": "Bonferroni correction"}
        k = len(self.runs)
        family = k - 1 if self.pairs == "baseline" else k * (k - 1) // 2
        p = "p" if self.correction == "none" or self.test == "tukey" else "adjusted p"
        how = ("adjusted for every pair by the test" if self.test == "tukey" else
               f"{corr[self.correction]} over {family} comparison{'s' if family != 1 else ''} per metric")
        against = f"against the baseline {self.runs[0]}" if self.pairs == "baseline" else "every pair of runs"
        mark = "†" if self.pairs == "baseline" else "a superscript letter (a run significantly better than that one):"
        return (f"{mark} {p} < {self.alpha:g}: two-sided {TEST_NAMES[self.test]} over per-query values, {against}, "
                f"{how}")

    def better_than(self, measure: str, i: int) -> list[int]:
        """The runs that run i is significantly better than on the measure (its mean higher)."""
        out = []
        for j in range(len(self.runs)):
            row = self.tests.get((measure, min(i, j), max(i, j))) if i != j else None
            if row and row["significant"] and self.means[(measure, i)] > self.means[(measure, j)]:
                out.append(j)
        return out


def _label(obj, i: int) -> str:
    if isinstance(obj, (str, os.PathLike)):
        return os.fspath(obj)
    if isinstance(getattr(obj, "name", None), str):  # a stream: sys.stdin.buffer is '<stdin>'
        return obj.name
    return f"run {i + 1}"


def _prefixed(alias: str, index: int) -> exp.Expression:
    """'index:' || CAST(alias.query_id AS VARCHAR)"""
    return exp.DPipe(this=exp.Literal.string(f"{index}:"),
                     expression=exp.Cast(this=exp.column("query_id", table=alias), to=exp.DataType.build("VARCHAR")))


def _source(loaded, alias: str) -> exp.Expression:
    e = loaded.relation.copy()
    e.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    return e


def _stacked_runs(runs) -> tuple[exp.Expression, bool]:
    """All runs in one relation (query_id prefixed by the run's position), with a score for every row."""
    selects = []
    any_rank = any(r.has_rank for r in runs)
    for i, run in enumerate(runs):
        def col(name):
            return exp.Cast(this=exp.column(name, table="r"), to=exp.DataType.build("DOUBLE"))
        score = col("score") if run.has_score else exp.Neg(this=col("rank"))
        rank = col("rank") if run.has_rank else exp.Cast(this=exp.Null(), to=exp.DataType.build("DOUBLE"))
        selects.append(exp.select(
            exp.alias_(_prefixed("r", i), "query_id"),
            exp.alias_(exp.Cast(this=exp.column("item_id", table="r"), to=exp.DataType.build("VARCHAR")), "item_id"),
            exp.alias_(score, "score"), exp.alias_(rank, "rank")).from_(_source(run, "r")))
    return _union(selects), any_rank


def _stacked_judgments(judgments, n: int) -> exp.Expression:
    """The judgments once per run (prefixed as the runs are); a list: each run's own judgments."""
    each = judgments if isinstance(judgments, list) else [judgments] * n
    selects = [exp.select(
        exp.alias_(_prefixed("j", i), "query_id"),
        exp.alias_(exp.Cast(this=exp.column("item_id", table="j"), to=exp.DataType.build("VARCHAR")), "item_id"),
        exp.alias_(exp.column("relevance", table="j"), "relevance")).from_(_source(j, "j"))
        for i, j in enumerate(each)]
    return _union(selects)


def _group_slice(loaded, kind: str, names: tuple, values: tuple):
    """The rows of a loaded input (with group columns) whose group columns `names` hold `values` (NULL-safe),
    as a Loaded of the standard shape."""
    cols = ["query_id", "item_id"] + (["relevance"] if kind == JUDGMENTS else
                                      [c for c, has in (("score", loaded.has_score), ("rank", loaded.has_rank)) if has])
    select = exp.select(*[exp.column(c, table="t") for c in cols]).from_(_source(loaded, "t"))
    cond = [exp.NullSafeEQ(this=exp.column(exp.to_identifier(n, quoted=True), table="t"),
                           expression=sqlsource.literal(v) if v is not None else exp.Null())
            for n, v in zip(names, values)]
    if cond:
        select = select.where(exp.and_(*cond))
    out = loaded.derived(exp.Subquery(this=select))
    if kind == RUN and loaded.empty_lists:  # a run of lists: the group's queries whose list is empty
        empty = exp.select(exp.column("query_id", table="t")).from_(_relation(loaded.empty_lists, "t"))
        if cond:
            empty = empty.where(exp.and_(*[c.copy() for c in cond]))
        out.empty_lists = exp.Subquery(this=empty).sql(dialect="duckdb")
    return out


def _groups_as_runs(con, reader, judgments, run, form, baseline):
    """compare --by: the groups of one run table as runs (labels: their values; the first in sort order or the
    one named by baseline is the baseline), each with its judgments (sliced on the group columns they have)."""
    from . import warehouse
    judged, loaded = warehouse.load_pair(reader, judgments, run, form)
    cols = ", ".join(f't.{exp.to_identifier(g, quoted=True).sql("duckdb")}' for g in form.by)
    rows = loaded.group_rows or loaded.relation.sql(dialect="duckdb")  # a group of empty lists is a run too
    groups = run_sql(con, f"SELECT DISTINCT {cols} FROM {rows} AS t "
                          f"ORDER BY {', '.join(f'{i + 1} NULLS FIRST' for i in range(len(form.by)))}").fetchall()
    labels = ["/".join("NULL" if v is None else str(v) for v in g) for g in groups]
    if baseline is not None:
        if str(baseline) not in labels:
            raise InputError(f"--baseline {baseline}: no such group of {', '.join(form.by)}; groups: "
                             f"{', '.join(labels[:20])}")
        i = labels.index(str(baseline))
        groups.insert(0, groups.pop(i))
        labels.insert(0, labels.pop(i))
    if len(groups) < 2:
        raise InputError(f"compare --by {', '.join(form.by)}: the run has {len(groups)} group; two or more are needed")
    shared = tuple(g for g in form.by if g in judged.groups)
    runs = [_group_slice(loaded, RUN, form.by, g) for g in groups]
    judgments_per_run = [_group_slice(judged, JUDGMENTS, shared, tuple(v for n, v in zip(form.by, g) if n in shared))
                         for g in groups]
    return labels, runs, judgments_per_run


def _stacked_empty_lists(runs) -> exp.Expression | None:
    """The runs' queries whose list is empty (inputs.Loaded.empty_lists; runs of lists), prefixed as _stacked_runs
    prefixes them, in one relation; None when no run is one of lists."""
    selects = [exp.select(exp.alias_(_prefixed("e", i), "query_id")).from_(_relation(run.empty_lists, "e"))
               for i, run in enumerate(runs) if run.empty_lists]
    return _union(selects) if selects else None


def _relation(sql: str, alias: str) -> exp.Expression:
    """A relation's DuckDB text (a table name or a parenthesized subquery) as a sqlglot FROM item named alias."""
    rel = sqlglot.parse_one(f"SELECT * FROM {sql}", dialect="duckdb").args["from_"].this
    rel.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    return rel


def _union(selects):
    """The selects as one UNION ALL (sqlgen.union_all), in parentheses."""
    return exp.Subquery(this=sqlgen.union_all(selects))


def per_query_values(judgments, runs, metrics=None, *, con=None, convention="trec_eval", nan_scores="error",
                     columns=None, by=None, baseline=None, interactions=None, items=None, reference=None,
                     interactions_columns=None, items_columns=None, **overrides):
    """(measures, labels, conv, per_query, means) for several runs, from one DuckDB query. With by (group
    columns), runs is one table whose groups are compared (baseline: the group's value, else the first in sort
    order); columns names the tables' columns (warehouse.py); interactions_columns and items_columns the side
    inputs' (as evaluate). Intersection's reference run is the baseline: each run's values are its intersection
    with the baseline (the baseline's own, with itself)."""
    if reference is not None:
        raise UsageError("compare computes Intersection against the baseline (the first run, or group): it takes "
                         "no reference (that is for eval and evaluate)")
    form = Shape(columns, by, interactions_columns=interactions_columns, items_columns=items_columns)
    if form.by:
        if isinstance(runs, (list, tuple)):
            if len(runs) != 1:
                raise UsageError(f"compare with by compares the groups of one run table, not {len(runs)} runs")
            runs = runs[0]
        objs = [runs]
    elif baseline is not None:
        raise UsageError("baseline names a group: it needs by (--by COLUMN)")
    elif isinstance(runs, dict):
        labels, objs = [str(k) for k in runs], list(runs.values())
    else:
        if isinstance(runs, (str, os.PathLike)) or not hasattr(runs, "__iter__"):
            raise UsageError("runs: give a list of runs (the first is the baseline) or a dict {name: run}")
        objs = list(runs)
        labels = [_label(o, i) for i, o in enumerate(objs)]
    if len(objs) < 2 and not form.by:
        raise UsageError(f"compare needs at least two runs (a baseline and one more), got {len(objs)}")
    if isinstance(metrics, str):
        metrics = [metrics]
    diversity.refuse(metrics, "compare")
    measures = measures_mod.valued(measures_mod.parse_all(metrics or measures_mod.TREC_DEFAULT), "compare")
    conventions.refuse_gaps(convention, overrides, [m.metric.name for m in measures])
    conv = measures_mod.stream_conventions(measures, conventions.resolve(convention, **overrides))
    whole = [m.requested for m in measures if m.metric.scope == "catalog"]
    if whole:
        raise UsageError(f"{', '.join(whole)}: catalog-wide metrics have one value per run and none per query, so "
                         f"nothing to test query by query; give them to eval, one run at a time")
    side_inputs = measures_mod.side_inputs(measures, interactions, items, reference=objs[0])
    against_baseline = side_inputs.pop("reference", None) is not None  # Intersection: the baseline, loaded below
    private = con is None
    con = connections.private() if private else con
    reader = Reader(con, private, nan_scores, trec_rank=conventions.reads_rank(conv))
    try:
        given = {"interactions": interactions, "items": items}
        sides = {name: sqlgen.Source(reader.load_side(given[role], name, role, form.side_columns(role)))
                 for name, role in side_inputs.items()}
        if form.by:
            labels, loaded, judged = _groups_as_runs(con, reader, judgments, runs, form, baseline)
            objs = loaded
            for label, run, j in zip(labels, loaded, judged):
                try:
                    query_overlap(con, run, j, counted=False)
                except InputError as e:  # name the group (a group whose lists are all empty has no query)
                    raise InputError(f"group {'/'.join(form.by)} = {label}: {e}") from None
        else:
            from . import warehouse
            # each read once (a stream), here: a dict's queries mapped to no item are seen (inputs.empty_queries)
            judgments, objs = table_like(judgments, JUDGMENTS), [table_like(o, RUN) for o in objs]
            form = warehouse.with_lists(reader, form, judgments, objs)  # lists under our own names: a shape too
            if form:  # the judgments once, every run; then each run's overlap
                judged, loaded = warehouse.load_all(reader, judgments, objs, form)
                for run in loaded:
                    query_overlap(con, run, judged, counted=False)
            else:
                judged = reader.load(judgments, JUDGMENTS)
                loaded = []
                for obj in objs:
                    run = reader.load(obj, RUN)
                    query_overlap(con, run, judged, counted=False)
                    loaded.append(run)
        if conventions.reads_rank_values(convention, conv):
            for run in loaded:
                check_rank_positions(con, run)
        run_rel, any_rank = _stacked_runs(loaded)
        empty = _stacked_empty_lists(loaded)
        if against_baseline:  # the baseline under every run's prefix, as the judgments are
            ref_rel, ref_rank = _stacked_runs([loaded[0]] * len(loaded))
            sides["reference"] = sqlgen.Source(ref_rel, True, ref_rank)
        plan = sqlgen.plan(measures, conv, sqlgen.Source(run_rel, True, any_rank, empty_lists=empty),
                           sqlgen.Source(_stacked_judgments(judged, len(loaded)), True, False),
                           per_query=True, means=False, split_kinds=True, **sides)  # DuckDB only (sqlgen)
        inner = determinism.ordered(plan.query).sql(dialect="duckdb")
        # the means exactly as `eval` computes them: the same aggregates (measures.mean_sql), adding their terms
        # in the same order (determinism.ordered)
        mean = measures_mod.mean_sql(
            exp.column("value", "s"),
            lambda a: exp.column("measure", "s").isin(*[m.requested for m in measures if m.metric.mean == a]),
            {m.metric.mean for m in measures})
        mean = determinism.ordered(mean).sql(dialect="duckdb")
        sql = (f"WITH s AS (SELECT x.measure, split_part(x.query_id, ':', 1) AS run, "
               f"substr(x.query_id, strpos(x.query_id, ':') + 1) AS query_id, x.value FROM ({inner}) AS x) "
               f"SELECT s.measure, s.run, s.query_id, s.value, FALSE AS is_mean FROM s UNION ALL "
               f"SELECT s.measure, s.run, NULL, CAST({mean} AS DOUBLE), TRUE FROM s GROUP BY s.measure, s.run")
        result = run_sql(con, sql).fetchall()
    finally:
        reader.close()
        if private:
            con.close()
    per_query, means = {}, {}
    for m in measures:
        for i in range(len(objs)):
            per_query[(m.requested, i)] = {}
            means[(m.requested, i)] = math.nan
    for measure, run, qid, value, is_mean in result:
        v = math.nan if value is None else float(value)
        if is_mean:
            means[(measure, int(run))] = v
        else:
            per_query[(measure, int(run))][qid] = v
    return measures, labels, conv, per_query, means


def paired(base: dict, other: dict) -> list[str]:
    """Query ids with a (non-NaN) value in both, sorted byte-wise: the order the resampling tests use."""
    return sorted((q for q, v in base.items() if q in other and not math.isnan(v) and not math.isnan(other[q])),
                  key=lambda q: q.encode())


MAX_TRIALS = 1_000_000


DEFAULT_CORRECTION, DEFAULT_SEED, DEFAULT_TRIALS = "holm", 42, 10_000
RESAMPLING = ("randomization", "bootstrap")  # the tests that take trials and a seed


def _settings(test, correction, seed, trials):
    """The test's settings, a setting the test does not read refused (it was ignored: --trials 100 with the t-test
    changed nothing, without a word); None is the default."""
    if test not in stats.TESTS:
        raise UsageError(f"unknown test '{test}'; choose one of: {', '.join(stats.TESTS)}")
    if test not in RESAMPLING:
        given = [name for name, value in (("trials", trials), ("seed", seed)) if value is not None]
        if given:
            verb = "applies" if given == ["seed"] else "apply"
            raise UsageError(f"{' and '.join(given)} {verb} to the randomization and bootstrap tests only, not to "
                             f"test='{test}', the {TEST_NAMES[test]}")
    if test == "tukey" and correction not in (None, "none"):
        raise UsageError(f"correction '{correction}' does not apply to test='tukey': Tukey's HSD adjusts its "
                         f"p-values for every pair itself (give correction 'none' or leave it out)")
    return (("none" if test == "tukey" else DEFAULT_CORRECTION) if correction is None else correction,
            DEFAULT_SEED if seed is None else seed, DEFAULT_TRIALS if trials is None else trials)


def run_comparison(judgments, runs, metrics=None, *, test="t", correction=None, alpha=0.05, seed=None,
                   trials=None, con=None, convention="trec_eval", nan_scores="error", pairs="baseline",
                   **overrides) -> Comparison:
    correction, seed, trials = _settings(test, correction, seed, trials)
    if correction not in stats.CORRECTIONS:
        raise UsageError(f"unknown correction '{correction}'; choose one of: {', '.join(stats.CORRECTIONS)}")
    if pairs not in PAIRS:
        raise UsageError(f"unknown pairs '{pairs}'; choose one of: {', '.join(PAIRS)}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise UsageError(f"alpha must be a number between 0 and 1, not {alpha!r}")
    try:  # ints (numpy's too); not floats, strings or bools
        n = None if isinstance(trials, bool) else operator.index(trials)
    except TypeError:
        n = None
    if n is None or not 1 <= n <= MAX_TRIALS:
        raise UsageError(f"trials must be a whole number from 1 to {MAX_TRIALS:,}, not {trials!r} (a million trials "
                         f"resolve p-values to 1e-6; each trial is a pass over the queries in Python)")
    try:  # the seed too: 1.5 was taken as 1, 'abc' and None failed in int()
        whole_seed = None if isinstance(seed, bool) else operator.index(seed)
    except TypeError:
        whole_seed = None
    if whole_seed is None:
        raise UsageError(f"seed must be a whole number, not {seed!r}")
    measures, labels, conv, per_query, means = per_query_values(judgments, runs, metrics, con=con,
                                                                 convention=convention, nan_scores=nan_scores,
                                                                 **overrides)
    c = Comparison(measures, labels, conv, convention, test, correction, float(alpha), int(trials), int(seed),
                   per_query, means, pairs=pairs)
    k = len(labels)
    family = [(0, j) for j in range(1, k)] if pairs == "baseline" else [(i, j) for i in range(k) for j in range(i + 1, k)]
    warned = set()
    for m in measures:
        name = m.requested
        tukey = _tukey(m, per_query, k) if test == "tukey" else None
        results = []
        for i, j in family:
            base, other = per_query[(name, i)], per_query[(name, j)]
            queries = paired(base, other)
            evaluated = {q for q, v in base.items() if not math.isnan(v)} | \
                        {q for q, v in other.items() if not math.isnan(v)}
            if len(queries) < len(evaluated) and (i, j) not in warned:
                warned.add((i, j))
                warnings.warn(f"{labels[j]} and {'the baseline ' if pairs == 'baseline' else ''}{labels[i]} have "
                              f"values for {len(queries)} common queries of {len(evaluated)} ({name}); the test "
                              f"pairs those {len(queries)}. Use -c (queries='judged') to evaluate every judged "
                              f"query for every run", stacklevel=2)
            diffs = [other[q] - base[q] for q in queries]
            scale = m.metric.mean.difference_scale(len(diffs))
            delta = math.fsum(diffs) / len(diffs) * scale if diffs else math.nan
            lo = hi = math.nan
            if test == "t":
                p = stats.paired_t(diffs)[1]
            elif test == "randomization":
                p = stats.randomization(diffs, c.trials, c.seed)
            elif test == "bootstrap":
                p, lo, hi = stats.bootstrap(diffs, c.trials, c.seed)
                lo, hi = lo * scale, hi * scale
            else:
                p = tukey[i][j]
            wtl = (sum(d > 0 for d in diffs), sum(d == 0 for d in diffs), sum(d < 0 for d in diffs))
            results.append((i, j, delta, p, lo, hi, len(diffs), wtl))
        # Tukey's HSD adjusts for the family itself
        adjusted = [r[3] for r in results] if test == "tukey" else stats.correct([r[3] for r in results], correction)
        for i in range(k) if pairs == "all" else (0,):
            c.rows.append(_row(name, labels[i], None, means[(name, i)], None, None, None, None, None, None,
                               sum(1 for v in per_query[(name, i)].values() if not math.isnan(v)), None))
        for (i, j, delta, p, lo, hi, n, wtl), padj in zip(results, adjusted):
            sig = None if math.isnan(padj) else padj < c.alpha
            row = _row(name, labels[j], labels[i], means[(name, j)], delta, p, padj, lo, hi, sig, n, wtl)
            c.rows.append(row)
            c.tests[(name, i, j)] = row
    return c


def _tukey(m, per_query: dict, k: int) -> list[list[float]]:
    """Tukey's HSD p-values of every pair of the k runs on the measure: each run's values over the queries
    every run has a value for (ranx's compare evaluates every run on the same queries)."""
    name = m.requested
    common = set.intersection(*[{q for q, v in per_query[(name, i)].items() if not math.isnan(v)} for i in range(k)])
    order = sorted(common, key=lambda q: q.encode())
    return stats.tukey_hsd([[per_query[(name, i)][q] for q in order] for i in range(k)])


def _clean(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _row(measure, run, versus, mean, delta, p, padj, lo, hi, sig, n, wtl) -> dict:
    """A row of the comparison: a run's mean (versus None) or a run against another (versus: the other's label),
    with the test, and wins / ties / losses: queries where the run's value is above, equal to, below the other's."""
    wins, ties, losses = wtl if wtl else (None, None, None)
    return {"measure": measure, "run": run, "versus": versus, "mean": _clean(mean), "delta": _clean(delta),
            "p_value": _clean(p), "p_adjusted": _clean(padj), "ci_low": _clean(lo), "ci_high": _clean(hi),
            "significant": sig, "queries": n, "wins": wins, "ties": ties, "losses": losses}


def compare(judgments, runs, metrics=None, *, test="t", correction=None, alpha=0.05, seed=None, trials=None,
            con=None, convention="trec_eval", output="rows", pairs="baseline", **overrides):
    """Compare runs with the first one (the baseline), or every pair of runs (pairs='all', as ranx's compare),
    metric by metric.

    runs: a list of runs (file paths, table names on con, relations, pandas/polars/pyarrow tables, pytrec_eval's
    and ranx's {query_id: {item_id: score}} dicts, ranx Runs), the first
    being the baseline, or a dict {name: run}. test: 't' (paired t-test, as scipy.stats.ttest_rel),
    'randomization' (sign flips, `trials` trials (None: 10,000), seeded by `seed` (None: 42)), 'bootstrap'
    (percentile 95% interval of the mean difference and the shifted-null bootstrap p-value) or 'tukey' (Tukey's
    HSD over every run, as scipy.stats.tukey_hsd and ranx). correction: 'holm', 'bonferroni' or 'none', over the pairs tested, per
    metric (None: holm; with tukey, which adjusts itself, none). trials, seed and correction are refused with a
    test that does not read them. Conventions as for evaluate().
    Returns a list of dicts {"measure", "run", "versus", "mean", "delta", "p_value", "p_adjusted", "ci_low",
    "ci_high", "significant", "queries", "wins", "ties", "losses"}: per metric the mean of the baseline (of every
    run with pairs='all'; versus None, the test columns None), then each pair: run against versus, delta = run -
    versus, wins / ties / losses the queries where run is above, equal to, below versus. output='pandas' or
    'arrow' returns a DataFrame or a pyarrow Table of the same rows.
    """
    try:
        c = run_comparison(judgments, runs, metrics, test=test, correction=correction, alpha=alpha, seed=seed,
                           trials=trials, con=con, convention=convention, pairs=pairs, **overrides)
    except duckdb.Error as e:  # an input the checks could not name (a view whose cast fails), as evaluate()'s
        raise InputError(f"cannot compare the runs: {first_line(e)}") from None
    return as_output(c.rows, output)


def as_output(rows: list[dict], output: str):
    if output in (None, "rows"):
        return rows
    if output == "pandas":
        from .api import require_pandas
        require_pandas("output='pandas'")
    import pyarrow as pa
    if not rows:
        raise UsageError("nothing to convert: no rows")
    table = pa.Table.from_pylist(rows)
    if output == "arrow":
        return table
    if output == "pandas":
        return table.to_pandas()
    raise UsageError(f"unknown output '{output}'; choose rows, pandas or arrow")
