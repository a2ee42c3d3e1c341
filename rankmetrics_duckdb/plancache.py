"""A cache of the fused query's DuckDB SQL text, so that building it (parsing the macros with sqlglot, inlining,
folding: a few hundred milliseconds) happens once per set of measures and conventions, not on every call.

The query is built against two placeholder tables and cached as text, in memory and on disk (under
$XDG_CACHE_HOME or ~/.cache, `rankmetrics-duckdb/`; RANKMETRICS_NO_CACHE=1 turns the disk cache off). The key
covers everything the text depends on: the SQL files, the Python modules that generate the query, sqlglot's
version, the measures, the conventions and which columns the run has. An unwritable cache folder is ignored.
"""
from __future__ import annotations

import hashlib
import json
import os

RUN_PLACEHOLDER = "rankmetrics_placeholder_run_5f1e"
JUDGMENTS_PLACEHOLDER = "rankmetrics_placeholder_judgments_5f1e"
GROUPS_PLACEHOLDER = "rankmetrics_placeholder_groups_5f1e"  # the run's groups (sqlgen.Source.group_rows)
EMPTY_PLACEHOLDER = "rankmetrics_placeholder_empty_5f1e"  # a run of lists' empty lists (sqlgen.Source.empty_lists)
# the side tables some metrics read (sqlgen.SIDE_CTES: the training interactions, the catalog)
SIDE_PLACEHOLDERS = {"interactions": "rankmetrics_placeholder_interactions_5f1e",
                     "catalog": "rankmetrics_placeholder_catalog_5f1e",
                     "vectors": "rankmetrics_placeholder_vectors_5f1e",
                     "reference": "rankmetrics_placeholder_reference_5f1e"}
_MEMORY: dict[str, tuple[str, str]] = {}
_VERSION: list[str] = []


def _code_version() -> str:
    if not _VERSION:
        from .paths import sql_files
        here = os.path.dirname(os.path.abspath(__file__))
        h = hashlib.sha256(_sqlglot_version().encode())
        for path in sql_files() + [os.path.join(here, f) for f in (
                "sqlgen.py", "sqlsource.py", "measures.py", "conventions.py", "determinism.py", "plancache.py",
                "shape.py", "checks.py")]:
            with open(path, "rb") as fh:
                h.update(path.rsplit(os.sep, 1)[-1].encode() + b"\0" + fh.read())
        _VERSION.append(h.hexdigest())
    return _VERSION[0]


def _sqlglot_version() -> str:
    """sqlglot's version, read from its _version.py without importing sqlglot (a cache hit needs no sqlglot)."""
    import importlib.util
    spec = importlib.util.find_spec("sqlglot")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        try:
            with open(os.path.join(folder, "_version.py"), encoding="utf-8") as fh:
                return fh.read()
        except OSError:
            pass
    import sqlglot
    return sqlglot.__version__


def _folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rankmetrics-duckdb", "plans")


def _cached(key_items: list, build) -> tuple[str, ...]:
    """The text parts build() makes, cached in memory and on disk under a key of key_items and the code version."""
    key = hashlib.sha256(json.dumps([_code_version(), *key_items]).encode()).hexdigest()[:32]
    parts = _MEMORY.get(key)
    path = os.path.join(_folder(), key + ".json")
    use_disk = not os.environ.get("RANKMETRICS_NO_CACHE")
    if parts is None and use_disk:
        try:
            with open(path, encoding="utf-8") as fh:
                parts = tuple(json.load(fh))
        except (OSError, ValueError):
            parts = None
    if parts is None:
        parts = build()
        if use_disk:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(list(parts), fh)
                os.replace(tmp, path)
            except OSError:
                pass
    _MEMORY[key] = parts
    return parts


