"""Fusion of runs (ranx's fuse): several runs made into one by sql/fuse.sql's macro, a GROUP BY over the runs
stacked; each run read and checked by the careful path (inputs.Reader), the fused run returned as a pyarrow
table or written as a TREC run (or Parquet)."""
from __future__ import annotations

import math
import os

from . import connections, paths, sqlsource
from .errors import InputError, UsageError
from .inputs import RUN, Reader, arrow_table

METHODS = ("combsum", "wsum", "combmnz", "rrf", "isr", "bordafuse")
NORMS = ("min-max", "max", "sum", "zmuv", "rank", "none")
# other spellings of the same methods and normalizations: ranx.fuse's method names (sum, mnz) and its modules'
# (comb_sum, comb_mnz)
_METHOD_NAMES = {"sum": "combsum", "mnz": "combmnz", "comb_sum": "combsum", "comb_mnz": "combmnz",
                 "weighted_sum": "wsum", "borda": "bordafuse", "borda_fuse": "bordafuse"}
_NORM_NAMES = {"min_max": "min-max", "minmax": "min-max", None: "none"}


def _choice(value, choices, names, what) -> str:
    value = names.get(value, value)
    if isinstance(value, str):
        value = names.get(value.lower(), value.lower())
    if value not in choices:
        hint = " (condorcet is not offered: ranx orders its candidates with a comparison that is not transitive, " \
               "so its order depends on the order candidates come in)" if value == "condorcet" else ""
        raise UsageError(f"unknown fusion {what} '{value}'; choose one of: {', '.join(choices)}{hint}")
    return value


def fuse(runs, method: str = "wsum", norm: str = "min-max", weights=None, rrf_k: float = 60, nan_scores="error"):
    """The runs fused into one, as ranx's fuse(runs, norm=..., method=...) computes it: a pyarrow table
    (query_id, item_id, score), each query's items by fused score, then item id descending.

    runs: two or more runs (file paths, tables, frames, as evaluate() takes them), each with a score column.
    method: combsum, wsum (weights, one per run: default 1 each), combmnz, rrf (rrf_k, default 60), isr,
    bordafuse. norm: min-max (ranx's default), max, sum, zmuv, rank or none, per run and query, first."""
    method = _choice(method, METHODS, _METHOD_NAMES, "method")
    norm = _choice(norm, NORMS, _NORM_NAMES, "normalization")
    if isinstance(runs, (str, bytes, os.PathLike)) or hasattr(runs, "columns") or hasattr(runs, "schema"):  # a
        #                                                                       path or a table: one run, not a list
        raise UsageError("runs: give a list of two or more runs (one path or table is one run)")
    try:
        runs = list(runs)
    except TypeError:
        raise UsageError(f"runs: give a list of two or more runs, not {runs!r}") from None
    if len(runs) < 2:
        raise UsageError(f"fusion needs two or more runs, got {len(runs)}")
    if weights is None:
        weights = [1.0] * len(runs)
    weights = list(weights)
    if len(weights) != len(runs):
        raise UsageError(f"{len(weights)} weights for {len(runs)} runs: give one weight per run")
    for w in weights:
        if not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w):
            raise UsageError(f"a weight must be a finite number, not {w!r}")
    if weights != [1.0] * len(runs) and method != "wsum":
        raise UsageError(f"weights apply to wsum only, not {method}")
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, (int, float)) or not (math.isfinite(rrf_k) and rrf_k >= 0):
        raise UsageError(f"rrf_k must be a number >= 0, not {rrf_k!r}")
    if rrf_k != 60 and method != "rrf":  # (its default) given to another method, it was ignored without a word
        raise UsageError(f"rrf_k applies to rrf only, not {method}")
    con = connections.private()
    reader = Reader(con, True, nan_scores)
    try:
        parts = []
        for i, (obj, w) in enumerate(zip(runs, weights), 1):
            run = reader.load(obj, RUN, drop_empty=True)  # a query mapped to no item: nothing to fuse
            if not run.has_score:
                raise InputError(f"{run.label}: fusion reads scores, and this run has ranks only")
            parts.append(f"SELECT {i} AS run_no, r.query_id, r.item_id, CAST(r.score AS DOUBLE) AS score, "
                         f"CAST({float(w)!r} AS DOUBLE) AS weight FROM {run.relation.sql(dialect='duckdb')} AS r")
        con.execute(sqlsource.script())
        con.execute("CREATE TEMP TABLE rm_fuse_runs AS " + " UNION ALL ".join(parts))
        lit = lambda v: sqlsource.literal(v).sql(dialect="duckdb")  # noqa: E731
        result = con.sql(
            f"SELECT f.query_id, f.item_id, f.score FROM fuse('rm_fuse_runs', method := {lit(method)}, "
            f"norm := {lit(norm)}, rrf_k := {lit(float(rrf_k))}) AS f "
            f"ORDER BY encode(f.query_id), f.score DESC, encode(f.item_id) DESC")
        table = arrow_table(result)
        _refuse_overflow(table, method, norm)
        return table
    finally:
        reader.close()
        con.close()


