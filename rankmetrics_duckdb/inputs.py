"""Reading runs and judgments: files (TREC, CSV/TSV with a header, Parquet, gzip of the text forms), DataFrames,
Arrow tables, DuckDB relations and table names, into one shape, checked so that bad input gets one clear line.

Every input ends as a relation with the standard columns: a run has query_id, item_id, score and/or rank; the
judgments have query_id, item_id, relevance. Files are read by DuckDB's own readers; nothing here loops over
rows in Python. The caller's files and tables are only read.
"""
from __future__ import annotations

import itertools
import json
import numbers
import os
import re
import warnings
from dataclasses import dataclass
from typing import Callable


from . import checks, connections, paths
from .checks import ASCII_SPACES, group_sql, JUDGMENTS, RUN, check_sql, is_number_type, non_finite_test, number_column_fault, overlap_counts, overlap_keys, text_number  # noqa: F401
from ._lazy import LazyModule
from .engine import duckdb
from .errors import InputError, UsageError, first_line
from .shape import ALIASES, SIDE_PARAMS
from .textfiles import (NUMBER, compression, csv_quote_fault, csv_shape_fault, first_line_number, header_delimiter, is_special_file, is_stream, is_trec_line, line_of, odd_spaces, peek, read_fault, refuse_binary, split_fields, strict_form, strict_trec_select,
                        VERTICAL_TAB, vertical_tab_fault)

exp = LazyModule("sqlglot.expressions")  # sqlglot, imported on first use (_lazy.py)


# What to do with NaN, infinite or missing scores: refuse them (default), or rank those items after every finite
# score, tied with each other (and so ordered by the tie rule of the convention).
NAN_SCORES = ("error", "last")

_COUNTER = itertools.count(1)


def check_rank_positions(con, run: "Loaded", what: str = "") -> None:
    """Under a preset whose library reads rank values as positions (conventions.RANK_VALUES: RecTools), an input
    error naming the first query whose ranks are not 1..n (tied, missing one, not from 1, or not whole): there the
    library's numbers and ours differ (RecTools' CatalogCoverage@1 counts two items tied at rank 1; its
    Intersection reads the reference run's ranks so too). Ranks given as text are read as numbers, as the ranking
    reads them. what: how the message names the run before its label ('the reference run: ')."""
    if not run.has_rank:
        return
    keys = ", ".join([*(f"t.{quoted(g)}" for g in run.groups), "CAST(t.query_id AS VARCHAR)"])
    rank = "CAST(t.rank AS DOUBLE)"
    row = run_sql(con, f"SELECT CAST(t.query_id AS VARCHAR), min({rank}), max({rank}), count(*), "
                       f"count(DISTINCT {rank}) FROM {run.relation.sql(dialect='duckdb')} AS t WHERE t.rank IS NOT NULL "
                       f"GROUP BY {keys} HAVING min({rank}) <> 1 OR max({rank}) <> count(*) OR count(DISTINCT {rank}) "
                       f"<> count(*) OR bool_or({rank} <> trunc({rank})) ORDER BY 1 LIMIT 1").fetchone()
    if row:
        q, low, high, n, distinct = row
        raise InputError(f"{what}{run.label}: query {q}: ranks {low:g} to {high:g} over {n} items ({distinct} distinct): "
                         f"RecTools reads rank values as positions (an item is in the top k when its rank is at "
                         f"most k), rankmetrics ranks a query's items 1, 2, ... in rank order, and the two agree "
                         f"only for ranks 1..n; give each query's ranks as 1..n")


class Loaded:
    """An input ready for evaluation: a SQL relation on `con` with the standard column names. The one record of
    a loaded input, whichever path loaded it (the careful path here, the one-statement path in onepass.py, the
    warehouse step); build: how to make the relation on first use, for a path that needs none itself."""

    def __init__(self, label: str, relation: exp.Expression | None = None, has_score: bool = True,
                 has_rank: bool = False, ids_checked: bool = False, groups: tuple = (), build=None,
                 group_rows: str | None = None, empty_lists: str | None = None):
        self.label = label                # how messages name it: a file path, a table name, 'DataFrame', ...
        self._relation = relation         # exp.Table or exp.Subquery selecting the standard columns
        self.has_score, self.has_rank = has_score, has_rank
        self.ids_checked = ids_checked    # ids known non-empty and free of spaces (strict TREC text)
        self.groups = tuple(groups)       # group columns kept beside the standard ones (warehouse.py)
        self.group_rows = group_rows      # DuckDB SQL of the relation the run's groups are read from, when not
        #                                   this one (View.group_rows)
        self.empty_lists = empty_lists    # a run of lists: DuckDB SQL of the relation of its rows whose list is
        #                                   empty (View.empty_lists), queries of the run that retrieved nothing
        self._build = build

    @property
    def relation(self) -> exp.Expression:
        if self._relation is None:
            self._relation = self._build()
        return self._relation

    @relation.setter
    def relation(self, value):
        self._relation = value

    def derived(self, relation: exp.Expression, groups: tuple = ()) -> "Loaded":
        """The same input read through another relation (a slice of it, say), with these group columns."""
        return Loaded(self.label, relation, self.has_score, self.has_rank, self.ids_checked, groups)


@dataclass(frozen=True)
class View:
    """A warehouse-shaped input read as the standard shape, not yet checked (warehouse.view): a temporary view of
    the reader's connection with the standard columns and the group columns under their own names. rescan: the
    view is cheap to scan again (over Parquet, an Arrow table or a table), not a scan that converts or unnests
    (pandas, polars, CSV, lists). The one-statement path (onepass) reads it as a table; the careful path loads it
    (Reader.load with its groups and label)."""
    name: str
    kind: str
    label: str
    groups: tuple = ()
    rescan: bool = True
    group_types: tuple = ()  # the groups' DuckDB types, in the order of groups
    group_rows: str | None = None  # a run of lists: a view of every row's group columns (a group whose lists
    #                                are all empty has no row in this view's unnested rows, yet is a run)
    lists: bool = False            # its item column is a list, unnested by the view
    empty_lists: str | None = None  # a run of lists: a view of its rows whose list is empty or NULL (query_id and
    #                                 the group columns), each a query of the run that retrieved nothing, which the
    #                                 unnested rows do not have (sqlgen.Source.empty_lists)


def arrow_table(relation: duckdb.DuckDBPyRelation):
    """A DuckDB relation's rows as one Arrow table (to_arrow_table, or arrow() in DuckDB releases without it; a
    RecordBatchReader, which can be scanned only once, read whole)."""
    table = relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()
    return table.read_all() if hasattr(table, "read_all") else table


# the schema metadata key of an Arrow table made from another kind of object (_columns_table): what messages
# call the input (frame_label)
LABEL_KEY = b"rankmetrics_label"
EMPTY_KEY = b"rankmetrics_empty_queries"  # a run's queries mapped to no item (empty_queries), as JSON


def frame_label(obj) -> str:
    """What messages call a frame or table input: 'pandas DataFrame', 'pyarrow Table', or the kind of object an
    Arrow table was made from ('dict', 'ranx Run')."""
    module = type(obj).__module__.split(".")[0]
    if module == "pyarrow":
        meta = getattr(obj.schema, "metadata", None) or {}
        if LABEL_KEY in meta:
            return meta[LABEL_KEY].decode()
    return f"{module} {type(obj).__name__}"


def _dict_id(value, label: str, what: str, query=None) -> str:
    """A key of a nested dict as an id: text as it is, a whole number (not a bool) as its digits."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):  # numpy's integers too
        return str(int(value))
    where = "" if query is None else f" of query {query}"
    raise InputError(f"{label}: {what}{where} is {value!r} ({type(value).__name__}); ids are text (or whole "
                     f"numbers)")


def nested_dict_table(obj, kind: str, label: str):
    """pytrec_eval's and ranx's form of an input, {query_id: {item_id: value}} (a run's scores, the judgments'
    grades), as an Arrow table of our columns (_columns_table). A query of the judgments mapped to no item has no
    row, as in a TREC file (pytrec_eval leaves it out: not judged). A query of the run mapped to no item is a query
    that retrieved nothing, which pytrec_eval evaluates (num_ret 0), as an empty list of a run of lists: the table
    names it in its metadata (empty_queries), and the readers read it as a warehouse shape (warehouse.view); one
    without an id (blank) is refused, as a list's row without one."""
    value = "relevance" if kind == JUDGMENTS else "score"
    queries, items, values, empty = [], [], [], []
    for q, inner in obj.items():
        if not isinstance(inner, dict):
            query = _dict_id(q, label, "a query id")
            raise InputError(f"{label}: query {query} maps to a {type(inner).__name__}, not a dict; give the "
                             f"{kind} as {{query_id: {{item_id: {value}}}}}, as pytrec_eval and ranx take them")
        if not inner and kind == RUN:
            query = _dict_id(q, label, "a query id")
            if not query.strip(" "):  # no id (checks.missing_id), refused as a list's row without one
                raise InputError(f"{label}: a query of the run without an id ({query!r}) maps to no item; every "
                                 f"query needs an id")
            empty.append(query)
        queries += [q] * len(inner)
        items += inner
        values += inner.values()
    return _columns_table(queries, items, values, kind, label, empty)


