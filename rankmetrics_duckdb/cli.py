"""The `rankmetrics` command line."""
from __future__ import annotations

import argparse
import os
import sys
import warnings

from . import conventions, dialects, measures, paths, render, textfiles
from ._version import __version__
from .errors import InputError, RankMetricsError, UsageError, first_line


def _int(text: str) -> int:
    """argparse's type for a whole number: ASCII digits and a sign (int() also reads '1_0' as 10, and Unicode
    digits)."""
    conventions.to_float(text)  # ValueError unless a number written as strtod reads it
    return int(text)


def _float(text: str) -> float:
    """argparse's type for a number, as strtod reads it (conventions.to_float: not '1_0', nor Unicode digits)."""
    return conventions.to_float(text)


_int.__name__, _float.__name__ = "int", "float"  # argparse's message: invalid int value: '1_0'


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
    g.add_argument("-N", "--num-docs", dest="num_docs", metavar="N", help=conventions.PARAMETERS["num_docs"][1])
    for name, (choices, text) in conventions.PARAMETERS.items():
        if name in ("rel", "judged_only", "num_docs"):
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
        self.exit(2, f"{self.prog}: error: {_one_line(message)} (see {self.prog} -h)\n")


def _one_line(message: str) -> str:
    """A message as one line of plain text: a character that is not printable (a newline, a carriage return or a
    terminal escape in a value the message quotes, a no-break space) written as its Python escape."""
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in message)


