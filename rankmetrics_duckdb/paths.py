"""Where the SQL source of truth lies (no imports beyond os: the plan cache reads it on every start)."""
from __future__ import annotations

import os


def sql_dir() -> str:
    """The folder holding the SQL files: inside the installed package, or the repository's top-level sql/."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "sql"), os.path.join(os.path.dirname(here), "sql")):
        if os.path.isdir(candidate):
            return candidate
    raise FileNotFoundError("rankmetrics_duckdb: the sql/ folder of the package is missing")


def sql_files() -> list[str]:
    folder = sql_dir()
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".sql")]
