"""The `rankmetrics` command line."""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings

from . import dialects, paths
from .errors import InputError, RankMetricsError, UsageError

FORMATS = ("trec", "json", "csv", "table")


def _add_conventions(p: argparse.ArgumentParser) -> None:
    from . import conventions
    g = p.add_argument_group("conventions (a preset, then single switches that override it)")
    g.add_argument("--convention", default="trec_eval", choices=list(conventions.PRESETS),
                   help="preset reproducing a tool (default: trec_eval)")
    g.add_argument("-c", dest="complete", action="store_true",
                   help="average over every judged query; queries missing from the run score 0 (trec_eval -c)")
    g.add_argument("-l", dest="rel", metavar="N", help="relevance level: grades >= N are relevant (trec_eval -l)")
    g.add_argument("-J", dest="judged_only", action="store_true",
                   help="evaluate judged items only: drop unjudged items before ranking (trec_eval -J)")
    for name, (choices, text) in conventions.PARAMETERS.items():
        if name in ("rel", "judged_only"):
            continue
        flag = "--" + name.replace("_", "-")
        if choices:
            g.add_argument(flag, dest=name, choices=choices, help=text)
        else:
            g.add_argument(flag, dest=name, metavar="VALUE", help=text)


def add_nan_scores(p: argparse.ArgumentParser) -> None:
    p.add_argument("--nan-scores", dest="nan_scores", choices=("error", "last"), default="error",
                   help="NaN, infinite or missing scores: an error (default), or rank those items last")


def _overrides(args) -> dict:
    from . import conventions
    out = {}
    for name in conventions.PARAMETERS:
        value = getattr(args, name, None)
        if value not in (None, False):
            out[name] = value
    if getattr(args, "complete", False):
        if out.get("queries", "judged") != "judged":
            raise UsageError(f"-c means --queries judged; it contradicts --queries {out['queries']}: give one of them")
        out["queries"] = "judged"
    return out


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line (no usage block) like every other error of the command line."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} -h)\n")


def _dialects_help(native: bool) -> str:
    """The dialects of the registry (dialects.py, plain data: no sqlglot): every one, or those with native
    objects (`rankmetrics macros`)."""
    if native:
        kind = dialects.get(dialects.DEFAULT).native.kind
        return ", ".join([f"{dialects.DEFAULT} ({kind}, default)",
                          *[name for name in dialects.native_names() if name != dialects.DEFAULT]])
    *names, last = dialects.names()
    return f"{', '.join(names)} or {last} (default: {dialects.DEFAULT})"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rankmetrics", description="Ranking metrics as SQL, inside DuckDB.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    e = sub.add_parser("eval", help="evaluate a run against judgments",
                       description="Evaluate RUN against JUDGMENTS (TREC qrels/run, CSV/TSV with a header, Parquet, "
                                   "or gzip of the text forms).")
    e.add_argument("judgments", metavar="JUDGMENTS")
    e.add_argument("run", metavar="RUN")
    e.add_argument("-m", "--metric", dest="metrics", action="append", metavar="METRIC",
                   help="metric name, repeatable: nDCG@10, AP, P@10, ndcg_cut_10, map, mrr@10, "
                        "nDCG(gain=exponential)@10 ... (default: a trec_eval-like set)")
    e.add_argument("-q", dest="per_query", action="store_true", help="also print one row per query")
    e.add_argument("--format", choices=FORMATS, default="trec", help="output format (default: trec)")
    e.add_argument("-o", "--output", metavar="FILE", help="write to FILE (by extension: .json, .csv, .parquet, "
                                                          "else the --format), atomically")
    add_nan_scores(e)
    e.add_argument("--memory-limit", metavar="SIZE", help="DuckDB's memory limit, e.g. 4GB (larger runs spill to "
                                                           "a temporary folder)")
    e.add_argument("--threads", type=int, metavar="N", help="DuckDB threads, 1 to 1024 (default: one per core)")
    _add_conventions(e)
    m = sub.add_parser("macros", help="print the SQL that installs every metric once: DuckDB macros, or a "
                                            "warehouse's functions / views (--dialect)")
    m.add_argument("--dialect", default=dialects.DEFAULT, help=_dialects_help(native=True))
    m.add_argument("--run", metavar="TABLE", help="the run table the objects read (default: run)")
    m.add_argument("--judgments", metavar="TABLE",
                   help="the judgments table the objects read (default: judgments)")
    m.add_argument("--run-columns", choices=("score", "rank", "score,rank"),
                   help="which of score and rank the run table has (default: score); ties='input' needs rank")
    m.add_argument("--schema", metavar="NAME", help="create the objects in this schema (BigQuery: the dataset)")
    sub.add_parser("metrics", help="list the metrics, their parameters and the names accepted")
    s = sub.add_parser("sql", help="print one SELECT computing the metrics in a SQL dialect, from two tables",
                       description="Print one self-contained SELECT, in the SQL dialect D, that returns rows "
                                   "(measure, query_id, value) from the tables RUN (query_id, item_id, score "
                                   "and/or rank) and JUDGMENTS (query_id, item_id, relevance): the same numbers "
                                   "as `rankmetrics eval` on the same data.")
    s.add_argument("-m", "--metric", dest="metrics", action="append", metavar="METRIC",
                   help="metric name, repeatable, as in eval (default: a trec_eval-like set)")
    s.add_argument("--dialect", default=dialects.DEFAULT, metavar="D", help=_dialects_help(native=False))
    s.add_argument("--run", required=True, metavar="TABLE", help="the run table, possibly qualified (db.schema.t)")
    s.add_argument("--judgments", required=True, metavar="TABLE", help="the judgments table")
    s.add_argument("--run-columns", default="score", choices=("score", "rank", "score,rank"),
                   help="which of score and rank the run table has (default: score)")
    s.add_argument("-q", dest="per_query", action="store_true", help="also return one row per query")
    _add_conventions(s)
    _add_workflow(sub)
    return p


