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


def literal(path: str) -> str:
    """path as DuckDB's file readers (read_csv, read_parquet) must be given it to open exactly that one file.

    Those readers expand a leading '~' and glob '*', '?' and '[...]' (a list of paths too), so 'run[1]' would
    read 'run1'. An absolute path has no leading '~'; in a path with glob characters each of * ? [ and the
    escape \\ becomes a one-character class ([*] [?] [[] [\\]), which matches only itself."""
    path = os.path.abspath(path)
    if any(c in path for c in "*?["):
        path = "".join(f"[{c}]" if c in "*?[\\" else c for c in path)
    return path


def check_output(path: str, inputs) -> None:
    """Refuse (UsageError) an output path that cannot or must not be written: its folder is missing or not a
    folder, it is a folder, or it is one of the inputs (the same file through any name, symbolic or hard link:
    os.path.samefile compares device and inode)."""
    from .errors import UsageError
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise UsageError(f"cannot write {path}: the folder {folder} {what}")
    if os.path.isdir(path):
        raise UsageError(f"cannot write {path}: it is a folder")
    if os.path.exists(path):
        for item in inputs:
            if isinstance(item, (str, os.PathLike)) and os.path.exists(item) and os.path.samefile(path, item):
                raise UsageError(f"the output {path} is the input {os.fspath(item)}: refusing to overwrite it; "
                                 f"choose another -o")


def write_atomic(path: str, write) -> None:
    """Call write(tmp) on a temporary file in the output's folder, then rename it to the output: an interrupted
    run leaves no half-written file. The file gets the usual permissions (0666 less the umask; mkstemp's are
    0600). A symbolic link is written through (its target is the output, the link stays), and an output that is
    not a regular file (/dev/null, /dev/stdout's terminal, a FIFO) is written into, never replaced: the bytes go
    through the temporary file, then are copied into it."""
    import stat
    import tempfile
    check_output(path, ())
    # not a regular file, through its links (/dev/stdout -> /proc/self/fd/1 -> a pipe, whose resolved name,
    # 'pipe:[...]', names nothing): written into by its own name
    special = os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode)
    target = os.path.realpath(path) if os.path.islink(path) and not special else path
    if target != path:
        check_output(target, ())
    folder = tempfile.gettempdir() if special else os.path.dirname(os.path.abspath(target))
    try:
        _write_through(path, target, special, folder, write)
    except OSError as e:  # a folder not writable, a full disk, a name too long: said of the output, in one line
        from .errors import RankMetricsError  # neither a usage nor an input error: exit 1
        raise RankMetricsError(f"cannot write {path}: {e.strerror or e}") from None


def write_text(path: str, text: str) -> None:
    """Write text to path (UTF-8) atomically (write_atomic)."""
    def put(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
    write_atomic(path, put)


def _write_through(path: str, target: str, special: bool, folder: str, write) -> None:
    """write_atomic's writing: write(a temporary file in folder), then the rename onto target, or the copy into
    it when it is not a regular file."""
    import shutil
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=".rankmetrics-", suffix=os.path.splitext(path)[1], dir=folder)
    os.close(fd)
    try:
        write(tmp)
        if special:
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.unlink(tmp)
            return
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
