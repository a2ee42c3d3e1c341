"""The shape of the input tables: our names for their columns, and the macro parameters that map them.

A run has query_id, item_id and a score and/or a rank; judgments have query_id, item_id and relevance. Tables
with other names are read through a mapping {our name: the table's name} (Python's columns=, the command line's
--query-column ..., the DuckDB macros' query_column := ...). The macros of sql/ take these parameters besides
their metric's own; they describe the tables, not the metric, so the metric specs (measures.py) and the native
objects' argument lists (native.py) leave them out.
"""
from __future__ import annotations

from .errors import UsageError

COLUMNS = ("query_id", "item_id", "score", "rank", "relevance")

# Column names users already have, mapped to ours.
ALIASES = {
    "query_id": ("query_id", "qid", "query", "topic", "user_id", "user", "q_id", "queryid", "userid"),
    "item_id": ("item_id", "docno", "doc_id", "docid", "item", "doc", "document", "itemid", "pid", "passage_id"),
    "relevance": ("relevance", "rel", "label", "grade", "judgment", "rating", "qrel"),
    "score": ("score", "sim", "similarity", "prediction", "pred"),
    "rank": ("rank", "position", "pos"),
}

# our column name -> the macros' parameter naming the table's column
COLUMN_PARAMS = {name: ("query" if name == "query_id" else "item" if name == "item_id" else name) + "_column"
                 for name in COLUMNS}

# every parameter of sql/'s metric macros that describes the input tables (grouping and list columns included)
MACRO_PARAMS = tuple(COLUMN_PARAMS.values()) + ("by", "run_lists", "judgment_lists")


def _names(value, what: str) -> tuple:
    if value is None:
        return ()
    names = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise UsageError(f"{what} must be column names, not {value!r}")
    if len(set(names)) != len(names):
        raise UsageError(f"{what} names a column twice: {', '.join(names)}")
    return names


class Shape:
    """How the input tables hold the data: their column names (columns: {our name: theirs}), the run's group
    columns (by; judgments_by: those the judgments have too, for the SQL routes, which do not look at the tables)
    and whether the item columns are lists (run_lists, judgment_lists). Every route checks these here."""

    def __init__(self, columns=None, by=None, judgments_by=None, run_lists=False, judgment_lists=False):
        columns = dict(columns or {})
        unknown = sorted(set(columns) - set(COLUMNS))
        if unknown:
            raise UsageError(f"columns: unknown key(s) {', '.join(map(repr, unknown))}; the keys are our column "
                             f"names: {', '.join(COLUMNS)}")
        for key, name in columns.items():
            if not isinstance(name, str) or not name.strip():
                raise UsageError(f"columns: {key} must name a column, not {name!r}")
        self.columns = {k: v for k, v in columns.items() if v != k}
        self.by = _names(by, "by")
        self.judgments_by = _names(judgments_by, "judgments_by")
        extra = [g for g in self.judgments_by if g not in self.by]
        if extra:
            raise UsageError(f"judgments_by: {', '.join(extra)} is not a group column (by)")
        for name, value in (("run_lists", run_lists), ("judgment_lists", judgment_lists)):
            if not isinstance(value, bool):
                raise UsageError(f"{name} must be True or False, not {value!r}")
        self.run_lists, self.judgment_lists = run_lists, judgment_lists
        used = set(self.columns.values()) | {k for k in COLUMNS if k not in self.columns}
        clash = [g for g in self.by if g in used]
        if clash:
            raise UsageError(f"by: {', '.join(clash)} is one of the run's id, score or rank columns")

    def column(self, name: str) -> str:
        return self.columns.get(name, name)

    def __bool__(self):
        return bool(self.columns or self.by or self.run_lists or self.judgment_lists)
