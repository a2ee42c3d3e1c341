"""Invariants the design relies on, which no behaviour test would notice breaking.

- A cached `rankmetrics eval` imports neither sqlglot nor the query builder (sqlgen): the plan cache
  (plancache.py) holds the query's text, and the modules that need sqlglot only for some calls load it lazily
  (_lazy.py). An eager import anywhere on the path costs about a tenth of a small eval.
- The dialect registry (dialects.DIALECTS) is the one list of dialects: the CLI's help is derived from it, every
  dialect has a test engine, and no module outside dialects.py branches on a dialect's name (what differs
  between engines is a field of the dialect's record).
"""
from __future__ import annotations

import ast
import glob
import os
import re
import subprocess
import sys

from rankmetrics_duckdb import dialects

from conftest import ROOT, cli
import engines

PACKAGE = os.path.join(ROOT, "rankmetrics_duckdb")


# --- a cached eval needs no sqlglot ---------------------------------------------------------------------------

def _imported(args, home) -> tuple[set[str], str]:
    """The modules a `rankmetrics` run imports (python -X importtime), and its stdout. HOME and XDG_CACHE_HOME
    point at home, where plancache._folder() keeps the plan cache."""
    env = {k: v for k, v in os.environ.items() if k != "RANKMETRICS_NO_CACHE"}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / "cache"))
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "rankmetrics_duckdb", *args], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    modules = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    return modules, p.stdout


def test_cached_eval_imports_neither_sqlglot_nor_the_query_builder(tmp_path):
    # clean TREC text (single spaces), so eval takes its usual one-statement path (onepass.py)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n2 0 e 1\n")
    run.write_text("1 Q0 a 1 3.0 r\n1 Q0 c 2 2.0 r\n1 Q0 x 3 1.0 r\n2 Q0 e 1 2.5 r\n2 Q0 y 2 1.5 r\n")
    args = ["eval", str(qrels), str(run), "-m", "nDCG@10", "-m", "AP", "-m", "P@5", "-q"]
    first, first_out = _imported(args, tmp_path)
    # the first run builds the query: the import list does show sqlglot and sqlgen when they are imported
    assert "sqlglot" in first and "rankmetrics_duckdb.sqlgen" in first
    assert glob.glob(str(tmp_path / "cache" / "rankmetrics-duckdb" / "plans" / "*.json")), "no plan cached"
    second, second_out = _imported(args, tmp_path)
    assert second_out == first_out
    assert "rankmetrics_duckdb.cli" in second and "rankmetrics_duckdb.dialects" in second  # the help's names
    leaked = sorted(m for m in second if m == "sqlglot" or m.startswith("sqlglot.")
                    or m in ("rankmetrics_duckdb.sqlgen", "rankmetrics_duckdb.sqlsource",
                             "rankmetrics_duckdb.determinism", "rankmetrics_duckdb.native"))
    assert not leaked, f"a cached eval imported {', '.join(leaked)}"


# --- the registry is the one list of dialects ----------------------------------------------------------------

def _dialect_option_help(command: str) -> set[str]:
    """The dialect names that `rankmetrics COMMAND -h` lists under --dialect."""
    text = cli(command, "-h").stdout
    block = re.search(r"^  --dialect.*?(?=^  -|\Z)", text, re.M | re.S)
    assert block, f"no --dialect option in `rankmetrics {command} -h`"
    return set(re.findall(r"[a-z]+", block.group(0))) & set(dialects.names())


def test_every_dialect_of_the_registry_is_in_the_cli_help():
    assert _dialect_option_help("sql") == set(dialects.names())
    assert _dialect_option_help("macros") == set(dialects.native_names())
    assert set(dialects.native_names()) < set(dialects.names())


def test_every_dialect_has_a_test_engine():
    """A dialect runs on a real engine in the tests, or its SQL is read back into DuckDB and kept as a golden
    file (tests/engines.py, tests/golden/)."""
    assert set(engines.REAL) | set(engines.READ_BACK) == set(dialects.names())
    golden = os.path.join(ROOT, "tests", "golden")
    assert [d for d in engines.READ_BACK if not os.path.exists(os.path.join(golden, f"{d}.sql"))] == []


def _names_in(node) -> list[str]:
    """The dialect names a literal spells: a string, or a tuple/list/set of strings."""
    known = set(dialects.names()) | {d.sqlglot for d in dialects.DIALECTS.values()}
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)
            and i.value.strip().lower() in known]


def _branches_on_dialect_names(path: str) -> list[str]:
    """Places in the module at path that decide by a dialect's name: a comparison with a name (== 'postgres',
    in ('spark', 'databricks')), a dict keyed by names, a match case on a name."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                names += _names_in(operand)
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                if key is not None:
                    names += _names_in(key)
        elif isinstance(node, ast.MatchValue):
            names += _names_in(node.value)
        if names:
            found.append((node.lineno, f"{os.path.basename(path)}:{node.lineno}: {', '.join(sorted(set(names)))}"))
    return [text for _, text in sorted(found)]


def test_the_scan_finds_branches_on_dialect_names(tmp_path):
    # the scan below must see the forms it looks for
    probe = tmp_path / "probe.py"
    probe.write_text("if d == 'clickhouse':\n    pass\n"
                     "x = d in ('spark', 'Databricks')\n"
                     "y = {'postgres': 1}[d]\n"
                     "match d:\n    case 'tsql':\n        pass\n"
                     "z = t.sql(dialect='duckdb')\n")  # an argument naming the dialect to write is no branch
    assert [f.split(":")[1] for f in _branches_on_dialect_names(str(probe))] == ["1", "3", "4", "6"]


def test_no_module_outside_dialects_branches_on_a_dialect_name():
    modules = sorted(glob.glob(os.path.join(PACKAGE, "*.py")))
    assert os.path.join(PACKAGE, "dialects.py") in modules and os.path.join(PACKAGE, "native.py") in modules
    found = [f for path in modules if os.path.basename(path) != "dialects.py"
             for f in _branches_on_dialect_names(path)]
    assert not found, ("decisions by a dialect's name belong in its record in dialects.py:\n  "
                       + "\n  ".join(found))