def _add_workflow(sub) -> None:
    """`compare` and `report` (rankmetrics_duckdb/comparison.py, html_report.py)."""
    from . import comparison as compare
    c = sub.add_parser("compare", help="compare runs with a baseline (the first run): means, differences, "
                                       "paired significance tests",
                       description="Compare RUN ... with the first RUN (the baseline) on each metric: mean, "
                                   "difference, and the p-value of a paired two-sided test over the per-query "
                                   "values, corrected for multiple comparisons.")
    compare.add_arguments(c)
    _add_conventions(c)
    r = sub.add_parser("report", help="write a self-contained HTML report comparing runs",
                       description="Write an HTML page (no external resources) with the comparison table, a "
                                   "sorted per-query difference plot per metric and the conventions used.")
    compare.add_arguments(r, with_format=False)
    r.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    _add_conventions(r)


MEAN = "all"  # the mean row's query id in every output of the command line (trec_eval's); None in Python and SQL


def _structured(rows):
    """(measure, query_id, value, aggregate) for the JSON, CSV and Parquet outputs: the mean row keeps trec_eval's
    query id 'all' and is told apart from a query named 'all' by aggregate = true."""
    return [(m, MEAN if q is None else q, v, q is None) for m, q, v in rows]


def _fmt_trec(rows, sums) -> str:
    out = []
    for m, q, v in _text_ids(rows):
        if m in sums and not math.isnan(v):
            text = str(int(round(v)))
        else:
            text = "nan" if math.isnan(v) else f"{v:.4f}"
        out.append(f"{m:<22}\t{q}\t{text}")
    return "\n".join(out) + "\n"


def _fmt_json(rows) -> str:
    return json.dumps([{"measure": m, "query_id": q, "value": None if math.isnan(v) else v, "aggregate": a}
                       for m, q, v, a in _structured(rows)], indent=1) + "\n"


def _fmt_csv(rows) -> str:
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["measure", "query_id", "value", "aggregate"])
    for m, q, v, a in _structured(rows):
        w.writerow([m, q, "" if math.isnan(v) else repr(v), "true" if a else "false"])
    return buf.getvalue()


def _text_ids(rows):
    """The rows with the mean's query id None written 'all', as trec_eval does; refused when a query is itself
    named 'all' (the two rows could not be told apart)."""
    if any(q == MEAN for _, q, _ in rows):
        raise InputError(f"a query is named '{MEAN}', like the mean row of the trec and table formats: use --format "
                         f"json or csv (their rows say which is the mean: aggregate true), or leave out -q")
    return [(m, MEAN if q is None else q, v) for m, q, v in rows]