# ir_measures' (and ir_datasets') rows: namedtuples Qrel(query_id, doc_id, relevance, iteration) and
# ScoredDoc(query_id, doc_id, score)
_NAMED_ROWS = {JUDGMENTS: "relevance", RUN: "score"}


def named_rows(obj, kind: str):
    """ir_measures' form of an input, a list or an iterator of namedtuples with the fields query_id, doc_id and
    relevance (judgments) or score (run), as an Arrow table (_columns_table); rows of the other kind refused; any
    other list None (not rows: the readers name it), any other iterator refused (its first row is gone)."""
    iterator = hasattr(obj, "__next__") and hasattr(obj, "__iter__") and not is_stream(obj)  # a file: its text
    if not (isinstance(obj, (list, tuple)) or iterator):
        return None
    rows = iter(obj)
    first = next(rows, None)
    fields = getattr(first, "_fields", ())
    if first is None or "query_id" not in fields or "doc_id" not in fields:
        if first is not None and iterator:
            raise InputError(f"cannot read the {kind} from a {type(obj).__name__} of {type(first).__name__}: give "
                             f"ir_measures' rows (namedtuples of query_id, doc_id and {_NAMED_ROWS[kind]}), or a "
                             f"table")
        if first is None and iterator:  # an iterator of nothing: no rows
            return _columns_table([], [], [], kind, type(obj).__name__)
        return None
    value = _NAMED_ROWS[kind]
    label = f"rows of {type(first).__name__}"
    if value not in fields:
        raise InputError(f"{label}: no field {value} (fields: {', '.join(fields)}); the {kind} "
                         f"{'are' if kind == JUDGMENTS else 'is'} rows of query_id, doc_id and {value}")
    listed = [first, *rows]
    odd = next((n for n, r in enumerate(listed) if getattr(r, "_fields", None) != fields), None)
    if odd is not None:  # another kind of row (a plain tuple, say) among them
        raise InputError(f"{label}: row {odd + 1} is {listed[odd]!r}, not a row of {', '.join(fields)}")
    at = fields.index(value)
    return _columns_table([r.query_id for r in listed], [r.doc_id for r in listed], [r[at] for r in listed],
                          kind, label)


def _columns_table(queries: list, items: list, values: list, kind: str, label: str, empty: list = ()):
    """Three columns of Python values (query, item, value) as an Arrow table of our columns: ids as text (whole
    numbers as their digits), a run's scores as doubles, grades as whole numbers (doubles if any is not whole:
    the convention reads them); anything else refused in one line naming the query and item. The columns' types
    are read once each (2M rows in about 0.3 s); a row at a time only where one is not text or a number. The
    table's metadata keeps label (frame_label) and empty, the queries of a run mapped to no item (empty_queries)."""
    import pyarrow as pa
    value = "relevance" if kind == JUDGMENTS else "score"
    plain = {type(q) for q in queries} | {type(i) for i in items} <= {str} and set(map(type, values)) <= {float, int}
    if not plain:  # numpy's numbers, bools, text, ...: row by row
        for n, (q, i, v) in enumerate(zip(queries, items, values)):
            query = queries[n] = _dict_id(q, label, "a query id")
            item = items[n] = _dict_id(i, label, "an item id", query)
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise InputError(f"{label}: the {value} of query {query}, item {item} is {v!r} "
                                 f"({type(v).__name__}), not a number")
    whole = kind == JUDGMENTS and all(isinstance(v, numbers.Integral) for v in values)
    if not plain:  # numpy's numbers as Python's
        values = [int(v) for v in values] if whole else [float(v) for v in values]
    try:
        column = pa.array(values, pa.int64() if whole else pa.float64())
    except (OverflowError, pa.ArrowInvalid):  # a whole number beyond 64 bits: a double, where one holds it
        for q, i, v in zip(queries, items, values):
            try:
                float(v)
            except OverflowError:
                raise InputError(f"{label}: the {value} of query {q}, item {i} is too large for a double") from None
        column = pa.array([float(v) for v in values], pa.float64())
    table = pa.table({"query_id": pa.array(queries, pa.string()), "item_id": pa.array(items, pa.string()),
                      value: column})
    meta = {LABEL_KEY: label.encode()}
    if empty:
        meta[EMPTY_KEY] = json.dumps(list(empty)).encode()
    return table.replace_schema_metadata(meta)


def has_rows(con, from_sql: str) -> bool:
    """Whether the relation from_sql has a row (read to its end: DuckDB 2, see Rows)."""
    return run_sql(con, f"SELECT count(*) FROM (SELECT 1 FROM {from_sql} LIMIT 1) AS t").fetchone()[0] > 0


def no_rows(label: str, kind: str) -> InputError:
    """The error of an input without rows (the checks' 'empty')."""
    return InputError(f"{label}: the {kind} {'have' if kind == JUDGMENTS else 'has'} no rows")


def empty_queries(obj) -> list | None:
    """The queries of a run made from a dict (nested_dict_table) that map to no item, queries that retrieved
    nothing, which its rows do not hold; None for any other input."""
    if type(obj).__module__.split(".")[0] != "pyarrow":
        return None
    meta = getattr(obj.schema, "metadata", None) or {}
    return json.loads(meta[EMPTY_KEY]) if EMPTY_KEY in meta else None


def table_like(obj, kind: str):
    """obj as an input the readers take: a pyarrow RecordBatchReader (a stream, read once) or RecordBatch as one
    Arrow table, a pyarrow dataset as the table it holds; another pyarrow object that holds no table (a Schema,
    an Array) refused, naming it; a polars LazyFrame collected; a pandas or polars Series refused, and a pandas
    DataFrame with two columns of one name; pytrec_eval's and ranx's nested dicts, ranx's Qrels and Run, and
    ir_measures' rows (namedtuples) as Arrow tables (nested_dict_table, named_rows). Anything else as it is.
    Called once per input, before either path."""
    module = type(obj).__module__.split(".")[0]
    if isinstance(obj, dict):
        return nested_dict_table(obj, kind, "dict")
    if module == "ranx" and type(obj).__name__ in ("Qrels", "Run"):
        return nested_dict_table(obj.to_dict(), kind, f"ranx {type(obj).__name__}")
    if module in ("pandas", "polars"):
        name = type(obj).__name__
        if name == "Series":
            raise InputError(f"cannot read the {kind} from a {module} Series: give a DataFrame with the columns "
                             f"query_id, item_id and {'relevance' if kind == JUDGMENTS else 'score and/or rank'}")
        if name == "LazyFrame":
            return obj.collect()
        if module == "pandas" and name == "DataFrame" and obj.columns.duplicated().any():  # any column: pandas
            #                                 then gives a frame for the name, where every reader wants one column
            twice = str(obj.columns[obj.columns.duplicated()][0]).strip()
            raise InputError(f"pandas DataFrame: column {twice} appears twice; name each column once")
        return obj
    if module != "pyarrow":
        named = named_rows(obj, kind)
        return obj if named is None else named
    import pyarrow as pa
    if isinstance(obj, pa.RecordBatch):
        obj = pa.Table.from_batches([obj])
    elif isinstance(obj, pa.RecordBatchReader):
        obj = obj.read_all()
    elif not isinstance(obj, pa.Table) and hasattr(obj, "to_table") and hasattr(obj, "schema"):  # a dataset
        obj = obj.to_table()
    if not isinstance(obj, pa.Table):
        raise InputError(f"cannot read the {kind} from a pyarrow {type(obj).__name__}: give a pyarrow Table (or a "
                         f"RecordBatch, RecordBatchReader or dataset)")
    refuse_duplicate_columns(obj.schema.names, "pyarrow Table")
    if obj.num_columns == 0:
        raise InputError(f"pyarrow Table: the {kind} {'have' if kind == JUDGMENTS else 'has'} no columns")
    # types DuckDB cannot scan, as the nearest it can, exactly: float16 as float32, decimal256 as float64 (the
    # numbers are read as doubles anyway)
    wider = {i: pa.float32() if pa.types.is_float16(f.type) else pa.float64() for i, f in enumerate(obj.schema)
             if pa.types.is_float16(f.type) or pa.types.is_decimal256(f.type)}
    for i, t in wider.items():
        obj = obj.set_column(i, obj.schema[i].name, obj.column(i).cast(t))
    return obj


