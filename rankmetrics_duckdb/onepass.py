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

Inputs it does not take (CSV/TSV with a header, TREC text (plain or gzip) that is not in the strict single-delimiter
form, numbers stored as text, nan_scores='last') go to the careful path directly.

A run too large for the connection's memory limit (_parts), when it is cheap to read again (Parquet, Arrow, a
table), is evaluated in parts instead (_in_parts): the check row first, over the whole inputs, then one
statement per part of the queries, then the final SELECT over every part's per-query values: the same rows.
A run in rank order is so too, each part numbered as it comes and its numbered rows kept (in one statement they
did not fit, and everything after the streaming numbering ran on one thread).
"""
from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass


from . import checks, connections, inputs, measures, paths, plancache, textfiles
from .engine import duckdb
from .errors import first_line
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
    rows: int | None = None  # its row count when known without a scan (an Arrow table, a DataFrame), or once
    #                          counted (_parts_needed: Parquet's from its metadata, counted once for _parts and keep)
    path: str | None = None  # a file, named in select by the parameter $rm_<kind>_path (no quoting, no sqlglot)
    kind: str = RUN
    groups: tuple = ()       # group columns kept beside the standard ones (a warehouse view's: inputs.View)
    group_rows: str | None = None  # where the run's groups are read, when not from select (inputs.View)
    empty_lists: str | None = None  # a run of lists: its rows whose list is empty (inputs.View.empty_lists)
    head_select: str | None = None  # select for a first look at the head only (strict TREC text: a small buffer)


class _NotHere(Exception):
    """This input is not for the one-statement path (the careful path takes it)."""


def _source(reader: inputs.Reader, obj, kind: str) -> _Source:
    if isinstance(obj, inputs.View):  # a warehouse shape, as the standard one (warehouse.view): read as a table
        src = _typed(reader, quoted(obj.name), kind, obj.label, floats=True, groups=obj.groups)
        src.rescan = obj.rescan
        src.group_rows = obj.group_rows and quoted(obj.group_rows)
        src.empty_lists = obj.empty_lists and quoted(obj.empty_lists)
        return src
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
        obj = inputs.arrow_table(obj)
        label = "DuckDB relation"
    module = type(obj).__module__.split(".")[0]
    if module in ("pandas", "polars", "pyarrow"):
        name = reader.register(obj, kind, label)
        try:
            src = _typed(reader, quoted(name), kind, label or inputs.frame_label(obj), floats=True)
            src.rescan = module == "pyarrow"  # pandas and polars are converted on each scan: keep one copy
            src.rows = obj.num_rows if src.rescan else len(obj)
        except BaseException:
            reader.unregister(name)
            raise
        src.registered = name
        return src
    raise _NotHere()


def _param(kind: str) -> str:
    return f"rm_{kind}_path"


def _params(*sources: _Source) -> dict | None:
    """The parameters naming the files of sources in their select (none: None)."""
    return {_param(s.kind): paths.literal(s.path) for s in sources if s.path} or None


def _typed(reader, from_sql: str, kind: str, label: str, floats: bool, path: str | None = None,
           groups: tuple = ()) -> _Source:
    """A typed relation (table, frame, Parquet): the standard columns, numbers already of a number type, and the
    group columns as they are."""
    params = {_param(kind): paths.literal(path)} if path else None
    described = reader.con.execute(f"DESCRIBE SELECT * FROM {from_sql}", params).fetchall()
    types = {row[0]: str(row[1]).upper().split("(")[0] for row in described}
    try:
        cols = map_columns(list(types), kind, label)
    except inputs.InputError:
        raise _NotHere() from None
    numeric = ["relevance"] if kind == JUDGMENTS else [c for c in ("score", "rank") if c in cols]
    if any(not checks.is_number_type(types[cols[c]], floats) for c in numeric) or any(
            checks.id_column_fault(c, types[cols[c]]) for c in ("query_id", "item_id")):
        raise _NotHere()  # the careful path reads them, or names what it refuses
    exprs = [f"CAST({quoted(cols[c])} AS VARCHAR) AS {c}" for c in ("query_id", "item_id")]
    exprs += [f"CAST({quoted(cols[c])} AS DOUBLE) AS {c}" for c in numeric]
    exprs += [quoted(g) for g in groups]
    return _Source(label, f"SELECT {', '.join(exprs)} FROM {from_sql}", "score" in cols or kind == JUDGMENTS,
                   "rank" in cols, strict=False, path=path, kind=kind, groups=tuple(groups))


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
    form = textfiles.strict_form(path)
    if form is None:
        raise _NotHere()
    delim = form[0]
    want = 4 if kind == JUDGMENTS else 6
    _, lines = textfiles.peek(path, 5)
    content = [ln for ln in lines if not ln.lstrip().startswith("#")]
    if not content or len(content[0].split(delim)) != want or len(lines) != len(content):
        raise _NotHere()  # a header, a comment, another column count: the careful path decides
    select, bad_row = textfiles.strict_trec_select(f"${_param(kind)}", form, kind, rank=reader.trec_rank)
    head, _ = textfiles.strict_trec_select(f"${_param(kind)}", form, kind, rank=reader.trec_rank,
                                           buffer_size=textfiles.HEAD_BUFFER)
    return _Source(path, select, True, kind == RUN and reader.trec_rank, strict=True, bad_row=bad_row, path=path,
                   kind=kind, head_select=head)


# _sources_sql's CTE of a run of lists' rows whose list is empty (_Source.empty_lists), read once: its view reads
# every list to find the empty ones, and the statement reads those rows three times (the run's queries, the
# check of an empty run, the stream's 'Q' rows): 3.1 s against 2.9 s for the benchmark's 10k lists of 1,000
# items (issue 19, round 17)
EMPTY_SOURCE = "rm_src_empty"


def _empty_rows(src: _Source) -> str | None:
    """Where the statement reads a run of lists' rows whose list is empty (EMPTY_SOURCE), None for another input."""
    return EMPTY_SOURCE if src.kind == RUN and src.empty_lists else None


