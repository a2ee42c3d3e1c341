"""rankmetrics-duckdb: ranking metrics written once as SQL, run inside DuckDB and rendered for warehouses."""
from .errors import InputError, RankMetricsError, UsageError

from ._version import __version__  # noqa: F401
__all__ = ["evaluate", "prepare", "Prepared", "register", "relation", "macros_sql", "to_sql", "Evaluation", "METRICS",
           "parse_metric", "RelevanceEvaluator", "supported_measures", "compute_aggregated_measure",
           "InputError", "UsageError", "RankMetricsError", "compare", "report", "fuse"]

# The public names, each imported from its module on first use (PEP 562), so that `rankmetrics eval` does not
# import the comparison, report and SQL-building modules it does not need.
_LAZY = {"evaluate": "api", "register": "api", "relation": "api", "macros_sql": "api", "to_sql": "api",
         "Evaluation": "api", "prepare": "api", "Prepared": "api", "RelevanceEvaluator": "api", "supported_measures": "api",
         "compute_aggregated_measure": "api", "compare": "comparison", "report": "render", "METRICS": "measures",
         "parse_metric": ("measures", "parse"), "fuse": "fusion"}


def __getattr__(name):
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'rankmetrics_duckdb' has no attribute {name!r}")
    module, attr = where if isinstance(where, tuple) else (where, name)
    import importlib
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
