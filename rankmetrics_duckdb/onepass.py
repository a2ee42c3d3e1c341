"""Read, check and evaluate clean inputs in one DuckDB statement.

The careful path (inputs.Reader, then inputs.query_overlap, then the fused query) reads each input into a
temporary table, scans it to check it, scans both inputs again for their query ids, and only then evaluates:
on a 2M-row TREC run, copying and checking cost more than evaluating. Most inputs are clean, so this module
first tries the optimistic way: one statement reads the inputs where they lie (DuckDB's CSV and Parquet
readers, the Arrow or DataFrame object itself, the caller's table), computes every requested measure, and
returns with the measures one more row: the counts of every check of the careful path (empty input, missing
ids, non-finite values, duplicate items, rows outside the strict TREC form) and the query-id overlap.

Nothing computed that way is used unless every check count is 0 and the inputs share a query: otherwise (or if
DuckDB cannot read an input as expected) the statement's rows are dropped and the careful path runs from the
start, and its messages (the file, line, query, item or value at fault) are the ones the user sees. So this
path accepts exactly the inputs the careful path accepts without a warning, and gives the same numbers: the
fused query is the same text, over the same normalized columns.

Inputs it does not take (CSV/TSV with a header, gzip, TREC text that is not in the strict single-delimiter
form, numbers stored as text, nan_scores='last') go to the careful path directly.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import duckdb

from . import checks, inputs, measures, paths, plancache, textfiles
from .inputs import JUDGMENTS, RUN, map_columns, quoted, sql_string


@dataclass
class _Source:
    label: str
    select: str          # SELECT of the standard columns (text ids, DOUBLE numbers), maybe with rm_bad
    has_score: bool
    has_rank: bool
    strict: bool         # strict TREC text: ids vouched for by the reader, rm_bad marks rows outside the form
    bad_row: str = ""    # strict TREC text: the test of a row t outside the strict form
    rescan: bool = False  # cheaper to scan again for each use than to keep a copy (Parquet, Arrow, tables)
    registered: str | None = None
    path: str | None = None  # a file, named in select by the parameter $rm_<kind>_path (no quoting, no sqlglot)
    kind: str = RUN


class _NotHere(Exception):
    """This input is not for the one-statement path (the careful path takes it)."""


def _source(reader: inputs.Reader, obj, kind: str) -> _Source:
    if isinstance(obj, (str, os.PathLike)):
        path = os.fspath(obj)
        if os.path.isfile(path):
            return _file(reader, path, kind)
        if not reader.private and reader.is_table(path):
            table = inputs.table_name(path).sql(dialect="duckdb")
            src = _typed(reader, table, kind, f"table {path}", floats=True)
            src.rescan = True
            return src
        raise _NotHere()
    label = None
    if isinstance(obj, duckdb.DuckDBPyRelation):  # as the careful path: its rows, once, as an Arrow table
        obj = obj.to_arrow_table() if hasattr(obj, "to_arrow_table") else obj.arrow()
        if hasattr(obj, "read_all"):
            obj = obj.read_all()
        label = "DuckDB relation"
    module = type(obj).__module__.split(".")[0]
    if module in ("pandas", "polars", "pyarrow"):
        name = reader.register(obj, kind)
        try:
            src = _typed(reader, quoted(name), kind, label or f"{module} {type(obj).__name__}", floats=True)
            src.rescan = module == "pyarrow"  # pandas and polars are converted on each scan: keep one copy
        except BaseException:
            reader.unregister(name)
            raise
        src.registered = name
        return src
    raise _NotHere()


def _param(kind: str) -> str:
    return f"rm_{kind}_path"


def _typed(reader, from_sql: str, kind: str, label: str, floats: bool, path: str | None = None) -> _Source:
    """A typed relation (table, frame, Parquet): the standard columns, numbers already of a number type."""
    params = {_param(kind): paths.literal(path)} if path else None
    described = reader.con.execute(f"DESCRIBE SELECT * FROM {from_sql}", params).fetchall()
    types = {row[0]: str(row[1]).upper().split("(")[0] for row in described}
    try:
        cols = map_columns(list(types), kind, label)
    except inputs.InputError:
        raise _NotHere() from None
    numeric = ["relevance"] if kind == JUDGMENTS else [c for c in ("score", "rank") if c in cols]
    if any(not checks.is_number_type(types[cols[c]], floats) for c in numeric):
        raise _NotHere()
    exprs = [f"CAST({quoted(cols[c])} AS VARCHAR) AS {c}" for c in ("query_id", "item_id")]
    exprs += [f"CAST({quoted(cols[c])} AS DOUBLE) AS {c}" for c in numeric]
    return _Source(label, f"SELECT {', '.join(exprs)} FROM {from_sql}", "score" in cols or kind == JUDGMENTS,
                   "rank" in cols, strict=False, path=path, kind=kind)


def _file(reader, path: str, kind: str) -> _Source:
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head == b"PAR1" or path.lower().endswith(".parquet"):
        if head != b"PAR1":
            raise _NotHere()
        # the careful path converts FLOAT columns of Parquet through their text (checks.is_number_type)
        src = _typed(reader, f"read_parquet(${_param(kind)})", kind, path, floats=False, path=path)
        src.rescan = True
        return src
    delim = textfiles.strict_delimiter(path)
    if delim is None:
        raise _NotHere()
    want = 4 if kind == JUDGMENTS else 6
    _, lines = textfiles.peek(path, 5)
    content = [ln for ln in lines if not ln.lstrip().startswith("#")]
    if not content or len(content[0].split(delim)) != want or len(lines) != len(content):
        raise _NotHere()  # a header, a comment, another column count: the careful path decides
    select, bad_row = textfiles.strict_trec_select(f"${_param(kind)}", delim, kind)
    return _Source(path, select, True, kind == RUN, strict=True, bad_row=bad_row, path=path, kind=kind)


def _checks(src: _Source, kind: str) -> list[str]:
    """The careful path's checks of this input (checks.check_sql, and _trec_strict's form) as counts over rows t."""
    out = [c.count for c in checks.check_sql(kind, src.has_score or kind == JUDGMENTS, src.has_rank, src.strict,
                                             typed=True)]
    if src.strict:
        out.append(f"sum(CASE WHEN {src.bad_row} THEN 1 ELSE 0 END)")
    return out


def _top_n(reader, specs, conv, r: _Source) -> bool:
    """measures.top_n_pays for this run: its first query's length (TREC text) or its mean list length."""
    need = measures.top_n_need(specs, conv)
    if need is None:
        return False
    if r.strict:
        length = textfiles.first_list_length(r.path, need)
    else:
        length = inputs.mean_list_length(reader.con, f"({r.select})",
                                         {_param(r.kind): paths.literal(r.path)} if r.path else None)
    return measures.top_n_pays(specs, conv, length)