def _checks(src: _Source, kind: str) -> list[str]:
    """The careful path's checks of this input (checks.check_sql, and _trec_strict's form) as counts over rows t."""
    rows = "rm_src_judgments" if kind == JUDGMENTS else "rm_src_run"  # _sources_sql's CTEs
    out = [c.count for c in checks.check_sql(kind, rows, src.has_score or kind == JUDGMENTS, src.has_rank, src.strict,
                                             typed=True, groups=tuple(quoted(g) for g in src.groups),
                                             empty_lists=_empty_rows(src))]
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
        length = inputs.mean_list_length(reader.con, f"({r.select})", _params(r))
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
    parts: int = 1           # the statements the evaluation took, one per part of the queries (_parts)


def accepts(reader: inputs.Reader, conv: dict, judgments, run) -> tuple[_Source, _Source] | None:
    """The one decision whether the one-statement path takes these inputs: their sources (judgments, run), or
    None when the careful path must (its messages and rewrites are needed). Not with nan_scores='last' (scores
    rewritten), an input _source does not read as the careful path would, or ties='input' without a rank column.
    A warehouse shape (other column names, groups, lists) comes as the views of warehouse.view (inputs.View).
    Inputs it registered on the connection are unregistered when it declines."""
    if reader.nan_scores != "error":
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


