"""Warehouse-shaped inputs for the Python and command-line routes: other column names, group columns, lists.

A table, frame or Parquet/CSV file with a shape (shape.Shape: columns={'query_id': 'user_id', ...}, by=[...])
is read as our standard shape, through a temporary view of the connection (no copy: a large table is scanned
where it lies): text ids, the score and rank
(a list's position for a list of items), the grade (1 for a list of relevant items without a parallel list of
grades), and the group columns under their own names and types (inputs.View). The one-statement path
(onepass) reads that view as a table, or the careful path (inputs.Reader, warehouse.loaded) loads and checks it
as any other (a duplicate is one within a group); the fused query evaluates each group as a run of its own
(sqlgen.plan's by). Where a column is found by name: the name given, else our name or
one of the usual aliases (inputs.ALIASES), case-insensitively.
"""
from __future__ import annotations

import os


from . import checks, paths
from .checks import is_number_type
from .engine import duckdb
from .errors import InputError, first_line
from .inputs import (JUDGMENTS, RUN, Loaded, Reader, View, alias_column, empty_queries, frame_label, has_rows,
                     missing_cell, no_rows, quoted, reader_path, refuse_csv_id_faults, run_sql, sql_string, table_like,
                     table_name)
from .shape import ALIASES, Shape
from .textfiles import compression, header_delimiter, is_trec_line, peek


def _source(reader: Reader, obj, kind: str) -> tuple[str, str, bool, list | None]:
    """(SQL of a FROM item reading obj, its label, whether it is cheap to scan again: a table, Parquet or an Arrow
    table, not CSV or a pandas or polars frame, converted on each scan; the input's own column names where two may
    differ only in case, which DuckDB reads as one name and renames the second: a frame's, a file's header or
    schema, a relation's; None for a table of the database, whose names cannot)."""
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        if not os.path.exists(text) and reader.is_table(text):
            return table_name(text).sql(dialect="duckdb"), f"table {text}", True, None
        if text == "-" or not os.path.isfile(text):
            raise InputError(f"{text}: no such file or table (a table, a frame, a Parquet or CSV file is needed "
                             f"with column names, groups or lists)")
        with open(text, "rb") as fh:
            head = fh.read(4)
        if head == b"PAR1" or text.lower().endswith(".parquet"):
            return f"read_parquet({reader_path(text)})", text, True, _parquet_names(reader, text)
        _, lines = peek(text, 2)
        if lines and is_trec_line(lines[0], kind):
            raise InputError(f"{text}: a TREC {'qrels' if kind == JUDGMENTS else 'run'} file has no named columns, "
                             f"and group columns, other column names and lists read tables, frames, Parquet or "
                             f"CSV with a header")
        delim = header_delimiter(text, lines[0] if lines else "")
        header = [h.strip().strip('"') for h in lines[0].split(delim)] if lines else None
        return (f"read_csv({reader_path(text)}, header=true, delim={sql_string(delim)}, "
                f"compression='{compression(text)}')", text, False, header)
    if isinstance(obj, duckdb.DuckDBPyRelation):
        table = obj.to_arrow_table()
        return quoted(reader.register(table, kind)), "DuckDB relation", True, list(table.column_names)
    obj = table_like(obj, kind)
    module = type(obj).__module__.split(".")[0]
    if module in ("pandas", "polars", "pyarrow"):
        names = [str(c) for c in (obj.column_names if module == "pyarrow" else obj.columns)]
        label = frame_label(obj)
        if module == "pandas" and _holds_lists(obj):  # as an Arrow table: DuckDB's scan of a frame cannot read
            #                                            numpy arrays of text ("Data type '<U1' not recognized")
            import pyarrow as pa
            try:
                obj, module = pa.Table.from_pandas(obj, preserve_index=False), "pyarrow"
            except (pa.ArrowException, TypeError, ValueError):  # (mixed kinds in a column, say) DuckDB reads it
                pass
        return (quoted(reader.register(obj, kind)), label, module == "pyarrow", names)
    raise InputError(f"cannot read the {kind} from a {type(obj).__name__}; give a table name, a Parquet or CSV file, "
                     f"a DuckDB relation, or a pandas, polars or pyarrow table")


