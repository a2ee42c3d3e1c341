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
import operator
import os
import warnings
from dataclasses import dataclass, field

import duckdb

from . import conventions, measures as measures_mod, stats
from ._lazy import LazyModule
from .errors import InputError, UsageError
from .paths import write_atomic
from .inputs import JUDGMENTS, RUN, Reader, run_sql

# sqlglot and the query builder when a comparison runs, not when `rankmetrics` builds its argument parser
exp = LazyModule("sqlglot.expressions")
determinism = LazyModule("rankmetrics_duckdb.determinism")
sqlgen = LazyModule("rankmetrics_duckdb.sqlgen")

FORMATS = ("table", "json", "csv", "latex", "markdown")
COLUMNS = ("measure", "run", "mean", "delta", "p_value", "p_adjusted", "ci_low", "ci_high", "significant",
           "queries")
TEST_NAMES = {"t": "paired t-test", "randomization": "randomization test", "bootstrap": "bootstrap test"}


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

    def summary(self) -> str:
        """One sentence saying what the marks mean."""
        corr = {"none": "no correction", "holm": "Holm correction", "bonferroni": "Bonferroni correction"}
        others = len(self.runs) - 1
        p = "p" if self.correction == "none" else "adjusted p"
        return (f"† {p} < {self.alpha:g}: two-sided {TEST_NAMES[self.test]} over per-query values, against the "
                f"baseline {self.runs[0]}, {corr[self.correction]} over {others} comparison"
                f"{'s' if others != 1 else ''} per metric")


def _label(obj, i: int) -> str:
    if isinstance(obj, (str, os.PathLike)):
        return os.fspath(obj)
    return f"run {i + 1}"


def _check_overlap(con, run, judgments):
    r, j = run.relation.sql(dialect="duckdb"), judgments.relation.sql(dialect="duckdb")
    row = run_sql(con, f"SELECT count(*) FROM (SELECT DISTINCT CAST(a.query_id AS VARCHAR) AS q FROM {r} AS a "
                       f"INTERSECT SELECT DISTINCT CAST(b.query_id AS VARCHAR) FROM {j} AS b) AS c").fetchone()
    if row[0] == 0:
        raise InputError(f"the run ({run.label}) and the judgments ({judgments.label}) have no query in common: "
                         f"check the files and id columns")


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
    selects = [exp.select(
        exp.alias_(_prefixed("j", i), "query_id"),
        exp.alias_(exp.Cast(this=exp.column("item_id", table="j"), to=exp.DataType.build("VARCHAR")), "item_id"),
        exp.alias_(exp.column("relevance", table="j"), "relevance")).from_(_source(judgments, "j"))
        for i in range(n)]
    return _union(selects)


def _union(selects):
    query = selects[0]
    for s in selects[1:]:
        query = exp.union(query, s, distinct=False)
    return exp.Subquery(this=query)


def per_query_values(judgments, runs, metrics=None, *, con=None, convention="trec_eval", nan_scores="error",
                     **overrides):
    """(measures, labels, conv, per_query, means) for several runs, from one DuckDB query."""
    if isinstance(runs, dict):
        labels, objs = [str(k) for k in runs], list(runs.values())
    else:
        if isinstance(runs, (str, os.PathLike)) or not hasattr(runs, "__iter__"):
            raise UsageError("runs: give a list of runs (the first is the baseline) or a dict {name: run}")
        objs = list(runs)
        labels = [_label(o, i) for i, o in enumerate(objs)]
    if len(objs) < 2:
        raise UsageError(f"compare needs at least two runs (a baseline and one more), got {len(objs)}")
    if isinstance(metrics, str):
        metrics = [metrics]
    measures = measures_mod.parse_all(metrics or measures_mod.TREC_DEFAULT)
    conv = conventions.resolve(convention, **overrides)
    private = con is None
    con = duckdb.connect() if private else con
    reader = Reader(con, private, nan_scores)
    try:
        judged = reader.load(judgments, JUDGMENTS)
        loaded = []
        for obj in objs:
            run = reader.load(obj, RUN)
            _check_overlap(con, run, judged)
            loaded.append(run)
        run_rel, any_rank = _stacked_runs(loaded)
        plan = sqlgen.plan(measures, conv, sqlgen.Source(run_rel, True, any_rank),
                           sqlgen.Source(_stacked_judgments(judged, len(loaded)), True, False),
                           per_query=True, means=False, split_kinds=True)  # DuckDB only (sqlgen)
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