def _dialects_help(native: bool) -> str:
    """The dialects of the registry (dialects.py, plain data: no sqlglot): every one, or those with native
    objects (`rankmetrics macros`)."""
    if native:
        kind = dialects.get(dialects.DEFAULT).native.kind
        return ", ".join([f"{dialects.DEFAULT} ({kind}, default)",
                          *[name for name in dialects.native_names() if name != dialects.DEFAULT],
                          *[f"{name} (only the helper function its SQL calls)" for name in dialects.helper_names()]])
    *names, last = dialects.names()
    return f"{', '.join(names)} or {last} (default: {dialects.DEFAULT})"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="rankmetrics", description="Ranking metrics as SQL, inside DuckDB.")
    p.add_argument("--version", action="version", version=f"rankmetrics {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    e = sub.add_parser("eval", help="evaluate a run against judgments",
                       description="Evaluate RUN against JUDGMENTS (TREC qrels/run, CSV/TSV with a header, Parquet, "
                                   "or gzip of the text forms).")
    e.add_argument("judgments", metavar="JUDGMENTS")
    e.add_argument("run", metavar="RUN")
    e.add_argument("-m", "--metric", dest="metrics", action="append", metavar="METRIC",
                   help="metric name, repeatable: nDCG@10, AP, P@10, ndcg_cut_10, map, mrr@10, "
                        "nDCG(gain=exponential)@10 ... (default: trec_eval's official set)")
    e.add_argument("-q", dest="per_query", action="store_true", help="also print one row per query")
    e.add_argument("-n", dest="no_summary", action="store_true",
                   help="no summary: leave out the means (the 'all' rows and runid), as trec_eval -n does")
    e.add_argument("-R", "--rel-format", dest="rel_format", choices=("qrels", "qrels_jg", "prefs", "qrels_prefs"),
                   default="qrels", help="the judgments' format (trec_eval -R): qrels, or qrels_jg (lines 'query "
                                         "group item relevance', with the measures map_avgjg, P_avgjg, "
                                         "Rprec_mult_avgjg averaged over each query's judgment groups), prefs "
                                         "(lines 'query group sub-group item level', with the prefs_* measures) "
                                         "or qrels_prefs (qrels read as preferences)")
    e.add_argument("-M", "--max-retrieved", dest="max_retrieved", metavar="N",
                   help="use only each query's top N retrieved items, as ranked (trec_eval -M)")
    e.add_argument("-Z", "--zscores", metavar="FILE",
                   help="print z-scores: each value's deviation from the mean of its query and measure in FILE "
                        "(lines 'qid measure mean stddev'), in standard deviations (trec_eval -Z)")
    e.add_argument("-T", "--results-format", choices=("trec_results",), default="trec_results",
                   help="the run's format (trec_eval -T; trec_results, its only one, and ours: read by extension)")
    e.add_argument("-D", "--debug-level", metavar="LEVEL",
                   help="trec_eval's debug output: not supported (refused, rather than read as a file)")
    e.add_argument("-v", "--version", action="version", version=f"rankmetrics {__version__}")
    e.add_argument("--format", choices=render.ROW_FORMATS, default="trec", help="output format (default: trec)")
    e.add_argument("-o", "--output", metavar="FILE", help="write to FILE (by extension: .json, .csv, .parquet, "
                                                          "else the --format), atomically")
    add_nan_scores(e)
    e.add_argument("--memory-limit", metavar="SIZE", help="DuckDB's memory limit, e.g. 4GB (larger runs spill to "
                                                           "a temporary folder)")
    e.add_argument("--threads", type=_int, metavar="N", help="DuckDB threads, 1 to 1024 (default: one per core)")
    _add_shape(e)
    _add_sides(e)
    _add_conventions(e)
    m = sub.add_parser("macros", help="print the SQL that installs every metric once: DuckDB macros, or a "
                                            "warehouse's functions / views (--dialect)")
    m.add_argument("--dialect", default=dialects.DEFAULT, help=_dialects_help(native=True))
    m.add_argument("--run", metavar="TABLE", help="the run table the objects read (default: run)")
    m.add_argument("--judgments", metavar="TABLE",
                   help="the judgments table the objects read (default: judgments)")
    m.add_argument("--run-columns", choices=("score", "rank", "score,rank"), metavar="COLUMNS",
                   help="which of score and rank the run table has: score (default), rank or score,rank; "
                        "ties='input' needs rank")
    m.add_argument("--schema", metavar="NAME", help="create the objects in this schema (BigQuery: the dataset)")
    _add_shape(m, tables=True)
    _add_sides(m, tables=True)
    b = sub.add_parser("dbt", help="write the metrics as a dbt package (macros for every adapter)",
                       description="Write a dbt package named rankmetrics into DIR: dbt_project.yml, a README and one "
                                   "macro file per metric, with an implementation per dbt adapter "
                                   "(adapter.dispatch), generated from the same SQL as every other route.")
    b.add_argument("-o", "--output", required=True, metavar="DIR", help="the package folder (created if missing)")
    sub.add_parser("metrics", help="list the metrics, their parameters and the names accepted")
    f = sub.add_parser("fuse", help="fuse several runs into one (ranx's fusion methods), written as a run",
                       description="Fuse RUNs into one run, as ranx's fuse computes it: each run's scores normalized "
                                   "per query (--norm), then combined per item (-m). Written as a TREC run (or "
                                   "Parquet by -o's extension).")
    f.add_argument("runs", metavar="RUN", nargs="+", help="two or more runs with scores")
    f.add_argument("-m", "--method", default="wsum",
                   help="combsum, wsum (--weights), combmnz, rrf (--rrf-k), isr or bordafuse (default: wsum, as ranx)")
    f.add_argument("--norm", default="min-max",
                   help="min-max (default, as ranx), max, sum, zmuv, rank or none: per run and query, first")
    f.add_argument("--weights", type=_float, nargs="+", metavar="W", help="wsum's weights, one per run (default 1)")
    f.add_argument("--rrf-k", dest="rrf_k", type=_float, default=60, metavar="K", help="rrf's k (default 60)")
    f.add_argument("--tag", default="fused", help="the run tag of the TREC lines (default: fused)")
    f.add_argument("-o", "--output", metavar="FILE", help="write to FILE (.parquet: Parquet), atomically; else "
                                                          "standard output")
    add_nan_scores(f)
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
    s.add_argument("--run-columns", default="score", choices=("score", "rank", "score,rank"), metavar="COLUMNS",
                   help="which of score and rank the run table has: score (default), rank or score,rank")
    s.add_argument("-q", dest="per_query", action="store_true", help="also return one row per query")
    s.add_argument("-R", "--rel-format", dest="rel_format", choices=("qrels", "prefs"), default="qrels",
                   help="prefs: JUDGMENTS holds preference judgments (query_id, jg, jsg, item_id, relevance) and the "
                        "SELECT returns trec_eval's 14 prefs_* measures, a column each, per query (RUN: query_id, "
                        "item_id, score)")
    s.add_argument("-M", "--max-retrieved", dest="max_retrieved", metavar="N",
                   help="with -R prefs: each query's top N retrieved items only (trec_eval -M)")
    _add_shape(s, tables=True)
    _add_sides(s, tables=True)
    _add_conventions(s)
    _add_workflow(sub)
    return p