def _parts(measures, conv: dict, has_score: bool, has_rank: bool, top_n: bool, by: tuple = (),
           judged_by: tuple = (), sides: tuple = (), reference: tuple | None = None,
           presorted: bool = False, keep_ranking: bool = False, listed: bool = False) -> tuple[str, str]:
    """(the CTE list, the final SELECT) of the fused query's DuckDB text, built once and cached. by: the run's
    group columns; judged_by: those the judgments have; sides: the side tables given (SIDE_PLACEHOLDERS);
    reference: (has_score, has_rank) of the reference run (Intersection's; in the run's shape, its groups by);
    presorted: the run ranked in its input order (sqlgen.plan's presorted), its numbered rows kept in a
    materialized CTE with keep_ranking (sqlgen.plan's keep_ranking); listed: a run of lists, whose rows with an
    empty list are read from EMPTY_PLACEHOLDER (sqlgen.Source.empty_lists)."""
    def build():
        from sqlglot import exp
        from . import determinism, sqlgen
        plan = sqlgen.plan(measures, conv,
                           sqlgen.Source(exp.to_table(RUN_PLACEHOLDER), has_score, has_rank, groups=tuple(by),
                                         group_rows=exp.to_table(GROUPS_PLACEHOLDER) if by else None,
                                         empty_lists=exp.to_table(EMPTY_PLACEHOLDER) if listed else None),
                           sqlgen.Source(exp.to_table(JUDGMENTS_PLACEHOLDER), True, False, groups=tuple(judged_by)),
                           split_kinds=True, top_n=top_n, by=tuple(by),  # DuckDB only: see sqlgen (Spark mishandles that shape)
                           reference=None if reference is None else sqlgen.Source(
                               exp.to_table(SIDE_PLACEHOLDERS["reference"]), *reference, groups=tuple(by)),
                           presorted=presorted, keep_ranking=keep_ranking,
                           **{name: sqlgen.Source(exp.to_table(SIDE_PLACEHOLDERS[name])) for name in sides})
        query = determinism.ordered(plan.query)
        ctes = query.args["with_"].expressions
        final = query.copy()
        final.set("with_", None)
        return (", ".join(c.sql(dialect="duckdb") for c in ctes), final.sql(dialect="duckdb"))
    parts = _cached([
        [(m.requested, m.metric.name, m.k, list(m.params), list(m.average_of)) for m in measures],
        sorted((k, repr(v)) for k, v in conv.items()), has_score, has_rank, top_n, list(by), list(judged_by),
        list(sides), reference, presorted, keep_ranking, *(["listed"] if listed else [])], build)
    if (parts[0].count(RUN_PLACEHOLDER) != 1 or parts[0].count(JUDGMENTS_PLACEHOLDER) != 1
            or parts[0].count(GROUPS_PLACEHOLDER) != bool(by) or parts[0].count(EMPTY_PLACEHOLDER) != listed):
        raise RuntimeError("rankmetrics: the cached query does not have its placeholder tables")
    return parts


PROBE_ROWS = 4096  # the rows presorted_probe looks at: a few queries of a long run, every query of a short one


def presortable(conv: dict) -> bool:
    """Whether the fused query can rank a run in its input order (sqlgen.presortable), cached as the text is."""
    def build():
        from . import sqlgen
        return (sqlgen.presortable(conv),)
    return bool(_cached(["presortable", sorted((k, repr(v)) for k, v in conv.items())], build)[0])


def presorted_probe(conv: dict, has_score: bool, has_rank: bool, run_sql: str) -> str:
    """The DuckDB text of sqlgen.presorted_probe over run_sql (its first PROBE_ROWS rows out of rank order)."""
    def build():
        from sqlglot import exp
        from . import sqlgen
        probe = sqlgen.presorted_probe(conv, sqlgen.Source(exp.to_table(RUN_PLACEHOLDER), has_score, has_rank),
                                       PROBE_ROWS)
        return (probe.sql(dialect="duckdb"),)
    text = _cached(["probe", sorted((k, repr(v)) for k, v in conv.items()), has_score, has_rank, PROBE_ROWS],
                   build)[0]
    if text.count(RUN_PLACEHOLDER) != 1:
        raise RuntimeError("rankmetrics: the cached probe does not have its placeholder table")
    return text.replace(RUN_PLACEHOLDER, run_sql)