def run_comparison(judgments, runs, metrics=None, *, test="t", correction="holm", alpha=0.05, seed=42,
                   trials=10_000, con=None, convention="trec_eval", nan_scores="error", **overrides) -> Comparison:
    if test not in stats.TESTS:
        raise UsageError(f"unknown test '{test}'; choose one of: {', '.join(stats.TESTS)}")
    if correction not in stats.CORRECTIONS:
        raise UsageError(f"unknown correction '{correction}'; choose one of: {', '.join(stats.CORRECTIONS)}")
    if not 0 < float(alpha) < 1:
        raise UsageError(f"alpha must be between 0 and 1, not {alpha}")
    try:  # ints (numpy's too); not floats, strings or bools
        n = None if isinstance(trials, bool) else operator.index(trials)
    except TypeError:
        n = None
    if n is None or not 1 <= n <= MAX_TRIALS:
        raise UsageError(f"trials must be a whole number from 1 to {MAX_TRIALS:,}, not {trials!r} (a million trials "
                         f"resolve p-values to 1e-6; each trial is a pass over the queries in Python)")
    measures, labels, conv, per_query, means = per_query_values(judgments, runs, metrics, con=con,
                                                                 convention=convention, nan_scores=nan_scores,
                                                                 **overrides)
    c = Comparison(measures, labels, conv, convention, test, correction, float(alpha), int(trials), int(seed),
                   per_query, means)
    warned = set()
    for m in measures:
        name = m.requested
        base = per_query[(name, 0)]
        results = []
        for i in range(1, len(labels)):
            other = per_query[(name, i)]
            queries = paired(base, other)
            evaluated = {q for q, v in base.items() if not math.isnan(v)} | \
                        {q for q, v in other.items() if not math.isnan(v)}
            if len(queries) < len(evaluated) and i not in warned:
                warned.add(i)
                warnings.warn(f"{labels[i]} and the baseline {labels[0]} have values for {len(queries)} common "
                              f"queries of {len(evaluated)} ({name}); the test pairs those {len(queries)}. Use -c "
                              f"(queries='judged') to evaluate every judged query for every run", stacklevel=2)
            diffs = [other[q] - base[q] for q in queries]
            scale = m.metric.mean.difference_scale(len(diffs))
            delta = math.fsum(diffs) / len(diffs) * scale if diffs else math.nan
            lo = hi = math.nan
            if test == "t":
                p = stats.paired_t(diffs)[1]
            elif test == "randomization":
                p = stats.randomization(diffs, c.trials, c.seed)
            else:
                p, lo, hi = stats.bootstrap(diffs, c.trials, c.seed)
                lo, hi = lo * scale, hi * scale
            results.append((i, delta, p, lo, hi, len(diffs)))
        adjusted = stats.correct([r[2] for r in results], correction)
        c.rows.append(_row(name, labels[0], means[(name, 0)], None, None, None, None, None, None,
                           sum(1 for v in base.values() if not math.isnan(v))))
        for (i, delta, p, lo, hi, n), padj in zip(results, adjusted):
            sig = None if math.isnan(padj) else padj < c.alpha
            c.rows.append(_row(name, labels[i], means[(name, i)], delta, p, padj, lo, hi, sig, n))
    return c


def _clean(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def _row(measure, run, mean, delta, p, padj, lo, hi, sig, n) -> dict:
    return {"measure": measure, "run": run, "mean": _clean(mean), "delta": _clean(delta), "p_value": _clean(p),
            "p_adjusted": _clean(padj), "ci_low": _clean(lo), "ci_high": _clean(hi),
            "significant": sig, "queries": n}


def compare(judgments, runs, metrics=None, *, test="t", correction="holm", alpha=0.05, seed=42, trials=10_000,
            con=None, convention="trec_eval", output="rows", **overrides):
    """Compare runs with the first one (the baseline), metric by metric.

    runs: a list of runs (file paths, table names on con, relations, pandas/polars/pyarrow tables), the first
    being the baseline, or a dict {name: run}. test: 't' (paired t-test, as scipy.stats.ttest_rel),
    'randomization' (sign flips, `trials` trials, seeded) or 'bootstrap' (percentile 95% interval of the mean
    difference and the shifted-null bootstrap p-value). correction: 'holm', 'bonferroni' or 'none', over the
    non-baseline runs, per metric. Conventions as for evaluate().
    Returns a list of dicts {"measure", "run", "mean", "delta", "p_value", "p_adjusted", "ci_low", "ci_high",
    "significant", "queries"} (None where not applicable: the baseline's test columns, the interval of other
    tests); output='pandas' or 'arrow' returns a DataFrame or a pyarrow Table of the same rows.
    """
    c = run_comparison(judgments, runs, metrics, test=test, correction=correction, alpha=alpha, seed=seed,
                       trials=trials, con=con, convention=convention, **overrides)
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


# ---- rendering ----------------------------------------------------------------------------------------------
def _num(v, digits=4) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _p(v) -> str:
    if v is None:
        return ""
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


def _signed(v) -> str:
    return "" if v is None else f"{v:+.4f}"


def render_table(c: Comparison) -> str:
    head = ["measure", "run", "mean", "delta", "p", "p_adj"] + (["ci_low", "ci_high"] if c.test == "bootstrap"
                                                                  else []) + ["n", ""]
    cells = [head]
    for r in c.rows:
        line = [r["measure"], r["run"], _num(r["mean"]), _signed(r["delta"]), _p(r["p_value"]), _p(r["p_adjusted"])]
        if c.test == "bootstrap":
            line += [_signed(r["ci_low"]), _signed(r["ci_high"])]
        line += [str(r["queries"]), "†" if r["significant"] else ""]
        cells.append(line)
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    left = {0, 1}
    out = []
    for k, row in enumerate(cells):
        out.append("  ".join(v.ljust(w) if i in left or i == len(head) - 1 else v.rjust(w)
                             for i, (v, w) in enumerate(zip(row, widths))).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths[:-1]))
    return "\n".join(out) + "\n" + c.summary() + "\n"