def sql_string(value: str) -> str:
    return exp.Literal.string(value).sql(dialect="duckdb")


def reader_path(path: str) -> str:
    """A file path as the SQL literal that makes DuckDB's readers open exactly that file (paths.literal)."""
    return sql_string(paths.literal(path))


def quoted(name: str) -> str:
    """name as a quoted DuckDB identifier (what sqlglot writes for it, without importing sqlglot: the CLI on a
    Parquet file names its columns so, 0.08 s of imports otherwise)."""
    return '"' + name.replace('"', '""') + '"'


_NAME_PART = r'(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")'


def table_name(name: str) -> exp.Table:
    """A table or view name as a sqlglot Table whose parts are all quoted identifiers, so that a name stays a name.

    `db.schema.table` and double-quoted parts are read as such; anything else (quotes, semicolons, comments,
    spaces) is taken whole as one identifier, which at worst names no table: it never executes.
    """
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"{name!r} is not a table name")
    if re.fullmatch(rf"{_NAME_PART}(?:\.{_NAME_PART}){{0,2}}", name):
        parts = [p[1:-1].replace('""', '"') if p.startswith('"') else p
                 for p in re.findall(rf"{_NAME_PART}", name)]
    else:
        parts = [name]
    idents = [exp.to_identifier(p, quoted=True) for p in parts]
    table = exp.Table(this=idents[-1])
    if len(idents) >= 2:
        table.set("db", idents[-2])
    if len(idents) == 3:
        table.set("catalog", idents[0])
    return table


def needed_columns(kind: str) -> str:
    """What a CSV/TSV header must name, with the accepted names, for messages."""
    need = ["query_id", "item_id"] + (["relevance"] if kind == JUDGMENTS else ["score", "rank"])
    joined = "; ".join(f"{c}: {', '.join(ALIASES[c])}" for c in need)
    what = "query_id, item_id, relevance" if kind == JUDGMENTS else "query_id, item_id, and score or rank"
    return (f"a CSV/TSV {kind} file needs a header naming {what} (names accepted, any case: {joined}); "
            f"TREC text needs no header")



def refuse_duplicate_columns(names, label: str) -> None:
    """A column the readers look for (ALIASES, any case) named twice: refused, since which of the two a reader
    takes is its own choice (DuckDB renames the second of a CSV header's to name_1, and read the first)."""
    known = {a for aliases in ALIASES.values() for a in aliases}
    seen = set()
    for name in names:
        key = str(name).strip().lower()
        if key in known and key in seen:
            raise InputError(f"{label}: column {str(name).strip()} appears twice; name each column once")
        seen.add(key)


def missing_cell(value) -> bool:
    """A pandas cell that holds no value: None, NaN or pandas' NA."""
    return value is None or (isinstance(value, float) and value != value) or type(value).__name__ == "NAType"


def refuse_mixed_ids(frame, label: str) -> None:
    """A pandas object column of ids (named as ALIASES' query_id or item_id, any case) holding a float, a tuple, a
    list among values that are not lists, or another container: DuckDB reads such a column as the values' text, so
    2.0 was the item '2.0', which matched the judged item 2 nowhere (map 0, with no word), as a float64 column, a
    float dict key or a tuple are refused. pandas' inference (one pass in C) clears the usual columns; a column
    of lists is a run of lists (warehouse.with_lists)."""
    if type(frame).__module__.split(".")[0] != "pandas" or not hasattr(frame, "dtypes"):
        return
    from pandas.api.types import infer_dtype
    ids = {a for c in ("query_id", "item_id") for a in ALIASES[c]}
    for c in frame.columns:
        if str(c).strip().lower() not in ids or frame[c].dtype != object:
            continue
        if infer_dtype(frame[c], skipna=True) in ("string", "integer", "empty", "bytes", "boolean"):
            continue
        values = [v for v in frame[c].to_numpy() if not missing_cell(v)]
        if values and (isinstance(values[0], list) or type(values[0]).__name__ == "ndarray"):
            continue  # a column of lists
        bad = next((v for v in values if isinstance(v, (float, complex, tuple, list, dict, set, frozenset))
                    or type(v).__name__ == "Decimal" or "float" in type(v).__name__), None)
        if bad is not None:
            raise InputError(f"{label}: the {str(c).strip()} column holds {bad!r} ({type(bad).__name__}) among its "
                             f"ids; ids are text (or whole numbers)")


# The columns read as numbers. A column named as ours (score, rank, relevance) is that column; without one, an
# input may have one of the other usual names (ALIASES): a run with both pred and prediction, or judgments with
# both label and rating, is refused rather than read by the aliases' order. An id column's names do have an
# order: the first present is the id (qid before query, docno before docid: PyTerrier's frames hold the query's
# text in query and an index's own number in docid).
VALUE_COLUMNS = {RUN: ("score", "rank"), JUDGMENTS: ("relevance",)}


def alias_column(lower: dict[str, str], ours: str, kind: str, label: str, taken=()) -> str | None:
    """The input's column for our column `ours` by its usual names (lower: lower-cased name -> name), or None;
    taken: the columns already read as another (a query column named pos is no rank)."""
    present = [lower[a] for a in ALIASES[ours] if a in lower and lower[a] not in taken]
    if len(present) > 1 and ours in VALUE_COLUMNS[kind] and ours not in lower:
        raise InputError(f"{label}: columns {' and '.join(present)} could each be the {ours} column of the "
                         f"{kind}; name the one to read (--{ours}-column, or columns={{'{ours}': ...}} in Python)")
    return present[0] if present else None


def map_columns(names: list[str], kind: str, label: str) -> dict[str, str]:
    """Standard column -> the input's column, by name (case-insensitive, with the usual aliases)."""
    lower = {n.lower().strip(): n for n in names}
    found = {}
    for std in ALIASES:
        column = alias_column(lower, std, kind, label)
        if column is not None:
            found[std] = column
    need = ["query_id", "item_id"] + (["relevance"] if kind == JUDGMENTS else [])
    missing = [c for c in need if c not in found]
    if missing:
        read = "; ".join(f"{', '.join(ALIASES[c])}" for c in missing)
        raise InputError(f"{label}: no {' or '.join(missing)} column in the {kind} (columns: {', '.join(names)}; "
                         f"names read, any case: {read}; or name it: --{missing[0].split('_')[0]}-column)")
    if kind == RUN and "score" not in found and "rank" not in found:
        raise InputError(f"{label}: the run has neither a score nor a rank column (columns: {', '.join(names)}; "
                         f"names read, any case: {', '.join(ALIASES['score'] + ALIASES['rank'])})")
    return found


def refuse_unpaired_quotes(con, from_sql: str, ids, path: str, delim: str | None = None) -> None:
    """A CSV file's quotes that do not pair up, which DuckDB reads into the value ('q1,"a,1' gives the id '"a'):
    looked for (textfiles.csv_quote_fault) only when one of the ids (columns of from_sql) holds a quote. delim:
    the file's delimiter (None: its header's, read then)."""
    held = " OR ".join(f"contains(CAST({quoted(c)} AS VARCHAR), '\"')" for c in ids)
    if run_sql(con, f"SELECT 1 FROM {from_sql} WHERE {held} LIMIT 1").fetchone():
        if delim is None:
            lines = peek(path, 1)[1]
            delim = header_delimiter(path, lines[0] if lines else "")
        fault = csv_quote_fault(path, delim)
        if fault:
            raise InputError(fault)


def refuse_csv_id_faults(con, from_sql: str, ids, path: str, delim: str | None = None) -> None:
    """What DuckDB's CSV reader puts into an id (ids: the query's and the item's columns of from_sql) as part of
    it: quotes that do not pair up (refuse_unpaired_quotes), and a space or a tab around it. A field keeps them
    (DuckDB's reader, as Python's csv module), so a file written 'q1, d1, 3' held the item ' d1', which matched
    no judgment: map 0, with no word. The header's names are read trimmed, and the numbers are; an id is compared
    as written."""
    refuse_unpaired_quotes(con, from_sql, ids, path, delim)
    for c in ids:
        column = f"CAST({quoted(c)} AS VARCHAR)"
        row = run_sql(con, f"SELECT {column} FROM {from_sql} WHERE {column} <> trim({column}, ' \t') LIMIT 1"
                      ).fetchone()
        if row:
            raise InputError(f"{path}: the {c} {row[0]!r} begins or ends with a space, which a CSV field keeps and "
                             f"an id is compared with; write the fields without spaces around the delimiter")


