"""The shape of the input tables: our names for their columns, and the macro parameters that map them.

A run has query_id, item_id and a score and/or a rank; judgments have query_id, item_id and relevance. Tables
with other names are read through a mapping {our name: the table's name} (Python's columns=, the command line's
--query-column ..., the DuckDB macros' query_column := ...). The macros of sql/ take these parameters besides
their metric's own; they describe the tables, not the metric, so the metric specs (measures.py) and the native
objects' argument lists (native.py) leave them out.
"""
from __future__ import annotations

from .errors import UsageError, flag

COLUMNS = ("query_id", "item_id", "score", "rank", "relevance")
# the columns of the results, beside the group columns (by): Python's rows and to_arrow(), the CLI's JSON and CSV,
# the SQL routes' SELECT
OUTPUT_COLUMNS = ("measure", "query_id", "value", "aggregate")

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

# The tables beside the run and the judgments that the recommender metrics read (Metric.tables), by the input
# holding them: the training interactions (interactions=, --interactions) and the items (items=, --items: the
# catalog, with the items' vectors for IntraListDiversity); our names for their columns. measures.side_inputs
# says which input each side table of a metric (interactions, catalog, vectors) is read from.
SIDE_COLUMNS = {"interactions": ("user_id", "item_id"), "items": ("item_id", "embedding")}
# input -> our column name -> the option naming the input's column (--interactions-user-column; dbt's
# interactions_user_column=); Python takes them as a mapping, interactions_columns={'user_id': 'uid'}
SIDE_PARAMS = {role: {ours: f"{role}_{ours.split('_')[0]}_column" for ours in names}
               for role, names in SIDE_COLUMNS.items()}


def _names(value, what: str) -> tuple:
    if value is None:
        return ()
    if isinstance(value, str):
        names = (value,)
    elif isinstance(value, (list, tuple)):
        names = tuple(value)
    else:
        raise UsageError(f"{what} must be a column name or a list of them, not {value!r}")
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise UsageError(f"{what} must be column names, not {value!r}")
    if len(set(names)) != len(names):
        raise UsageError(f"{what} names a column twice: {', '.join(names)}")
    return names


def _mapping(value, keys, what: str) -> dict:
    """A mapping {our column name (one of keys): the input's column}, checked (the run's and judgments' columns,
    a side input's)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UsageError(f"{what} must map our column names ({', '.join(keys)}) to yours, not {value!r}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise UsageError(f"{what}: unknown key(s) {', '.join(map(repr, unknown))}; the keys are our column names: "
                         f"{', '.join(keys)}")
    for key, name in value.items():
        if not isinstance(name, str) or not name.strip():
            raise UsageError(f"{what}: {key} must name a column, not {name!r}")
    return dict(value)


class Shape:
    """How the input tables hold the data: their column names (columns: {our name: theirs}), the run's group
    columns (by; judgments_by: those the judgments have too, for the SQL routes, which do not look at the tables)
    and whether the item columns are lists (run_lists, judgment_lists); the side inputs' column names
    (interactions_columns, items_columns: {our name: theirs}, SIDE_COLUMNS). Every route checks these here."""

    def __init__(self, columns=None, by=None, judgments_by=None, run_lists=False, judgment_lists=False,
                 interactions_columns=None, items_columns=None, tables=False, empty_queries=False):
        columns = _mapping(columns or None, COLUMNS, "columns")
        if judgment_lists == "ones":  # each listed item relevant, grade 1 (MLlib's label arrays): no grades list
            if "relevance" in columns:
                raise UsageError(f"judgment_lists='ones' gives each listed item grade 1, and columns names a "
                                 f"relevance column ({columns['relevance']}) of grades: give one of them")
            judgment_lists = True
        elif flag("judgment_lists", judgment_lists, also="ones") and tables:
            # SQL over tables nobody read first (tables: to_sql, rankmetrics sql and macros) cannot see whether a
            # grades list is there: it reads the one named as the relevance column, ours (relevance) unless named,
            # as eval and the dbt package read a relevance list; a table without one fails in the engine, where
            # every listed item silently had grade 1. judgment_lists='ones' says there is none.
            columns.setdefault("relevance", "relevance")
        judgment_lists = bool(judgment_lists)  # numpy's bool too
        # a name equal to ours is ours, but for the judgments' grades beside item lists: naming the column says
        # the grades are a parallel list (left out, every listed item is relevant, grade 1)
        self.columns = {k: v for k, v in columns.items() if v != k or (k == "relevance" and judgment_lists)}
        self.by = _names(by, "by")
        self.judgments_by = _names(judgments_by, "judgments_by")
        extra = [g for g in self.judgments_by if g not in self.by]
        if extra:
            raise UsageError(f"judgments_by: {', '.join(extra)} is not a group column (by)")
        flag("run_lists", run_lists)
        self.run_lists, self.judgment_lists = run_lists, judgment_lists
        # a run names queries mapped to no item (a dict's {query: {}}: inputs.empty_queries), read as a shape whose
        # view holds them (warehouse.view), as a run of lists' empty lists
        self.empty_queries = bool(empty_queries)
        # the results carry the group columns beside these: a group named like one would overwrite it (a JSON
        # key, an Arrow or CSV column) or be overwritten; SQL engines fold the case of names, so any case clashes
        clash = [g for g in self.by if g.lower() in OUTPUT_COLUMNS]
        if clash:
            raise UsageError(f"by: a group column named {', '.join(repr(g) for g in clash)} would clash with the "
                             f"results' own columns ({', '.join(OUTPUT_COLUMNS)}); rename it in a view or "
                             f"query (SELECT {clash[0]} AS {clash[0].lower()}_group, ...)")
        # a group column named as one of ours (score), even when ours is another column (score read from pred):
        # the routes wrote the mapped column (r.pred) for the group
        used = set(self.columns.values()) | set(COLUMNS)
        clash = [g for g in self.by if g in used or g.lower() in COLUMNS]
        if clash:
            raise UsageError(f"by: {', '.join(clash)} is one of the run's id, score or rank columns, or has one of "
                             f"their names ({', '.join(COLUMNS)}); rename the group column in a view or query")
        if tables and self.by and judgments_by is None:
            # SQL over tables nobody read first cannot see which group columns the judgments have: shared judgments
            # of a table that has one (labels per day) gave each group the judgments of every group, silently
            raise UsageError(f"by: say which of the group columns the judgments table has too (the SQL cannot see "
                             f"it): judgments_by=[...] (--judgments-by COLUMN), or judgments_by=[] "
                             f"(--shared-judgments) when it has none of {', '.join(self.by)} and its judgments serve "
                             f"every group")
        # as given (a name given equal to ours still says the input has that column: native.script's vectors)
        self.sides = {role: _mapping(value, SIDE_COLUMNS[role], f"{role}_columns")
                      for role, value in (("interactions", interactions_columns), ("items", items_columns))}

    def side_columns(self, role: str, names=None) -> dict:
        """{our name: the input's column} of the side input role ('interactions' or 'items') where they differ,
        for our columns names (default: all of SIDE_COLUMNS[role])."""
        return {k: v for k, v in self.sides[role].items() if v != k and (names is None or k in names)}

    def column(self, name: str) -> str:
        return self.columns.get(name, name)

    def __bool__(self):  # the run's and the judgments' shape (the side inputs are read apart: inputs.load_side)
        return bool(self.columns or self.by or self.run_lists or self.judgment_lists or self.empty_queries)