def _wide(c: Comparison):
    """Runs as rows, measures as columns: cells 'mean' with a dagger when significant."""
    names = [m.requested for m in c.measures]
    k = len(c.runs)
    table = []
    for i, run in enumerate(c.runs):
        # rows come per measure, runs in the given order (run_comparison): row of run i for measure j
        cells = [(_num(c.rows[j * k + i]["mean"]), bool(c.rows[j * k + i]["significant"])) for j in range(len(names))]
        table.append((run, cells))
    return names, table


def render_markdown(c: Comparison) -> str:
    names, table = _wide(c)
    out = ["| run | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for i, (run, cells) in enumerate(table):
        label = run.replace("|", "\\|") + (" (baseline)" if i == 0 else "")
        out.append(f"| {label} | " + " | ".join(v + ("†" if s else "") for v, s in cells) + " |")
    return "\n".join(out) + "\n\n" + c.summary() + "\n"


_TEX = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "{": "\\{",
        "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}


def _tex(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


def render_latex(c: Comparison) -> str:
    names, table = _wide(c)
    out = ["\\begin{tabular}{l" + "r" * len(names) + "}", "\\hline",
           "Run & " + " & ".join(_tex(n) for n in names) + " \\\\", "\\hline"]
    for i, (run, cells) in enumerate(table):
        label = _tex(run) + (" (baseline)" if i == 0 else "")
        out.append(label + " & " + " & ".join(v + ("$^\\dagger$" if s else "") for v, s in cells) + " \\\\")
    out += ["\\hline", "\\end{tabular}", "% " + c.summary().replace("†", "$^\\dagger$")]
    return "\n".join(out) + "\n"


def render(c: Comparison, fmt: str) -> str:
    if fmt == "json":
        import json
        return json.dumps(c.rows, indent=1) + "\n"
    if fmt == "csv":
        import csv
        import io
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in c.rows:
            w.writerow(["" if r[k] is None else (repr(r[k]) if isinstance(r[k], float) else r[k]) for k in COLUMNS])
        return buf.getvalue()
    if fmt == "latex":
        return render_latex(c)
    if fmt == "markdown":
        return render_markdown(c)
    return render_table(c)


# ---- command line -------------------------------------------------------------------------------------------
def add_arguments(p, with_format=True) -> None:
    p.add_argument("judgments", metavar="JUDGMENTS")
    p.add_argument("runs", metavar="RUN", nargs="+", help="two or more runs; the first is the baseline")
    p.add_argument("-m", "--metric", dest="metrics", action="append", metavar="METRIC",
                   help="metric name, repeatable (default: a trec_eval-like set)")
    p.add_argument("--test", choices=stats.TESTS, default="t",
                   help="paired two-sided test: t (default), randomization, bootstrap (adds a 95%% interval)")
    p.add_argument("--correction", choices=stats.CORRECTIONS, default="holm",
                   help="multiple-comparison correction over the runs compared with the baseline, per metric "
                        "(default: holm)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level for the marks (default 0.05)")
    p.add_argument("--seed", type=int, default=42, help="seed of the randomization and bootstrap tests (42)")
    p.add_argument("--trials", type=int, default=10_000, help="randomization/bootstrap trials, at most 1,000,000 (10000)")
    from .cli import add_nan_scores
    add_nan_scores(p)
    if with_format:
        p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
        p.add_argument("-o", "--output", metavar="FILE",
                       help="write to FILE (by extension: .json, .csv, .parquet, .tex, .md, else the --format)")


def comparison_from_args(args) -> Comparison:
    from .cli import _overrides
    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs: a baseline and one or more runs to compare with it")
    return run_comparison(args.judgments, args.runs, args.metrics, test=args.test, correction=args.correction,
                          alpha=args.alpha, seed=args.seed, trials=args.trials, convention=args.convention,
                          nan_scores=args.nan_scores, **_overrides(args))


def cmd_compare(args) -> int:
    import sys
    c = comparison_from_args(args)
    if args.output:
        ext = os.path.splitext(args.output)[1].lower()
        if ext == ".parquet":
            import pyarrow.parquet as pq
            write_atomic(args.output, lambda tmp: pq.write_table(as_output(c.rows, "arrow"), tmp))
        else:
            fmt = {".json": "json", ".csv": "csv", ".tex": "latex", ".md": "markdown"}.get(ext, args.format)
            text = render(c, fmt)
            write_atomic(args.output, lambda tmp: _write_text(tmp, text))
    else:
        sys.stdout.write(render(c, args.format))
    return 0


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