def _add_shape(p, tables: bool = False) -> None:
    """The options naming the inputs' columns and groups (shape.Shape); tables: for SQL over tables this
    program does not read (sql, macros), which must be told which columns are lists and which group columns
    the judgments have."""
    from .shape import COLUMN_PARAMS
    g = p.add_argument_group("table shape (warehouse tables)")
    for ours, param in COLUMN_PARAMS.items():
        g.add_argument("--" + param.replace("_", "-"), dest=param, metavar="NAME",
                       help=f"the column holding the {ours.replace('_', ' ')} (default: {ours} or a usual alias)"
                       if not tables else f"the column holding the {ours.replace('_', ' ')} (default: {ours})")
    g.add_argument("--by", action="append", metavar="COLUMN",
                   help="a group column of the run (repeatable): each group (model, segment, day) is evaluated "
                        "as a run of its own; the rows gain a column per group column")
    if tables:
        g.add_argument("--judgments-by", action="append", metavar="COLUMN",
                       help="a group column (of --by) that the judgments table has too: joined on it (with --by, "
                            "this or --shared-judgments is required: the SQL cannot see the table)")
        g.add_argument("--shared-judgments", action="store_true",
                       help="the judgments table has none of the group columns (--by): its judgments serve every "
                            "group")
        g.add_argument("--run-lists", action="store_true",
                       help="the run's item column is a list (array) in rank order")
        g.add_argument("--judgment-lists", nargs="?", const=True, default=False, choices=("ones",),
                       help="the judgments' item column is a list of relevant items, their grades a parallel "
                            "list: the relevance column (--relevance-column, default relevance); "
                            "--judgment-lists ones: no grades, each listed item grade 1")


def _add_sides(p, tables: bool = False, reference: bool = True) -> None:
    """The side tables of the recommender metrics that read them (MeanInvUserFreq, AvgRecPopularity,
    Serendipity, the catalog-wide metrics, IntraListDiversity; Intersection's reference run, not for compare and
    report, whose Intersection is against the baseline): files for eval, compare and report; table names for sql
    and macros; and their column names (shape.SIDE_PARAMS)."""
    from .shape import SIDE_PARAMS
    what = "TABLE" if tables else "FILE"
    g = p.add_argument_group("tables beside the run (recommender metrics)")
    g.add_argument("--interactions", metavar=what,
                   help="the training interactions (user_id, item_id; Parquet or CSV with a header): item "
                        "popularity and novelty are computed from them")
    g.add_argument("--items", metavar=what,
                   help="the catalog (item_id; with an embedding list column for IntraListDiversity): its size for "
                        "Serendipity and the catalog-wide metrics (default: the items of --interactions)")
    if reference:
        g.add_argument("--reference", metavar=what,
                       help="Intersection's reference run (another model's recommendations, in the run's shape"
                            + (" and run columns" if tables else "; any run format") + ")")
    for role, params in SIDE_PARAMS.items():
        for ours, param in params.items():
            g.add_argument("--" + param.replace("_", "-"), dest=param, metavar="NAME",
                           help=f"the column of --{role} holding the {ours.replace('_', ' ')} (default: {ours})")