@dataclass
class Result:
    """What the one statement gives: the two inputs (as inputs.Loaded), the query-id overlap summary, and the
    rows (measure, query_id, value) of the fused query."""
    judgments: inputs.Loaded
    run: inputs.Loaded
    summary: dict
    rows: list
    presorted: bool = False  # the run was ranked in its input order (no sort; sqlgen.plan's presorted)


def accepts(reader: inputs.Reader, conv: dict, judgments, run, shaped: bool = False) -> tuple[_Source, _Source] | None:
    """The one decision whether the one-statement path takes these inputs: their sources (judgments, run), or
    None when the careful path must (its messages and rewrites are needed). Not with nan_scores='last' (scores
    rewritten), a warehouse shape (shaped: other column names, groups, lists, read by warehouse.py), an input
    _source does not read as the careful path would, or ties='input' without a rank column. Inputs it registered
    on the connection are unregistered when it declines."""
    if reader.nan_scores != "error" or shaped:
        return None
    sources = []
    try:
        for obj, kind in ((judgments, JUDGMENTS), (run, RUN)):
            sources.append(_source(reader, obj, kind))
    except (_NotHere, OSError, duckdb.Error):
        _drop(reader, sources)
        return None
    if conv["ties"] == "input" and not sources[1].has_rank:
        _drop(reader, sources)
        return None
    return sources[0], sources[1]