def evaluate(reader: inputs.Reader, specs, conv: dict, judgments, run) -> Result | None:
    """Read, check and evaluate the measures specs under conventions conv over judgments and run (file paths,
    tables, frames, relations, warehouse views: inputs.View) on reader's connection in one statement (or in
    parts: _parts); None: the careful path decides (accepts declined, or the statement's check counts found
    something). With groups (a run's View.groups), rows are (measure, group values..., query_id, value)."""
    taken = accepts(reader, conv, judgments, run)
    if taken is None:
        return None
    sources = list(taken)
    j, r = taken
    params = _params(*sources)
    try:  # a run already in rank order is ranked without a sort (sqlgen's presorted; a first look decides), on
        # our own connection only: on the caller's, the query failing for a row out of order would abort their
        # transaction
        presorted = reader.private and plancache.presorted(reader.con, specs, conv, r.has_score, r.has_rank,
                                                           f"({r.head_select or r.select})", _params(r), by=r.groups)
    except duckdb.Error:
        presorted = False

    def attempt(presorted: bool) -> tuple[list, int]:  # the rows (and the check row), and the parts they took
        # a run in rank order is numbered as it comes; otherwise sorted (its top K only, where that pays: top_n).
        # Either way, a run too large for the memory limit and cheap to read again is evaluated in parts (ranges
        # of plain query ids)
        top_n = not presorted and _top_n(reader, specs, conv, r)
        parts = 1 if r.groups else _parts(reader, specs, conv, r, top_n)
        if parts > 1:
            return _in_parts(reader, specs, conv, j, r, top_n, parts, params, presorted)
        # in one statement, the numbered rows are kept (sqlgen.plan's keep_ranking) when they fit the memory limit
        # (a run whose row count is known or cheap to count: not a text file, read once)
        keep = presorted and (r.rescan or r.rows is not None) and _parts_needed(reader, r) == 1
        return reader.con.execute(_statement(specs, conv, j, r, top_n, presorted, keep), params).fetchall(), 1
    try:
        out, parts = attempt(presorted)
    except duckdb.Error as e:
        out = None
        if presorted and checks.PRESORTED_FAULT in str(e):  # not in rank order after all: rank with the sort
            presorted = False
            try:
                out, parts = attempt(False)
            except duckdb.Error:
                out = None
        if out is None:
            if not reader.private:
                _usable(reader.con, e)
            _drop(reader, sources)
            return None
    counts = next((row[-1] for row in out if row[0] is None), None)
    if not _clean(counts, j, r):
        _drop(reader, sources)
        return None
    run_queries, judged_queries, common = counts[-3:]
    summary = {"run_queries": run_queries, "judged_queries": judged_queries, "common_queries": common,
               "judged_not_in_run": judged_queries - common, "run_not_judged": run_queries - common}
    loaded = [inputs.Loaded(src.label, None, src.has_score, src.has_rank, ids_checked=src.strict, groups=src.groups,
                            build=lambda src=src: _relation(src), group_rows=src.group_rows,
                            empty_lists=src.empty_lists) for src in sources]
    rows = [row[:-1] for row in out if row[0] is not None]
    return Result(loaded[0], loaded[1], summary, rows, presorted, parts)


def _usable(con, error: duckdb.Error) -> None:
    """After the statement failed on a caller's connection: when it failed inside the caller's open transaction,
    DuckDB has aborted that transaction and runs nothing more on it, so the careful path cannot look; the error
    is then an input error naming DuckDB's cause (a view whose cast fails, say), not the abort's."""
    try:
        con.execute("SELECT 1").fetchall()
    except duckdb.TransactionException:
        cause = first_line(error)
        raise inputs.InputError(f"cannot evaluate the inputs: {cause} (inside the connection's open transaction, "
                                f"which DuckDB has aborted: ROLLBACK)") from None


