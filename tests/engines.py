"""Real SQL engines for the dialect tests, each started by the test session itself.

Every engine has the same small surface: load(name, arrow_table) stores a table and returns its (qualified)
name as the generated SQL must write it, and rows(sql) runs one query and returns its rows as tuples.
Nothing is skipped: an engine that cannot start raises, with what to install (.ci/run installs all of them).
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pyarrow as pa


class EngineMissing(RuntimeError):
    pass


# column names that are keywords in some engine (tests/test_warehouse.py's keyword columns): quoted when the table
# is created, as the engine quotes (the other names stay bare, so that PostgreSQL folds them as before)
_KEYWORDS = {"select", "order", "from", "group", "table", "where", "limit", "values", "index", "case"}


def _col(name: str, quote: str = '"') -> str:
    return f"{quote}{name}{quote}" if name.lower() in _KEYWORDS else name


def _types(table: pa.Table, text: str, double: str, integer: str, array: str | None = None):
    """(column, the engine's type) of each column; array: the engine's list type, with {} for the element's."""
    def one(name, t):
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            return text
        if pa.types.is_floating(t):
            return double
        if pa.types.is_integer(t):
            return integer
        if pa.types.is_list(t) and array is not None:  # PostgreSQL: TEXT[] COLLATE "C", not TEXT COLLATE "C"[]
            base, _, collation = one(name, t.value_type).partition(" COLLATE ")
            return array.format(base) + (f" COLLATE {collation}" if collation else "")
        raise TypeError(f"column {name}: unexpected type {t}")
    return [(f.name, one(f.name, f.type)) for f in table.schema]


class DuckDB:
    """DuckDB, tables in an attached catalog: wh.rm.<name> (a three-part name)."""
    dialect = "duckdb"

    def __init__(self):
        import duckdb
        self.con = duckdb.connect()
        self.con.execute("ATTACH ':memory:' AS wh")
        self.con.execute("CREATE SCHEMA wh.rm")

    def load(self, name, table):
        self.con.register("incoming", table)
        self.con.execute(f"CREATE OR REPLACE TABLE wh.rm.{name} AS SELECT * FROM incoming")
        self.con.unregister("incoming")
        return f"wh.rm.{name}"

    def rows(self, sql):
        return self.con.execute(sql).fetchall()

    def close(self):
        self.con.close()


class SQLite:
    """SQLite from the standard library (math functions ln/exp/power are built in since 3.35)."""
    dialect = "sqlite"

    def __init__(self):
        import sqlite3
        self.con = sqlite3.connect(":memory:")
        version = tuple(int(x) for x in sqlite3.sqlite_version.split("."))
        if version < (3, 35):
            raise EngineMissing(f"SQLite {sqlite3.sqlite_version} is too old: window functions, NULLS LAST and "
                                f"math functions need 3.35+")
        self.con.execute("SELECT ln(2.0), exp(1.0), power(2.0, 3)").fetchall()  # math functions built in

    def load(self, name, table):
        cols = _types(table, "TEXT", "REAL", "INTEGER")
        self.con.execute(f"CREATE TABLE main.{name} ({', '.join(f'{_col(c)} {t}' for c, t in cols)})")
        self.con.executemany(f"INSERT INTO main.{name} VALUES ({', '.join('?' * len(cols))})",
                             list(zip(*[table.column(c).to_pylist() for c, _ in cols])))
        return f"main.{name}"

    def rows(self, sql):
        return self.con.execute(sql).fetchall()

    def close(self):
        self.con.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_bin() -> str:
    """The folder of Debian's PostgreSQL server binaries (initdb, pg_ctl): /usr/lib/postgresql/*/bin or PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[-3]) if p.split("/")[-3].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return os.path.dirname(os.path.realpath(initdb))
    raise EngineMissing("PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin or "
                        "on PATH: apt-get install -y postgresql (.ci/run does)")


class Postgres:
    """A throw-away PostgreSQL server: initdb into a temporary folder (as `nobody` when we are root), a unix
    socket in that folder, a free port number, stopped and removed by close(). Text columns get an ICU
    (natural language) collation, so that item id ties really need the rendered COLLATE "C". jit=off: PostgreSQL's
    JIT (on by default) compiles the large statements for seconds on the tests' small tables and changes no
    result (the dbt project's PostgreSQL build: 47.9 s with it, 8.9 s without)."""
    dialect = "postgres"

    def __init__(self):
        import psycopg
        bindir = postgres_bin()
        self.tmp = tempfile.mkdtemp(prefix="rankmetrics-pg-")
        self.data = os.path.join(self.tmp, "data")
        run_as = {}
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            import pwd
            user = pwd.getpwnam("nobody")
            os.chown(self.tmp, user.pw_uid, user.pw_gid)
            run_as = dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        self.pg_ctl = os.path.join(bindir, "pg_ctl")
        self._run = dict(cwd=self.tmp, env=env, capture_output=True, text=True, timeout=120, **run_as)
        self.port = _free_port()
        try:
            self._check(subprocess.run([os.path.join(bindir, "initdb"), "-D", self.data, "-U", "postgres",
                                        "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8"], **self._run))
            self._check(subprocess.run(
                [self.pg_ctl, "-D", self.data, "-l", os.path.join(self.tmp, "server.log"), "-w", "-t", "60",
                 "-o", f"-p {self.port} -k {self.tmp} -c listen_addresses='' -c fsync=off "
                       f"-c shared_buffers=32MB -c max_connections=10 -c jit=off", "start"], **self._run))
            self.con = psycopg.connect(host=self.tmp, port=self.port, user="postgres", dbname="postgres",
                                       autocommit=True)
        except Exception:
            self.close()
            raise
        row = self.con.execute("SELECT collname FROM pg_collation WHERE collname IN ('en-US-x-icu', 'und-x-icu') "
                               "ORDER BY collname LIMIT 1").fetchone()
        if row is None:
            self.close()
            raise EngineMissing("this PostgreSQL has no ICU collation (en-US-x-icu): Debian's postgresql has one")
        self.collation = row[0]
        self.con.execute("CREATE SCHEMA rm")

    @staticmethod
    def _check(p):
        if p.returncode != 0:
            raise EngineMissing(f"PostgreSQL: {' '.join(p.args[:1])} failed: {p.stdout}{p.stderr}")

    def load(self, name, table):
        cols = _types(table, f'TEXT COLLATE "{self.collation}"', "DOUBLE PRECISION", "BIGINT", "{}[]")
        self.con.execute(f"CREATE TABLE rm.{name} ({', '.join(f'{_col(c)} {t}' for c, t in cols)})")
        with self.con.cursor() as cur:
            with cur.copy(f"COPY rm.{name} ({', '.join(_col(c) for c, _ in cols)}) FROM STDIN") as copy:
                for row in zip(*[table.column(c).to_pylist() for c, _ in cols]):
                    copy.write_row(row)
        return f"rm.{name}"

    def rows(self, sql):
        return self.con.execute(sql).fetchall()

    def close(self):
        if getattr(self, "con", None) is not None:
            self.con.close()
            self.con = None
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            subprocess.run([self.pg_ctl, "-D", self.data, "-m", "immediate", "-w", "stop"], **self._run)
        shutil.rmtree(self.tmp, ignore_errors=True)


class MariaDB:
    """A throw-away MariaDB server (Debian's mariadb-server): mariadb-install-db into a temporary folder (as
    `nobody` when we are root), a unix socket there and no network, stopped and removed by close(). The database
    rm has a case-insensitive default collation (utf8mb4_general_ci), so that ids differing only in case really
    need the rendered binary collation. The rm_fail helper the SQL calls is created from `rankmetrics macros
    --dialect mysql`, as a user would (its DELIMITER lines are the mysql client's, not SQL)."""
    dialect = "mysql"

    def __init__(self):
        import pymysql
        server, install = shutil.which("mariadbd", path="/usr/sbin:/usr/bin:" + os.environ.get("PATH", "")), \
            shutil.which("mariadb-install-db", path="/usr/bin:/usr/sbin:" + os.environ.get("PATH", ""))
        if server is None or install is None:
            raise EngineMissing("MariaDB server binaries (mariadbd, mariadb-install-db) not found: "
                                "apt-get install -y mariadb-server (.ci/run does)")
        self.tmp = tempfile.mkdtemp(prefix="rankmetrics-mariadb-")
        self.socket = os.path.join(self.tmp, "sock")
        run_as = {}
        if os.geteuid() == 0:  # mariadbd refuses to run as root without --user
            import pwd
            user = pwd.getpwnam("nobody")
            os.chown(self.tmp, user.pw_uid, user.pw_gid)
            run_as = dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
        data, scratch = os.path.join(self.tmp, "data"), os.path.join(self.tmp, "scratch")
        os.mkdir(scratch)
        if run_as:
            os.chown(scratch, run_as["user"], run_as["group"])
        self.proc = None
        try:
            p = subprocess.run([install, "--no-defaults", f"--datadir={data}", "--skip-test-db",
                                "--auth-root-authentication-method=normal"],
                               cwd=self.tmp, capture_output=True, text=True, timeout=120, **run_as)
            if p.returncode != 0:
                raise EngineMissing(f"MariaDB: mariadb-install-db failed: {p.stdout}{p.stderr}")
            self.proc = subprocess.Popen(
                [server, "--no-defaults", f"--datadir={data}", f"--socket={self.socket}", "--skip-networking",
                 "--skip-grant-tables", f"--pid-file={os.path.join(self.tmp, 'pid')}",
                 f"--log-error={os.path.join(self.tmp, 'error.log')}", "--character-set-server=utf8mb4",
                 "--collation-server=utf8mb4_general_ci", "--innodb-buffer-pool-size=32M",
                 # its temporary tables in its own folder: two test processes' servers shared /tmp, and one
                 # failed a query with "Error on delete of '/tmp/#sql-temptable-14ff-3-a1.MAI' (Errcode: 2)"
                 f"--tmpdir={scratch}"],
                cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **run_as)
            deadline = time.monotonic() + 60
            while True:
                try:
                    self.con = pymysql.connect(unix_socket=self.socket, user="root", autocommit=True,
                                               charset="utf8mb4")
                    break
                except pymysql.err.OperationalError:
                    if self.proc.poll() is not None or time.monotonic() > deadline:
                        log = open(os.path.join(self.tmp, "error.log")).read() if os.path.exists(
                            os.path.join(self.tmp, "error.log")) else ""
                        raise EngineMissing(f"MariaDB did not start: {log[-2000:]}") from None
                    time.sleep(0.1)
            with self.con.cursor() as cur:
                cur.execute("CREATE DATABASE rm CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
                cur.execute("USE rm")
                for statement in helper_statements(_cli_stdout("macros", "--dialect", "mysql")):
                    cur.execute(statement)
        except Exception:
            self.close()
            raise

    def load(self, name, table):
        cols = _types(table, "VARCHAR(255)", "DOUBLE", "BIGINT")
        with self.con.cursor() as cur:
            cur.execute(f"CREATE TABLE rm.{name} ({', '.join(f'{_col(c, chr(96))} {t}' for c, t in cols)})")
            cur.executemany(f"INSERT INTO rm.{name} VALUES ({', '.join(['%s'] * len(cols))})",
                            list(zip(*[table.column(c).to_pylist() for c, _ in cols])))
        return f"rm.{name}"

    def rows(self, sql):
        with self.con.cursor() as cur:
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]

    def close(self):
        if getattr(self, "con", None) is not None:
            self.con.close()
            self.con = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _cli_stdout(*args) -> str:
    p = subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", *args], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"rankmetrics {' '.join(args)}: {p.stderr}")
    return p.stdout


def helper_statements(script: str) -> list[str]:
    """The statements of a mysql client script, as the client splits them: DELIMITER lines set the delimiter
    (they are the client's, not SQL); comments dropped."""
    statements, delimiter, current = [], ";", []
    for line in script.splitlines():
        if line.strip().upper().startswith("DELIMITER "):
            delimiter = line.split()[1]
            continue
        if line.lstrip().startswith("--") and not current:
            continue
        current.append(line)
        if line.rstrip().endswith(delimiter):
            text = "\n".join(current).rstrip()[:-len(delimiter)].strip()
            if text:
                statements.append(text)
            current = []
    if "\n".join(current).strip():
        statements.append("\n".join(current).strip())
    return statements


class Spark:
    """Spark SQL in local mode (pyspark + a Java 17+ runtime), ANSI mode on, tables as global temporary views
    (global_temp.<name>)."""
    dialect = "spark"

    def __init__(self):
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            raise EngineMissing("no Java runtime for Spark: apt-get install -y openjdk-17-jre-headless (.ci/run does)")
        from pyspark.sql import SparkSession
        self.spark = (SparkSession.builder.master("local[1]").appName("rankmetrics-tests")
                      .config("spark.ui.enabled", "false")
                      .config("spark.ui.showConsoleProgress", "false")
                      .config("spark.sql.shuffle.partitions", "1")
                      .config("spark.sql.codegen.wholeStage", "false")  # tiny data: compiling costs more
                      .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
                      # tiny data: adaptive execution's re-planning after each stage costs more than it saves
                      # (a native function's call ran 0.62 s -> 0.42 s, a query of `rankmetrics sql` 0.30 -> 0.17 s);
                      # the benchmark's Spark session keeps Spark's defaults
                      .config("spark.sql.adaptive.enabled", "false")
                      .config("spark.default.parallelism", "1")
                      .config("spark.sql.ansi.enabled", "true")
                      .config("spark.sql.session.timeZone", "UTC")
                      .config("spark.driver.bindAddress", "127.0.0.1")
                      .config("spark.driver.host", "127.0.0.1")
                      # one session serves every Spark test of a test process (conftest.Started): the default
                      # 1 GB ran out of memory for aggregation late in a run
                      .config("spark.driver.memory", "2g")
                      # the suite is CPU-bound on 2 cores and the JVM's optimizing compiler and parallel GC
                      # cost a third of Spark's CPU on these short queries: the quick compiler and one GC thread
                      .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 "
                              "-XX:+UseSerialGC -XX:-UsePerfData")
                      .getOrCreate())
        self.spark.sparkContext.setLogLevel("ERROR")

    def load(self, name, table):
        cols = _types(table, "STRING", "DOUBLE", "BIGINT", "ARRAY<{}>")
        rows = list(zip(*[table.column(c).to_pylist() for c, _ in cols]))
        schema = ", ".join(f"{_col(c, chr(96))} {t}" for c, t in cols)
        self.spark.createDataFrame(rows, schema=schema).createOrReplaceGlobalTempView(name)
        return f"global_temp.{name}"

    def rows(self, sql):
        return [tuple(r) for r in self.spark.sql(sql).collect()]

    def close(self):
        self.spark.stop()


class ClickHouse:
    """ClickHouse in process (chdb), tables in a database rm with the Memory engine."""
    dialect = "clickhouse"

    def __init__(self):
        from chdb import session
        self.session = session.Session()
        self.session.query("CREATE DATABASE IF NOT EXISTS rm")

    @staticmethod
    def _literal(v):
        if isinstance(v, list):
            return "[" + ", ".join(ClickHouse._literal(x) for x in v) + "]"
        if isinstance(v, str):
            return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "NULL" if v is None else repr(v)

    def load(self, name, table):
        cols = [(c, f"Nullable({t})" if table.column(c).null_count and not t.startswith("Array") else t)
                for c, t in _types(table, "String", "Float64", "Int64", "Array({})")]  # a NULL needs Nullable
        self.session.query(f"CREATE TABLE rm.{name} ({', '.join(f'{_col(c, chr(96))} {t}' for c, t in cols)}) "
                           f"ENGINE = Memory")
        values = ", ".join("(" + ", ".join(self._literal(v) for v in row) + ")"
                           for row in zip(*[table.column(c).to_pylist() for c, _ in cols]))
        self.session.query(f"INSERT INTO rm.{name} VALUES {values}")
        return f"rm.{name}"

    def rows(self, sql):
        return [tuple(r.values()) for r in self.session.query(sql, "ArrowTable").to_pylist()]

    def close(self):
        self.session.close()


class DataFusion:
    """Apache DataFusion (the `datafusion` Python package), tables in its default schema public."""
    dialect = "datafusion"

    def __init__(self):
        import datafusion
        self.ctx = datafusion.SessionContext()

    def load(self, name, table):
        self.ctx.register_record_batches(name, [table.to_batches()])
        return f"public.{name}"

    def rows(self, sql):
        return [tuple(r.values()) for r in self.ctx.sql(sql).to_arrow_table().to_pylist()]

    def close(self):
        pass


class ReadBack:
    """A dialect we cannot run here (BigQuery, Snowflake, ...): its SQL is read back by sqlglot into DuckDB and
    run there. Collations are dropped on the way (DuckDB already compares strings byte-wise, and has no
    Latin1_General_BIN2). Tables live in a catalog named like a BigQuery project: my-project.rm.<name>."""

    def __init__(self, dialect):
        import duckdb
        self.dialect = dialect
        self.con = duckdb.connect()
        self.con.execute("ATTACH ':memory:' AS \"my-project\"")
        self.con.execute("CREATE SCHEMA \"my-project\".rm")
        # MySQL's CRC32, the short key beside the ids' equalities in the mysql SQL's joins (dialects.Dialect.
        # join_key): any hash of the text keys the same rows, the ids' own equalities decide
        self.con.execute("CREATE MACRO crc32(x) AS hash(x)")

    def load(self, name, table):
        self.con.register("incoming", table)
        self.con.execute(f'CREATE OR REPLACE TABLE "my-project".rm.{name} AS SELECT * FROM incoming')
        self.con.unregister("incoming")
        return f"my-project.rm.{name}"

    def duckdb_sql(self, sql):
        import sqlglot
        from sqlglot import exp
        from rankmetrics_duckdb.sqlsource import without_positions
        # the tree is ours alone: transformed in place (each copy of the whole tree took a fifth of a second),
        # without the parser's positions (copied with every node the generator copies)
        tree = without_positions(sqlglot.parse_one(sql, read=self.dialect))
        tree = tree.transform(lambda n: n.this if isinstance(n, exp.Collate) else n, copy=False)
        # the engine's way to fail a statement (dialects.Dialect.fail: Trino's fail, BigQuery's ERROR, Spark's
        # raise_error, MySQL's helper rm_fail, for the mysql SQL read back) becomes DuckDB's error, which fails the
        # same way
        fails = ("fail", "error", "raise_error", "rm_fail")
        tree = tree.transform(lambda n: exp.Anonymous(this="error", expressions=n.expressions)
                              if isinstance(n, exp.Anonymous) and n.name.lower() in fails else n, copy=False)
        if self.dialect == "tsql" and tree.find(exp.With):  # T-SQL writes no RECURSIVE: a CTE reading itself is
            tree.find(exp.With).set("recursive", True)  # recursive there, DuckDB must be told
        if self.dialect == "tsql":  # sqlglot reads T-SQL FLOAT (8 bytes, FLOAT(53)) as a 4-byte REAL
            tree = tree.transform(lambda n: exp.DataType.build("DOUBLE")
                                  if isinstance(n, exp.DataType) and n.this == exp.DataType.Type.FLOAT else n,
                                  copy=False)
        # Redshift's VARCHAR(MAX) (sqlglot's VARCHAR there) has no length DuckDB reads: a VARCHAR is one
        tree = tree.transform(lambda n: exp.DataType.build("VARCHAR")
                              if isinstance(n, exp.DataType) and n.this == exp.DataType.Type.VARCHAR
                              and n.expressions else n, copy=False)
        return tree.sql(dialect="duckdb")

    def rows(self, sql):
        return self.con.execute(self.duckdb_sql(sql)).fetchall()

    def close(self):
        self.con.close()


REAL = {"duckdb": DuckDB, "postgres": Postgres, "sqlite": SQLite, "spark": Spark, "clickhouse": ClickHouse,
        "datafusion": DataFusion, "mysql": MariaDB}
READ_BACK = ("bigquery", "snowflake", "trino", "presto", "redshift", "databricks", "tsql")


def start(name):
    return REAL[name]() if name in REAL else ReadBack(name)
