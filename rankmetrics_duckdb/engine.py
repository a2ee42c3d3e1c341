"""DuckDB for the package: its engine alone until something needs the rest of its Python module.

`import duckdb` costs about 0.05 s since DuckDB 2.0, whose relation API is Python code (duckdb._relation) and
whose version is read through importlib.metadata: 7% of `rankmetrics eval` on the benchmark's TREC files (issue
19, round 18), which needs only the engine (a connection, execute, fetchall, the exception classes). The engine is
the extension module `_duckdb`; the `duckdb` module re-exports its classes and functions as they are
(duckdb.Error is _duckdb.Error, duckdb.connect is _duckdb.connect) and adds to them: methods of the connection
class (sql, table, the Arrow fetches), and what DuckDB needs to scan Python's Arrow objects.

`duckdb` here stands for that module, for every other module of the package (`from .engine import duckdb`):
- once `duckdb` is imported (by the caller, or by anything below), it is that module, attribute for attribute;
- before, with DuckDB 2 or later, the names in ENGINE are read from `_duckdb`, a connection it makes is a Lean
  one, and DuckDBPyRelation is a class with no instance (only the duckdb module makes relations); any other name
  imports duckdb first, as `import duckdb` would have;
- with an older DuckDB (its engine in another place, and its module cheap to import), it is the module.
"""
from __future__ import annotations

import importlib
import sys


def _engine():
    """The engine's module `_duckdb` with DuckDB 2 or later (the one tried), else None (the duckdb module)."""
    try:
        import _duckdb
    except ImportError:  # DuckDB before 1.4: the engine is duckdb.duckdb
        return None
    major = str(getattr(_duckdb, "__version__", "")).lstrip("v").split(".")[0]
    return _duckdb if major.isdigit() and int(major) >= 2 else None


_duckdb = _engine()

# the engine's names the package reads without the module, and its connection's attributes that need nothing of
# the module (those the module adds, and the Arrow and pandas fetches and scans, need it)
ENGINE = frozenset({"DuckDBPyConnection", "Error", "InterruptException", "TransactionException"})
CONNECTION = frozenset({"fetchall", "fetchone", "fetchmany", "description", "rowcount", "close", "interrupt",
                        "begin", "commit", "rollback"})
MODULE = "duckdb"  # the module's name (in sys.modules once imported)


def module():
    """The duckdb module, imported if it is not yet (or, while another thread imports it, once that is done)."""
    return importlib.import_module(MODULE)


class _NoRelation:
    """duckdb.DuckDBPyRelation before duckdb is imported: nothing can be a relation yet."""


class Lean:
    """A connection made before the duckdb module was imported: what the package calls on the engine's own
    connection (execute, cursor, CONNECTION) is forwarded; any other attribute (sql, the Arrow
    fetches, register, whose Arrow scans need the module's set-up) imports duckdb first, then is read from the
    engine's connection, which has it from then on."""
    __slots__ = ("_con",)

    def __init__(self, con):
        self._con = con

    def execute(self, *args, **kwargs):
        self._con.execute(*args, **kwargs)
        return self

    def cursor(self):
        return Lean(self._con.cursor())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._con.close()
        return False

    def __getattr__(self, name):
        if name not in CONNECTION:
            module()
        return getattr(self._con, name)


def _connect(*args, **kwargs):
    if MODULE in sys.modules:
        return module().connect(*args, **kwargs)
    return Lean(_duckdb.connect(*args, **kwargs))


class _Module:
    """Stands for the duckdb module (see the module's text)."""

    def __getattr__(self, name):
        if _duckdb is not None and MODULE not in sys.modules:
            if name == "connect":
                return _connect
            if name == "DuckDBPyRelation":
                return _NoRelation
            if name in ENGINE:
                return getattr(_duckdb, name)
        return getattr(module(), name)

    def __repr__(self):
        return "<duckdb, imported when first needed (rankmetrics_duckdb.engine)>"


duckdb = _Module()