def _sides(args) -> dict:
    """The side tables and their column names as keyword arguments of the library (interactions=, items=,
    reference=, interactions_columns=, items_columns=)."""
    from .shape import SIDE_PARAMS
    out = {name: getattr(args, name) for name in ("interactions", "items", "reference") if getattr(args, name, None)}
    if args.command in ("eval", "compare", "report"):  # files: one that is not there is an error even when no
        #                                                metric requested reads it (it was ignored without a word)
        for name, path in out.items():  # (standard input, '-', is a file object by now)
            if isinstance(path, str) and path != "-" and not os.path.exists(path):
                raise InputError(f"--{name} {path}: no such file")
    for role, params in SIDE_PARAMS.items():
        given = {ours: getattr(args, param) for ours, param in params.items() if getattr(args, param, None)}
        if given:
            out[f"{role}_columns"] = given
    return out


def _shape(args) -> dict:
    """The shape options as keyword arguments of the library (columns, by, ...)."""
    from .shape import COLUMN_PARAMS
    out = {"columns": {ours: getattr(args, param) for ours, param in COLUMN_PARAMS.items()
                       if getattr(args, param, None)},
           "by": args.by}
    for name in ("judgments_by", "run_lists", "judgment_lists"):
        if hasattr(args, name):
            out[name] = getattr(args, name)
    if getattr(args, "shared_judgments", False):
        if args.judgments_by:
            raise UsageError(f"--shared-judgments says the judgments have none of the group columns; it contradicts "
                             f"--judgments-by {args.judgments_by[0]}: give one of them")
        out["judgments_by"] = []
    return out


def _add_workflow(sub) -> None:
    """`compare` and `report` (computed by comparison.py, shown by render.py)."""
    c = sub.add_parser("compare", help="compare runs with a baseline (the first run): means, differences, "
                                       "paired significance tests",
                       description="Compare RUN ... with the first RUN (the baseline) on each metric: mean, "
                                   "difference, and the p-value of a paired two-sided test over the per-query "
                                   "values, corrected for multiple comparisons.")
    _add_comparison_arguments(c)
    _add_conventions(c)
    r = sub.add_parser("report", help="write a self-contained HTML report comparing runs",
                       description="Write an HTML page (no external resources) with the comparison table, a "
                                   "sorted per-query difference plot per metric and the conventions used.")
    _add_comparison_arguments(r, with_format=False)
    r.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    _add_conventions(r)