def unreadable(path: str, error: Exception, form: str) -> InputError:
    """The error for a file DuckDB's reader refused: a line beyond its longest (2 MB) named as such (its line
    found here: DuckDB's count of a CSV file's lines was 1 for the fourth), else its message's first line."""
    long = re.search(r"Maximum line size of (\d+) bytes exceeded\. Actual Size:\s*(\d+)", str(error))
    if long:
        limit, size = int(long[1]), int(long[2])
        number = first_line_number(path, lambda ln: len(ln.encode("utf-8", "replace")) > limit)
        return InputError(f"{path}{f', line {number}' if number else ''}: {size:,} bytes long, beyond the longest "
                          f"line DuckDB reads ({limit:,} bytes)")
    return InputError(f"{path}: cannot read the file as {form}: {first_line(error)}")


class Rows:
    """A statement's result read to its end (DuckDB wants every result finished before the next statement)."""

    def __init__(self, cursor):
        self.description = cursor.description
        self.rows = cursor.fetchall() if cursor.description else []

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self):
        return self.rows


def run_sql(con, sql: str) -> Rows:
    return Rows(con.execute(sql))


def query_overlap(con, run, judgments, counted: bool = True) -> tuple[int, int, int]:
    """(run queries, judged queries, common queries) of two loaded inputs, each scanned once; an InputError if
    they have no query in common (with the two counts in its message if counted)."""
    r, j = run.relation.sql(dialect="duckdb"), judgments.relation.sql(dialect="duckdb")
    keys = overlap_keys(judgments.groups, quoted)
    # a run of lists: its queries whose list is empty are the run's too (Loaded.empty_lists)
    empty = (f" UNION SELECT {', '.join(['CAST(t.query_id AS VARCHAR) AS q'] + keys)} FROM {run.empty_lists} AS t"
             if run.empty_lists else "")
    row = run_sql(con,
        f"WITH rq AS MATERIALIZED (SELECT DISTINCT {', '.join(['CAST(t.query_id AS VARCHAR) AS q'] + keys)} "
        f"FROM {r} AS t{empty}), "
        f"jq AS MATERIALIZED (SELECT DISTINCT {', '.join(['CAST(t.query_id AS VARCHAR) AS q'] + keys)} FROM {j} AS t) "
        f"SELECT {', '.join(overlap_counts('rq', 'jq', len(keys)))}").fetchone()
    if row[2] == 0:
        raise no_common_query(run.label, judgments.label, row[:2] if counted else None, judgments.groups)
    return row[0], row[1], row[2]


def no_common_query(run_label: str, judgments_label: str, counts: tuple | None = None,
                    groups: tuple = ()) -> InputError:
    """The error of a run and judgments that share no query (counts: the run's and the judgments' queries; with
    groups, the group columns both have, a query of a group: checks.overlap_keys)."""
    if groups:
        names = ", ".join(groups)
        detail = f" ({counts[0]} run queries, {counts[1]} judged queries, by {names})" if counts else ""
        return InputError(f"the run ({run_label}) and the judgments ({judgments_label}) have no query in common "
                          f"within a group{detail}: the judgments' rows apply to the run's rows of the same "
                          f"{names} (compared as they are: 'v1' is not 'V1'); check the group values and id columns")
    detail = f" ({counts[0]} run queries, {counts[1]} judged queries)" if counts else ""
    return InputError(f"the run ({run_label}) and the judgments ({judgments_label}) have no query in common"
                      f"{detail}: check the files and id columns")


def mean_list_length(con, from_sql: str, params: dict | None = None) -> float | None:
    """The run's rows per query (rows / approximate distinct query ids) of a relation, for speed decisions only
    (measures.top_n_pays): one scan of the query id column; None if DuckDB cannot tell."""
    try:
        # fetchall, not fetchone: DuckDB 2.0 keeps a result not fetched to its end open, and the connection then
        # refuses the next query (a lazy relation() of a cutoff-only request failed so)
        rows = con.execute(f"SELECT CAST(count(*) AS DOUBLE) / NULLIF(approx_count_distinct(t.query_id), 0) "
                           f"FROM {from_sql} AS t", params).fetchall()
    except duckdb.Error:
        return None
    return rows[0][0] if rows else None


