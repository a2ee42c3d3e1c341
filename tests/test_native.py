"""Native objects (`rankmetrics macros --dialect D`): the DDL installed on real engines (DuckDB, PostgreSQL, Spark
local mode, ClickHouse through chdb), every function called under several conventions, and its per-query
values compared with the DuckDB evaluation path, `rankmetrics_duckdb.evaluate(..., per_query=True)` (the parity
contract of a port, to 1e-9). BigQuery, Snowflake and Databricks have no engine here: their DDL is compared
with golden files under tests/golden/ and read back by sqlglot into DuckDB, which must give the same numbers."""
import math
import os
import re
import shutil
import tempfile

import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

import engines
import synthetic
from conftest import cli
from rankmetrics_duckdb import conventions, dialects, evaluate, measures, native, shape, sqlsource
from rankmetrics_duckdb.errors import UsageError

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")

METRICS = ["nDCG@10", "nDCG", "AP", "AP@100", "P@10", "R@100", "RR"]
# (id, convention preset, single switches): trec_eval's default; MLlib (the run's rank column, binary gain,
# AP over min(k, |G|), every query); exponential gain with relevance level 2 applied to nDCG too; and the
# 'retrieved' convention (NaN for queries without relevant judgments).
VARIANTS = [
    ("default", "trec_eval", {}),
    ("mllib", "mllib", {}),
    ("exp_rel2", "trec_eval", {"gain": "exponential", "rel": 2, "level_for_gain": True}),
    ("retrieved", "retrieved", {}),
    ("judged_only", "trec_eval", {"judged_only": True}),  # -J: query unjudged_run keeps no retrieved item
]


def _data():
    """Synthetic run and judgments (tied scores, graded, unjudged items, queries missing on either side) with a
    rank column that breaks score ties by item id ascending, unlike trec_eval's descending order, so that
    ties='input' gives other numbers than the default."""
    qrels, run = synthetic.make(seed=11, queries=14, depth=40)
    # queries whose tied items have ids that a natural-language collation orders unlike bytes (case,
    # punctuation, accents): PostgreSQL's ICU-collated text columns (tests/engines.py) need COLLATE "C"
    ids = ["Item_b", "item-a", "ITEM7", "item10", "\u00e9t\u00e9", "Omega", "beta", "b_c", "b-c", "B", "c", "C3",
           "_y", "\u00c9t\u00e9", "yy"]
    for qi in range(4):
        q = f"bytes{qi}"
        qrels[q] = {d: (i * 5 + qi) % 4 for i, d in enumerate(ids) if (i + qi) % 4 != 0}
        run[q] = {d: float((i + qi) % 2) for i, d in enumerate(ids) if (i * 3 + qi) % 5 != 2}
    # trec_eval -J evaluates a query whose retrieved items are all unjudged (every measure 0; pytrec_eval's
    # judged_docs_only_flag keeps it too: tests/test_macros.py)
    qrels["unjudged_run"], run["unjudged_run"] = {"j1": 1, "j2": 0}, {"u1": 2.0, "u2": 1.0}
    judgments = [(q, d, int(r)) for q, docs in qrels.items() for d, r in docs.items()]
    rows = []
    for q, docs in run.items():
        for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: (-x[1], x[0]))):
            rows.append((q, d, float(s), i + 1))
    return judgments, rows


JUDGMENTS, RUN = _data()
# the recommender metrics' side tables: training interactions (the judged pairs with a positive grade, some
# items by several users, one pair twice) and a catalog holding every item and a few never recommended, each with
# a vector (IntraListDiversity; few distinct values: equal positions for the Hamming distance)
INTERACTIONS_TABLE = pa.table({"user_id": [r[0] for r in JUDGMENTS if r[2] > 0] + ["bytes0"],
                               "item_id": [r[1] for r in JUDGMENTS if r[2] > 0] + [JUDGMENTS[0][1]]})