def cmd_eval(args) -> int:
    from . import connections
    if connections.shared(args.memory_limit, args.threads):
        connections.open_early()
    from .api import Evaluation
    if args.debug_level is not None and args.debug_level.strip() != "0":  # -D 0: trec_eval's default, no output
        raise UsageError(f"-D {args.debug_level}: trec_eval's debug output (and its -D 0.QID, one query) is not "
                         f"supported")
    if args.rel_format != "qrels":
        return _eval_judgment_groups(args)
    from . import diversity
    div, other = diversity.partition(args.metrics)
    if div:
        return _eval_diversity(args, div, other)
    trec = render.row_format(args.output, args.format) == "trec"
    left_out = _first_parameters(args)
    # DuckDB draws its progress bar on stdout: only when both streams are a terminal (never into a pipe or file)
    progress = all(s is not None and s.isatty() for s in (sys.stdout, sys.stderr))
    # trec_eval's relstring: a text line per query, in the trec format only (the others hold numbers)
    texts = measures.relstrings_wanted(args.metrics) if args.per_query and trec else []
    # relstring is printed for the queries trec_eval evaluates (the conventions' query set: -c, -J), which the
    # rows of any per-query measure name: with no such measure asked for, num_ret's rows are computed, not shown
    probe = ("num_ret" if texts and args.metrics
             and not any(m.metric.per_query_line for m in measures.parse_all(args.metrics)) else None)
    ev = Evaluation(args.judgments, args.run, list(args.metrics) + [probe] if probe else args.metrics,
                    convention=args.convention, **_overrides(args),
                    memory_limit=args.memory_limit, threads=args.threads, progress=progress,
                    nan_scores=args.nan_scores, max_retrieved=args.max_retrieved, zscores=args.zscores,
                    **_shape(args), **_sides(args))
    _note_left_out(left_out)  # once the request is taken (a refused one says only why)
    if ev.note():
        sys.stderr.write(f"rankmetrics: note: {ev.note()}\n")
    try:
        rows = ev.rows()
        queries = sorted({r[-2] for r in rows if r[-2] is not None})
        rows = [r for r in rows if r[0] != probe]
        for label, length in texts:
            found = ev.relstrings(length)
            # a judged query not in the run (-c): trec_eval ranks its placeholder item there, unjudged, and clears
            # the text for relstring only: relstring_N prints '-' (not with -J, which drops that item)
            absent = "-" if label != "relstring" and length > 0 and not ev.conv["judged_only"] else ""
            rows += [(label, *([None] * len(ev.by)), q, found.get(q, absent)) for q in queries]
    finally:
        ev.close()
    rows = _kept_rows(rows, args)
    shown = [m for m in ev.measures if m.requested != probe]
    order = {m.requested: measures.trec_sort_key(m.requested) for m in shown}
    order.update({label: measures.trec_sort_key(label) for label, _ in texts})
    if any(key is None for key in order.values()):  # trec_eval's names print in trec_eval's order (trec format)
        order = None
    # printed as whole numbers (trec format), unless they are z-scores
    sums = {m.requested for m in shown if m.metric.mean.integer and not ev.zscores}
    all_only = {m.requested for m in shown if not m.metric.per_query_line}  # no -q lines (trec format)
    runid = ev.run_tag() if measures.wants_runid(args.metrics) and not args.no_summary else None
    if args.output:
        render.write_rows(args.output, rows, args.format, sums, ev.by, all_only, runid, order, bool(ev.zscores))
    else:
        sys.stdout.write(render.render_rows(rows, args.format, sums, ev.by, all_only, runid, order,
                                            bool(ev.zscores)))
    return 0


def _kept_rows(rows: list, args) -> list:
    """The rows eval prints: the means, the per-query rows too with -q, and without the means with -n (trec_eval's
    no summary: with -n and no -q, nothing)."""
    if not args.per_query:
        rows = [r for r in rows if r[-2] is None]
    if args.no_summary:
        rows = [r for r in rows if r[-2] is not None]
    return rows


def _unapplied(args, applied: set) -> list[str]:
    """The options given that a route of eval does not apply (it ignored them without a word): the convention
    switches but those in applied, the column names of the run and the judgments, the side tables and their
    columns, -M, -Z and --by (each route names those it applies in applied, by their dest)."""
    from .shape import COLUMN_PARAMS, SIDE_PARAMS
    short = {"rel": "-l", "judged_only": "-J", "complete": "-c", "max_retrieved": "-M", "zscores": "-Z"}
    switches = [n for n in _overrides(args) if not (n == "queries" and args.complete)]  # -c sets queries
    dests = (switches + ["complete"] + list(COLUMN_PARAMS.values())
             + ["interactions", "items", "reference", "max_retrieved", "zscores", "by"]
             + [param for params in SIDE_PARAMS.values() for param in params.values()])
    given = [d for d in dict.fromkeys(dests) if d not in applied and getattr(args, d, None) not in (None, False, [])]
    if "convention" not in applied and args.convention != "trec_eval":  # the default preset is no option given
        given.append("convention")
    return [short.get(d, "--" + d.replace("_", "-")) for d in given]


def _eval_diversity(args, div, other) -> int:
    """eval -m alpha_nDCG@20 ...: the diversity measures over subtopic judgments (diversity.py)."""
    from . import diversity
    diversity.refuse_mixed(div, other)
    diversity.refuse_unapplied(_unapplied(args, {"ties", "queries", "complete", "convention"}))
    from .conventions import resolve
    rows = diversity.evaluate(args.judgments, args.run, div, per_query=args.per_query,
                              ties=_overrides(args).get("ties"),
                              queries=resolve(args.convention, **_overrides(args))["queries"],
                              nan_scores=args.nan_scores)
    rows = _kept_rows(rows, args)
    if args.output:
        render.write_rows(args.output, rows, args.format, set(), (), set(), None, None, False)
    else:
        sys.stdout.write(render.render_rows(rows, args.format, set(), (), set(), None, None, False))
    return 0


