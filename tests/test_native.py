"""Native objects (`rankmetrics macros --dialect D`): the DDL installed on real engines (DuckDB, PostgreSQL, Spark
local mode, ClickHouse through chdb), every function called under several conventions, and its per-query
values compared with the DuckDB evaluation path, `rankmetrics_duckdb.evaluate(..., per_query=True)` (the parity
contract of a port, to 1e-9). BigQuery and Snowflake have no engine here: their DDL is compared with golden
files under tests/golden/ and read back by sqlglot into DuckDB, which must give the same numbers."""
import math
import os

import duckdb
import pytest
import sqlglot
from sqlglot import exp

import native_engines
import synthetic
from conftest import cli
from rankmetrics_duckdb import conventions, evaluate, measures, native, sqlsource
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
]


def _data():
    """Synthetic run and judgments (tied scores, graded, unjudged items, queries missing on either side) with a
    rank column that breaks score ties by item id ascending, unlike trec_eval's descending order, so that
    ties='input' gives other numbers than the default."""
    qrels, run = synthetic.make(seed=11, queries=14, depth=40)
    judgments = [(q, d, int(r)) for q, docs in qrels.items() for d, r in docs.items()]
    rows = []
    for q, docs in run.items():
        for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: (-x[1], x[0]))):
            rows.append((q, d, float(s), i + 1))
    return judgments, rows


JUDGMENTS, RUN = _data()


def _expected():
    """{(variant, metric): {query_id: value}} from the DuckDB evaluation path."""
    import pyarrow as pa
    j = pa.table({"query_id": [r[0] for r in JUDGMENTS], "item_id": [r[1] for r in JUDGMENTS],
                  "relevance": [r[2] for r in JUDGMENTS]})
    r = pa.table({"query_id": [x[0] for x in RUN], "item_id": [x[1] for x in RUN], "score": [x[2] for x in RUN],
                  "rank": [x[3] for x in RUN]})
    out = {}
    for vid, preset, switches in VARIANTS:
        result = evaluate(j, r, METRICS, convention=preset, per_query=True, **switches)
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
CASE_IDS = [f"{vid}-{m}" for vid, _, _, m in CASES]


# ---------------------------------------------------------------- engines: DDL installed, functions called

@pytest.fixture(scope="module")
def duck():
    con = duckdb.connect()
    con.execute(cli("macros").stdout)
    native_engines.load_duckdb(con, JUDGMENTS, RUN)
    yield con
    con.close()


@pytest.fixture(scope="module")
def pg():
    with native_engines.postgres() as conn:
        native_engines.load_postgres(conn, JUDGMENTS, RUN)
        with conn.cursor() as cur:
            cur.execute(cli("macros", "--dialect", "postgres", "--run", "run", "--judgments", "judgments",
                            "--run-columns", "both").stdout)
        yield conn


@pytest.fixture(scope="module")
def spark():
    session = native_engines.spark()
    native_engines.load_spark(session, JUDGMENTS, RUN)
    ddl = cli("macros", "--dialect", "spark", "--run", "run", "--judgments", "judgments",
              "--run-columns", "both").stdout
    for statement in native_engines.statements(ddl):
        session.sql(statement)
    yield session


@pytest.fixture(scope="module")
def clickhouse():
    session = native_engines.clickhouse()
    native_engines.load_clickhouse(session, JUDGMENTS, RUN)
    ddl = cli("macros", "--dialect", "clickhouse", "--run", "run", "--judgments", "judgments",
              "--run-columns", "both").stdout
    for statement in native_engines.statements(ddl):
        session.query(statement)
    yield session
    session.close()


def _rows_to_dict(rows):
    return {str(q): (None if v is None else float(v)) for q, v in rows}


@pytest.mark.parametrize("vid,preset,switches,metric", CASES, ids=CASE_IDS)
def test_duckdb_macros(duck, vid, preset, switches, metric):
    macro, args = call_args(metric, preset, switches)
    sql = native.call(macro, "duckdb", args, run="run", judgments="judgments")
    _compare(_rows_to_dict(duck.execute(sql).fetchall()), EXPECTED[(vid, metric)], f"duckdb {vid} {metric}")


@pytest.mark.parametrize("vid,preset,switches,metric", CASES, ids=CASE_IDS)
def test_postgres_functions(pg, vid, preset, switches, metric):
    macro, args = call_args(metric, preset, switches)
    with pg.cursor() as cur:
        cur.execute(native.call(macro, "postgres", args))
        got = _rows_to_dict(cur.fetchall())
    _compare(got, EXPECTED[(vid, metric)], f"postgres {vid} {metric}")


@pytest.mark.parametrize("vid,preset,switches,metric", CASES, ids=CASE_IDS)
def test_spark_table_functions(spark, vid, preset, switches, metric):
    macro, args = call_args(metric, preset, switches)
    rows = spark.sql(native.call(macro, "spark", args)).collect()
    _compare(_rows_to_dict([(r[0], r[1]) for r in rows]), EXPECTED[(vid, metric)], f"spark {vid} {metric}")


@pytest.mark.parametrize("vid,preset,switches,metric", CASES, ids=CASE_IDS)
def test_clickhouse_parameterized_views(clickhouse, vid, preset, switches, metric):
    macro, args = call_args(metric, preset, switches)
    rows = native_engines.clickhouse_rows(clickhouse, native.call(macro, "clickhouse", args))
    _compare(_rows_to_dict(rows), EXPECTED[(vid, metric)], f"clickhouse {vid} {metric}")


