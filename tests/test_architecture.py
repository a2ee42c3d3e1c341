"""Invariants the design relies on, which no behaviour test would notice breaking.

- A cached `rankmetrics eval` imports neither sqlglot nor the query builder (sqlgen): the plan cache
  (plancache.py) holds the query's text, and the modules that need sqlglot only for some calls load it lazily
  (_lazy.py). An eager import anywhere on the path costs about a tenth of a small eval. Nor does it import the
  duckdb module, only DuckDB's engine (engine.py).
- The dialect registry (dialects.DIALECTS) is the one list of dialects: the CLI's help is derived from it, every
  dialect has a test engine, and no module outside dialects.py branches on a dialect's name (what differs
  between engines is a field of the dialect's record).
- The modules form layers (LAYERS): no import circle, no module imports one of its own or a higher layer, and
  only the command line (cli.py) parses arguments.
- How a metric is averaged (avg, sum, geometric mean) is one property, its measures.Aggregate: no module outside
  measures.py decides it by a name such as 'sum'; the geometric mean is checked by hand through the fused query.
- A metric's defaults are written once, in its macro's signature in sql/: Metric.defaults is read off it.
"""
from __future__ import annotations

import ast
import glob
import os
import re
import subprocess
import sys

import duckdb
import pytest

from rankmetrics_duckdb import dialects, measures

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
                             "rankmetrics_duckdb.determinism", "rankmetrics_duckdb.native",
                             "pyarrow", "numpy", "duckdb"))  # pyarrow and numpy: 0.1 s of start-up nobody
    #                                 needs here; the duckdb module (not its engine, _duckdb): 0.05 s (engine.py)
    assert not leaked, f"a cached eval imported {', '.join(leaked)}"


def test_cached_eval_of_parquet_files_imports_neither_sqlglot_nor_pyarrow(tmp_path):
    """The same on Parquet files (their columns named through inputs.quoted, their footers read by DuckDB when
    warehouse.item_lists looks for item lists): sqlglot's import was 0.08 s of the CLI's time there."""
    con = duckdb.connect()
    qrels, run = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    con.execute(f"COPY (SELECT * FROM (VALUES ('1', 'a', 1), ('1', 'b', 0), ('2', 'd', 1)) "
                f"AS t(query_id, item_id, relevance)) TO '{qrels}' (FORMAT parquet)")
    con.execute(f"COPY (SELECT * FROM (VALUES ('1', 'a', 3.0), ('1', 'x', 1.0), ('2', 'd', 2.5)) "
                f"AS t(query_id, item_id, score)) TO '{run}' (FORMAT parquet)")
    args = ["eval", str(qrels), str(run), "-m", "nDCG@10", "-m", "AP", "-q"]
    _imported(args, tmp_path)
    second, _ = _imported(args, tmp_path)
    leaked = sorted(m for m in second if m == "sqlglot" or m.startswith("sqlglot.")
                    or m in ("pyarrow", "numpy", "duckdb"))
    assert not leaked, f"a cached eval of Parquet files imported {', '.join(leaked)}"


# --- the registry is the one list of dialects ----------------------------------------------------------------

def _dialect_option_help(command: str) -> set[str]:
    """The dialect names that `rankmetrics COMMAND -h` lists under --dialect."""
    text = cli(command, "-h").stdout
    block = re.search(r"^  --dialect.*?(?=^  -|\Z)", text, re.M | re.S)
    assert block, f"no --dialect option in `rankmetrics {command} -h`"
    return set(re.findall(r"[a-z]+", block.group(0))) & set(dialects.names())


def test_every_dialect_of_the_registry_is_in_the_cli_help():
    assert _dialect_option_help("sql") == set(dialects.names())
    assert _dialect_option_help("macros") == set(dialects.native_names()) | set(dialects.helper_names())
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


# --- the modules form layers: no import circle, no upward import, argparse only in the command line ---------