def _first_parameters(args) -> list[tuple[str, str]]:
    """In trec_eval's output, several -m of one of its measures are read as trec_eval reads them, the first one's
    parameters (measures.trec_first_parameters; JSON, CSV and Parquet keep every request): args.metrics becomes
    what is evaluated; returns the arguments left out, with the one used instead of each."""
    if not args.metrics or render.row_format(args.output, args.format) != "trec":
        return []
    args.metrics, left_out = measures.trec_first_parameters(args.metrics)
    return left_out


def _note_left_out(left_out) -> None:
    if left_out:
        sys.stderr.write("rankmetrics: note: trec_eval computes a measure once, with the first parameters given "
                         "for it: " + "; ".join(f"{a} left out for {b}" for a, b in left_out) + "\n")


def _eval_judgment_groups(args) -> int:
    """eval -R qrels_jg: trec_eval's judgment-group measures (judgment_groups.py), printed as trec_eval does."""
    from . import judgment_groups, preferences
    prefs = args.rel_format in ("prefs", "qrels_prefs")
    from .conventions import PARAMETERS
    # -R qrels_jg takes the convention and its switches (judgment_groups.evaluate); -R prefs only -c and -M
    applied = {"complete", "max_retrieved"} | (set() if prefs else set(PARAMETERS) | {"convention"})
    unsupported = _unapplied(args, applied)
    if unsupported:
        raise UsageError(f"-R {args.rel_format} does not take {', '.join(unsupported)} yet")
    left_out = _first_parameters(args)
    if prefs:
        rows = preferences.evaluate(args.judgments, args.run, args.metrics, rel_format=args.rel_format,
                                    all_queries=bool(_overrides(args).get("queries") == "judged"),
                                    max_retrieved=args.max_retrieved, nan_scores=args.nan_scores)
    else:
        rows = judgment_groups.evaluate(args.judgments, args.run, args.metrics, convention=args.convention,
                                        nan_scores=args.nan_scores, max_retrieved=args.max_retrieved,
                                        **_overrides(args))
    _note_left_out(left_out)
    rows = _kept_rows(rows, args)
    names = args.metrics or ["prefs" if prefs else "qrels_jg"]
    order = {r[0]: measures.trec_sort_key(r[0]) for r in rows}
    runid = (textfiles.trec_run_tag(args.run)
             if measures.wants_runid(names) and os.path.isfile(args.run) and not args.no_summary else None)
    num_q = {measures.NUM_Q}
    sums = num_q | set(measures.PREFS_COUNTS)
    if args.output:
        render.write_rows(args.output, rows, args.format, sums, (), num_q, runid, order, False)
    else:
        sys.stdout.write(render.render_rows(rows, args.format, sums, (), num_q, runid, order, False))
    return 0


def cmd_fuse(args) -> int:
    from . import fusion
    table = fusion.fuse(args.runs, method=args.method, norm=args.norm, weights=args.weights, rrf_k=args.rrf_k,
                        nan_scores=args.nan_scores)
    if args.output:
        fusion.write(table, args.output, args.tag)
    else:
        sys.stdout.write(fusion.trec_text(table, args.tag))
    return 0


def cmd_macros(args) -> int:
    from . import native
    from .shape import Shape
    sides = _sides(args)
    form = Shape(**_shape(args), **{key: sides.pop(key) for key in list(sides) if key.endswith("_columns")},
                 tables=True)
    sys.stdout.write(native.script(args.dialect, run=args.run, judgments=args.judgments, schema=args.schema,
                                   run_columns=args.run_columns, form=form, **sides))
    return 0