_ITEMS = sorted({r[1] for r in JUDGMENTS} | {x[1] for x in RUN} | {"never1", "never2"})
ITEMS_TABLE = pa.table({"item_id": _ITEMS, "embedding": [[float(n % 3), float(n // 3 % 2), 1.0]
                                                         for n in range(len(_ITEMS))]})
JUDGMENTS_TABLE = pa.table({"query_id": [r[0] for r in JUDGMENTS], "item_id": [r[1] for r in JUDGMENTS],
                            "relevance": [r[2] for r in JUDGMENTS]})
RUN_TABLE = pa.table({"query_id": [x[0] for x in RUN], "item_id": [x[1] for x in RUN],
                      "score": [x[2] for x in RUN], "rank": [x[3] for x in RUN]})
# Intersection's reference run: the run's items of each query in reverse order (tied scores, ranked by the rank
# column under ties='input'), one query left out (its value 0)
_LENGTHS = {}
for _x in RUN:
    _LENGTHS[_x[0]] = _LENGTHS.get(_x[0], 0) + 1
_REFERENCE = [x for x in RUN if x[0] != RUN[0][0]]
REFERENCE_TABLE = pa.table({"query_id": [x[0] for x in _REFERENCE], "item_id": [x[1] for x in _REFERENCE],
                            "score": [-x[2] for x in _REFERENCE],
                            "rank": [_LENGTHS[x[0]] + 1 - x[3] for x in _REFERENCE]})


def _expected():
    """{(variant, metric): {query_id: value}} from the DuckDB evaluation path."""
    out = {}
    for vid, preset, switches in VARIANTS:
        result = evaluate(JUDGMENTS_TABLE, RUN_TABLE, METRICS, convention=preset, per_query=True, **switches)
        if switches.get("judged_only"):
            assert all(result[m]["unjudged_run"] == 0 for m in METRICS)
        for m in METRICS:
            out[(vid, m)] = result[m]
    return out


EXPECTED = _expected()


def call_args(metric: str, preset: str, switches: dict) -> tuple[str, dict]:
    """The metric macro and its arguments under a convention, as `rankmetrics eval` would bind them."""
    measure = measures.parse(metric)[0]
    conv = conventions.resolve(preset, **switches)
    names = {name for name, _, _ in native.parameters(measure.metric.macro)}
    args = {key: (math.e if key == "log_base" and val == "e" else val)
            for key, val in {**conv, **measure.values(conv)}.items() if key in names}
    return measure.metric.macro, args


def _compare(got: dict, want: dict, label: str):
    assert set(got) == set(want), f"{label}: queries differ: {sorted(set(got) ^ set(want))}"
    for q, v in want.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            assert got[q] is None or math.isnan(got[q]), f"{label} {q}: {got[q]} instead of NaN"
        else:
            assert got[q] is not None and abs(got[q] - v) <= 1e-9, f"{label} {q}: {got[q]} != {v}"


CASES = [(vid, preset, switches, m) for vid, preset, switches in VARIANTS for m in METRICS]


# ---------------------------------------------------------------- engines: DDL installed, functions called

def _install(engine, dialect, execute, schema=None):
    """Load the tables on the engine, print the DDL for them with the command line, run each statement."""
    run = engine.load("native_run", RUN_TABLE)
    judgments = engine.load("native_judgments", JUDGMENTS_TABLE)
    interactions = engine.load("native_interactions", INTERACTIONS_TABLE)
    items = engine.load("native_items", ITEMS_TABLE)
    reference = engine.load("native_reference", REFERENCE_TABLE)
    options = ["--schema", schema] if schema else []
    if not dialects.get(dialect).native.sql_macros:  # DuckDB's macros take the tables as arguments instead
        options += ["--run", run, "--judgments", judgments, "--run-columns", "score,rank",
                    "--interactions", interactions, "--items", items, "--items-embedding-column", "embedding",
                    "--reference", reference]
    ddl = cli("macros", "--dialect", dialect, *options).stdout
    for statement in statements(ddl):
        execute(statement)
    return run, judgments, interactions, items, reference


def statements(text: str) -> list[str]:
    """The statements of a DDL script, split at the semicolons sqlglot's tokenizer sees (so not inside a
    string, a quoted name or a $$ body), without the comment lines."""
    from sqlglot.tokens import TokenType
    out, start = [], 0
    for token in sqlglot.Dialect.get_or_raise("postgres").tokenize(text):
        if token.token_type == TokenType.SEMICOLON:
            out.append(text[start:token.start])
            start = token.end + 1
    out.append(text[start:])
    cleaned = ["\n".join(ln for ln in s.splitlines() if not ln.lstrip().startswith("--")).strip() for s in out]
    return [s for s in cleaned if s]


CALLS_PER_QUERY = 15  # Native.call_many


class Native:
    """An engine with the native objects installed, and how to call them."""

    def __init__(self, engine, dialect, execute, schema=None, close=True):
        self.engine, self.dialect, self.schema, self._close = engine, dialect, schema, close
        self.run, self.judgments, self.interactions, self.items, self.reference = _install(engine, dialect, execute,
                                                                                          schema)

    def call(self, macro, args):
        return self.call_many({"one": (macro, args)})["one"]

    def call_many(self, calls: dict) -> dict:
        """{tag: (macro, args)} -> {tag: {query_id: value}}, in queries of CALLS_PER_QUERY calls (a UNION ALL of
        them): Spark plans and runs one job instead of one per call (60 calls one by one: 55 s), and a UNION ALL of
        all 60 plans slower than four of 15 (42 s against 31-33 s)."""
        parts = []
        for tag, (macro, args) in calls.items():
            sql = native.call(macro, self.dialect, args, schema=self.schema, run=self.run, judgments=self.judgments,
                              interactions=self.interactions, catalog=self.items, reference=self.reference)
            parts.append(f"SELECT {sqlsource.literal(tag).sql(dialect=self.dialect)} AS tag, x.query_id, x.value "
                         f"FROM ({sql}) AS x")
        out = {tag: {} for tag in calls}
        for i in range(0, len(parts), CALLS_PER_QUERY):
            for tag, q, v in self.engine.rows("\nUNION ALL\n".join(parts[i:i + CALLS_PER_QUERY])):
                out[tag][str(q)] = None if v is None else float(v)
        return out

    def close(self):
        if self._close:
            self.engine.close()
        if getattr(self.engine, "native_folder", None):  # Spark's external tables (_spark_engine)
            shutil.rmtree(self.engine.native_folder, ignore_errors=True)


def _spark_engine():
    """Spark local mode: a persistent SQL function cannot read a temporary view, so the two tables are stored
    as external Parquet tables in a temporary folder."""
    spark = engines.Spark()
    folder = spark.native_folder = tempfile.mkdtemp(prefix="rankmetrics-native-spark-")  # removed by Native.close

    def load(name, table):
        spark.spark.sql(f"DROP TABLE IF EXISTS {name}")
        spark.spark.createDataFrame(table.to_pandas()).write.option("path", os.path.join(folder, name)) \
            .saveAsTable(name)
        return f"default.{name}"
    spark.load = load
    return spark


def _install_objects(name):
    if name == "duckdb":
        e = engines.DuckDB()
        return Native(e, "duckdb", e.con.execute)
    if name == "postgres":
        e = engines.Postgres()
        return Native(e, "postgres", e.con.execute, schema="rm")
    if name == "spark":
        e = _spark_engine()
        # the session is shared with the dialect tests; it is stopped when the test process ends
        return Native(e, "spark", e.spark.sql, close=False)
    e = engines.ClickHouse()
    return Native(e, "clickhouse", e.session.query, schema="rm")


@pytest.fixture(params=["duckdb", "postgres", "spark", "clickhouse"])
def installed(request, started):
    """The native objects installed on a real engine once per test process (none is skipped: an engine that
    cannot start fails)."""
    return started.get(("native", request.param), lambda: _install_objects(request.param), lambda n: n.close())


def _rows_to_dict(rows):
    return {str(q): (None if v is None else float(v)) for q, v in rows}


@pytest.mark.parametrize("vid,preset,switches", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_native_objects_equal_eval(installed, vid, preset, switches):
    """nDCG@10, nDCG, AP, AP@100, P@10, R@100 and RR under one convention, per query, as evaluate() gives them."""
    got = installed.call_many({metric: call_args(metric, preset, switches) for metric in METRICS})
    for metric in METRICS:
        _compare(got[metric], EXPECTED[(vid, metric)], f"{installed.dialect} {vid} {metric}")


def test_defaults_are_trec_eval(installed):
    """Arguments left out take the defaults of sql/ (trec_eval's conventions): ndcg with k = 10 alone is nDCG@10
    (BigQuery aside, every dialect here can leave arguments out)."""
    _compare(installed.call("ndcg", {"k": 10}), EXPECTED[("default", "nDCG@10")], f"{installed.dialect} ndcg(10)")
    _compare(installed.call("ap", {}), EXPECTED[("default", "AP")], f"{installed.dialect} ap()")


# DuckDB's objects are the macros of sql/ themselves (test_macros_default_is_the_duckdb_script), the macros this
# test runs as the reference: on DuckDB it compared them with themselves
@pytest.mark.parametrize("installed", ["postgres", "spark", "clickhouse"], indirect=True)
def test_every_metric_equals_the_duckdb_macro(installed):
    """Every native object (not only the metrics of the matrix), with its defaults, gives the numbers of the
    DuckDB macro of sql/ run in a fresh DuckDB."""
    import duckdb
    con = duckdb.connect()
    con.execute(sqlsource.script())
    con.register("run_in", RUN_TABLE)
    con.register("judgments_in", JUDGMENTS_TABLE)
    con.register("interactions_in", INTERACTIONS_TABLE)
    con.register("items_in", ITEMS_TABLE)
    con.register("reference_in", REFERENCE_TABLE)
    required = {p for p, spec in measures.PARAMS.items() if spec.required}  # no default (NERR's max_rel): 4
    # k has no default where it is not a rank cutoff (PartialAUC@k, PAP@k, SufficientReco@k): 5
    needs_k = {m.macro for m in measures.METRICS.values() if m.cutoff == "required"}
    calls = {macro: (macro, {name: 4.0 if name in required else 5 if name == "k" and macro in needs_k
                             else _py(default) for name, _, default in native.parameters(macro)})
             for macro in native.metric_macros()}
    got = installed.call_many(calls)
    for macro, (_, args) in calls.items():
        want = _rows_to_dict(con.execute(native.call(macro, "duckdb", args, run="run_in", judgments="judgments_in",
                                                     interactions="interactions_in", catalog="items_in",
                                                     reference="reference_in")).fetchall())
        _compare(got[macro], want, f"{installed.dialect} {macro}")


# the recommender metrics that read the side tables, per query, and the catalog-wide ones (one row, query_id NULL)
RECSYS_METRICS = ["MeanInvUserFreq@10", "AvgRecPopularity(normalize=true)@5", "Serendipity@10",
                  "CatalogCoverage(normalize=true)@10", "Gini@10", "Entropy@5", "IntraListDiversity@5",
                  "IntraListDiversity(distance=hamming)@3", "Intersection(ref_k=8)@5"]


def test_recommender_objects_equal_eval(installed):
    """The native objects of the metrics that read the training interactions and the catalog (IntraListDiversity:
    its vectors, unnested by the engine) and Intersection (a reference run) give evaluate()'s numbers (pinned to
    RecTools, RecBole and Recommenders by test_parity_rectools.py) under RecTools' conventions: per query, and
    the catalog-wide metrics as one row whose query_id is NULL."""
    sides = dict(interactions=INTERACTIONS_TABLE, items=ITEMS_TABLE, reference=REFERENCE_TABLE)
    per_query = evaluate(JUDGMENTS_TABLE, RUN_TABLE, RECSYS_METRICS, convention="rectools", per_query=True, **sides)
    means = evaluate(JUDGMENTS_TABLE, RUN_TABLE, RECSYS_METRICS, convention="rectools", **sides)
    got = installed.call_many({metric: call_args(metric, "rectools", {}) for metric in RECSYS_METRICS})
    for metric in RECSYS_METRICS:
        if measures.parse(metric)[0].metric.scope == "catalog":
            assert per_query[metric] == {}
            _compare(got[metric], {"None": means[metric]}, f"{installed.dialect} {metric}")
        else:
            _compare(got[metric], per_query[metric], f"{installed.dialect} {metric}")


def test_recommender_objects_per_group_with_mapped_columns():
    """Generated for a warehouse table (--by model, the columns named by --query-column and the like; the side
    tables' by --interactions-user-column and the like), the objects of the recommender metrics return one row
    per group and query (MeanInvUserFreq, IntraListDiversity) or per group (the
    catalog-wide Gini, CatalogCoverage; GAUC and Personalization, of the whole run): evaluate(by=...)'s numbers,
    themselves those of each group alone (and pinned to the references by test_parity_recsys.py)."""
    reverse = RUN_TABLE.set_column(2, "score", pa.array([-x for x in RUN_TABLE.column("score").to_pylist()]))
    reverse = reverse.set_column(3, "rank", pa.array([None] * reverse.num_rows, pa.int64()))
    stacked = pa.concat_tables([t.append_column("model", pa.array([m] * t.num_rows)) for m, t in
                                (("first", RUN_TABLE), ("second", reverse.cast(RUN_TABLE.schema)))])
    names = {"query_id": "uid", "item_id": "movie", "score": "pred", "rank": "pos"}
    stacked = stacked.rename_columns([names.get(c, c) for c in stacked.column_names])
    judgments = JUDGMENTS_TABLE.rename_columns([names.get(c, c) for c in JUDGMENTS_TABLE.column_names])
    metrics = ["MeanInvUserFreq@10", "Gini@10", "CatalogCoverage(normalize=true)@5", "GAUC", "Personalization@3",
               "IntraListDiversity@5"]
    sides = dict(interactions=INTERACTIONS_TABLE, items=ITEMS_TABLE)
    want = evaluate(judgments, stacked, metrics, columns=names, by=["model"], per_query=True, **sides)
    means = evaluate(judgments, stacked, metrics, columns=names, by=["model"], **sides)
    for model, run in (("first", RUN_TABLE), ("second", reverse)):  # each group alone
        alone = evaluate(JUDGMENTS_TABLE, run, metrics, **sides)
        assert means[(model,)] == pytest.approx(alone, abs=1e-12)
    e = engines.Postgres()
    try:
        tables = {name: e.load(f"grouped_{name}", t) for name, t in (
            ("run", stacked), ("judgments", judgments),
            ("interactions", INTERACTIONS_TABLE.rename_columns(["who", "film"])),
            ("items", ITEMS_TABLE.rename_columns(["film", "vec"])))}
        ddl = cli("macros", "--dialect", "postgres", "--schema", "rm", "--run", tables["run"], "--judgments",
                  tables["judgments"], "--run-columns", "score,rank", "--interactions", tables["interactions"],
                  "--items", tables["items"], "--by", "model", "--shared-judgments", "--query-column", "uid",
                  "--item-column", "movie", "--score-column", "pred", "--rank-column", "pos",
                  "--interactions-user-column", "who",
                  "--interactions-item-column", "film", "--items-item-column", "film", "--items-embedding-column",
                  "vec").stdout
        for statement in statements(ddl):
            e.con.execute(statement)
        for metric in metrics:
            macro, args = call_args(metric, "trec_eval", {})
            sql = native.call(macro, "postgres", args, schema="rm").replace("SELECT query_id", "SELECT model, query_id")
            got = {(m, q): v for m, q, v in e.rows(sql)}
            if measures.parse(metric)[0].metric.scope == "catalog":
                assert got == pytest.approx({(m[0], None): means[m][metric] for m in means}, abs=1e-9), metric
            else:
                assert got == pytest.approx({(m[0], q): v for m in want for q, v in want[m][metric].items()},
                                            abs=1e-9, nan_ok=True), metric
    finally:
        e.close()


def _py(e: exp.Expression):
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Boolean):
        return e.this
    if isinstance(e, exp.Literal):
        return e.this if e.is_string else float(e.this)
    raise AssertionError(e.sql())


# ---------------------------------------------------------------- BigQuery, Snowflake, Databricks: golden files

# The tables are named as engines.ReadBack stores them (a BigQuery-like project.dataset.table).
GOLDEN_CASES = [
    ("bigquery", ["--schema", "metrics", "--run", "my-project.rm.native_run",
                  "--judgments", "my-project.rm.native_judgments", "--run-columns", "score,rank",
                  "--interactions", "my-project.rm.native_interactions", "--items", "my-project.rm.native_items",
                  "--items-embedding-column", "embedding", "--reference", "my-project.rm.native_reference"]),
    ("snowflake", ["--run", "rm.native_run", "--judgments", "rm.native_judgments", "--run-columns", "score,rank",
                   "--interactions", "rm.native_interactions", "--items", "rm.native_items",
                   "--items-embedding-column", "embedding", "--reference", "rm.native_reference"]),
    ("databricks", ["--run", "rm.native_run", "--judgments", "rm.native_judgments", "--run-columns", "score,rank",
                    "--interactions", "rm.native_interactions", "--items", "rm.native_items",
                    "--items-embedding-column", "embedding", "--reference", "rm.native_reference"]),
]
GOLDEN_OPTIONS = dict(GOLDEN_CASES)


@pytest.mark.parametrize("dialect", list(GOLDEN_OPTIONS))
def test_golden(dialect):
    text = cli("macros", "--dialect", dialect, *GOLDEN_OPTIONS[dialect]).stdout
    path = os.path.join(GOLDEN, f"native_{dialect}.sql")
    if os.environ.get("RANKMETRICS_REGEN_GOLDEN"):  # as tests/test_dialects.py: rewrite, then review the diff
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    with open(path, encoding="utf-8") as fh:
        assert text == fh.read(), f"tests/golden/native_{dialect}.sql differs (RANKMETRICS_REGEN_GOLDEN=1 rewrites it)"


def _read_back(dialect: str, text: str, wanted: set) -> dict:
    """{function name: its body as a sqlglot tree}, parsed from the golden DDL in its own dialect: the functions
    named in wanted (parsing the whole file would take most of the test's time)."""
    bodies = {}
    for statement in statements(text):
        header = re.search(r"FUNCTION\s+(?:\w+\.)?(\w+)\s*\(", statement)
        if header is None or header.group(1).lower() not in wanted:
            continue
        tree = sqlglot.parse_one(statement, read=dialect)
        name = tree.this.this.name if isinstance(tree.this, exp.UserDefinedFunction) else None
        body = tree.expression
        if isinstance(body, (exp.Literal, exp.Heredoc, exp.RawString)):  # Snowflake's $$ ... $$ body
            body = sqlglot.parse_one(body.name, read=dialect)
        if isinstance(body, (exp.Subquery, exp.Return)):  # BigQuery AS (...), Databricks RETURN ...
            body = body.this
        assert name and isinstance(body, exp.Select), statement[:200]
        bodies[name.lower()] = body
    return bodies


@pytest.mark.parametrize("dialect", list(GOLDEN_OPTIONS))
def test_golden_read_back_into_duckdb(dialect):
    """The golden DDL parsed back by sqlglot, the arguments put in the params CTE as literals, and run by
    engines.ReadBack (sqlglot into DuckDB): the same numbers as evaluate()."""
    with open(os.path.join(GOLDEN, f"native_{dialect}.sql"), encoding="utf-8") as fh:
        text = fh.read()
    wanted = {native.PREFIX + call_args(metric, "trec_eval", {})[0] for metric in METRICS + RECSYS_METRICS}
    bodies = _read_back(dialect, text, wanted)
    assert set(bodies) == wanted, sorted(wanted - set(bodies))
    back = engines.ReadBack(dialect)
    try:
        tables = {"native_run": RUN_TABLE, "native_judgments": JUDGMENTS_TABLE,
                  "native_interactions": INTERACTIONS_TABLE, "native_items": ITEMS_TABLE,
                  "native_reference": REFERENCE_TABLE}
        for name, table in tables.items():
            back.load(name, table)
        if dialect != "bigquery":  # rm.native_run: the schema rm of DuckDB's default catalog
            back.con.execute("CREATE SCHEMA rm; " + "; ".join(
                f'CREATE VIEW rm.{name} AS SELECT * FROM "my-project".rm.{name}' for name in tables))
        recsys = {}  # the recommender metrics' objects too (test_recommender_objects_equal_eval's numbers)
        sides = dict(interactions=INTERACTIONS_TABLE, items=ITEMS_TABLE, reference=REFERENCE_TABLE)
        per_query = evaluate(JUDGMENTS_TABLE, RUN_TABLE, RECSYS_METRICS, convention="rectools", per_query=True,
                             **sides)
        means = evaluate(JUDGMENTS_TABLE, RUN_TABLE, RECSYS_METRICS, convention="rectools", **sides)
        for metric in RECSYS_METRICS:
            catalog_wide = measures.parse(metric)[0].metric.scope == "catalog"
            recsys[metric] = {"None": means[metric]} if catalog_wide else per_query[metric]
        cases = [(vid, preset, switches, metric, EXPECTED[(vid, metric)]) for vid, preset, switches, metric in CASES]
        cases += [("rectools", "rectools", {}, metric, recsys[metric]) for metric in RECSYS_METRICS]
        for vid, preset, switches, metric, want in cases:
            macro, args = call_args(metric, preset, switches)
            body = bodies[native.PREFIX + macro].copy()
            if macro == "intra_list_diversity" and dialect in ("snowflake", "databricks"):
                # sqlglot cannot read their positional unnesting back into DuckDB (as in test_dialects.py's
                # test_engine_intra_list_diversity_equals_eval): the form is checked here; Spark runs the same SQL
                assert {"snowflake": "FLATTEN(INPUT => v.embedding)",
                        "databricks": "POSEXPLODE(v.embedding)"}[dialect] in body.sql(dialect=dialect)
                continue
            params = next(cte for cte in body.args["with_"].expressions if cte.alias_or_name.lower() == "params")
            params.this.set("expressions", [exp.alias_(sqlsource.literal(args[a.alias_or_name.lower()]),
                                                       a.alias_or_name) for a in params.this.expressions])
            got = _rows_to_dict(back.rows(body.sql(dialect=dialect)))
            _compare(got, want, f"{dialect} read back {vid} {metric}")
    finally:
        back.close()


# ---------------------------------------------------------------- command line and Python surface

def test_macros_default_is_the_duckdb_script():
    from rankmetrics_duckdb import macros_sql
    assert cli("macros").stdout == sqlsource.script() == macros_sql() == macros_sql(dialect="duckdb")


def test_unknown_dialect_is_one_line_listing_the_supported_ones():
    p = cli("macros", "--dialect", "oracle", check=False)
    assert p.returncode == 2 and p.stdout == ""
    line = p.stderr.strip()
    assert "\n" not in line and "oracle" in line
    for d in native.DIALECTS:
        assert d in line
    with pytest.raises(UsageError):
        native.script("oracle")


@pytest.mark.parametrize("name", ['run"; DROP TABLE x; --', "run /* c */", "a..b", "", "a b"])
def test_bad_table_names_are_rejected(name):
    """A table name with quotes, a semicolon, a comment or a space never reaches the SQL: one-line error."""
    with pytest.raises(UsageError):
        native.script("postgres", run=name)
    p = cli("macros", "--dialect", "postgres", "--run", name, check=False)
    words = "run table" if name else "--run takes a value, not an empty one"  # an option without its value
    assert p.returncode == 2 and p.stdout == "" and "\n" not in p.stderr.strip() and words in p.stderr


def test_odd_names_are_quoted_by_sqlglot():
    """Names that need quoting (a '-' in a BigQuery project, upper case) are quoted by sqlglot, as one name."""
    text = native.script("bigquery", run="my-project.Data.run", judgments="j", schema="metrics")
    assert "FROM `my-project`.`Data`.run AS r" in text or "FROM `my-project`.Data.run AS r" in text


def test_sqlite_has_no_native_objects():
    p = cli("macros", "--dialect", "sqlite", check=False)
    assert p.returncode == 2 and "no native objects" in p.stderr and "rankmetrics sql" in p.stderr


ARGUMENT_FAULTS = [
    ("ap", {"k": 0}, "k must be a whole number >= 1"),
    ("ndcg", {"gain": "expo"}, "gain must be one of linear, exponential, binary"),
    ("rbp", {"p": 1.5}, "p must be"),
    ("partial_auc", {}, "k must be a whole number >= 1, not NULL"),
    ("intersection", {"k": 2, "ref_k": 1.5}, "ref_k must be a whole number >= 1"),
    # the macros' own rm_valid checks, carried since session 28 (native._macro_rules): before, each gave numbers
    # (nDCG 0 for every query with ideal cutoff and no k, the rectools preset's ideal)
    ("ndcg", {"ideal": "cutoff"}, "k must be a cutoff from 1 to 1000 with ideal .*, not NULL"),
    ("ndcg", {"ideal": "cutoff", "k": 1001}, "k must be a cutoff from 1 to 1000"),
    ("iprec_at_recall", {"iprec_rounding": "v8"}, "iprec_rounding must be one of nearest, v9"),
    ("rprec_mult", {"mult": 0}, "mult must be a number > 0"),
    ("f1", {"beta": -1}, "beta must be a number >= 0"),
    ("err", {"max_grade": 0}, "max_grade must be"),
    ("bpm", {"k": 5, "t": 0, "max_rel": 2}, "t must be a number > 0"),
    ("utility", {"num_docs": -1}, "num_docs must be"),
    # and those of the shared helpers they call (rm_valid_rel_range): NERR8 without max_rel, which has no default,
    # gave 0 for every query
    ("nerr8", {"k": 3}, "max_rel must be a number above min_rel"),
    ("nerr8", {"k": 3, "min_rel": 3, "max_rel": 1}, "max_rel must be a number above min_rel"),
    # and a form the helper matches (rm_valid_gains' pattern, an anchored match on each engine): a map that is not
    # 'level=gain,...' found no level and gave the default gains, with no word
    ("ndcg", {"gains": "1:3,2:9"}, "gains must be level=gain pairs such as .*, not .?1:3,2:9"),
    ("dcg", {"gains": "1=3 2=9"}, "gains must be level=gain pairs"),
    ("ndcg", {"k": 5, "ideal": "cutoff", "gains": "1=3"}, r"gains must be level=gain pairs .*\(with ideal judgments\)"),
    # a level with a leading zero matched no grade (the gain is found by the level's text) and kept the default
    ("ndcg", {"gains": "1=3,02=9"}, "levels without leading zeros .*, not .?1=3,02=9"),
    # a level given twice: the first gain was taken (the DuckDB macro refuses it); each engine's list functions
    # (dialects.Dialect.distinct_levels)
    ("ndcg", {"k": 5, "gains": "1=3,2=9,1=5"}, "gains must be level=gain pairs with each level once, not .?1=3,2=9,1=5"),
    ("g", {"gains": "10=1,0=2,10=3"}, "gains must be level=gain pairs with each level once"),
    # a cutoff the measure needs (BPM@k, SDCG@k): DuckDB's macros gave numbers without one (found by a fuzz)
    ("bpm", {"max_rel": 2}, "k must be a whole number >= 1, not NULL"),
    ("sdcg", {"max_rel": 2}, "k must be a whole number >= 1, not NULL"),
    # a NaN or infinite number (native._value_checks): found by a fuzz on PostgreSQL and ClickHouse, each gave
    # rows of NaN or 0 (a comparison with NaN is false, and PostgreSQL's NaN is above every number)
    ("ndcg", {"k": 3, "log_base": math.nan}, r"log_base must be a finite number.*, not .?(?i:nan)"),
    ("iprec_at_recall", {"at_recall": math.nan}, r"at_recall must be a finite number.*, not .?(?i:nan)"),
    ("utility", {"utility_a": math.inf}, r"utility_a( to utility_d)? must be (a )?finite numbers?, not .?(?i:inf)"),
    ("precision", {"k": 3, "rel": -math.inf}, r"rel must be a finite number.*, not .?-(?i:inf)"),
    ("rbp", {"rel": math.nan}, r"rel must be a finite number, or NULL"),
    ("intersection", {"k": 2, "ref_k": math.inf}, r"ref_k must be a (whole|finite) number"),
    ("nerr8", {"k": 3, "max_rel": math.inf}, r"max_rel must be a (number above min_rel|finite number)"),
    ("f1", {"k": 3, "beta": math.nan}, r"beta must be a (number >= 0|finite number)"),
    # a fraction of a document (evaluate() refuses it; the macro's check said only 'a number >= 0')
    ("utility", {"num_docs": 2.5}, "num_docs must be a whole number >= 0"),
    # an explicit NULL where the parameter has another default: PostgreSQL's and Spark's functions passed it on
    # (P@3 0 for every query with rel NULL, no rows with judged_only NULL, a choice NULL read as the default);
    # ClickHouse's views and BigQuery's functions read NULL as the default (test_clickhouse_reads_null_as_the_default)
    ("precision", {"k": 3, "rel": None}, r"rel must be a finite number.*, not NULL"),
    ("ndcg", {"k": 3, "judged_only": None}, "judged_only must be true or false, not NULL"),
    ("ap", {"denominator": None}, "denominator must be one of judged, capped, retrieved, not NULL"),
    ("ndcg", {"k": 3, "ideal": None}, "ideal must be one of judgments, .*, not NULL"),
    ("err", {"max_grade": None}, "max_grade must be .*, not NULL"),
    ("ndcg", {"k": 3, "gains": None}, "gains must be level=gain pairs.*, not NULL"),
]
NULL_FAULTS = {i for i, (_, args, _) in enumerate(ARGUMENT_FAULTS) if None in args.values()}
# Spark (a few seconds a failing call) runs one case of each kind of check (native's own rules, a macro's own
# rm_valid, a shared helper's range, a helper's pattern): the checks are the same SQL on every engine, written by one function
# (native._argument_checks); the other engines run every case
SPARK_ARGUMENT_FAULTS = {0, 1, 3, 5, 8, 14, 15, 19, 23, 32, 33}


@pytest.mark.parametrize("installed,macro,args,message", [
    (engine, *case) for engine in ("duckdb", "postgres", "spark", "clickhouse")
    for i, case in enumerate(ARGUMENT_FAULTS) if (engine != "spark" or i in SPARK_ARGUMENT_FAULTS)
    and (engine != "clickhouse" or i not in NULL_FAULTS)],
    indirect=["installed"])
def test_arguments_outside_their_range_fail(installed, macro, args, message):
    """Each engine's native objects refuse an argument outside its range with the engine's own error, naming
    the object, the parameter and the value (the DuckDB macros with error(), the others through rm_checks)."""
    with pytest.raises(Exception, match=message):
        installed.call(macro, args)


@pytest.mark.parametrize("installed", ["clickhouse"], indirect=True)
def test_clickhouse_reads_null_as_the_default(installed):
    """ClickHouse's parameterized views have no defaults (README): a NULL argument is the parameter's default, so
    nDCG@3 with judged_only and ideal NULL is nDCG@3, and P@3 with rel NULL is P@3 at rel 1."""
    for macro, args in (("ndcg", {"k": 3, "judged_only": None, "ideal": None}), ("precision", {"k": 3, "rel": None})):
        plain = installed.call(macro, {"k": 3})
        assert plain and installed.call(macro, args) == plain, macro


def test_a_gain_map_is_taken(installed):
    """A gain map of the right form passes the pattern check on each engine and gives the DuckDB macro's nDCG with
    that map (test_every_metric_equals_the_duckdb_macro: the same objects, the default arguments)."""
    import duckdb
    con = duckdb.connect()
    con.execute(sqlsource.script())
    con.register("run_in", RUN_TABLE)
    con.register("judgments_in", JUDGMENTS_TABLE)
    args = {"k": 10, "gains": "0=0.5,1=3,2=9.25"}
    want = _rows_to_dict(con.execute(native.call("ndcg", "duckdb", args, run="run_in", judgments="judgments_in"))
                         .fetchall())
    plain = _rows_to_dict(con.execute(native.call("ndcg", "duckdb", {"k": 10}, run="run_in",
                                                  judgments="judgments_in")).fetchall())
    assert want != plain  # the map changes the numbers
    _compare(installed.call("ndcg", args), want, f"{installed.dialect} ndcg gains")
    # trec_eval's gain measures: a map that reorders the levels (the ideal ranking numbered again by gain) and
    # gives one a negative gain
    for macro in ("g", "ndcg_rel", "rndcg"):
        args = {"gains": "0=1,1=5,2=-1"}
        want = _rows_to_dict(con.execute(native.call(macro, "duckdb", args, run="run_in", judgments="judgments_in"))
                             .fetchall())
        plain = _rows_to_dict(con.execute(native.call(macro, "duckdb", {}, run="run_in", judgments="judgments_in"))
                              .fetchall())
        assert want != plain, macro
        _compare(installed.call(macro, args), want, f"{installed.dialect} {macro} gains")


def test_recommender_objects_need_their_tables():
    """Without --interactions or --items the objects of the metrics that read them are left out (PostgreSQL
    would refuse a function over a missing table), and the header says how to create them; with the catalog
    alone, only the catalog-wide ones are created."""
    def functions(text):
        return {s.split("(")[0].split(".")[-1] for s in statements(text) if s.startswith("CREATE OR REPLACE FUNCTION")}
    plain = native.script("postgres", schema="rm")
    assert "--interactions TABLE, --items TABLE" in plain
    assert not functions(plain) & {"rm_gini", "rm_catalog_coverage", "rm_mean_inv_user_freq", "rm_serendipity"}
    catalog_text = native.script("postgres", schema="rm", items="catalog")
    catalog_only = functions(catalog_text)
    assert {"rm_gini", "rm_catalog_coverage", "rm_entropy"} <= catalog_only
    assert not catalog_only & {"rm_mean_inv_user_freq", "rm_avg_rec_popularity", "rm_serendipity"}
    both = functions(native.script("postgres", schema="rm", interactions="train"))
    assert {"rm_gini", "rm_mean_inv_user_freq", "rm_avg_rec_popularity", "rm_serendipity"} <= both
    # Intersection reads a reference run: created with --reference only
    assert "--reference TABLE" in plain and "rm_intersection" not in functions(plain) | both
    assert "rm_intersection" in functions(native.script("postgres", schema="rm", reference="other_run"))
    # IntraListDiversity reads the catalog's vectors: created only when their column is named (a catalog without
    # one could not be created over)
    assert "rm_intra_list_diversity" not in catalog_only and "--items-embedding-column" in catalog_text
    vectors = native.script("postgres", schema="rm", items="catalog", form=shape.Shape(items_columns={"embedding": "vec"}))
    assert "rm_intra_list_diversity" in functions(vectors) and "v.vec" in vectors