# Every module of the package, by layer from the bottom: a module imports only modules of lower layers (the one
# statement of the layering; the tests below read the imports from the source and hold them to it).
LAYERS = (
    ("errors", "_lazy", "_version", "checks", "engine"),            # import nothing of the package
    ("paths", "shape", "textfiles", "connections"),                  # files: SQL folder, literal paths, outputs; our connections
    ("conventions", "stats", "determinism", "inputs", "sqlsource"),  # presets, tests, order, readers, macros
    ("measures", "dialects", "warehouse", "fusion"),                 # metric specs; the dialect registry; fuse
    ("sqlgen",),                                                     # the query builder
    ("plancache", "native"),                                         # cached queries; warehouse objects
    ("onepass", "dbt", "diversity"),                                 # eval's one-statement path; the dbt package; diversity
    ("api",),                                                        # evaluate, Evaluation, to_sql, ...
    ("comparison", "judgment_groups", "preferences"),                # compare; eval -R qrels_jg; -R prefs
    ("render",),                                                     # what eval, compare and report show
    ("cli", "__init__"),                                             # the command line; the lazy public names
    ("__main__",),
)
LAYER = {module: level for level, modules in enumerate(LAYERS) for module in modules}


def _package_imports(path: str, modules: set[str]) -> dict[str, list[int]]:
    """The modules of the package that the module at path imports -> the lines: import statements anywhere
    (in functions too), LazyModule("rankmetrics_duckdb.x"), and in __init__.py the modules of _LAZY (imported by
    importlib on first use). `from . import name` is the module name, or else the package (__init__)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    found: dict[str, list[int]] = {}

    def add(name: str, node) -> None:
        found.setdefault(name, []).append(node.lineno)

    def dotted(name: str, node) -> None:  # "rankmetrics_duckdb" or "rankmetrics_duckdb.x.y"
        parts = name.split(".")
        if parts[0] == "rankmetrics_duckdb":
            add(parts[1] if len(parts) > 1 else "__init__", node)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                dotted(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module and node.module.split(".")[0] != "rankmetrics_duckdb":
                continue
            module = node.module if node.level == 0 else ".".join(filter(None, ["rankmetrics_duckdb", node.module]))
            if module == "rankmetrics_duckdb":
                for alias in node.names:
                    add(alias.name if alias.name in modules else "__init__", node)
            else:
                dotted(module, node)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                "LazyModule", "import_module") and node.args and isinstance(node.args[0], ast.Constant):
            dotted(str(node.args[0].value), node)
        elif (os.path.basename(path) == "__init__.py" and isinstance(node, ast.Assign)
              and any(getattr(t, "id", None) == "_LAZY" for t in node.targets)):
            for where in ast.literal_eval(node.value).values():
                add(where[0] if isinstance(where, tuple) else where, node)
    return found


def _import_graph() -> dict[str, dict[str, list[int]]]:
    paths = sorted(glob.glob(os.path.join(PACKAGE, "*.py")))
    modules = {os.path.basename(p)[:-3] for p in paths}
    return {os.path.basename(p)[:-3]: _package_imports(p, modules) for p in paths}


def test_the_import_scan_sees_every_form(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from . import api, __version__\n"
                     "from .errors import InputError\n"
                     "import rankmetrics_duckdb.stats\n"
                     "from rankmetrics_duckdb.measures import parse\n"
                     "import duckdb\n"
                     "from sqlglot import exp\n"
                     "sqlgen = LazyModule('rankmetrics_duckdb.sqlgen')\n"
                     "exp = LazyModule('sqlglot.expressions')\n"
                     "def f():\n    from .comparison import paired\n")
    assert _package_imports(str(probe), {"api", "errors", "stats", "measures", "sqlgen", "comparison"}) == {
        "api": [1], "__init__": [1], "errors": [2], "stats": [3], "measures": [4], "sqlgen": [7], "comparison": [10]}
    init = _import_graph()["__init__"]
    assert {"api", "comparison", "render", "measures"} <= set(init)  # the lazy public names (_LAZY)


def test_layers_name_every_module_once():
    modules = [os.path.basename(p)[:-3] for p in glob.glob(os.path.join(PACKAGE, "*.py"))]
    listed = [m for layer in LAYERS for m in layer]
    assert len(listed) == len(set(listed)), "a module is in two layers"
    assert sorted(listed) == sorted(modules), "LAYERS must list every module of the package (and no other)"


def _cycle(graph: dict[str, dict]) -> list[str]:
    """One import circle of the graph ([a, b, ..., a]), or []."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, {})):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[module] = "done"
        return []

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b": [1]}, "b": {"c": [1]}, "c": {"a": [1]}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": [1], "c": [1]}, "b": {"c": [1]}, "c": {}}) == []


