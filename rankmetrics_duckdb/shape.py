"""The shape of the input tables: our names for their columns, and the macro parameters that map them.

A run has query_id, item_id and a score and/or a rank; judgments have query_id, item_id and relevance. Tables
with other names are read through a mapping {our name: the table's name} (Python's columns=, the command line's
--query-column ..., the DuckDB macros' query_column := ...). The macros of sql/ take these parameters besides
their metric's own; they describe the tables, not the metric, so the metric specs (measures.py) and the native
objects' argument lists (native.py) leave them out.
"""
from __future__ import annotations

COLUMNS = ("query_id", "item_id", "score", "rank", "relevance")

# our column name -> the macros' parameter naming the table's column
COLUMN_PARAMS = {name: ("query" if name == "query_id" else "item" if name == "item_id" else name) + "_column"
                 for name in COLUMNS}

# every parameter of sql/'s metric macros that describes the input tables (grouping and list columns included)
MACRO_PARAMS = tuple(COLUMN_PARAMS.values()) + ("by", "run_lists", "judgment_lists")