def _parquet_names(reader: Reader, path: str) -> list | None:
    """A Parquet file's top-level column names as its footer holds them (DuckDB's DESCRIBE gives them renamed), read
    by DuckDB's parquet_schema on a cursor, a connection of its own (as item_lists: the path a parameter, and no
    pyarrow.parquet import, 0.1 s); None when DuckDB cannot read it (its reader says why)."""
    cursor = reader.con.cursor()
    try:
        rows = cursor.execute("SELECT name, num_children FROM parquet_schema($path)",
                              {"path": paths.literal(path)}).fetchall()
    except duckdb.Error:
        return None
    finally:
        cursor.close()
    names, pending = [], [rows[0][1] or 0] if rows else []  # the schema's root, then its fields depth first
    for name, children in rows[1:]:
        if len(pending) == 1:  # a field of the root: a column
            names.append(name)
        pending[-1] -= 1
        if children:
            pending.append(children)
        while len(pending) > 1 and pending[-1] == 0:
            pending.pop()
    return names


def _refuse_case_twins(own: list | None, read: list[str], label: str) -> None:
    """A column read (DuckDB's name of it) whose name the input holds twice, differing only in case (S and s):
    DuckDB reads names without case and renames the second (s_1), so the column a name finds is the engine's
    choice: refused, naming both."""
    if not own:
        return
    for column in read:
        twins = [n for n in own if n.lower() == column.lower()]
        if len(twins) > 1:
            raise InputError(f"{label}: columns {twins[0]} and {twins[1]} differ only in case, which DuckDB does "
                             f"not tell apart: rename one")


SHARED = ("query_id", "item_id")  # columns both tables have: a name given may be the name in one table only


def _find(names: list[str], ours: str, form: Shape, label: str, kind: str, required: bool,
          used: set | None = None, taken=()) -> str | None:
    """The input's column holding our column `ours`: the name given in form.columns, else ours or an alias. The
    query and item columns are in both tables: a name given that one table lacks is looked for there as if not
    given (recs.items beside labels.item_id); load_pair checks that some table has it."""
    lower = {n.lower(): n for n in names}
    if ours in form.columns:
        given = form.columns[ours]
        found = given if given in names else lower.get(given.lower())
        if found is not None:
            if used is not None:
                used.add(ours)
            return found
        if ours not in SHARED or used is None:
            if required:
                raise InputError(f"{label}: no column {given} (the {ours.replace('_', ' ')} column) in the {kind}; "
                                 f"columns: {', '.join(names)}")
            return None
    found = alias_column(lower, ours, kind, label, taken)  # taken: columns read as others (groups, ids)
    if found is not None:
        return found
    if required:
        raise InputError(f"{label}: no {ours} column in the {kind} (name it: --{ours.split('_')[0]}-column, "
                         f"columns={{'{ours}': ...}}); columns: {', '.join(names)}")
    return None


def _type_family(type_text: str) -> str:
    """A DuckDB type's family for comparing a group column across the run and the judgments: numbers of any
    width compare as numbers (checks.is_number_type, FLOAT too), the rest by their type name (VARCHAR, DATE,
    TIMESTAMP, BOOLEAN, ...)."""
    return "number" if is_number_type(type_text, floats=True) else type_text.split("(")[0].strip()


def _is_list(type_text: str) -> bool:
    return type_text.endswith("]")  # DuckDB's LIST (T[]) and ARRAY (T[n])


def with_lists(reader: Reader, form: Shape, judgments, runs: list) -> Shape:
    """form, or when it gives no shape and an input's item column is a list (item_lists), or a run made from a dict
    maps a query to no item (inputs.empty_queries): the shape of those lists or queries under our own column names
    (the side inputs' names kept), so that the input is read as a warehouse shape (view). The inputs as
    inputs.table_like gives them."""
    if form:
        return form
    run_lists, judgment_lists = any(item_lists(reader, r) for r in runs), item_lists(reader, judgments)
    named = any(empty_queries(r) is not None for r in runs)
    if not (run_lists or judgment_lists or named):
        return form
    return Shape(run_lists=run_lists, judgment_lists=judgment_lists, interactions_columns=form.sides["interactions"],
                 items_columns=form.sides["items"], empty_queries=named)


def _first_values(frame) -> dict:
    """{column: its first value that is not missing} of a pandas frame's object columns (lists are held there:
    Python lists or numpy arrays; a NULL list is an empty one), None for a column of missing values only."""
    return {str(c): next((v for v in frame[c].to_numpy() if not missing_cell(v)), None)
            for c in frame.columns if frame[c].dtype == object}


def _holds_lists(frame) -> bool:
    """Whether a pandas frame has a column of lists (Python lists or numpy arrays, found by its first value that is
    not missing)."""
    return any(_a_list(v) for v in _first_values(frame).values())