def test_no_import_circle():
    circle = _cycle(_import_graph())
    assert not circle, "import circle: " + " -> ".join(circle)


def test_no_module_imports_a_module_of_its_own_or_a_higher_layer():
    graph = _import_graph()
    assert set(graph) <= set(LAYER), f"modules in no layer (LAYERS): {sorted(set(graph) - set(LAYER))}"
    upward = [f"{module}.py:{lines[0]} imports {target} (layer {LAYER[target]}; {module} is in layer "
              f"{LAYER[module]})"
              for module, imports in sorted(graph.items())
              for target, lines in sorted(imports.items()) if LAYER[target] >= LAYER[module]]
    assert not upward, "\n  ".join(["imports against the layers (LAYERS):", *upward])


def _imports_of(path: str) -> set[str]:
    """The top-level names of everything the module at path imports (in functions too)."""
    names = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_command_line_parses_arguments_and_it_computes_nothing():
    parsing = {"argparse", "optparse", "getopt"}
    found = {os.path.basename(p): sorted(_imports_of(p) & parsing)
             for p in glob.glob(os.path.join(PACKAGE, "*.py"))}
    assert found.pop("cli.py") == ["argparse"]
    assert {name: mods for name, mods in found.items() if mods} == {}
    argv = [os.path.basename(p) for p in glob.glob(os.path.join(PACKAGE, "*.py"))
            if os.path.basename(p) != "cli.py" and "sys.argv" in open(p, encoding="utf-8").read()]
    assert argv == []
    # nor does a module build a parser it was handed (as comparison.add_arguments did)
    building = {"add_argument", "add_argument_group", "add_mutually_exclusive_group", "add_subparsers",
                "add_parser", "parse_args", "parse_known_args", "set_defaults"}
    calls = sorted(f"{os.path.basename(p)}:{node.lineno}: {node.func.attr}"
                   for p in glob.glob(os.path.join(PACKAGE, "*.py")) if os.path.basename(p) != "cli.py"
                   for node in ast.walk(ast.parse(open(p, encoding="utf-8").read()))
                   if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in building)
    assert calls == []
    # the command line hands its arguments to the library: it talks to no engine itself
    assert _imports_of(os.path.join(PACKAGE, "cli.py")) & {"duckdb", "sqlglot", "pyarrow", "pandas"} == set()


# --- how a metric is averaged is one property: measures.Aggregate --------------------------------------------

_AGGREGATE_WORDS = {a.name for a in measures.AGGREGATES} | {"mean", "summed", "geometric", "gm", "arithmetic"}


