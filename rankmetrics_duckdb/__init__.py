"""rankmetrics-duckdb: ranking metrics written once as SQL, run inside DuckDB and rendered for warehouses."""
from .api import Evaluation, evaluate, macros_sql, register, relation
from .comparison import compare
from .html_report import report
from .errors import InputError, RankMetricsError, UsageError
from .measures import METRICS, parse as parse_metric

__version__ = "0.1.0"
__all__ = ["evaluate", "register", "relation", "macros_sql", "Evaluation", "METRICS", "parse_metric",
           "InputError", "UsageError", "RankMetricsError", "compare", "report"]