def cmd_dbt(args) -> int:
    from . import dbt
    written = dbt.write(args.output)
    sys.stderr.write(f"rankmetrics: wrote the dbt package '{dbt.PACKAGE}' ({len(written)} files) to {args.output}\n")
    return 0


def cmd_sql(args) -> int:
    from .api import max_retrieved_count, to_sql
    if args.rel_format == "prefs":
        from . import preferences
        if args.metrics:
            raise UsageError("rankmetrics sql -R prefs returns every prefs_* measure (a column each); it takes no -m")
        # read as eval's -M is (argparse's int read '1_0' as 10, where trec_eval reads 1)
        sys.stdout.write(preferences.to_sql(dialect=args.dialect, run=args.run, prefs=args.judgments,
                                            max_retrieved=max_retrieved_count(args.max_retrieved)))
        return 0
    if args.max_retrieved is not None:
        raise UsageError("rankmetrics sql takes -M with -R prefs only; for the other measures cut the run table")
    sys.stdout.write(to_sql(args.metrics, dialect=args.dialect, run=args.run, judgments=args.judgments,
                            per_query=args.per_query, convention=args.convention, run_columns=args.run_columns,
                            **_shape(args), **_sides(args), **_overrides(args)))
    return 0


def cmd_metrics(args) -> int:
    from .conventions import PARAMETERS
    from .measures import METRICS, PARAMS

    def choices(p):  # a metric's own parameter (PARAMS) or a convention it reads (conventions.PARAMETERS)
        return PARAMS[p].choices if p in PARAMS else PARAMETERS[p][0]
    for m in METRICS.values():
        params = ", ".join(f"{p}" + (f" ({'|'.join(choices(p))})" if choices(p) else "") for p in m.params)
        cut = "" if m.cutoff == "none" else "@k"
        sys.stdout.write(f"{m.name}{cut:<4} {m.description}" + (f"; parameters: {params}" if params else "") + "\n")
    return 0


def _add_comparison_arguments(p, with_format=True) -> None:
    from . import stats
    p.add_argument("judgments", metavar="JUDGMENTS")
    p.add_argument("runs", metavar="RUN", nargs="+", help="two or more runs; the first is the baseline (with "
                                                         "--by: one run table whose groups are compared)")
    p.add_argument("-m", "--metric", dest="metrics", action="append", metavar="METRIC",
                   help="metric name, repeatable (default: a trec_eval-like set)")
    p.add_argument("--test", choices=stats.TESTS, default="t",
                   help="two-sided test: paired t (default), randomization, bootstrap (adds a 95%% interval), or "
                        "tukey (Tukey's HSD over every run, as ranx)")
    p.add_argument("--pairs", choices=("baseline", "all"), default="baseline",
                   help="test each run against the first (default), or every pair of runs (ranx's compare)")
    p.add_argument("--correction", choices=stats.CORRECTIONS,
                   help="multiple-comparison correction over the pairs tested (not with tukey), per metric "
                        "(default: holm)")
    p.add_argument("--alpha", type=_float, default=0.05, help="significance level for the marks (default 0.05)")
    _add_shape(p)
    _add_sides(p, reference=False)  # Intersection: against the baseline
    p.add_argument("--baseline", metavar="VALUE", help="with --by: the group compared with the others (its value; "
                                                       "v1/app for two group columns), else the first in sort order")
    p.add_argument("--seed", type=_int, help="seed of the randomization and bootstrap tests (42)")
    p.add_argument("--trials", type=_int, help="randomization/bootstrap trials, at most 1,000,000 (10000)")
    add_nan_scores(p)
    if with_format:
        p.add_argument("--format", choices=render.COMPARISON_FORMATS, default="table",
                       help="output format (default: table)")
        p.add_argument("-o", "--output", metavar="FILE",
                       help="write to FILE (by extension: .json, .csv, .parquet, .tex, .md, else the --format)")


