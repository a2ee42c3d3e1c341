"""Exceptions with one-line messages naming what is at fault. The command line prints them without a traceback."""


class RankMetricsError(Exception):
    """Base class: every error the package raises on purpose."""


class UsageError(RankMetricsError, ValueError):
    """A metric name, parameter, convention or dialect that does not exist or does not fit."""


class InputError(RankMetricsError, ValueError):
    """Input data that cannot be evaluated as given: a file, column, query, item or value at fault."""


def flag(name: str, value, also: str | None = None) -> bool:
    """A switch of the Python API (per_query, pretty, run_lists, ...): True or False (numpy's bool too), else a
    UsageError naming it; 'no' was taken as true. also: a word the caller takes besides (judgment_lists' 'ones'),
    named in the message."""
    if type(value).__name__ not in ("bool", "bool_"):
        raise UsageError(f"{name} must be True{', False' if also else ' or False'}"
                         f"{f' or {also!r}' if also else ''}, not {value!r}")
    return bool(value)


def first_line(error: BaseException) -> str:
    """The first line of an exception's message (DuckDB's carry a context block below it), or its type's name
    when it has no message."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
