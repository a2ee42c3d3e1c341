"""trec_eval's preference judgments (-R prefs, -R qrels_prefs) and its prefs_* measures.

A prefs file has lines `query judgment_group sub_group item level` (get_prefs.c): within a sub-group an item is
preferred to every item of a lower level; -R qrels_prefs reads an ordinary qrels file so, its second column the
judgment group and one sub-group (get_qrels_prefs.c). The measures are SQL, sql/prefs.sql's trec_prefs macro
(form_prefs_counts.c and m_prefs_*.c); this module reads the file, checks it, runs the macro over the run read by
the careful path, and keeps the queries trec_eval evaluates (the run's, or with -c every judged one)."""
from __future__ import annotations

import pyarrow as pa

from . import connections, measures, textfiles
from .api import max_retrieved_count, register
from .engine import duckdb
from .errors import InputError, UsageError, first_line
from .inputs import RUN, Reader, no_common_query

# the fields of a line of each format (get_prefs.c's parse_prefs_line, get_qrels_prefs.c's)
FIELDS = {"prefs": ("query", "judgment group", "sub-group", "item", "level"),
          "qrels_prefs": ("query", "judgment group", "item", "level")}


def read_prefs(path: str, rel_format: str = "prefs") -> pa.Table:
    """The preference judgments of a prefs file (or, rel_format 'qrels_prefs', of a qrels file): columns
    query_id, jg, jsg, item_id, relevance. A line starting with # is a comment. One clear error names the file and
    line of a bad line, an item judged twice in one sub-group, or a group that calls an item nonrelevant (level
    0) in one sub-group and relevant (above 0) in another (trec_eval stops on both)."""
    if rel_format not in FIELDS:
        raise UsageError(f"unknown preference format '{rel_format}'; choose one of: {', '.join(FIELDS)}")
    if not isinstance(path, str):
        raise UsageError(f"preference judgments (-R {rel_format}) are read from a text file")
    columns: dict[str, list] = {"query_id": [], "jg": [], "jsg": [], "item_id": [], "relevance": []}
    seen: dict[tuple, int] = {}
    groups: dict[tuple, list] = {}  # (query, group) -> [(sub-group, level, item, line)]
    for number, fields in textfiles.field_lines(path, FIELDS[rel_format], rel_format):
        if rel_format == "qrels_prefs":
            fields = fields[:2] + ["0"] + fields[2:]
        query, group, sub, item, text = fields
        level = textfiles.finite(text)
        if level is None:
            raise InputError(f"{path}, line {number}: level '{text}' is not a number")
        key = (query, group, sub, item)
        if key in seen:
            raise InputError(f"{path}, line {number}: item {item} of query {query} is judged again in judgment "
                             f"group {group}, sub-group {sub} (first on line {seen[key]})")
        seen[key] = number
        groups.setdefault((query, group), []).append((sub, level, item, number))
        for column, value in zip(columns, (query, group, sub, item, level)):
            columns[column].append(value)
    if not columns["query_id"]:
        raise InputError(f"{path}: no preference judgments (an empty file)")
    for (query, group), lines in groups.items():
        _refuse_zero_and_relevant(path, query, group, lines)
    return pa.table(columns)


def _refuse_zero_and_relevant(path: str, query: str, group: str, lines: list) -> None:
    """trec_eval's check (form_prefs_counts.c): a group's lines taken by sub-group (byte order), then level
    (highest first), each item's level compared with the one it had last: level 0 after a level above 0, or the
    reverse, stops it ("has both 0 and non-0 rel_level"). A negative level is neither: -1 beside 0 is taken."""
    last: dict[str, tuple] = {}
    for sub, level, item, number in sorted(lines, key=lambda x: (x[0].encode(), -x[1])):
        before = last.get(item)
        if before is not None and ((before[0] > 0 and level == 0) or (before[0] == 0 and level > 0)):
            raise InputError(f"{path}, line {number}: item {item} of query {query} is nonrelevant (level 0) in one "
                             f"sub-group of judgment group {group} and relevant (above 0) in another (line "
                             f"{before[1]})")
        last[item] = (level, number)