def _sources_sql(j: _Source, r: _Source, part: tuple[str | None, str | None] | None = None) -> str:
    """The two inputs as the CTEs rm_src_run and rm_src_judgments, and their query ids as rm_run_queries (with
    each one's run rows, n) and rm_judged_queries; part (low, high): only the queries whose id is at least low and
    less than high (None: no bound), a range of _part_bounds (_in_parts). The bounds are literals, not
    parameters: DuckDB filters a Parquet or Arrow scan by a comparison with a constant only."""
    within = [f"rm_part.query_id {op} {sql_string(bound)}"
              for op, bound in zip((">=", "<"), part or ()) if bound is not None]
    keys = checks.overlap_keys(j.groups, quoted)  # a query is one of a group when the judgments have groups

    def cte(src):
        hint = "NOT MATERIALIZED " if src.rescan else ""
        select = src.select
        if within:
            select = f"SELECT * FROM ({select}) AS rm_part WHERE {' AND '.join(within)}"
        return f"{hint}({select})"
    run_rows, empty = "rm_src_run AS t", ""
    if r.empty_lists:  # a run of lists: its queries whose list is empty are the run's too (no part bounds: one part)
        columns = ", ".join(["t.query_id"] + [f"t.{quoted(g)}" for g in r.groups])
        run_rows = (f"(SELECT {columns} FROM rm_src_run AS t UNION ALL SELECT {columns} FROM {EMPTY_SOURCE} AS t) "
                    f"AS t")
        empty = f"{EMPTY_SOURCE} AS MATERIALIZED (SELECT * FROM {r.empty_lists}), "
    return (f"rm_src_run AS {cte(r)}, rm_src_judgments AS {cte(j)}, {empty}"
            f"rm_run_queries AS (SELECT {', '.join(['t.query_id AS q'] + keys)}, count(*) AS n FROM {run_rows} "
            f"GROUP BY ALL), "
            f"rm_judged_queries AS (SELECT DISTINCT {', '.join(['t.query_id AS q'] + keys)} FROM rm_src_judgments AS t)")


def _clean(counts, j: _Source, r: _Source) -> bool:
    """Whether the check row's counts (_check_row) let the one statement's numbers stand: no check found anything
    and the inputs share a query."""
    n = len(_checks(j, JUDGMENTS)) + len(_checks(r, RUN))
    return counts is not None and len(counts) == n + 3 and not any(counts[:n]) and counts[n + 2] > 0


def _check_row(j: _Source, r: _Source) -> str:
    """The SELECT of the one row of counts (every check of both inputs, then the query-id overlap), over the CTEs
    of _sources_sql."""
    counts = ([f"CAST({c} AS BIGINT)" for c in _checks(j, JUDGMENTS)], [f"CAST({c} AS BIGINT)" for c in _checks(r, RUN)])
    return ("SELECT [" + ", ".join(counts[0]) + "] || (SELECT [" + ", ".join(counts[1]) + "] FROM rm_src_run AS t) || ["
            + ", ".join(checks.overlap_counts("rm_run_queries", "rm_judged_queries", len(j.groups)))
            + "] FROM rm_src_judgments AS t")


def _statement(specs, conv: dict, j: _Source, r: _Source, top_n: bool, presorted: bool,
               keep_ranking: bool = False) -> str:
    """The one statement: the fused query over the two sources, and one more row with every check's count and
    the query-id overlap (see evaluate)."""
    ctes, final = plancache.duckdb_parts(specs, conv, r.has_score, r.has_rank, "rm_src_run", "rm_src_judgments",
                                         top_n, by=r.groups, judged_by=j.groups, presorted=presorted,
                                         keep_ranking=keep_ranking, groups_sql=r.group_rows,
                                         empty_sql=_empty_rows(r))
    blanks = "NULL, " * (3 + len(r.groups))  # measure, the group columns, query_id, value
    return (f"WITH {_sources_sql(j, r)}, {ctes} "
            f"SELECT f.*, CAST(NULL AS BIGINT[]) AS rm_checks FROM ({final}) AS f "
            f"UNION ALL SELECT {blanks}rm_c.* FROM ({_check_row(j, r)}) AS rm_c")