def _a_list(value) -> bool:
    """A pandas cell holding a list: a Python list or tuple, or a numpy array."""
    return isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray"


def item_lists(reader: Reader, obj) -> bool:
    """Whether obj's item column (item_id or one of its aliases, any case) is a list, read from the schema of a
    pyarrow table, a DuckDB relation, a polars frame, a Parquet file (its footer, on a cursor: a connection of its
    own) or a table, or from a pandas frame's first row: such an input is read as a warehouse shape (view) even
    when no shape is given. Never a statement that can fail in the caller's transaction; CSV and TREC text have
    no lists."""
    if isinstance(obj, (str, os.PathLike)):
        text = os.fspath(obj)
        if os.path.isfile(text):
            try:
                with open(text, "rb") as fh:
                    if fh.read(4) != b"PAR1":
                        return False
            except OSError:  # the reader names what is wrong with the file
                return False
            cursor = reader.con.cursor()  # a connection of its own: a failure leaves the caller's transaction be
            try:  # the footer alone; the path a parameter (quoting it would import sqlglot, 0.08 s; pyarrow.parquet
                #     0.1 s), as onepass passes it
                types = {r[0]: str(r[1]) for r in cursor.execute(
                    "DESCRIBE SELECT * FROM read_parquet($path)", {"path": paths.literal(text)}).fetchall()}
            except duckdb.Error:  # the reader names what is wrong with the file
                return False
            finally:
                cursor.close()
        elif text != "-" and not os.path.exists(text) and reader.is_table(text):
            types = {r[0]: str(r[1]) for r in run_sql(
                reader.con, f"DESCRIBE SELECT * FROM {table_name(text).sql(dialect='duckdb')}").fetchall()}
        else:
            return False
    elif isinstance(obj, duckdb.DuckDBPyRelation):
        types = {c: str(t) for c, t in zip(obj.columns, obj.types)}
    else:
        module = type(obj).__module__.split(".")[0]
        schema = getattr(obj, "schema", None)
        if module == "pyarrow" and schema is not None or module == "polars":
            types = {name: str(t) for name, t in (zip(schema.names, schema.types) if module == "pyarrow"
                                                   else schema.items())}
        elif module == "pandas" and len(obj):  # a list column holds Python lists or numpy arrays (object dtype)
            first = _first_values(obj)
            types = {c: "list" if _a_list(v) else "value"
                     for c, v in first.items()}
        else:
            return False
    lower = {str(n).lower(): t for n, t in types.items()}
    item = next((lower[a] for a in ALIASES["item_id"] if a in lower), "")
    return item.endswith("]") or item.lower().startswith(("list", "large_list", "fixed_size_list", "array"))


def load_pair(reader: Reader, judgments, run, form: Shape) -> tuple[Loaded, Loaded]:
    """(judgments, run) loaded by load_all."""
    judged, (loaded,) = load_all(reader, judgments, [run], form)
    return judged, loaded


def load_all(reader: Reader, judgments, runs: list, form: Shape) -> tuple[Loaded, list[Loaded]]:
    """The judgments (loaded once) and each run: their views (views_all), then loaded and checked (loaded)."""
    judged, viewed = views_all(reader, judgments, runs, form)
    return loaded(reader, judged), [loaded(reader, v) for v in viewed]


def views_all(reader: Reader, judgments, runs: list, form: Shape) -> tuple[View, list[View]]:
    """The judgments and each run as views of the standard shape (view), not yet checked; a query or item column
    named in form.columns must be in one of the tables."""
    used: set = set()
    judged = view(reader, judgments, JUDGMENTS, form, used)
    viewed = [view(reader, run, RUN, form, used) for run in runs]
    judged_types = dict(zip(judged.groups, judged.group_types))
    for v in viewed:  # a group column both sides have: text on one side and a number on the other would be
        for g, t in zip(v.groups, v.group_types):  # matched by a cast (or fail in it): refused, named
            if g in judged_types and _type_family(judged_types[g]) != _type_family(t):
                raise InputError(f"group column {g}: {t} in the run ({v.label}), {judged_types[g]} in the "
                                 f"judgments ({judged.label}); give it one type on both sides (cast one of them)")
    missing = [c for c in SHARED if c in form.columns and c not in used]
    if missing:
        raise InputError(f"no column {form.columns[missing[0]]} (the {missing[0].replace('_', ' ')} column) in "
                         f"the run or the judgments")
    return judged, viewed


