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
_MEMORY: dict[str, str] = {}
_VERSION: list[str] = []


def _code_version() -> str:
    if not _VERSION:
        import sqlglot
        from . import sqlsource
        here = os.path.dirname(os.path.abspath(__file__))
        h = hashlib.sha256(sqlglot.__version__.encode())
        for path in sqlsource.sql_files() + [os.path.join(here, f) for f in (
                "sqlgen.py", "sqlsource.py", "measures.py", "conventions.py", "determinism.py", "plancache.py")]:
            with open(path, "rb") as fh:
                h.update(path.rsplit(os.sep, 1)[-1].encode() + b"\0" + fh.read())
        _VERSION.append(h.hexdigest())
    return _VERSION[0]


def _folder() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "rankmetrics-duckdb", "plans")


def duckdb_sql(measures, conv: dict, run, judgments) -> str:
    """The fused query's DuckDB SQL for the loaded inputs run and judgments (inputs.Loaded), its floating-point
    sums in value order (determinism.ordered)."""
    key = hashlib.sha256(json.dumps([
        _code_version(), [(m.requested, m.metric.name, m.k, list(m.params)) for m in measures],
        sorted((k, repr(v)) for k, v in conv.items()), run.has_score, run.has_rank,
    ]).encode()).hexdigest()[:32]
    text = _MEMORY.get(key)
    path = os.path.join(_folder(), key + ".sql")
    use_disk = not os.environ.get("RANKMETRICS_NO_CACHE")
    if text is None and use_disk:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            text = None
    if text is None:
        from sqlglot import exp
        from . import determinism, sqlgen
        plan = sqlgen.plan(measures, conv,
                           sqlgen.Source(exp.to_table(RUN_PLACEHOLDER), run.has_score, run.has_rank),
                           sqlgen.Source(exp.to_table(JUDGMENTS_PLACEHOLDER), True, False))
        text = determinism.ordered(plan.query).sql(dialect="duckdb")
        if use_disk:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    fh.write(text)
                os.replace(tmp, path)
            except OSError:
                pass
    _MEMORY[key] = text
    if text.count(RUN_PLACEHOLDER) != 1 or text.count(JUDGMENTS_PLACEHOLDER) != 1:
        raise RuntimeError("rankmetrics: the cached query does not have its two placeholder tables")
    return (text.replace(RUN_PLACEHOLDER, run.relation.sql(dialect="duckdb"))
                .replace(JUDGMENTS_PLACEHOLDER, judgments.relation.sql(dialect="duckdb")))