class Reader:
    """Loads inputs onto a DuckDB connection as temporary tables (private connection) or plain references."""

    def __init__(self, con: duckdb.DuckDBPyConnection, private: bool, nan_scores: str = "error",
                 trec_rank: bool = False):
        if nan_scores not in NAN_SCORES:
            raise UsageError(f"unknown value '{nan_scores}' for nan_scores; choose one of: {', '.join(NAN_SCORES)}")
        if not private:  # a caller's connection: none of its settings may change the numbers
            connections.check_settings(con)
        self.con = con
        self.private = private
        self.nan_scores = nan_scores
        # whether the rank field of a TREC text run is read: only when the ranking follows it (conventions.reads_rank);
        # trec_eval, pytrec_eval and ranx ignore the field, whatever it holds
        self.trec_rank = trec_rank
        self._registered: list[str] = []
        self._temp: list[str] = []

    def close(self):
        """Leave the connection as found: unregister the frames and drop the temporary tables made here."""
        for name in self._registered:
            try:
                self.con.unregister(name)
            except Exception:
                pass
        for name in self._temp:  # temporary tables, or views (warehouse.py)
            for kind in ("VIEW", "TABLE"):
                try:
                    run_sql(self.con, f"DROP {kind} IF EXISTS temp.main.{quoted(name)}")
                except Exception:
                    pass
        self._registered, self._temp = [], []

    def _name(self, kind: str) -> str:
        # unique per process, so that two evaluations on one caller's connection never share a name; every name
        # is dropped (if it became a temporary table) on close
        name = f"rankmetrics_{kind}_{os.getpid()}_{next(_COUNTER)}"
        self._temp.append(name)
        return name

    def register(self, obj, kind: str, label: str | None = None, name: str | None = None) -> str:
        """Register a frame or Arrow table on the connection under a new name (or name), unregistered on close.
        A column the readers look for named twice, or twice but for case, is refused (label: the input's, in the
        message): score and Score in a frame, or two score columns of a DuckDB relation, were read as the first
        with no word (DuckDB's names compare without case)."""
        label = label or frame_label(obj)
        refuse_duplicate_columns(obj.column_names if hasattr(obj, "column_names") else obj.columns, label)
        refuse_mixed_ids(obj, label)
        name = name or f"rankmetrics_{kind}_{os.getpid()}_{next(_COUNTER)}"
        self.con.register(name, obj)
        self._registered.append(name)
        return name

    def unregister(self, name: str) -> None:
        """Unregister a name of register now (an input the caller gave up on)."""
        self._registered.remove(name)
        try:
            self.con.unregister(name)
        except Exception:
            pass

    # ---- entry point -------------------------------------------------------------------------------------
    def temp_name(self, kind: str) -> str:
        """A new name for a temporary table of this reader, dropped on close."""
        return self._name(kind)

    def load(self, obj, kind: str, groups: tuple = (), label: str | None = None,
             empty_lists: str | None = None, drop_empty: bool = False) -> Loaded:
        """obj read as the kind of input; groups: group columns a table keeps beside the standard ones (the
        warehouse step, warehouse.py, hands over tables of the standard shape with them, and the label that
        messages name); empty_lists: a run of lists' rows whose list is empty, beside the table of its unnested
        rows (the warehouse step's View.empty_lists, quoted: Loaded.empty_lists). A run made from a dict that maps
        a query to no item (empty_queries) is read by the warehouse step (warehouse.view), which keeps those
        queries; here their rows would leave them out, a silent change of the query set: refused, unless the
        caller drops them itself (drop_empty: fusion, whose rows have nothing to fuse for them)."""
        if groups or label or empty_lists:
            return self._table(obj, kind, groups, label, empty_lists)
        obj = table_like(obj, kind)
        named = empty_queries(obj) if kind == RUN and not drop_empty else None
        if named:
            raise InputError(f"{frame_label(obj)}: the run maps query {named[0]} to no item (a query that retrieved "
                             f"nothing); these measures read the run's rows and cannot count such a query: leave it "
                             f"out of the run")
        if is_stream(obj) or (isinstance(obj, (str, os.PathLike)) and is_special_file(os.fspath(obj))):
            return self._spooled(obj, kind)
        if isinstance(obj, (str, os.PathLike)):
            text = os.fspath(obj)
            if not self.private and not os.path.exists(text) and self.is_table(text):
                return self._table(text, kind)
            if os.path.exists(text) or not self.is_table(text):
                return self._file(text, kind)
            return self._table(text, kind)
        if isinstance(obj, duckdb.DuckDBPyRelation):
            return self._frame(arrow_table(obj), kind, "DuckDB relation")
        module = type(obj).__module__.split(".")[0]
        if module in ("pandas", "polars", "pyarrow"):
            return self._frame(obj, kind, frame_label(obj))
        raise InputError(f"cannot read the {kind} from a {type(obj).__name__}; give a file path, a table name, "
                         f"a DuckDB relation, or a pandas, polars or pyarrow table")

    def load_side(self, obj, name: str, role: str, columns: dict | None = None) -> exp.Expression:
        """A side table (checks.SIDE_COLUMNS: the training interactions, the catalog, the items' vectors) from a
        file (Parquet, or CSV / TSV with a header), a table name, a DuckDB relation or a frame: copied into a
        private temporary table of its standard columns (ids as text), checked (checks.side_check_sql). role: the
        input it is read from ('interactions' or 'items', shape.SIDE_COLUMNS); columns: {our name: the input's
        column} where they differ (shape.Shape.side_columns). Returns the table."""
        wanted = checks.SIDE_COLUMNS[name]
        columns = columns or {}
        label, header = f"the {name}", None  # header: a CSV file's column names
        if isinstance(obj, (str, os.PathLike)) and (os.path.exists(os.fspath(obj)) or not self.is_table(os.fspath(obj))):
            path = os.fspath(obj)
            label = path
            if os.path.isdir(path):
                raise InputError(f"{path}: is a directory, not a file of the {name}")
            if not os.path.isfile(path):
                raise InputError(f"{path}: no such file" + ("" if self.private else " or table"))
            with open(path, "rb") as fh:
                head = fh.read(4)
            if head == b"PAR1" or path.lower().endswith(".parquet"):
                source = f"read_parquet({reader_path(path)})"
            else:
                refuse_binary(path)
                if os.path.getsize(path) == 0:  # DuckDB's reader makes one column of nothing (column0)
                    raise InputError(f"{path}: the file is empty; a file of the {name} needs a header line naming "
                                     f"its columns, then its rows")
                lines = peek(path, 1)[1]
                delim = header_delimiter(path, lines[0]) if lines else ","
                header = [h.strip().strip('"') for h in lines[0].split(delim)] if lines else []
                source = (f"read_csv({reader_path(path)}, header=true, all_varchar=true, delim={sql_string(delim)}, "
                          f"compression='{compression(path)}')")
        elif isinstance(obj, str):
            label = f"table {obj}"
            source = table_name(obj).sql(dialect="duckdb")
        else:
            if isinstance(obj, duckdb.DuckDBPyRelation):
                obj = arrow_table(obj)
            elif type(obj).__module__.split(".")[0] not in ("pandas", "polars", "pyarrow"):
                raise InputError(f"cannot read the {name} from a {type(obj).__name__}; give a file path, a table "
                                 f"name, a DuckDB relation, or a pandas, polars or pyarrow table")
            header = [str(c) for c in (obj.column_names if hasattr(obj, "column_names") else obj.columns)]
            label = f"the {name} ({type(obj).__name__})"
            source = quoted(self.register(obj, name, label))
        try:
            described = {row[0]: str(row[1]) for row in run_sql(self.con, f"DESCRIBE SELECT * FROM {source}").fetchall()}
        except duckdb.Error as e:
            unread = InputError(f"{label}: cannot read it as a table ({first_line(e)})")
            if header is None or label != path:
                raise unread from None
            fault = csv_shape_fault(path, delim)  # as _materialize: a ragged row is named, else (CRLF and LF
            if fault:                             # line ends in one file) read without DuckDB's strict mode
                raise InputError(fault) from None
            source = source[:-1] + ", strict_mode=false)"
            try:
                described = {row[0]: str(row[1]) for row in run_sql(self.con, f"DESCRIBE SELECT * FROM {source}").fetchall()}
            except duckdb.Error:
                raise unread from None
        found = list(described)
        lower = {c.lower(): c for c in found}
        given = {c: columns.get(c, c) for c in wanted}  # our name -> the input's
        names = [n.lower() for n in (found if header is None else header)]
        twice = [given[c] for c in wanted if names.count(given[c].lower()) > 1]
        if twice:
            raise InputError(f"{label}: column {twice[0]} appears twice; name each column once")
        missing = [c for c in wanted if given[c].lower() not in lower]
        if missing:
            named = ", ".join(given[c] if given[c] == c else f"{given[c]} (the {c})" for c in missing)
            options = ", ".join("--" + SIDE_PARAMS[role][c].replace("_", "-") for c in missing)
            mapping = ", ".join(f"'{c}': ..." for c in missing)
            raise InputError(f"{label}: the {name} need the column{'s' if len(missing) > 1 else ''} {named} "
                             f"(found: {', '.join(found)}; name yours with {options}, or {role}_columns="
                             f"{{{mapping}}} in Python)")
        for c in wanted:
            fault = None if c in checks.SIDE_LISTS else checks.id_column_fault(given[c], described[lower[given[c].lower()]])
            if fault:
                raise InputError(f"{label}: {fault}")
        table = self._name(name)
        try:
            run_sql(self.con, f"CREATE TEMP TABLE {quoted(table)} AS SELECT " + ", ".join(
                f"CAST({quoted(lower[given[c].lower()])} AS {'DOUBLE[]' if c in checks.SIDE_LISTS else 'VARCHAR'}) "
                f"AS {c}" for c in wanted) + f" FROM {source}")
        except duckdb.Error as e:
            lists = ", ".join(given[c] for c in wanted if c in checks.SIDE_LISTS)
            raise InputError(f"{label}: the {name} column {lists} must be a list of numbers per row "
                             f"({first_line(e)})") from None
        for check in checks.side_check_sql(name, role):
            bad = run_sql(self.con, f"SELECT {check.count} FROM {quoted(table)} AS t").fetchone()[0]
            if bad:
                column = given.get(check.column, check.column)  # as the input names it
                what = {"empty": "no rows",
                        "missing list": f"{bad} row(s) without a list of finite numbers in {column}",
                        "list lengths": f"{column} lists of {bad + 1} different lengths (give one length)",
                        "duplicate item": f"{bad} repeated {column}(s) (give one row per item)",
                        }.get(check.name, f"{bad} row(s) without a {column}")
                raise InputError(f"{label}: the {name} table has {what}")
        return exp.to_table(table)

    def _spooled(self, obj, kind: str) -> Loaded:
        """A stream (standard input, an open file) or a file that can be read only once (a FIFO, /dev/stdin on a
        pipe, a shell's <(...)): copied once, fully, into a private temporary file that is read as any file and
        removed as soon as it is loaded (every reader copies it into a temporary table). Messages name the
        input, not the copy."""
        import shutil
        import tempfile
        if isinstance(obj, (str, os.PathLike)):
            label = os.fspath(obj)
            suffix = "".join(s for s in os.path.splitext(label)[1:] if s)  # .tsv, .parquet: the readers look
        else:
            label, suffix = str(getattr(obj, "name", None) or "stream"), ""
        fd, tmp = tempfile.mkstemp(prefix="rankmetrics-input-", suffix=suffix)
        try:
            with os.fdopen(fd, "wb") as out:
                if isinstance(obj, (str, os.PathLike)):
                    with open(label, "rb") as src:
                        shutil.copyfileobj(src, out, 1 << 20)
                else:
                    stream = getattr(obj, "buffer", obj)  # a text stream's bytes (sys.stdin.buffer)
                    while chunk := stream.read(1 << 20):
                        out.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
            loaded = self._file(tmp, kind, copy=True)
        except OSError as e:
            raise InputError(f"{label}: cannot read the input ({e.strerror or e})") from None
        except InputError as e:
            raise InputError(str(e).replace(tmp, label)) from None
        finally:
            os.unlink(tmp)
        loaded.label = label
        return loaded

    # ---- tables and frames -------------------------------------------------------------------------------
    def is_table(self, name: str) -> bool:
        """Whether name resolves to a table or view of the connection, as DuckDB resolves it: read from the
        catalog (duckdb_tables, duckdb_views), never by a SELECT that may fail, since a failed statement aborts
        the caller's open transaction (and loses its uncommitted changes)."""
        try:
            table = table_name(name)
        except InputError:
            return False
        parts = [p.name.lower() for p in (table.args.get("catalog"), table.args.get("db")) if p is not None]
        params = {"rm_name": table.name.lower()}
        if len(parts) == 2:    # catalog.schema.name
            where = "lower(o.database_name) = $rm_a AND lower(o.schema_name) = $rm_b"
            params.update(rm_a=parts[0], rm_b=parts[1])
        elif len(parts) == 1:  # schema.name in a database of the search path, or database.name (its main schema)
            where = ("(lower(o.schema_name) = $rm_a AND o.database_name IN ('temp', current_database())) OR "
                     "(lower(o.database_name) = $rm_a AND o.schema_name = 'main')")
            params.update(rm_a=parts[0])
        else:                  # the temporary objects, then the current schema (and the search path's schemas)
            where = ("(o.database_name = 'temp' AND o.schema_name = 'main') OR (o.database_name = "
                     "current_database() AND list_contains(current_schemas(true), o.schema_name))")
        sql = (f"SELECT count(*) FROM (SELECT t.database_name, t.schema_name, t.table_name AS name FROM "
               f"duckdb_tables() AS t UNION ALL SELECT v.database_name, v.schema_name, v.view_name FROM "
               f"duckdb_views() AS v WHERE NOT v.internal) AS o WHERE lower(o.name) = $rm_name AND ({where})")
        return self.con.execute(sql, params).fetchall()[0][0] > 0  # read to its end (DuckDB 2: see Rows)

    def _columns(self, from_sql: str) -> list[str]:
        return [d[0] for d in run_sql(self.con, f"SELECT * FROM {from_sql} LIMIT 0").description]

    def _table(self, name: str, kind: str, groups: tuple = (), label: str | None = None,
               empty_lists: str | None = None) -> Loaded:
        table = table_name(name)
        return self._standard(table.sql(dialect="duckdb"), kind, label or f"table {name}", table, groups,
                              empty_lists)

    def _frame(self, frame, kind: str, label: str) -> Loaded:
        name = self.register(frame, kind, label, self._name(kind))
        if self.private:
            # On our own connection, copy the standard columns once into DuckDB's format: the checks and the
            # query then scan native storage (scanning the frame each time costs more than the copy).
            cols = map_columns(self._columns(quoted(name)), kind, label)
            wanted = ["query_id", "item_id"] + (["relevance"] if kind == JUDGMENTS else
                                                [c for c in ("score", "rank") if c in cols])
            table = self._name(kind)
            run_sql(self.con, f"CREATE TEMP TABLE {quoted(table)} AS SELECT "
                              + ", ".join(f"{quoted(cols[c])} AS {c}" for c in wanted) + f" FROM {quoted(name)}")
            self.con.unregister(name)
            self._registered.remove(name)
            return self._standard(quoted(table), kind, label, exp.to_table(table))
        return self._standard(quoted(name), kind, label, exp.to_table(name))

    def _standard(self, from_sql: str, kind: str, label: str, table: exp.Expression, groups: tuple = (),
                  empty_lists: str | None = None) -> Loaded:
        types = {row[0]: str(row[1]) for row in run_sql(self.con, f"DESCRIBE SELECT * FROM {from_sql}").fetchall()}
        cols = map_columns(list(types), kind, label)
        wanted = ["query_id", "item_id"] + (["relevance"] if kind == JUDGMENTS else
                                            [c for c in ("score", "rank") if c in cols])
        self._column_types(types, cols, wanted[2:], label, from_sql, kind)
        if all(cols[c] == c for c in wanted) and len(cols) == len(wanted) and not groups:
            relation = table
        else:
            select = exp.select(*[exp.alias_(exp.column(cols[c], quoted=True), c) for c in wanted],
                                *[exp.column(g, quoted=True) for g in groups]).from_(table)
            relation = exp.Subquery(this=select)
        loaded = Loaded(label, relation, "score" in cols or kind == JUDGMENTS, "rank" in cols, groups=tuple(groups),
                        empty_lists=empty_lists)
        self.check(loaded, kind)
        return loaded

    def _column_types(self, types: dict, cols: dict, numeric: list, label: str, from_sql: str, kind: str) -> None:
        """Refuse a numeric column of a type that holds no numbers (checks.number_column_fault), and an id column
        of a floating-point type (checks.id_column_fault); an input without rows (from_sql) as such: its types
        say nothing (an empty pandas frame's columns are float64 or NULL)."""
        fault = next(filter(None, [checks.id_column_fault(cols[c], types[cols[c]]) for c in ("query_id", "item_id")]
                            + [number_column_fault(c, types[cols[c]]) for c in numeric]), None)
        if fault is None:
            return
        if not has_rows(self.con, from_sql):
            raise no_rows(label, kind)
        raise InputError(f"{label}: {fault}")

    # ---- files -------------------------------------------------------------------------------------------
    def _file(self, path: str, kind: str, copy: bool = False) -> Loaded:
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file" + ("" if self.private else " or table"))
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a {kind} file")
        if not os.access(path, os.R_OK):
            raise InputError(f"{path}: cannot read the file (permission denied)")
        try:
            with open(path, "rb") as fh:
                head = fh.read(4)
        except OSError as e:
            raise InputError(f"{path}: cannot read the file ({e.strerror or e})") from None
        if not head:
            raise InputError(f"{path}: the file is empty")
        if head == b"PAR1" or path.lower().endswith(".parquet"):
            return self._parquet(path, kind, copy)
        refuse_binary(path)
        is_gz, lines = peek(path)
        content = [ln for ln in lines if not ln.lstrip().startswith("#")]
        if not content:
            raise InputError(f"{path}: the file has no data lines")
        first = content[0]
        delim = header_delimiter(path, first)
        header = [h.strip().strip('"') for h in first.split(delim)]
        known = {a for names in ALIASES.values() for a in names}  # a header names a known column, and no number
        if (any(h.lower() in known for h in header) and len(header) >= 2 and not is_trec_line(first, kind)
                and not any(NUMBER.fullmatch(h) for h in header)):
            refuse_duplicate_columns(header, path)
            opts = f"header=true, delim={sql_string(delim)}, all_varchar=true, compression='{compression(path)}'"
            return self._materialize(f"SELECT * FROM read_csv({reader_path(path)}, {opts})", path, kind, text=True,
                                     explain=lambda: csv_shape_fault(path, delim),
                                     csv_delim=delim,
                                     lenient=f"SELECT * FROM read_csv({reader_path(path)}, {opts}, strict_mode=false)")
        if delim == "," and len(header) >= 2 and len(first.split()) < (4 if kind == JUDGMENTS else 6):
            raise InputError(f"{path}, line 1: looks like CSV, but {first.strip()[:80]!r} is not a header naming the "
                             f"columns; {needed_columns(kind)}")
        return self._trec(path, kind, content)

    def _trec(self, path: str, kind: str, sample: list[str]) -> Loaded:
        """TREC text: qrels 'qid iter docno rel', runs 'qid Q0 docno rank score tag' (extra columns ignored)."""
        want = 4 if kind == JUDGMENTS else 6
        fields = sample[0].split()
        if kind == JUDGMENTS and len(fields) >= 6 and len(fields) != 4:
            raise InputError(f"{path}: looks like a run (6 columns), but judgments (qrels) were expected: "
                             f"'qid iter docno relevance'")
        if kind == RUN and len(fields) == 4:
            raise InputError(f"{path}: looks like qrels (4 columns), but a run was expected: "
                             f"'qid Q0 docno rank score tag'")
        fast = self._trec_strict(path, kind)
        if fast is not None:
            return fast
        def split_lines(strict: bool) -> str:
            lines = (f"read_csv({reader_path(path)}, columns={{'line': 'VARCHAR'}}, delim='\\x01', header=false, "
                     f"quote='', escape='', auto_detect=false, compression='{compression(path)}'"
                     f"{'' if strict else ', strict_mode=false'})")
            # the line without the white space around it (TREC_SPACE: DuckDB's trim() alone takes spaces only, and
            # a tab before the first field made it an empty one), split at white space
            stripped = (f"SELECT regexp_replace(l.line, '^[ \\t\\n\\r\\f]+|[ \\t\\n\\r\\f]+$', '', 'g') AS s, "
                        f"l.line AS line FROM {lines} AS l")
            # a comment: a line of judgments whose first byte is '#' (get_qrels.c, as field_lines: ' #x 0 d 1' is
            # a judgment of query '#x'), a run's line whose first field starts with '#' (get_trec_results.c skips
            # the white space before it)
            first = "x.line" if kind == JUDGMENTS else "x.s"
            return (f"SELECT string_split_regex(x.s, '\\s+') AS p, x.line AS line FROM ({stripped}) AS x "
                    f"WHERE x.s <> '' AND NOT starts_with({first}, '#')")
        # DuckDB's CSV reader in its strict mode takes one kind of line end per file, and refused a file with both
        # CRLF and LF lines ("The CSV Parser state machine reached an invalid state"), which trec_eval reads (each
        # line up to its LF; a CR is white space): a file the strict mode refuses for no fault of read_fault's is
        # read again without it, which ends a line at either and keeps a line whole (a \x01 byte in it too, as
        # trec_eval keeps it)
        def first_bad(split: str):
            return run_sql(self.con, f"SELECT s.line FROM ({split}) AS s WHERE len(s.p) < {want} "
                                     f"{'OR len(s.p) > 4' if kind == JUDGMENTS else ''} "
                                     f"OR contains(s.line, chr(11)) LIMIT 1").fetchone()
        split = split_lines(strict=True)
        try:
            bad = first_bad(split)
        except duckdb.Error as e:
            fault = read_fault(path)  # a lone CR inside a line, bytes that are not text: named as such
            if fault is not None:
                raise InputError(fault) from None
            split = split_lines(strict=False)
            try:
                bad = first_bad(split)
            except duckdb.Error:
                raise unreadable(path, e, "text") from None
        if bad:
            number = first_line_number(path, lambda ln: ln == bad[0])
            n = len(split_fields(bad[0]))  # split as the query above splits it
            if VERTICAL_TAB in bad[0] and (n == want or (kind != JUDGMENTS and n > want)):  # the count is right
                raise InputError(f"{path}, line {number}: {vertical_tab_fault()}: {bad[0].strip()[:80]!r}")
            form = "'qid iter docno relevance'" if kind == JUDGMENTS else "'qid Q0 docno rank score tag'"
            raise InputError(f"{path}, line {number}: {n} columns where a TREC {'qrels' if kind == JUDGMENTS else 'run'}"
                             f" line has {want} ({form}){odd_spaces(bad[0])}: {bad[0].strip()[:80]!r}")
        if kind == JUDGMENTS:
            select = f"SELECT s.p[1] AS query_id, s.p[3] AS item_id, s.p[4] AS relevance FROM ({split}) AS s"
        else:
            rank = "s.p[4] AS rank, " if self.trec_rank else ""
            select = f"SELECT s.p[1] AS query_id, s.p[3] AS item_id, {rank}s.p[5] AS score FROM ({split}) AS s"
        return self._materialize(select, path, kind, text=True)

    def _trec_strict(self, path: str, kind: str) -> Loaded | None:
        """TREC text in its usual strict form, read by DuckDB's CSV reader straight into typed columns (several
        times faster than splitting lines): fields separated by one space (or one tab), exactly 4 (qrels) or 6
        (run) fields, numbers where numbers go. Anything else, or any doubt, gives None and the general reader
        (_trec) reads the file and reports the line at fault."""
        form = strict_form(path)
        if form is None:
            return None
        name = quoted(self._name(kind))
        select, bad_row = strict_trec_select(reader_path(path), form, kind, rank=self.trec_rank)
        try:
            run_sql(self.con, f"CREATE TEMP TABLE {name} AS {select}")
        except duckdb.Error:
            run_sql(self.con, f"DROP TABLE IF EXISTS {name}")
            return None
        # fields split on the one delimiter, no other whitespace in the file, and no NULL id (an empty field):
        # every id is non-empty and has no space, so the id checks of check() cannot fire
        loaded = Loaded(path, exp.to_table(name.strip('"')), True, kind == RUN and self.trec_rank, ids_checked=True)
        if kind == RUN and self.nan_scores == "last":  # check() rewrites the relation first: a scan of its own
            bad = run_sql(self.con, f"SELECT count(*) FROM {name} AS t WHERE {bad_row}").fetchone()[0]
            if bad:
                run_sql(self.con, f"DROP TABLE IF EXISTS {name}")
                return None
            run_sql(self.con, f"ALTER TABLE {name} DROP COLUMN rm_bad")
            self.check(loaded, kind)
            return loaded

        def not_strict(n):
            raise _NotStrict()
        # a row the strict form does not hold sends the file to the general reader; this check is counted in the
        # same scan as the others and reports first, so the others only speak for a strictly read file
        try:
            self.check(loaded, kind, first=[Check(f"sum(CASE WHEN {bad_row} THEN 1 ELSE 0 END)", not_strict)])
        except _NotStrict:
            run_sql(self.con, f"DROP TABLE IF EXISTS {name}")
            return None
        run_sql(self.con, f"ALTER TABLE {name} DROP COLUMN rm_bad")
        return loaded

    def _parquet(self, path: str, kind: str, copy: bool = False) -> Loaded:
        """Parquet is read where it lies (no copy): a large run stays on disk and DuckDB streams it. Only numbers
        stored as text need the converting copy of _materialize, and a file about to be removed (copy: a
        spooled stream) is copied into a temporary table first."""
        source = exp.Table(this=exp.Anonymous(this="read_parquet",
                                              expressions=[exp.Literal.string(paths.literal(path))]))
        try:
            if copy:
                name = self._name(kind)
                run_sql(self.con, f"CREATE TEMP TABLE {quoted(name)} AS SELECT * FROM {source.sql(dialect='duckdb')}")
                source = exp.to_table(quoted(name), dialect="duckdb")
            described = run_sql(self.con, f"DESCRIBE SELECT * FROM {source.sql(dialect='duckdb')}").fetchall()
        except duckdb.Error as e:
            message = first_line(e)
            raise InputError(f"{path}: cannot read the file as Parquet: {message}") from None
        types = {row[0]: str(row[1]).upper() for row in described}
        cols = map_columns(list(types), kind, path)
        numeric = ["relevance"] if kind == JUDGMENTS else [c for c in ("score", "rank") if c in cols]
        self._column_types(types, cols, numeric, path, source.sql(dialect="duckdb"), kind)
        if any(not is_number_type(types[cols[c]]) for c in numeric):
            return self._materialize(f"SELECT * FROM {source.sql(dialect='duckdb')}", path, kind)
        select = exp.select(
            *[exp.alias_(exp.Cast(this=exp.column(cols[c], quoted=True), to=exp.DataType.build(
                "VARCHAR" if c in ("query_id", "item_id") else "DOUBLE")), c) for c in ["query_id", "item_id"] + numeric]
        ).from_(source)
        loaded = Loaded(path, exp.Subquery(this=select), "score" in cols or kind == JUDGMENTS, "rank" in cols)
        try:
            self.check(loaded, kind)
        except duckdb.Error as e:
            message = first_line(e)
            raise InputError(f"{path}: cannot read the file as Parquet: {message}") from None
        return loaded

    def _materialize(self, select: str, path: str, kind: str, text: bool = False, explain=None,
                     lenient: str | None = None, csv_delim: str | None = None) -> Loaded:
        """Load a file into a temporary table of the private connection, with numeric columns converted.
        If DuckDB cannot read it, explain() (or, for text, the first non-UTF-8 byte) names the fault; when neither
        finds one, the lenient select (DuckDB's CSV reader without its strict mode) reads it, if given. csv_delim: a
        CSV file's delimiter, for its quotes that do not pair up (refuse_csv_id_faults)."""
        name = self._name(kind)
        try:
            run_sql(self.con, f"CREATE TEMP TABLE {quoted(name)} AS {select}")
        except duckdb.Error as e:
            fault = (read_fault(path) if text else None) or (explain() if explain else None)
            if fault:
                raise InputError(fault) from None
            # The strict mode takes one kind of line end per file and refused a CSV file with both CRLF and LF
            # lines ("Error when sniffing file"), which Python's csv module and the warehouses read; explain() has
            # found every row with the header's field count, so the file is read again without the strict mode
            # (as _trec reads TREC text)
            unread = unreadable(path, e, "text" if text else "Parquet")
            if lenient is None:
                raise unread from None
            try:
                run_sql(self.con, f"CREATE TEMP TABLE {quoted(name)} AS {lenient}")
            except duckdb.Error:
                raise unread from None
        try:
            cols = map_columns(self._columns(quoted(name)), kind, path)
        except InputError:  # a CSV file whose last line has another field count is read with other columns by
            fault = explain() if explain else None  # DuckDB's sniffer (q1, d3, 1, 9): that line is the fault
            if fault:
                raise InputError(fault) from None
            raise
        if csv_delim is not None:
            refuse_csv_id_faults(self.con, quoted(name), (cols["query_id"], cols["item_id"]), path, csv_delim)
        numeric = ["relevance"] if kind == JUDGMENTS else [c for c in ("score", "rank") if c in cols]
        exprs = [f"CAST({quoted(cols['query_id'])} AS VARCHAR) AS query_id",
                 f"CAST({quoted(cols['item_id'])} AS VARCHAR) AS item_id"]
        for c in numeric:
            src = quoted(cols[c])
            number = text_number(f"trim(CAST({src} AS VARCHAR), {ASCII_SPACES})")
            bad = run_sql(self.con, 
                f"SELECT CAST({src} AS VARCHAR), {quoted(cols['query_id'])}, {quoted(cols['item_id'])} "
                f"FROM {quoted(name)} WHERE {src} IS NOT NULL AND {number} IS NULL LIMIT 1").fetchone()
            if bad:
                what = {"relevance": "relevance", "score": "score", "rank": "rank"}[c]
                where = self._where(path, bad[0], text)
                raise InputError(f"{path}{where}: {what} '{bad[0]}' is not a number (query {bad[1]}, item {bad[2]})"
                                 + odd_spaces(bad[0]).replace("does not separate fields", "is not white space here"))
            exprs.append(f"{number} AS {c}")
        final = self._name(kind)
        run_sql(self.con, f"CREATE TEMP TABLE {quoted(final)} AS SELECT {', '.join(exprs)} FROM {quoted(name)}")
        run_sql(self.con, f"DROP TABLE {quoted(name)}")
        loaded = Loaded(path, exp.to_table(final), "score" in cols or kind == JUDGMENTS, "rank" in cols)
        self.check(loaded, kind)
        return loaded

    @staticmethod
    def _where(path: str, value: str, text: bool) -> str:
        if not text:
            return ""
        number = first_line_number(path, lambda ln: value in ln.split() or value in ln.split(",")
                                    or value in ln.split("\t") or value in split_fields(ln))
        return f", line {number}" if number else ""

    # ---- checks ------------------------------------------------------------------------------------------
    def check(self, loaded: Loaded, kind: str, first: list[Check] = ()):
        """Refuse what would give a wrong number: missing ids, NaN or infinite values, duplicates.

        One scan counts every problem at once (Check.count); only a check whose count is not zero runs its own
        query to name the row at fault (Check.report), so a clean input costs a single pass. Checks report in
        the order of _checks; to add one, add a Check there."""
        if kind == RUN and loaded.has_score and self.nan_scores == "last":
            _check_numbers(self.con, loaded.relation.sql(dialect="duckdb"), loaded.label, ["score"])
            _scores_last(loaded)
        src = loaded.relation.sql(dialect="duckdb")
        checks = list(first) + self._checks(loaded, kind)
        counts = run_sql(self.con, f"SELECT {', '.join(c.count for c in checks)} FROM {src} AS t").fetchone()
        for c, n in zip(checks, counts):
            if n:
                c.report(n)

    def _checks(self, loaded: Loaded, kind: str) -> list[Check]:
        """The Check of each CheckSQL of check_sql (the one definition of the checks, which onepass counts too):
        its count, and how a non-zero count becomes the message naming the first row at fault."""
        src = loaded.relation.sql(dialect="duckdb")
        label = loaded.label
        q = lambda sql: run_sql(self.con, sql)  # noqa: E731

        def empty(n, c):
            raise no_rows(label, kind)

        def missing(n, col):
            raise InputError(f"{label}: {n} row(s) with an empty or NULL {col} in the {kind}")

        def not_a_number(n, c):
            _check_numbers(self.con, src, label, [c])

        def not_finite(n, c):
            # an aggregate's FILTER, not a WHERE: DuckDB 2.0 prunes a Parquet row group by its statistics, which
            # leave NaN out (checks.non_finite_test tests with isfinite, which they do not fold, for the same reason)
            # (the ids as text: a list of whole-number ids and a text value failed to bind, "Cannot deduce template
            # type 'T'", where the message names the row)
            bad = q(f"SELECT first([CAST(t.query_id AS VARCHAR), CAST(t.item_id AS VARCHAR), CAST(t.{c} AS VARCHAR)]) "
                    f"FILTER (WHERE "
                    f"{non_finite_test(c, loaded.has_score)}) FROM {src} AS t").fetchone()[0]
            hint = " (or rank such items last: nan_scores='last', --nan-scores last)" if c == "score" else ""
            if not bad:  # never let a counted fault pass, even if no row can be named
                raise InputError(f"{label}: {n} row(s) whose {c} is NaN, infinite or missing; every {c} must be a "
                                 f"finite number{hint}")
            value = "missing (NULL or NaN)" if bad[2] is None else bad[2]
            if value in ("inf", "-inf"):  # as written, or a number too large for a double (1e400)
                value += " (infinite, or too large for a double)"
            # the line: its query and item (the value as written may not be DuckDB's text of it: 1e400, +INF)
            raise InputError(f"{label}{line_of(label, bad[:2])}: {c} {value} for query {bad[0]}, item "
                             f"{bad[1]}; every {c} must be a finite number{hint}")

        gq = tuple(quoted(g) for g in loaded.groups)
        keys = ", ".join(str(i + 1) for i in range(len(gq) + 2))

        def where(row):  # ' (model_version v2, segment app)' for a row whose first values are the groups
            return (" (" + ", ".join(f"{g} {v}" for g, v in zip(loaded.groups, row)) + ")") if gq else ""

        def duplicate(n, c):
            ids = f"{group_sql(gq)}CAST(t.query_id AS VARCHAR), CAST(t.item_id AS VARCHAR)"
            g = len(gq)
            if kind == RUN:
                dup = q(f"SELECT {ids}, count(*) FROM {src} AS t "
                        f"GROUP BY {keys} HAVING count(*) > 1 ORDER BY {keys} LIMIT 1").fetchone()
                if dup:
                    raise InputError(f"{label}: item {dup[g + 1]} appears {dup[g + 2]} times for query {dup[g]}"
                                     f"{where(dup)} in the run (as trec_eval refuses it in a query it evaluates; "
                                     f"here in any query)")
                return
            dup = q(f"SELECT {ids}, count(DISTINCT t.relevance), "
                    f"min(t.relevance), max(t.relevance) FROM {src} AS t GROUP BY {keys} HAVING count(*) > 1 "
                    f"ORDER BY count(DISTINCT t.relevance) DESC, {keys} LIMIT 1").fetchone()
            dup = dup if dup is None else (*dup[g:], *dup[:g])
            if dup and dup[2] > 1:
                raise InputError(f"{label}: item {dup[1]} of query {dup[0]}{where(dup[5:])} is judged twice with "
                                 f"different relevance ({_num(dup[3])} and {_num(dup[4])})")
            if dup:
                warnings.warn(f"{label}: duplicate identical judgments (e.g. query {dup[0]}, item {dup[1]}) were "
                              f"counted once", stacklevel=5)
                inner = loaded.relation.copy()
                if isinstance(inner, exp.Table):
                    inner = exp.select("*").from_(inner)
                else:
                    inner = inner.this
                loaded.relation = exp.Subquery(this=inner.distinct())

        report = {"empty": empty, "missing id": missing, "not a number": not_a_number, "not finite": not_finite,
                  "duplicate": duplicate}
        return [Check(c.count, lambda n, c=c: report[c.name](n, c.column))
                for c in check_sql(kind, src, loaded.has_score, loaded.has_rank, loaded.ids_checked, groups=gq,
                                   nan_last=kind == RUN and self.nan_scores == "last",
                                   empty_lists=loaded.empty_lists if kind == RUN else None)]