def _strings_in(node) -> list[str]:
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def _branches_on_aggregate_names(path: str) -> list[str]:
    """Places in the module at path that decide how a metric is averaged by a name: a comparison with 'sum',
    'avg', 'gmean' (== 'sum', in ('avg', 'sum')) or a match case on one."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    found = []
    for node in ast.walk(tree):
        words = []
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                words += [s for s in _strings_in(operand) if s.strip().lower() in _AGGREGATE_WORDS]
        elif isinstance(node, ast.MatchValue):
            words += [s for s in _strings_in(node.value) if s.strip().lower() in _AGGREGATE_WORDS]
        if words:
            found.append((node.lineno, f"{os.path.basename(path)}:{node.lineno}: {', '.join(sorted(set(words)))}"))
    return [text for _, text in sorted(found)]


def test_the_scan_finds_branches_on_aggregate_names(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("if m.metric.mean == 'sum':\n    pass\n"
                     "x = kind in ('avg', 'gmean')\n"
                     "match kind:\n    case 'Sum':\n        pass\n"
                     "y = exp.alias_(v, 'summed')\n")  # a name written into SQL is no branch
    assert [f.split(":")[1] for f in _branches_on_aggregate_names(str(probe))] == ["1", "3", "5"]


def test_no_module_outside_measures_branches_on_an_aggregate_name():
    modules = sorted(glob.glob(os.path.join(PACKAGE, "*.py")))
    assert os.path.join(PACKAGE, "measures.py") in modules
    found = [f for path in modules if os.path.basename(path) != "measures.py"
             for f in _branches_on_aggregate_names(path)]
    assert not found, ("how a metric is averaged is its measures.Aggregate (Metric.mean); read its fields:\n  "
                       + "\n  ".join(found))


def _tiny_tables(con):
    """Four queries; AP by hand (one relevant item each unless said):
    q1: a (rel) ranked 1                          AP = 1/1 / 1                 = 1
    q2: x (unjudged), c (rel); d (rel) not found  AP = (1/2) / 2               = 0.25
    q3: y (unjudged); e (rel) not found           AP = 0
    q4: f judged non-relevant, no relevant item   AP = 0/0: NaN (NULL) under empty='nan', left out of means"""
    con.execute("CREATE TABLE run (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.execute("INSERT INTO run VALUES ('q1', 'a', 3), ('q1', 'b', 2), ('q2', 'x', 3), ('q2', 'c', 2), "
                "('q3', 'y', 3), ('q4', 'f', 3)")
    con.execute("CREATE TABLE judgments (query_id VARCHAR, item_id VARCHAR, relevance INTEGER)")
    con.execute("INSERT INTO judgments VALUES ('q1', 'a', 1), ('q1', 'b', 0), ('q2', 'c', 1), ('q2', 'd', 1), "
                "('q3', 'e', 1), ('q4', 'f', 0)")


def test_the_geometric_mean_aggregate_by_hand():
    """trec_eval's gm_map (m_gm_map.c, te_calc_avg_meas_s_gm): exp(mean(ln(max(AP, 0.00001)))) over the queries,
    written by measures.mean_sql into the fused query next to the arithmetic mean of the same values."""
    import dataclasses

    import duckdb
    from sqlglot import exp

    from rankmetrics_duckdb import conventions, sqlgen

    ap = measures.METRICS["AP"]
    gm = dataclasses.replace(ap, name="GM_AP", mean=measures.GMEAN)
    asked = [measures.Measure("AP", ap, None, ()), measures.Measure("gm_ap", gm, None, ())]
    conv = conventions.resolve("trec_eval", empty="nan")
    plan = sqlgen.plan(asked, conv, sqlgen.Source(exp.to_table("run"), True, False),
                       sqlgen.Source(exp.to_table("judgments"), True, False), per_query=False)
    con = duckdb.connect()
    _tiny_tables(con)
    got = dict((m, v) for m, _, v in con.execute(plan.query.sql(dialect="duckdb")).fetchall())
    # AP: (1 + 0.25 + 0) / 3 = 0.416666...  (q4's NULL left out)
    assert got["AP"] == pytest.approx((1 + 0.25 + 0) / 3, abs=1e-12)
    # gm: exp((ln 1 + ln 0.25 + ln 0.00001) / 3) = (1 * 0.25 * 0.00001) ** (1/3) = (2.5e-6) ** (1/3)
    #     = 0.01357208808297...  (q3's 0 floored to 0.00001; q4's NULL left out, not floored)
    assert got["gm_ap"] == pytest.approx(2.5e-6 ** (1 / 3), rel=1e-12)
    assert got["gm_ap"] == pytest.approx(0.0135720880829745, rel=1e-12)


# --- a metric's defaults are written once: its macro's signature in sql/ -----------------------------------

def _python(default):
    """A default as sqlglot parsed it (native.parameters), as Python."""
    from sqlglot import exp
    if isinstance(default, exp.Null):
        return None
    if isinstance(default, exp.Boolean):
        return default.this
    if default.is_string:
        return default.this
    return int(default.this) if default.is_int else float(default.this)


def test_each_metrics_defaults_are_its_macros_signature():
    from rankmetrics_duckdb import conventions, native
    seen = {}
    for metric in measures.METRICS.values():
        signature = {name: _python(default) for name, _, default in native.parameters(metric.macro)}
        # every parameter no convention sets (and a gain metric's rel) takes the macro's default
        assert metric.defaults == {p: signature[p] for p in metric.params
                                   if p not in conventions.PARAMETERS or (p == "rel" and metric.gain_metric)}
        seen.update({(metric.name, p): v for p, v in metric.defaults.items()})
    # the values the SQL files write today (err.sql, rbp.sql, dcg.sql), so that the test cannot pass empty
    assert seen == {("ERR", "max_grade"): 4, ("RBP", "p"): 0.8, ("RBP", "rel"): None, ("RBP", "scale"): "max",
                    ("nDCG", "rel"): 1, ("DCG", "rel"): 1, ("IPrec", "at_recall"): 0.0, ("RprecMult", "mult"): 1.0,
                    ("Utility", "utility_a"): 1.0, ("Utility", "utility_b"): -1.0, ("Utility", "utility_c"): 0.0,
                    ("Utility", "utility_d"): 0.0, ("RBPResid", "p"): 0.9, ("IdealDCG", "rel"): 1,
                    ("nDCG", "gains"): "", ("DCG", "gains"): "", ("IdealDCG", "gains"): "",
                    ("G", "gains"): "", ("nDCGRel", "gains"): "", ("RnDCG", "gains"): "",
                    ("F1", "beta"): 1, ("NERR8", "min_rel"): 0, ("NERR8", "max_rel"): None,
                    ("NERR10", "p"): 0.9, ("NERR10", "min_rel"): 0, ("NERR10", "max_rel"): None,
                    ("NERR9", "min_rel"): 0, ("NERR9", "max_rel"): None, ("NERR11", "t"): 1.0,
                    ("NERR11", "min_rel"): 0, ("NERR11", "max_rel"): None, ("INSQ", "t"): 1.0,
                    ("INSQ", "min_rel"): 0, ("INSQ", "max_rel"): None, ("BPM", "t"): 1.0, ("BPM", "min_rel"): 0,
                    ("BPM", "max_rel"): None, ("SDCG", "min_rel"): 0, ("SDCG", "max_rel"): None, ("INST", "t"): 1.0,
                    ("INST", "min_rel"): 0, ("INST", "max_rel"): None, ("Compat", "p"): 0.95,
                    ("Compat", "normalize"): "true", ("SufficientReco", "deep"): "false",
                    ("AvgRecPopularity", "normalize"): "false", ("CatalogCoverage", "normalize"): "false",
                    ("APLT", "head_share"): 0.8, ("APLT", "share"): "true",
                    ("GAUC", "weighted"): "true", ("Intersection", "ref_k"): None}
    # measures.py writes no default again (a `defaults=` keyword, or a dict literal of p / max_grade)
    source = open(os.path.join(PACKAGE, "measures.py"), encoding="utf-8").read()
    assert "defaults=" not in source and '"max_grade": 4' not in source and '"p": 0.8' not in source
