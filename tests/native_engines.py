"""Real engines for the native-object tests, started by the test suite itself: a PostgreSQL server (initdb into a
temporary folder as a non-root user, a free port, stopped afterwards), Spark in local mode, ClickHouse through
chdb, DuckDB; and loaders putting the same rows in each."""
import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile

import sqlglot


def statements(text: str) -> list[str]:
    """The statements of a DDL script (comments dropped), split by sqlglot's tokenizer so that a semicolon
    inside a string, a quoted name or a $$ body does not split."""
    from sqlglot.tokens import TokenType
    out, start = [], 0
    dialect = "postgres" if "$rankmetrics$" in text else "duckdb"
    for token in sqlglot.Dialect.get_or_raise(dialect).tokenize(text):
        if token.token_type == TokenType.SEMICOLON:
            out.append(text[start:token.start].strip())
            start = token.end + 1
    out.append(text[start:].strip())
    cleaned = []
    for s in out:
        lines = [ln for ln in s.splitlines() if not ln.lstrip().startswith("--")]
        if "\n".join(lines).strip():
            cleaned.append("\n".join(lines).strip())
    return cleaned


# ------------------------------------------------------------------------------------------------ DuckDB

def load_duckdb(con, judgments, run):
    con.execute("CREATE OR REPLACE TABLE judgments (query_id VARCHAR, item_id VARCHAR, relevance INTEGER)")
    con.executemany("INSERT INTO judgments VALUES (?, ?, ?)", judgments)
    con.execute("CREATE OR REPLACE TABLE run (query_id VARCHAR, item_id VARCHAR, score DOUBLE, rank INTEGER)")
    con.executemany("INSERT INTO run VALUES (?, ?, ?, ?)", run)


# ------------------------------------------------------------------------------------------------ PostgreSQL

def _pg_bin(name):
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not candidates:
        raise RuntimeError(f"PostgreSQL's {name} not found: install Debian's postgresql package (.ci/run does)")
    return candidates[-1]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def postgres():
    """A throwaway PostgreSQL server; yields a psycopg connection (autocommit)."""
    import psycopg
    folder = tempfile.mkdtemp(prefix="rankmetrics-pg-")
    data = os.path.join(folder, "data")
    user = None
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        import pwd
        for candidate in ("postgres", "nobody"):
            try:
                user = pwd.getpwnam(candidate)
                break
            except KeyError:
                continue
        os.chown(folder, user.pw_uid, user.pw_gid)

    def run(*cmd):
        if user is not None:
            cmd = ("runuser", "-u", user.pw_name, "--", *cmd)
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)

    port = _free_port()
    run(_pg_bin("initdb"), "-D", data, "-U", "rankmetrics", "-A", "trust", "--no-sync", "-E", "UTF8",
        "--locale=C.UTF-8")
    run(_pg_bin("pg_ctl"), "-D", data, "-w", "-l", os.path.join(folder, "log"), "-o",
        f"-p {port} -k {folder} -c listen_addresses='' -c fsync=off", "start")
    try:
        conn = psycopg.connect(host=folder, port=port, user="rankmetrics", dbname="postgres", autocommit=True)
        try:
            yield conn
        finally:
            conn.close()
    finally:
        run(_pg_bin("pg_ctl"), "-D", data, "-w", "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def load_postgres(conn, judgments, run):
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE judgments (query_id TEXT, item_id TEXT, relevance INTEGER)")
        cur.executemany("INSERT INTO judgments VALUES (%s, %s, %s)", judgments)
        cur.execute("CREATE TABLE run (query_id TEXT, item_id TEXT, score DOUBLE PRECISION, rank INTEGER)")
        cur.executemany("INSERT INTO run VALUES (%s, %s, %s, %s)", run)


# ------------------------------------------------------------------------------------------------ Spark

_SPARK = None


def spark():
    """One Spark session in local mode for the whole test run (ANSI mode, as Spark 4 defaults)."""
    global _SPARK
    if _SPARK is None:
        from pyspark.sql import SparkSession
        warehouse = tempfile.mkdtemp(prefix="rankmetrics-spark-")
        _SPARK = (SparkSession.builder.master("local[1]").appName("rankmetrics-tests")
                  .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
                  .config("spark.sql.warehouse.dir", warehouse)
                  .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={warehouse}")
                  .getOrCreate())
        _SPARK.sparkContext.setLogLevel("ERROR")
    return _SPARK


def load_spark(session, judgments, run):
    from pyspark.sql.types import DoubleType, IntegerType, StringType, StructField, StructType
    session.sql("DROP TABLE IF EXISTS judgments")
    session.sql("DROP TABLE IF EXISTS run")
    session.createDataFrame(judgments, StructType([
        StructField("query_id", StringType()), StructField("item_id", StringType()),
        StructField("relevance", IntegerType())])).write.saveAsTable("judgments")
    session.createDataFrame(run, StructType([
        StructField("query_id", StringType()), StructField("item_id", StringType()),
        StructField("score", DoubleType()), StructField("rank", IntegerType())])).write.saveAsTable("run")


# ------------------------------------------------------------------------------------------------ ClickHouse

def clickhouse():
    from chdb import session
    return session.Session()


def _ch_literal(v):
    if isinstance(v, str):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(v)


def load_clickhouse(sess, judgments, run):
    sess.query("DROP TABLE IF EXISTS judgments")
    sess.query("DROP TABLE IF EXISTS run")
    sess.query("CREATE TABLE judgments (query_id String, item_id String, relevance Int32) ENGINE = Memory")
    sess.query("INSERT INTO judgments VALUES " + ", ".join(
        "(" + ", ".join(_ch_literal(v) for v in row) + ")" for row in judgments))
    sess.query("CREATE TABLE run (query_id String, item_id String, score Float64, rank Int32) ENGINE = Memory")
    sess.query("INSERT INTO run VALUES " + ", ".join(
        "(" + ", ".join(_ch_literal(v) for v in row) + ")" for row in run))


def clickhouse_rows(sess, sql):
    import json
    text = sess.query(sql, "JSONCompact").bytes().decode()
    return [tuple(r) for r in json.loads(text)["data"]]