class _NotStrict(Exception):
    """A TREC file is not in the strict form _trec_strict reads (raised by its check, caught there)."""


@dataclass
class Check:
    """One input check: an aggregate over the input's rows (alias t) that is 0 (or NULL) when all is well, and
    what to do when it is not (raise InputError naming the row, or warn and fix). sum(CASE ...) is much faster
    in DuckDB than count(*) FILTER (WHERE ...) with OR chains."""
    count: str
    report: Callable[[int], None]


def _check_numbers(con, src: str, label: str, columns: list[str]) -> None:
    """Text in a numeric column of a table or frame (files are checked with line numbers when read)."""
    for c in columns:
        bad = run_sql(con, f"SELECT CAST(t.{c} AS VARCHAR), t.query_id, t.item_id FROM {src} AS t "
                           f"WHERE t.{c} IS NOT NULL AND {text_number(f'CAST(t.{c} AS VARCHAR)')} IS NULL "
                           f"LIMIT 1").fetchone()
        if bad:
            raise InputError(f"{label}: {c} '{bad[0]}' is not a number (query {bad[1]}, item {bad[2]})")


def _scores_last(loaded: Loaded) -> None:
    """nan_scores='last': NaN, infinite and missing scores become NULL, which every ranking puts last."""
    src = loaded.relation.copy()
    inner = exp.select("*").from_(src) if isinstance(src, exp.Table) else src.this
    score = exp.column("score", table="t")
    finite = exp.case().when(exp.func("isfinite", exp.Cast(this=score, to=exp.DataType.build("DOUBLE"))),
                             exp.Cast(this=score.copy(), to=exp.DataType.build("DOUBLE")))
    cols = [exp.column("query_id", table="t"), exp.column("item_id", table="t"), exp.alias_(finite, "score")]
    if loaded.has_rank:
        cols.append(exp.column("rank", table="t"))
    cols += [exp.column(g, table="t", quoted=True) for g in loaded.groups]  # by's columns kept (dropped before)
    select = exp.select(*cols).from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("t"))))
    loaded.relation = exp.Subquery(this=select)


def _num(v):
    return int(v) if float(v) == int(float(v)) else v