def evaluate(judgments: str, run, names=None, *, rel_format: str = "prefs", all_queries: bool = False,
             max_retrieved: int | None = None, nan_scores: str = "error") -> list[tuple]:
    """(measure, query_id, value) rows of the preference measures the names ask for (None: trec_eval's prefs
    set): per query, then over the queries (query_id None: the counts summed, the others averaged, as trec_eval
    does); num_q when asked for. all_queries (-c): every judged query, a query the run lacks at 0."""
    wanted = measures.prefs_measures(names)
    max_retrieved = max_retrieved_count(max_retrieved)  # trec_eval's -M, checked as on every route
    prefs = read_prefs(judgments, rel_format)
    con = connections.private()
    reader = Reader(con, True, nan_scores)
    try:
        loaded = reader.load(run, RUN)
        register(con)
        score = "score" if loaded.has_score else "-rank"  # a run of ranks: the best rank the highest score
        con.sql(f"CREATE TEMP VIEW rm_prefs_run AS SELECT query_id, item_id, {score} AS score "
                f"FROM {loaded.relation.sql(dialect='duckdb')}")
        con.register("rm_prefs_judgments", prefs)
        in_run = {q for (q,) in con.sql("SELECT DISTINCT query_id FROM rm_prefs_run").fetchall()}
        judged = set(prefs.column("query_id").to_pylist())
        if in_run and judged and not in_run & judged:  # as on every route (it printed num_q 0 and zeros)
            raise no_common_query(loaded.label, judgments, (len(in_run), len(judged)))
        limit = "NULL" if max_retrieved is None else str(max_retrieved)
        relation = con.sql(f"SELECT * FROM trec_prefs('rm_prefs_run', 'rm_prefs_judgments', {limit}) "
                           f"ORDER BY query_id")
        columns, result = relation.columns, relation.fetchall()
    except duckdb.Error as e:
        raise InputError(first_line(e).replace("Invalid Input Error: ", "")) from None
    finally:
        reader.close()
        con.close()
    per_query = {row[0]: dict(zip(columns[1:], row[1:])) for row in result if all_queries or row[0] in in_run}
    rows: list[tuple] = []
    for name in wanted:
        values = {q: float(v[name]) for q, v in per_query.items()}
        rows += [(name, q, values[q]) for q in sorted(values)]
        total = measures.added_in_order(values[q] for q in sorted(values))  # in query order, as trec_eval
        rows.append((name, None, total if name in measures.PREFS_COUNTS else total / len(values) if values else 0.0))
    if measures.wants_num_q(names, "all_prefs"):
        rows.append((measures.NUM_Q, None, float(len(per_query))))
    return rows


def to_sql(*, dialect: str = "duckdb", run: str, prefs: str, max_retrieved: int | None = None,
           pretty: bool = True) -> str:
    """One SELECT in the dialect returning trec_eval's 14 preference measures per query (a column each; the rows
    of every query of the prefs table, as trec_prefs returns them) from the tables run (query_id, item_id, score)
    and prefs (query_id, jg, jsg, item_id, relevance): sql/prefs.sql's macro with its tables and max_retrieved
    bound, written by the dialect layer. An engine without recursive common table expressions cannot run it."""
    from sqlglot import exp

    from . import dialects, sqlsource
    dialects.get(dialect)
    if max_retrieved is not None and (not isinstance(max_retrieved, int) or max_retrieved < 1):
        raise UsageError(f"max_retrieved must be a whole number of at least 1, not {max_retrieved!r}")
    tables = {"run": dialects.table(run, dialect, "run table"), "prefs": dialects.table(prefs, dialect, "prefs table")}

    def read(node):
        if (isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous)
                and node.this.name.lower() == "query_table"):
            table = tables[node.this.expressions[0].name.lower()].copy()
            table.set("alias", node.args.get("alias"))
            return table
        return node
    def named(node):  # a column selected by its qualified name keeps its name (ClickHouse would call it p.x)
        if isinstance(node, exp.Select):
            node.set("expressions", [exp.alias_(e, e.name) if isinstance(e, exp.Column) and e.table else e
                                     for e in node.expressions])
        return node
    body = sqlsource.macros()["trec_prefs"].body.transform(read).transform(named, copy=False)
    body = sqlsource.substitute(body, {"max_retrieved": sqlsource.literal(max_retrieved)})
    return dialects.render(sqlsource.expand(body), dialect, pretty=pretty)