def _refuse_overflow(table, method: str, norm: str) -> None:
    """A fused score beyond a double's range (inf, or NaN from inf - inf: huge scores summed, or normalized by a
    sum or a spread that overflows) is refused, naming the item: written, it would be a run eval refuses, or a
    ranking by a number that is not the fusion's. No score at all (None: nan_scores='last') is fusion's own."""
    import pyarrow.compute as pc
    bad = pc.invert(pc.fill_null(pc.is_finite(table.column("score")), True))
    if pc.any(bad).as_py():
        row = table.filter(bad).slice(0, 1).to_pylist()[0]
        raise InputError(f"the fused score of item {row['item_id']} for query {row['query_id']} is {row['score']} "
                         f"(method {method}, norm {norm}): the scores overflow a double; normalize them (--norm, "
                         f"norm=) or scale them down")


def write(table, path: str, tag: str = "fused") -> None:
    """The fused run written to path atomically: Parquet by the extension .parquet, else TREC run text
    (`qid Q0 item rank score tag`, ranks from 1 in each query)."""
    text = None if os.path.splitext(path)[1].lower() == ".parquet" else trec_text(table, tag)

    def put(tmp):
        if os.path.splitext(path)[1].lower() == ".parquet":
            import pyarrow.parquet as pq
            pq.write_table(table, tmp)
            return
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
    paths.write_atomic(path, put)


def trec_text(table, tag: str = "fused") -> str:
    """The fused run as TREC run lines: `qid Q0 item rank score tag`, ranks from 1 in each query."""
    if any(c.isspace() for c in tag) or not tag:
        raise UsageError(f"the run tag must be one word, not {tag!r}")
    import pyarrow.compute as pc
    for what, column in (("query", "query_id"), ("item", "item_id")):  # a TREC line's fields are split at ASCII
        spaced = pc.match_substring_regex(table[column], "^$|[ \t\n\r\f\v]")  # white space: 'q 2 Q0 d3 ...'
        if pc.any(spaced).as_py():  # has 7 fields, an id 'd\n2' splits its line in two
            value = table[column].filter(spaced)[0].as_py()
            raise InputError(f"the {what} id {value!r} is empty or holds white space, which a TREC run line cannot "
                             f"hold: write the fused run as Parquet (-o FILE.parquet)")
    rows = table.to_pydict()
    lines, previous, rank = [], None, 0
    for q, item, score in zip(rows["query_id"], rows["item_id"], rows["score"]):
        rank = rank + 1 if q == previous else 1
        previous = q
        # no fused score (every run's score of the item NaN or missing, read with nan_scores='last'): nan, which
        # eval reads back with --nan-scores last, ranked last as it is here
        lines.append(f"{q} Q0 {item} {rank} {'nan' if score is None else repr(score)} {tag}\n")
    return "".join(lines)