def presorted(con, measures, conv: dict, has_score: bool, has_rank: bool, run_sql: str, params=None,
              by: tuple = ()) -> bool:
    """Whether to rank the run (run_sql, a table name or a parenthesized subquery; params: its query's
    parameters) in its input order: the conventions allow it, there are no groups, no measure reads a side table
    or is computed over the whole run (those keep the one-stream shape, which sorts), and its first PROBE_ROWS
    rows come in rank order (presorted_probe). A guess only: the fused query checks every row (sqlgen.plan's
    presorted) and fails with checks.PRESORTED_FAULT if the guess was wrong."""
    if by or any(m.metric.tables or m.metric.scope == "catalog" for m in measures) or not presortable(conv):
        return False
    out = con.execute(presorted_probe(conv, has_score, has_rank, run_sql), params).fetchall()  # to its end
    return bool(out) and out[0][0] == 0


def duckdb_parts(measures, conv: dict, has_score: bool, has_rank: bool, run_sql: str,
                 judgments_sql: str, top_n: bool = False, by: tuple = (), judged_by: tuple = (),
                 sides: dict | None = None, reference=None, presorted: bool = False,
                 keep_ranking: bool = False, groups_sql: str | None = None,
                 empty_sql: str | None = None) -> tuple[str, str]:
    """(CTE list, final SELECT) of the fused query reading run_sql and judgments_sql (table names or
    parenthesized subqueries), for callers that add CTEs or wrap the final SELECT (onepass.py). top_n: see
    sqlgen.plan (the caller decides, with measures.top_n_pays). reference: the loaded reference run
    (inputs.Loaded), or None. groups_sql: where the run's groups are read (by), when not from run_sql
    (inputs.Loaded.group_rows). empty_sql: a run of lists' rows whose list is empty (inputs.Loaded.empty_lists), or
    None for a run that is not of lists."""
    sides = dict(sides or {})
    columns = None
    if reference is not None:
        columns = (reference.has_score, reference.has_rank)
        sides["reference"] = reference.relation.sql(dialect="duckdb")
    ctes, final = _parts(measures, conv, has_score, has_rank, top_n, by, judged_by,
                         tuple(sorted(n for n in sides if n != "reference")), columns, presorted, keep_ranking,
                         empty_sql is not None)
    ctes = (ctes.replace(RUN_PLACEHOLDER, run_sql).replace(JUDGMENTS_PLACEHOLDER, judgments_sql)
            .replace(GROUPS_PLACEHOLDER, groups_sql or run_sql))
    if empty_sql is not None:
        ctes = ctes.replace(EMPTY_PLACEHOLDER, empty_sql)
    for name, sql in sides.items():
        ctes = ctes.replace(SIDE_PLACEHOLDERS[name], sql)
    return ctes, final


def duckdb_sql(measures, conv: dict, run, judgments, top_n: bool = False, by: tuple = (),
               sides: dict | None = None, reference=None, presorted: bool = False) -> str:
    """The fused query's DuckDB SQL for the loaded inputs run and judgments (inputs.Loaded), its floating-point
    sums in value order (determinism.ordered); by: the run's group columns (Loaded.groups); sides: the side
    tables' names in DuckDB ({'interactions': ..., 'catalog': ...}); reference: the loaded reference run
    (Intersection's), or None."""
    ctes, final = duckdb_parts(measures, conv, run.has_score, run.has_rank, run.relation.sql(dialect="duckdb"),
                               judgments.relation.sql(dialect="duckdb"), top_n, by, judgments.groups, sides,
                               reference, presorted, groups_sql=run.group_rows, empty_sql=run.empty_lists)
    return f"WITH {ctes} {final}"
