"""DuckDB connections of rankmetrics' own (never a caller's): each a cursor of one in-memory database kept for the
process.

A new in-memory database costs more than its start (12 ms): its first statements run on memory its allocator
has not mapped yet. W2M's evaluate() on Arrow tables, alternating: 0.58 s median on a new database each call,
0.51 s on a cursor of one kept (issue 19, round 9). A cursor is a connection of its own: its temporary tables
and views, its registered frames and its local settings (the progress bar) are not seen by any other cursor,
and closing it drops them. The database's global settings (memory_limit, threads, temp_directory,
disabled_optimizers) are DuckDB's defaults: a request for other limits gets a database of its own (api's
_connect), and the one global setting changed here (onepass._unsplit_windows) is changed under a lock and set
back. A child process after a fork makes a database of its own (a database's threads do not survive a fork) and
leaves its parent's alone."""
from __future__ import annotations

import os
import threading

from .engine import duckdb

_LOCK = threading.Lock()
# the database of each process id: a forked child keeps its parent's entry, never closed there (closing it would
# wait for the parent's threads, which the child does not have)
_DATABASES: dict[int, duckdb.DuckDBPyConnection] = {}
# held by whoever changes a global setting of the database (seen by every cursor) until it is set back, so that
# evaluations in two threads never find each other's value and set it back as theirs
GLOBAL_SETTINGS = threading.Lock()


def _forked() -> None:
    """In a child after a fork: new locks (a parent's thread may have held one), and its parent's database left
    alone for good: closing it, also at the child's exit when the module's names are dropped, would wait for the
    parent's threads, which the child does not have. One reference more, never given back, keeps it open."""
    import ctypes
    global _LOCK, GLOBAL_SETTINGS
    _LOCK, GLOBAL_SETTINGS = threading.Lock(), threading.Lock()
    for database in _DATABASES.values():
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(database))


os.register_at_fork(after_in_child=_forked)


def private() -> duckdb.DuckDBPyConnection:
    """A new connection (a cursor) to the process's in-memory database, with DuckDB's default settings."""
    with _LOCK:
        database = _DATABASES.get(os.getpid())
        if database is None:
            database = _DATABASES[os.getpid()] = duckdb.connect()
        return database.cursor()


def shared(memory_limit, threads) -> bool:
    """Whether an evaluation with these limits runs on the process's database (private()); with a memory limit
    or a thread count it has a database of its own (api._connect)."""
    return not memory_limit and threads is None


def open_early() -> None:
    """Make the process's database now, in a thread: duckdb.connect() takes 0.015-0.03 s and lets Python run
    meanwhile, so `rankmetrics eval` imports its modules and searches its files beside it (issue 19); private()
    waits for it under the lock, or makes it itself if the thread has not started yet."""
    if os.getpid() not in _DATABASES:
        threading.Thread(target=lambda: private().close(), name="rankmetrics-database").start()


# The settings of a caller's connection under which rankmetrics' SQL would compute other numbers, with the values
# it is written for (DuckDB's defaults): an ORDER BY without ASC or DESC, where NULLs sort (DuckDB's SQL as sqlglot
# writes it leaves out NULLS LAST, its default), and how strings compare (ids compare byte-wise: under 'nocase'
# item 'A' would match the judgment of 'a', and an ORDER BY of ids would sort case-blind).
NEUTRAL_SETTINGS = {"default_order": ("asc", "ascending"), "default_null_order": ("nulls_last",),
                    "default_collation": ("", "binary")}


def check_settings(con) -> None:
    """A usage error when a caller's connection has a setting of NEUTRAL_SETTINGS changed: under it the metrics'
    SQL (the macros too) would return other numbers without a word (default_order 'DESC' turned MAP 0.583 into
    0.667). One read of the settings, which cannot fail a transaction."""
    from .errors import UsageError
    names = list(NEUTRAL_SETTINGS)
    # fetchall: DuckDB 2.0 keeps a result not fetched to its end open, and the connection refuses the next query
    values = con.execute("SELECT " + ", ".join(f"current_setting('{n}')" for n in names)).fetchall()[0]
    for name, value in zip(names, values):
        if str(value).strip().lower() not in NEUTRAL_SETTINGS[name]:
            raise UsageError(f"the connection's {name} is '{value}': rankmetrics' SQL is written for DuckDB's default "
                             f"({NEUTRAL_SETTINGS[name][0] or 'none'}) and would compute other numbers; RESET "
                             f"{name} on this connection, or pass the tables as relations or frames without con=")