def evaluate(reader: inputs.Reader, specs, conv: dict, judgments, run, shaped: bool = False) -> Result | None:
    """Read, check and evaluate the measures specs under conventions conv over judgments and run (file paths,
    tables, frames, relations) on reader's connection in one statement; None: the careful path decides (accepts
    declined, or the statement's check counts found something)."""
    taken = accepts(reader, conv, judgments, run, shaped)
    if taken is None:
        return None
    sources = list(taken)
    j, r = taken
    params = {_param(s.kind): paths.literal(s.path) for s in sources if s.path} or None
    try:  # a run already in rank order is ranked without a sort (sqlgen's presorted; a first look decides), on
        # our own connection only: on the caller's, the query failing for a row out of order would abort their
        # transaction
        presorted = reader.private and plancache.presorted(reader.con, specs, conv, r.has_score, r.has_rank, f"({r.select})",
                                        {_param(r.kind): paths.literal(r.path)} if r.path else None)
    except duckdb.Error:
        presorted = False
    top_n = _top_n(reader, specs, conv, r) if not presorted else False
    try:
        out = reader.con.execute(_statement(specs, conv, j, r, top_n, presorted), params).fetchall()
    except duckdb.Error as e:
        out = None
        if presorted and checks.PRESORTED_FAULT in str(e):  # not in rank order after all: rank with the sort
            presorted = False
            try:
                out = reader.con.execute(_statement(specs, conv, j, r, _top_n(reader, specs, conv, r), False),
                                         params).fetchall()
            except duckdb.Error:
                out = None
        if out is None:
            _drop(reader, sources)
            return None
    counts = next((row[3] for row in out if row[0] is None), None)
    n = len(_checks(j, JUDGMENTS)) + len(_checks(r, RUN))
    if counts is None or any(counts[:n]) or counts[n + 2] == 0:
        _drop(reader, sources)
        return None
    run_queries, judged_queries, common = counts[n:]
    summary = {"run_queries": run_queries, "judged_queries": judged_queries, "common_queries": common,
               "judged_not_in_run": judged_queries - common, "run_not_judged": run_queries - common}
    loaded = [inputs.Loaded(src.label, None, src.has_score, src.has_rank, ids_checked=src.strict,
                            build=lambda src=src: _relation(src)) for src in sources]
    rows = [row[:3] for row in out if row[0] is not None]
    return Result(loaded[0], loaded[1], summary, rows, presorted)


def _statement(specs, conv: dict, j: _Source, r: _Source, top_n: bool, presorted: bool) -> str:
    """The one statement: the fused query over the two sources, and one more row with every check's count and
    the query-id overlap (see evaluate)."""
    ctes, final = plancache.duckdb_parts(specs, conv, r.has_score, r.has_rank, "rm_src_run", "rm_src_judgments",
                                         top_n, presorted=presorted)
    counts_sql = ([f"CAST({c} AS BIGINT)" for c in _checks(j, JUDGMENTS)],
                  [f"CAST({c} AS BIGINT)" for c in _checks(r, RUN)])
    hint = lambda src: "NOT MATERIALIZED " if src.rescan else ""  # noqa: E731
    return (f"WITH rm_src_run AS {hint(r)}({r.select}), rm_src_judgments AS {hint(j)}({j.select}), "
            f"rm_run_queries AS (SELECT DISTINCT t.query_id AS q FROM rm_src_run AS t), "
            f"rm_judged_queries AS (SELECT DISTINCT t.query_id AS q FROM rm_src_judgments AS t), {ctes} "
            f"SELECT f.measure, f.query_id, f.value, CAST(NULL AS BIGINT[]) AS rm_checks FROM ({final}) AS f "
            f"UNION ALL SELECT NULL, NULL, NULL, ["
            + ", ".join(counts_sql[0]) + "] || (SELECT [" + ", ".join(counts_sql[1]) + "] FROM rm_src_run AS t) || ["
            + ", ".join(checks.overlap_counts("rm_run_queries", "rm_judged_queries")) + "] "
            "FROM rm_src_judgments AS t")


def _relation(src: _Source):
    """The input's relation, a sqlglot subquery of the standard columns (for Evaluation.sql, .plan and other
    dialects), built on first use (inputs.Loaded's build): the command line needs none."""
    import sqlglot
    text = src.select
    if src.path:
        text = text.replace(f"${_param(src.kind)}", sql_string(paths.literal(src.path)))
    select = sqlglot.parse_one(text, dialect="duckdb")
    if src.strict:  # rm_bad was for the check only
        select.set("expressions", [e for e in select.expressions if e.alias_or_name != "rm_bad"])
    return sqlglot.exp.Subquery(this=select)


def _drop(reader, sources):
    for src in sources:
        if src.registered:
            reader.unregister(src.registered)
