"""Where the SQL source of truth lies, and how output files are written (no imports beyond os at start-up: the
plan cache reads sql_files on every start)."""
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


def write_atomic(path: str, write) -> None:
    """Call write(tmp) on a temporary file in path's folder, then rename it to path: an interrupted run leaves no
    half-written file. The file gets the usual permissions (0666 less the umask; mkstemp's are 0600)."""
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".rankmetrics-", suffix=os.path.splitext(path)[1], dir=folder)
    os.close(fd)
    try:
        write(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