# A run too large for the memory limit is evaluated in parts, each a set of whole queries (a range of their ids:
# _part_bounds), one statement each: the fused query's peak memory is about ROW_BYTES a run row (measured:
# 2.4 GB for the 25M rows of a quarter of the benchmark's 100M-row run, ids up to 7 characters), and a part is
# sized to take at most PART_SHARE of the limit. In one statement the ranking's window spills, and whether the
# join's hash table still fits beside it decides between two runs of very different length (the benchmark's 100M
# rows under 4 GB: 44 s or 62 s); in parts nothing spills. Each part reads the run again: only for inputs that are
# cheap to scan again (Parquet, Arrow, tables: _Source.rescan).
ROW_BYTES = 100
PART_SHARE = 0.85
MAX_PARTS = 16  # beyond that, reading the run again for each part costs more than the spilling it saves
INLINE_ID = 12  # DuckDB keeps a string of up to 12 bytes inside its 16-byte value; a longer one costs its length
LONG_ID = 64    # an id length taken as long enough to be sure a run fits without looking at its ids


def _memory_limit(con) -> float | None:
    """The connection's memory limit in bytes (DuckDB shows it rounded, e.g. '3.7 GiB')."""
    text = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    units = {"bytes": 1, "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40, "pib": 2 ** 50,
             "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "pb": 1e15}
    number, _, unit = str(text).strip().partition(" ")
    try:
        return float(number) * units[unit.strip().lower()]
    except (ValueError, KeyError):
        return None


def _parts_needed(reader, r: _Source) -> int:
    """How many shares of PART_SHARE of the memory limit the run's rows need, at ROW_BYTES each (and the bytes of
    ids longer than DuckDB keeps inline, from its first rows): 1 when they fit (or the limit is unknown). For a
    run whose row count is known (_Source.rows) or cheap to count (_Source.rescan: Parquet's from its metadata)."""
    limit = _memory_limit(reader.con)
    if r.rows is None:
        r.rows = reader.con.execute(f"SELECT count(*) FROM ({r.select})", _params(r)).fetchall()[0][0]
    rows = r.rows
    if not limit or rows * (ROW_BYTES + 2 * LONG_ID) <= PART_SHARE * limit:
        return 1  # fits even with long ids: no need to look at them
    q_len, i_len = reader.con.execute(f"SELECT avg(strlen(t.query_id)), avg(strlen(t.item_id)) FROM "
                                      f"(SELECT * FROM ({r.select}) LIMIT 10000) AS t", _params(r)).fetchall()[0]
    row_bytes = ROW_BYTES + sum(length for length in (q_len or 0, i_len or 0) if length > INLINE_ID)
    return max(1, math.ceil(rows * row_bytes / (PART_SHARE * limit)))


def _parts(reader, specs, conv: dict, r: _Source, top_n: bool) -> int:
    """How many parts (_in_parts) the run's evaluation takes: 1 unless the run is cheap to scan again and its rows
    need more than PART_SHARE of the memory limit (_parts_needed; at most MAX_PARTS); 1 too when the fused
    query's final SELECT reads more than the per-query values (a measure over the whole catalog)."""
    if not r.rescan or r.empty_lists:  # (a view of lists is unnested on each scan: not rescan)
        return 1
    parts = min(MAX_PARTS, _parts_needed(reader, r))
    if parts <= 1 or not _final_reads_values(specs, conv, r, top_n):
        return 1
    return parts


def _final_reads_values(specs, conv, r: _Source, top_n: bool) -> bool:
    """Whether the fused query's final SELECT reads nothing but measure_values (the per-query values): then the
    values of several parts, put together, give its rows."""
    import sqlglot
    _, final = plancache.duckdb_parts(specs, conv, r.has_score, r.has_rank, "rm_src_run", "rm_src_judgments", top_n)
    names = {t.name for t in sqlglot.parse_one(final, dialect="duckdb").find_all(sqlglot.exp.Table)}
    return names == {"measure_values"}


def _part_bounds(parts: int) -> str:
    """The SELECT (over _sources_sql's CTEs) of the least query id of each of about `parts` ranges of the run's
    query ids, in order, each range holding about as many run rows (whole queries: ranges of ids, not a hash of
    them, which DuckDB reads as a filter inside the Parquet or Arrow scan; a hash of every row's id cost 2.3 s of
    each third of a 100M-row run). Fewer when a few queries hold most rows. Ids compare as the joins compare them
    (the connection's collation), so each query id falls in one range, its judgments' with it."""
    return ("SELECT list(b.low ORDER BY b.low) FROM (SELECT min(w.q) AS low FROM (SELECT r.q, coalesce(sum(r.n) OVER "
            "(ORDER BY r.q ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before, sum(r.n) OVER () AS total "
            f"FROM rm_run_queries AS r) AS w GROUP BY least(CAST(floor(w.before * {parts} / w.total) AS BIGINT), "
            f"{parts - 1})) AS b")


# DuckDB's optimizer (2.0) splits a window over many rows into windows over two ranges of the partition key, each
# reading the input again; a part is a range of query ids already, and the second read (of a whole Parquet run,
# kept rows or none) cost 0.4-0.9 s of each third of the benchmark's 100M-row run. Turned off for the parts'
# statements, on rankmetrics' own connection only (a caller's settings are theirs).
_WINDOW_SPLIT = "partitioned_execution"


@contextlib.contextmanager
def _unsplit_windows(reader):
    """The parts' statements run with _WINDOW_SPLIT off (on a private connection whose DuckDB has it)."""
    con = reader.con
    if not reader.private or not con.execute("SELECT count(*) FROM duckdb_optimizers() WHERE name = ?",
                                             [_WINDOW_SPLIT]).fetchall()[0][0]:
        yield
        return
    with connections.GLOBAL_SETTINGS:  # a global setting: other cursors of the database see it
        before = con.execute("SELECT current_setting('disabled_optimizers')").fetchall()[0][0]
        con.execute(f"SET disabled_optimizers = {sql_string(','.join(filter(None, [before, _WINDOW_SPLIT])))}")
        try:
            yield
        finally:
            con.execute(f"SET disabled_optimizers = {sql_string(before)}")


def _in_parts(reader, specs, conv: dict, j: _Source, r: _Source, top_n: bool, parts: int, params,
              presorted: bool = False) -> tuple[list, int]:
    """The one statement's rows, computed as: the check row over the whole inputs, with the ranges of query ids
    of about `parts` parts (one statement); then, if every check passed, the per-query values (measure_values) of
    each part (one statement each: a query's run rows and judgments are in the same part, so every per-query
    value is as in one statement); then the fused query's final SELECT over all of them (the rows of every query
    and the means, the same SQL over the same values: the same numbers, bit for bit). Also the parts it took."""
    import pyarrow as pa
    counts, lows = reader.con.execute(f"WITH {_sources_sql(j, r)} SELECT ({_check_row(j, r)}), "
                                      f"({_part_bounds(parts)})", params).fetchall()[0]
    out = [(None, None, None, counts)]
    if not _clean(counts, j, r):
        return out, 1  # evaluate sends these inputs to the careful path
    ctes, final = plancache.duckdb_parts(specs, conv, r.has_score, r.has_rank, "rm_src_run", "rm_src_judgments", top_n,
                                         presorted=presorted, keep_ranking=presorted)
    values = []
    inner = list(lows or [])[1:]  # the bounds between parts: the first part has no lower one, the last no upper
    with _unsplit_windows(reader):
        for low, high in zip([None] + inner, inner + [None]):
            rel = reader.con.sql(f"WITH {_sources_sql(j, r, (low, high))}, {ctes} SELECT "
                                 f"v.measure_no, v.measure, v.summed, v.query_id, v.value FROM measure_values AS v",
                                 params=params)
            values.append(inputs.arrow_table(rel))
    con = connections.private()  # not the caller's connection: the values are ours
    try:
        con.register("rm_part_values", pa.concat_tables(values))
        out += [(*row, None) for row in con.execute(
            f"WITH measure_values AS (SELECT * FROM rm_part_values) {final}").fetchall()]
    finally:
        con.close()
    return out, len(values)


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