def loaded(reader: Reader, v: View) -> Loaded:
    """A view of the standard shape loaded and checked by the careful path (a duplicate is one within a group)."""
    try:  # a run of lists whose every list is empty is a run of queries that retrieved nothing (not empty: the
        #   check reads its empty lists too, checks.check_sql)
        out = reader.load(v.name, v.kind, groups=v.groups, label=v.label,
                          empty_lists=v.empty_lists and quoted(v.empty_lists))
    except InputError:  # judgments' lists all empty: the view has no row, which the check calls an input without rows
        if v.lists and v.kind == JUDGMENTS and not has_rows(reader.con, quoted(v.name)):
            raise InputError(f"{v.label}: the judgments have no item: every item list is empty") from None
        raise
    out.group_rows = v.group_rows and quoted(v.group_rows)
    return out


def load(reader: Reader, obj, kind: str, form: Shape, used: set | None = None) -> Loaded:
    """obj (a run or judgments of any shape) as a loaded, checked input of the standard shape with its group
    columns (Loaded.groups); used collects the names of form.columns found (see _find)."""
    return loaded(reader, view(reader, obj, kind, form, used))


def _same_lengths(reader: Reader, source: str, label: str, query: str, item: str, relevance: str) -> None:
    """Judgments as lists: each row's list of grades has one grade per item, else one line naming the query and
    both lengths (unnested side by side, the shorter list would be padded with NULLs: a NULL grade, or an item
    without an id, which the checks would name less clearly)."""
    row = run_sql(reader.con, f"SELECT CAST(t.{quoted(query)} AS VARCHAR), len(t.{quoted(item)}), "
                              f"len(t.{quoted(relevance)}) FROM {source} AS t "
                              f"WHERE len(t.{quoted(item)}) IS DISTINCT FROM len(t.{quoted(relevance)}) LIMIT 1"
                  ).fetchone()
    if row:
        count = lambda n, what: f"no list of {what}s" if n is None else f"{n} {what}{'' if n == 1 else 's'}"  # noqa
        raise InputError(f"{label}: query {row[0]} has {count(row[1], 'item')} ({item}) and "
                         f"{count(row[2], 'grade')} ({relevance}) in the judgments; give one grade per item, in the "
                         f"same order")