def comparison_from_args(args):
    from .comparison import run_comparison
    if args.by:
        if len(args.runs) != 1:
            raise UsageError("compare --by compares the groups of one run table: give one RUN")
    elif len(args.runs) < 2:
        raise UsageError("compare needs at least two runs: a baseline and one or more runs to compare with it")
    elif args.baseline is not None:
        raise UsageError("--baseline names a group of --by")
    return run_comparison(args.judgments, args.runs, args.metrics, test=args.test, correction=args.correction,
                          alpha=args.alpha, seed=args.seed, trials=args.trials, convention=args.convention,
                          nan_scores=args.nan_scores, baseline=args.baseline, pairs=args.pairs, **_shape(args),
                          **_sides(args), **_overrides(args))


def cmd_compare(args) -> int:
    c = comparison_from_args(args)
    if args.output:
        render.write_comparison(args.output, c, args.format)
    else:
        sys.stdout.write(render.render_comparison(c, args.format))
    return 0


def cmd_report(args) -> int:
    c = comparison_from_args(args)
    render.write_text(args.output, render.render_html(c, getattr(args.judgments, "name", args.judgments)))
    return 0


def _inputs_and_output(args) -> None:
    """'-' as an input of eval, compare or report reads standard input (one input at most: it is read once);
    -o must not name a missing folder or one of the inputs (paths.check_output), nor be empty (it printed to
    standard output, as without -o)."""
    if getattr(args, "output", None) == "":
        raise UsageError("-o names no file (an empty name); leave -o out to print to standard output")
    if sys.stdout is None and not getattr(args, "output", None):
        raise UsageError("standard output is closed: name a file with -o" if hasattr(args, "output") else
                         "standard output is closed")
    if args.command not in ("eval", "compare", "report", "fuse"):
        return
    names = {"eval": ["judgments", "run", "reference"], "fuse": ["runs"]}.get(args.command, ["judgments", "runs"])
    given = [v for n in names for v in (getattr(args, n) if n == "runs" else [getattr(args, n)]) if v is not None]
    if given.count("-") > 1:
        raise UsageError("'-' (standard input) can be only one of the inputs: it is read once")
    if "-" in given and sys.stdin is None:
        raise UsageError("'-' reads standard input, which is closed")
    stdin = sys.stdin.buffer if "-" in given else None
    if "judgments" in names:
        args.judgments = stdin if args.judgments == "-" else args.judgments
    if args.command == "eval":
        args.run = stdin if args.run == "-" else args.run
        args.reference = stdin if args.reference == "-" else args.reference
    else:
        args.runs = [stdin if r == "-" else r for r in args.runs]
    if getattr(args, "output", None):
        paths.check_output(args.output, given)


def _refuse_empty_values(parser, args) -> None:
    """An option given an empty value (--query-column '', --memory-limit '', --dialect ''), which the routes would
    take as the option left out, is refused; -o '' has its own message (_inputs_and_output)."""
    command = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[args.command]
    for action in command._actions:
        if action.option_strings and action.dest != "output" and getattr(args, action.dest, None) == "":
            raise UsageError(f"{'/'.join(action.option_strings)} takes a value, not an empty one")


def main(argv=None) -> int:
    warnings.showwarning = lambda message, *a, **k: sys.stderr.write(f"rankmetrics: warning: {message}\n")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        _refuse_empty_values(parser, args)
        _inputs_and_output(args)
        return {"eval": cmd_eval, "macros": cmd_macros, "metrics": cmd_metrics, "compare": cmd_compare,
                "report": cmd_report, "sql": cmd_sql, "dbt": cmd_dbt, "fuse": cmd_fuse}[args.command](args)
    except RankMetricsError as e:
        sys.stderr.write(f"rankmetrics: error: {_one_line(str(e))}\n")
        return 2 if isinstance(e, UsageError) else 1
    except KeyboardInterrupt:
        sys.stderr.write("rankmetrics: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug or an engine error: still one line, never a traceback
        first = first_line(e)
        sys.stderr.write(f"rankmetrics: error: {type(e).__name__}: {_one_line(first)}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