def test_postgres_defaults(pg):
    """Arguments left out take the defaults of sql/ (trec_eval's conventions): rm_ndcg(10) is nDCG@10."""
    with pg.cursor() as cur:
        cur.execute("SELECT query_id, value FROM rm_ndcg(10)")
        _compare(_rows_to_dict(cur.fetchall()), EXPECTED[("default", "nDCG@10")], "postgres rm_ndcg(10)")
        cur.execute("SELECT query_id, value FROM rm_ap()")
        _compare(_rows_to_dict(cur.fetchall()), EXPECTED[("default", "AP")], "postgres rm_ap()")


def test_spark_defaults(spark):
    rows = spark.sql("SELECT query_id, value FROM rm_ndcg(10)").collect()
    _compare(_rows_to_dict([(r[0], r[1]) for r in rows]), EXPECTED[("default", "nDCG@10")], "spark rm_ndcg(10)")


def test_every_metric_installs_and_runs(pg, spark, clickhouse):
    """Each native object (not only the ones of the matrix) runs with its defaults on every engine and gives the
    DuckDB macro's numbers."""
    con = duckdb.connect()
    con.execute(sqlsource.script())
    native_engines.load_duckdb(con, JUDGMENTS, RUN)
    for macro in native.metric_macros():
        args = {name: None if default.sql() == "NULL" else _py(default) for name, _, default in
                native.parameters(macro)}
        want = _rows_to_dict(con.execute(native.call(macro, "duckdb", args, run="run", judgments="judgments"))
                             .fetchall())
        with pg.cursor() as cur:
            cur.execute(native.call(macro, "postgres", args))
            _compare(_rows_to_dict(cur.fetchall()), want, f"postgres {macro}")
        rows = spark.sql(native.call(macro, "spark", args)).collect()
        _compare(_rows_to_dict([(r[0], r[1]) for r in rows]), want, f"spark {macro}")
        _compare(_rows_to_dict(native_engines.clickhouse_rows(clickhouse, native.call(macro, "clickhouse", args))),
                 want, f"clickhouse {macro}")


def _py(e: exp.Expression):
    if isinstance(e, exp.Boolean):
        return e.this
    if isinstance(e, exp.Literal):
        return e.this if e.is_string else float(e.this)
    raise AssertionError(e.sql())


# ---------------------------------------------------------------- BigQuery and Snowflake: golden files

GOLDEN_CASES = [("bigquery", ["--schema", "metrics", "--run", "mydata.run", "--judgments", "mydata.judgments",
                              "--run-columns", "both"]),
                ("snowflake", ["--run", "run", "--judgments", "judgments", "--run-columns", "both"])]


@pytest.mark.parametrize("dialect,options", GOLDEN_CASES, ids=[c[0] for c in GOLDEN_CASES])
def test_golden(dialect, options):
    text = cli("macros", "--dialect", dialect, *options).stdout
    with open(os.path.join(GOLDEN, f"native_{dialect}.sql"), encoding="utf-8") as fh:
        assert text == fh.read(), f"tests/golden/native_{dialect}.sql differs (review the DDL, then update it)"


def _read_back(dialect: str, text: str) -> dict:
    """{function name: its body as a sqlglot tree}, parsed from the golden DDL in its own dialect."""
    bodies = {}
    for statement in native_engines.statements(text):
        tree = sqlglot.parse_one(statement, read=dialect)
        name = tree.this.this.name if isinstance(tree.this, exp.UserDefinedFunction) else None
        body = tree.expression
        if isinstance(body, (exp.Literal, exp.Heredoc, exp.RawString)):  # Snowflake's $$ ... $$ body
            body = sqlglot.parse_one(body.name, read=dialect)
        if isinstance(body, exp.Subquery):
            body = body.this
        assert name and isinstance(body, exp.Select), statement[:200]
        bodies[name.lower()] = body
    return bodies


@pytest.mark.parametrize("dialect", ["bigquery", "snowflake"])
def test_golden_read_back_into_duckdb(dialect):
    """The golden DDL parsed back by sqlglot, the parameters given as literals in the params CTE, rendered for
    DuckDB and run there: the same numbers as evaluate()."""
    with open(os.path.join(GOLDEN, f"native_{dialect}.sql"), encoding="utf-8") as fh:
        bodies = _read_back(dialect, fh.read())
    con = duckdb.connect()
    native_engines.load_duckdb(con, JUDGMENTS, RUN)
    con.execute("CREATE SCHEMA mydata; CREATE VIEW mydata.run AS SELECT * FROM main.run; "
                "CREATE VIEW mydata.judgments AS SELECT * FROM main.judgments")
    for vid, preset, switches, metric in CASES:
        macro, args = call_args(metric, preset, switches)
        body = bodies[native.PREFIX + macro].copy()
        params = next(cte for cte in body.args["with_"].expressions if cte.alias == "params")
        params.this.set("expressions", [exp.alias_(sqlsource.literal(args[a.alias]), a.alias)
                                        for a in params.this.expressions])
        got = _rows_to_dict(con.execute(body.sql(dialect="duckdb")).fetchall())
        _compare(got, EXPECTED[(vid, metric)], f"{dialect} read back {vid} {metric}")


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


def test_hostile_table_names_stay_names():
    """A table name with quotes, a semicolon or a comment is quoted as one identifier, never pasted as SQL."""
    text = native.script("postgres", run='run"; DROP TABLE x; --', judgments="j")
    tree = sqlglot.parse(text, read="postgres")
    assert all(isinstance(t, exp.Create) for t in tree)
    assert 'FROM "run""; DROP TABLE x; --" AS r' in text
    with pytest.raises(UsageError):
        native.script("postgres", run="a..b")
    p = cli("macros", "--dialect", "postgres", "--run", "", check=False)
    assert p.returncode == 2 and "--run" in p.stderr