def view(reader: Reader, obj, kind: str, form: Shape, used: set | None = None) -> View:
    """obj (a run or judgments of any shape) as a temporary view of the standard shape with its group columns
    under their own names (inputs.View), not yet checked; used collects the names of form.columns found (see
    _find)."""
    obj = table_like(obj, kind)
    named = empty_queries(obj) if kind == RUN else None  # a dict's queries mapped to no item
    source, label, cheap, own = _source(reader, obj, kind)
    try:
        described = run_sql(reader.con, f"DESCRIBE SELECT * FROM {source}").fetchall()
    except duckdb.Error as e:
        raise InputError(f"{label}: cannot read the {kind}: {first_line(e)}") from None
    types = {row[0]: str(row[1]).upper() for row in described}
    names = list(types)
    lower = {n.lower(): n for n in names}
    groups = []
    for g in form.by:
        found = g if g in names else lower.get(g.lower())
        if found is None and kind == RUN:
            raise InputError(f"{label}: no group column {g} in the run; columns: {', '.join(names)}")
        if found is not None:
            if _is_list(types[found]) or types[found].startswith(("STRUCT", "MAP", "UNION")):
                raise InputError(f"{label}: group column {found} is a {types[found].split('(')[0]}: group by "
                                 f"columns of single values (text, numbers, dates)")
            groups.append(found)
    query = _find(names, "query_id", form, label, kind, True, used, taken=groups)
    item = _find(names, "item_id", form, label, kind, True, used, taken=(*groups, query))
    taken = (*groups, query, item)
    _refuse_case_twins(own, taken, label)
    lists = _is_list(types[item])
    for column, type_text in ((query, types[query]), (item, types[item].rsplit("[", 1)[0] if lists else types[item])):
        fault = checks.id_column_fault(column, type_text)  # a list of them: its element type
        if fault:  # (an input without rows as such: an empty pandas frame's columns are float64)
            if not has_rows(reader.con, source):
                raise no_rows(label, kind)
            raise InputError(f"{label}: {fault}")
    if source.startswith("read_csv(") and not lists:  # DuckDB reads quotes that do not pair up into the id,
        refuse_csv_id_faults(reader.con, source, (query, item), label)  # and keeps a space around it
    query_id = f"CAST(t.{quoted(query)} AS VARCHAR)"
    select = [f"{query_id} AS query_id"]
    empty_list = f"coalesce(len(t.{quoted(item)}), 0) = 0"  # (with lists) the row's list is empty or NULL
    no_query = checks.missing_id(query_id, query_id)
    if kind == RUN:
        if lists:  # ranked by position. A row whose list is empty and whose query id is missing (NULL or blank)
            #        gives one row, its item NULL: unnested, it would give none and vanish unchecked, where the
            #        input checks refuse a row without a query id ("missing id", the same count as its neighbours'
            #        rows); with an id such a row is a query that retrieved nothing (the view `empty` below)
            items = f"CASE WHEN {empty_list} AND ({no_query}) THEN [NULL] ELSE t.{quoted(item)} END"
            select += [f"CAST(UNNEST({items}) AS VARCHAR) AS item_id", f"GENERATE_SUBSCRIPTS({items}, 1) AS rank"]
        else:
            score = _find(names, "score", form, label, kind, False, taken=taken)
            rank = _find(names, "rank", form, label, kind, False, taken=(*taken, score))
            _refuse_case_twins(own, [c for c in (score, rank) if c], label)
            if score is None and rank is None:
                raise InputError(f"{label}: the run has neither a score nor a rank column (name one: "
                                 f"--score-column, columns={{'score': ...}}); columns: {', '.join(names)}")
            select.append(f"CAST(t.{quoted(item)} AS VARCHAR) AS item_id")
            select += [f"t.{quoted(c)} AS {ours}" for ours, c in (("score", score), ("rank", rank)) if c]
    else:
        relevance = _find(names, "relevance", form, label, kind, not lists, taken=taken)
        _refuse_case_twins(own, [relevance] if relevance else [], label)
        if lists:  # relevant items, graded by a parallel list or 1
            select.append(f"CAST(UNNEST(t.{quoted(item)}) AS VARCHAR) AS item_id")
            if relevance is None:
                select.append("1 AS relevance")
            elif _is_list(types[relevance]):
                _same_lengths(reader, source, label, query, item, relevance)
                select.append(f"UNNEST(t.{quoted(relevance)}) AS relevance")
            else:
                raise InputError(f"{label}: the items ({item}) are a list but the grades ({relevance}) are not: "
                                 f"give a list of grades of the same length, or no grade column (grade 1)")
        else:
            select += [f"CAST(t.{quoted(item)} AS VARCHAR) AS item_id", f"t.{quoted(relevance)} AS relevance"]
    names_out = [g if g in form.by else next(b for b in form.by if b.lower() == g.lower()) for g in groups]
    group_columns = [f"t.{quoted(g)} AS {quoted(n)}" for g, n in zip(groups, names_out)]
    select += group_columns
    name = reader.temp_name(kind)
    group_rows = reader.temp_name(kind) if kind == RUN and lists and groups else None
    empty = reader.temp_name(kind) if kind == RUN and lists else None
    try:
        run_sql(reader.con, f"CREATE TEMP VIEW {quoted(name)} AS SELECT {', '.join(select)} FROM {source} AS t")
        if group_rows:  # every row's groups, an empty list's too: that group is a run that retrieved nothing
            run_sql(reader.con, f"CREATE TEMP VIEW {quoted(group_rows)} AS SELECT {', '.join(group_columns)} "
                                f"FROM {source} AS t")
        if empty:  # the rows whose list is empty (or NULL), which the unnested rows lack: each a query of the run
            #        that retrieved nothing (sqlgen.empty_lists); a row without a query id names none (the
            #        unnested rows hold it, for the checks to refuse)
            columns = ", ".join([f"{query_id} AS query_id"] + group_columns)
            run_sql(reader.con, f"CREATE TEMP VIEW {quoted(empty)} AS SELECT {columns} FROM {source} AS t "
                                f"WHERE {empty_list} AND NOT ({no_query})")
    except duckdb.Error as e:
        raise InputError(f"{label}: cannot read the {kind}: {first_line(e)}") from None
    if named is not None:  # a dict's queries mapped to no item (inputs.empty_queries): the relation of its empty lists
        import pyarrow as pa
        empty = reader.register(pa.table({"query_id": pa.array(named, pa.string())}), kind)
    return View(name, kind, label, tuple(names_out), rescan=cheap and not lists,  # lists: unnested on each scan
                group_types=tuple(types[g] for g in groups), group_rows=group_rows, lists=bool(lists),
                empty_lists=empty)