def _fmt_table(rows) -> str:
    cells = [("measure", "query_id", "value")] + [(m, q, "nan" if math.isnan(v) else f"{v:.4f}")
                                                  for m, q, v in _text_ids(rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(3)]
    lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:>{widths[2]}}" for a, b, c in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def render(rows, fmt: str, sums=()) -> str:
    if fmt == "json":
        return _fmt_json(rows)
    if fmt == "csv":
        return _fmt_csv(rows)
    if fmt == "table":
        return _fmt_table(rows)
    return _fmt_trec(rows, sums)


def write_atomic(path: str, rows, fmt: str, sums=()) -> None:
    """Write the rows to path (by its extension: .parquet, .json, .csv, else fmt) through a temporary file in the
    same folder, then rename: an interrupted run leaves no half file (paths.write_atomic)."""
    ext = os.path.splitext(path)[1].lower()

    def write(tmp):
        if ext == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq
            out = _structured(rows)
            table = pa.table({"measure": [r[0] for r in out], "query_id": [r[1] for r in out],
                              "value": [None if math.isnan(r[2]) else r[2] for r in out],
                              "aggregate": [r[3] for r in out]})
            pq.write_table(table, tmp)
        else:
            kind = {".json": "json", ".csv": "csv"}.get(ext, fmt)
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(render(rows, kind, sums))
    paths.write_atomic(path, write)


def cmd_eval(args) -> int:
    from .api import Evaluation
    # DuckDB draws its progress bar on stdout: only when both streams are a terminal (never into a pipe or file)
    progress = sys.stdout.isatty() and sys.stderr.isatty()
    ev = Evaluation(args.judgments, args.run, args.metrics, convention=args.convention, **_overrides(args),
                    memory_limit=args.memory_limit, threads=args.threads, progress=progress,
                    nan_scores=args.nan_scores)
    if ev.note():
        sys.stderr.write(f"rankmetrics: note: {ev.note()}\n")
    try:
        rows = ev.rows()
    finally:
        ev.close()
    if not args.per_query:
        rows = [r for r in rows if r[1] is None]
    sums = {m.requested for m in ev.measures if m.metric.mean.integer}  # printed as whole numbers (trec format)
    if args.output:
        write_atomic(args.output, rows, args.format, sums)
    else:
        sys.stdout.write(render(rows, args.format, sums))
    return 0


def cmd_macros(args) -> int:
    from . import native
    sys.stdout.write(native.script(args.dialect, run=args.run, judgments=args.judgments, schema=args.schema,
                                   run_columns=args.run_columns))
    return 0


def cmd_sql(args) -> int:
    from .api import to_sql
    sys.stdout.write(to_sql(args.metrics, dialect=args.dialect, run=args.run, judgments=args.judgments,
                            per_query=args.per_query, convention=args.convention, run_columns=args.run_columns,
                            **_overrides(args)))
    return 0


def cmd_metrics(args) -> int:
    from .measures import METRICS, PARAMS
    for m in METRICS.values():
        params = ", ".join(f"{p}" + (f" ({'|'.join(PARAMS[p].choices)})" if PARAMS[p].choices else "")
                           for p in m.params)
        cut = "" if m.cutoff == "none" else "@k"
        sys.stdout.write(f"{m.name}{cut:<4} {m.description}" + (f"; parameters: {params}" if params else "") + "\n")
    return 0


def _cmd_compare(args) -> int:
    from .comparison import cmd_compare
    return cmd_compare(args)


def _cmd_report(args) -> int:
    from .html_report import cmd_report
    return cmd_report(args)


def main(argv=None) -> int:
    warnings.showwarning = lambda message, *a, **k: sys.stderr.write(f"rankmetrics: warning: {message}\n")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        return {"eval": cmd_eval, "macros": cmd_macros, "metrics": cmd_metrics, "compare": _cmd_compare,
                "report": _cmd_report, "sql": cmd_sql}[args.command](args)
    except RankMetricsError as e:
        sys.stderr.write(f"rankmetrics: error: {e}\n")
        return 2 if isinstance(e, UsageError) else 1
    except KeyboardInterrupt:
        sys.stderr.write("rankmetrics: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug or an engine error: still one line, never a traceback
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        sys.stderr.write(f"rankmetrics: error: {type(e).__name__}: {first}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
