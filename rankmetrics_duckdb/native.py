"""Native reusable objects: every metric installed once in a warehouse, as that engine's own kind of object.

`rankmetrics macros --dialect D --run TABLE --judgments TABLE` prints DDL that creates, per metric, an object
returning rows (query_id, value) for every query the `queries` convention keeps, with the cutoff k and the
convention parameters as arguments:

    duckdb      table macros (the sql/ files as they are)        SELECT * FROM ndcg('run', 'qrels', 10)
    postgres    SQL functions RETURNS TABLE                      SELECT * FROM rm_ndcg(10)
    spark       SQL table functions (Spark 4)                    SELECT * FROM rm_ndcg(10)
    databricks  SQL table functions                              SELECT * FROM rm_ndcg(10)
    bigquery    table functions (every argument, NULL: default)  SELECT * FROM ds.rm_ndcg(10, NULL, ...)
    snowflake   SQL UDTFs                                        SELECT * FROM TABLE(rm_ndcg(10))
    clickhouse  parameterized views (omitted/NULL: default)      SELECT * FROM rm_ndcg(k=10)

One definition, many renderings: each object is the metric's table macro of sql/, expanded by
sqlsource.expand with the convention parameters left as parameters (not folded to literals). The parameters
enter the query once, as the one-row CTE `params` (the only place that differs between dialects: a function
argument, a BigQuery/Snowflake parameter name, a ClickHouse {name:Type} placeholder); every SELECT that uses a
parameter joins that row as `prm` (and groups by it), so no engine sees a parameter inside an aggregate or a
window (Spark 4 rejects an aggregate mixing a function argument with a column). The run and the judgments are
normalized as in sqlgen (run_items, judgment_items) and read through sql/01_stream.sql's rm_stream; the
dialect layer (dialects.render) then writes the body as it writes `rankmetrics sql`: byte-wise item ids,
explicit null order, NULLIF divisors, ClickHouse's join_use_nulls.
"""
from __future__ import annotations

from sqlglot import exp

from . import dialects, sqlgen, sqlsource
from .errors import UsageError

KINDS = {
    "duckdb": "table macros",
    "postgres": "SQL functions returning TABLE",
    "spark": "SQL table functions (Spark 4)",
    "databricks": "SQL table functions",
    "bigquery": "table functions",
    "snowflake": "SQL UDTFs",
    "clickhouse": "parameterized views",
}
PREFIX = "rm_"
# Dialects whose objects cannot declare argument defaults: there a NULL argument (ClickHouse: also one left
# out) means the default of sql/.
NULL_MEANS_DEFAULT = ("bigquery", "clickhouse")
DIALECTS = tuple(KINDS)  # the dialects of dialects.DIALECTS that have native objects
RUN_COLUMNS = ("score", "rank", "score,rank")
STREAM = "item_stream"  # not "stream": FROM STREAM is Spark 4's syntax for a streaming read
_INPUT_MACROS = ("rm_stream", "rm_run_items", "rm_judgment_items",
                 "rm_trec_fields", "trec_qrels", "trec_run")  # sql/02_trec.sql: DuckDB file readers


def metric_macros() -> list[str]:
    """The metric table macros of sql/ (ndcg, ap, precision, ...), in file order."""
    return [name for name, m in sqlsource.macros().items() if m.is_table and name not in _INPUT_MACROS]


def parameters(macro_name: str) -> list[tuple[str, str, exp.Expression]]:
    """(name, type, default) of a metric's parameters besides the two tables. The type is a generic SQL type
    (INT, DOUBLE, VARCHAR, BOOLEAN) read off the default: k is a whole number, judged_only a flag, a quoted
    default a text choice, any other a number."""
    macro = sqlsource.macros()[macro_name]
    out = []
    for p in macro.params:
        if p.lower() in ("run", "judgments"):
            continue
        default = macro.defaults.get(p, exp.Null())
        if p.lower() == "k":
            kind = "INT"
        elif isinstance(default, exp.Boolean):
            kind = "BOOLEAN"
        elif isinstance(default, exp.Literal) and default.is_string:
            kind = "VARCHAR"
        else:
            kind = "DOUBLE"
        out.append((p.lower(), kind, default))
    return out


def _param_ref(dialect: str, function: exp.Table, name: str, kind: str) -> exp.Expression:
    """How the body of the object reads its parameter `name`."""
    if dialect == "clickhouse":
        # every parameter Nullable: one left out of the call is NULL, which params turns into the default;
        # k unsigned, as ClickHouse cannot unify Int64 with the UInt64 of a count in one CASE
        ch_type = {"INT": "Nullable(UInt64)", "DOUBLE": "Nullable(Float64)", "VARCHAR": "Nullable(String)",
                   "BOOLEAN": "Nullable(Bool)"}[kind]
        return exp.Placeholder(this=exp.var(name), kind=exp.DataType.build(ch_type, dialect="clickhouse"))
    if dialect in ("postgres", "spark", "databricks"):
        # qualified with the function's name, so a column of the same name can never capture it
        return exp.column(name, table=function.name)
    return exp.column(name)


def _prm(name: str) -> exp.Column:
    return exp.column(name, table="prm")


def _own_columns(select: exp.Select):
    """Columns of select itself, not of the subqueries nested in it."""
    for col in select.find_all(exp.Column):
        if col.find_ancestor(exp.Select) is select:
            yield col


def _join_params(tree: exp.Expression) -> exp.Expression:
    """Every SELECT that reads a parameter (prm.x) joins the one-row params CTE as prm; one that groups also
    groups by the parameters it reads (constant, so the groups do not change)."""
    for select in list(tree.find_all(exp.Select)):
        used = sorted({c.name for c in _own_columns(select) if c.table == "prm"})
        if not used:
            continue
        select.append("joins", exp.Join(this=exp.Table(this=exp.to_identifier("params"),
                                                       alias=exp.TableAlias(this=exp.to_identifier("prm"))),
                                         kind="CROSS"))
        group = select.args.get("group")
        if group is not None:
            for name in used:
                group.append("expressions", _prm(name))
    return tree


def _stream(bindings: dict) -> exp.Select:
    """sql/01_stream.sql's rm_stream with its parameters bound to expressions (not folded), reading the
    run_items and judgment_items CTEs."""
    return sqlgen.stream_body(bindings)


def query(macro_name: str, dialect: str, run: sqlgen.Source, judgments: sqlgen.Source,
          function: exp.Table) -> exp.Select:
    """The body of the native object of one metric: WITH params, run_items, judgment_items, item_stream, then the
    metric's own SELECT (query_id, value)."""
    macro = sqlsource.macros()[macro_name]
    params = parameters(macro_name)
    body = sqlsource.substitute(sqlsource.unchecked(macro.body), {name: _prm(name) for name, _, _ in params})
    features = body.args["from_"].this
    call = features.this.args["from_"].this
    if not (isinstance(call, exp.Table) and isinstance(call.this, exp.Anonymous)
            and call.this.name.lower() == "rm_stream"):
        raise ValueError(f"macro {macro_name}: expected FROM (SELECT ... FROM rm_stream(...) AS s) AS f")
    stream_params = sqlsource.macros()["rm_stream"].params
    stream_bindings = {p.lower(): a for p, a in zip(stream_params, call.this.expressions)
                       if p.lower() not in ("run", "judgments")}
    call.replace(exp.Table(this=exp.to_identifier(STREAM), alias=call.args.get("alias")))
    body = _join_params(sqlsource.expand(body))
    stream = _join_params(_stream(stream_bindings))

    def param(name, kind, default):
        ref = _param_ref(dialect, function, name, kind)
        if dialect in NULL_MEANS_DEFAULT and not isinstance(default, exp.Null):
            ref = exp.Coalesce(this=ref, expressions=[default.copy()])
        return exp.alias_(ref, name, quoted=False)
    params_select = exp.select(*[param(name, kind, default) for name, kind, default in params])
    out = body
    for name, cte in (("params", params_select), ("run_items", sqlgen.run_items(run)),
                      ("judgment_items", sqlgen.judgment_items(judgments)), (STREAM, stream)):
        out = out.with_(name, as_=cte)
    if dialect == "clickhouse":
        # ClickHouse names an unaliased `r.query_id` of a subquery with a join "r.query_id": alias every column
        for select in out.find_all(exp.Select):
            select.set("expressions", [exp.alias_(e, e.name) if isinstance(e, exp.Column) and not e.is_star else e
                                       for e in select.expressions])
    return out


def _function_name(macro_name: str, schema: str | None, dialect: str) -> exp.Table:
    fn = exp.Table(this=exp.to_identifier(PREFIX + macro_name))
    if schema:
        qualified = dialects.table(schema, dialect, "schema")
        if qualified.args.get("catalog") is not None:
            raise UsageError(f"schema '{schema}' has more than two parts (write schema or database.schema)")
        fn.set("db", qualified.this)
        if qualified.args.get("db") is not None:
            fn.set("catalog", qualified.args["db"])
    return fn


def _type(kind: str, dialect: str) -> str:
    if dialect == "snowflake" and kind == "INT":
        return "NUMBER"
    if dialect == "postgres" and kind == "VARCHAR":
        return "TEXT"
    return exp.DataType.build(kind).sql(dialect=dialect)


def _quote_body(body: str, dialect: str, what: str) -> str:
    tag = "$rankmetrics$" if dialect == "postgres" else "$$"
    if tag in body:
        raise UsageError(f"{what}: a table name contains {tag}, which cannot be put in a {dialect} function body")
    return f"{tag}\n{body}\n{tag}"


def ddl(macro_name: str, dialect: str, run: sqlgen.Source, judgments: sqlgen.Source,
        schema: str | None = None) -> str:
    """CREATE statement of the native object of one metric macro."""
    function = _function_name(macro_name, schema, dialect)
    fn_sql = function.sql(dialect=dialect)
    body = dialects.render(query(macro_name, dialect, run, judgments, function), dialect)
    params = parameters(macro_name)

    def arg_list(with_defaults: bool) -> str:
        args = []
        for name, kind, default in params:
            text = f"{exp.to_identifier(name).sql(dialect=dialect)} {_type(kind, dialect)}"
            if with_defaults:
                text += f" DEFAULT {default.sql(dialect=dialect)}"
            args.append(text)
        return ", ".join(args)

    out_cols = {"postgres": "query_id TEXT, value DOUBLE PRECISION", "spark": "query_id STRING, value DOUBLE",
                "databricks": "query_id STRING, value DOUBLE", "snowflake": "query_id VARCHAR, value DOUBLE"}
    if dialect == "postgres":
        return (f"CREATE OR REPLACE FUNCTION {fn_sql}({arg_list(True)})\n"
                f"RETURNS TABLE ({out_cols['postgres']}) LANGUAGE sql STABLE AS "
                f"{_quote_body(body, dialect, fn_sql)};\n")
    if dialect in ("spark", "databricks"):
        return (f"CREATE OR REPLACE FUNCTION {fn_sql}({arg_list(True)})\n"
                f"RETURNS TABLE ({out_cols[dialect]})\nRETURN\n{body};\n")
    if dialect == "snowflake":
        return (f"CREATE OR REPLACE FUNCTION {fn_sql}({arg_list(True)})\n"
                f"RETURNS TABLE ({out_cols['snowflake']})\nAS {_quote_body(body, dialect, fn_sql)};\n")
    if dialect == "bigquery":
        return f"CREATE OR REPLACE TABLE FUNCTION {fn_sql}({arg_list(False)})\nAS (\n{body}\n);\n"
    if dialect == "clickhouse":
        return f"CREATE OR REPLACE VIEW {fn_sql} AS\n{body};\n"
    raise UsageError(f"no native objects for dialect '{dialect}'")


def _dialect(name) -> str:
    """The registry name of a dialect (dialects.DIALECTS) that has native objects; else a one-line error listing
    the dialects that have them."""
    key = str(name or "duckdb").strip().lower()
    if key in KINDS:
        return key
    if key in dialects.DIALECTS:
        raise UsageError(f"no native objects for dialect '{key}'; macros exist for: {', '.join(DIALECTS)} "
                         f"(`rankmetrics sql --dialect {key}` prints one SELECT instead)")
    raise UsageError(f"unknown SQL dialect '{name}'; macros exist for: {', '.join(DIALECTS)}")


_ARGUMENTS = {
    "postgres": "arguments by position or by name (k => 10); left out, they take the defaults of sql/",
    "spark": "arguments by position or by name (k => 10); left out, they take the defaults of sql/",
    "databricks": "arguments by position or by name (k => 10); left out, they take the defaults of sql/",
    "snowflake": "arguments by position or by name (k => 10); left out, they take the defaults of sql/",
    "bigquery": "every argument, in order (BigQuery table functions have no defaults); NULL means the default",
    "clickhouse": "arguments by name (k=10); one left out, or NULL, takes the default of sql/",
}


def _header(dialect: str, run: exp.Table, judgments: exp.Table, run_columns: str, schema) -> str:
    columns = "score and rank" if run_columns == "score,rank" else run_columns
    examples = [call("ndcg", dialect, {"k": 10}, schema=schema),
                call("ap", dialect, {"k": 100, "rel": 2}, schema=schema)]
    return "\n".join([
        f"-- rankmetrics for {dialect}: every metric as {KINDS[dialect]} returning (query_id, value), one row per",
        "-- query that the queries convention keeps (the mean is avg(value); trec_eval's counts sum).",
        f"-- Reads the run table {run.sql(dialect=dialect)} (query_id, item_id, {columns})",
        f"-- and the judgments table {judgments.sql(dialect=dialect)} (query_id, item_id, relevance).",
        f"-- Call with {_ARGUMENTS[dialect]};",
        "-- k NULL means no cutoff. For example:",
        *[f"--   {e};" for e in examples],
    ]) + "\n"


def script(dialect: str = "duckdb", run: str | None = None, judgments: str | None = None, schema: str | None = None,
           run_columns: str | None = None) -> str:
    """The DDL creating every metric as a native object of the dialect (DuckDB: the macros script). run,
    judgments (default: run, judgments), run_columns (default: score) and schema are for the other dialects."""
    dialect = _dialect(dialect)
    if dialect == "duckdb":
        given = [name for name, value in (("schema", schema), ("run", run), ("judgments", judgments),
                                          ("run columns", run_columns)) if value is not None]
        if given:  # DuckDB's macros take the tables as arguments and are created where the script runs
            raise UsageError(f"{' and '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to DuckDB's "
                             f"macros: they take the table names as arguments and are created in the current schema "
                             f"(USE it first); these options are for another --dialect")
        return sqlsource.script()
    run = "run" if run is None else run
    judgments = "judgments" if judgments is None else judgments
    run_columns = "score" if run_columns is None else run_columns
    if run_columns not in RUN_COLUMNS:
        raise UsageError(f"unknown run columns '{run_columns}'; choose one of: {', '.join(RUN_COLUMNS)}")
    if dialect == "bigquery" and not schema:
        raise UsageError("BigQuery table functions live in a dataset: give one with --schema DATASET")
    run_src = sqlgen.Source(dialects.table(run, dialect, "run table"), has_score="score" in run_columns,
                            has_rank="rank" in run_columns)
    judgments_src = sqlgen.Source(dialects.table(judgments, dialect, "judgments table"))
    parts = [_header(dialect, run_src.expression, judgments_src.expression, run_columns, schema)]
    for name in metric_macros():
        parts.append(ddl(name, dialect, run_src, judgments_src, schema))
    return "\n".join(parts)


def call(macro_name: str, dialect: str, args: dict, *, schema: str | None = None, run: str = "run",
         judgments: str = "judgments") -> str:
    """A SELECT (query_id, value) calling the native object of a metric with the given arguments, in the way
    the dialect calls it (named arguments where the dialect has them; BigQuery: every argument, in order)."""
    dialect = _dialect(dialect)
    params = parameters(macro_name)
    unknown = set(args) - {name for name, _, _ in params}
    if unknown:
        raise UsageError(f"{macro_name}: unknown argument(s) {', '.join(sorted(unknown))}")

    def lit(value) -> str:
        return sqlsource.literal(value).sql(dialect=dialect)

    given = [(name, args[name]) for name, _, _ in params if name in args]
    if dialect == "duckdb":
        tables = [exp.Literal.string(run).sql(dialect="duckdb"), exp.Literal.string(judgments).sql(dialect="duckdb")]
        inner = ", ".join(tables + [f"{name} := {lit(v)}" for name, v in given])
        fn = exp.to_identifier(macro_name, quoted=True).sql(dialect="duckdb")  # precision is a keyword
        return f"SELECT query_id, value FROM {fn}({inner})"
    fn = _function_name(macro_name, schema, dialect).sql(dialect=dialect)
    if dialect == "bigquery":
        values = [lit(args[name]) if name in args else default.sql(dialect=dialect) for name, _, default in params]
        return f"SELECT query_id, value FROM {fn}({', '.join(values)})"
    if dialect == "clickhouse":
        inner = ", ".join(f"{name}={lit(v)}" for name, v in given)
        return f"SELECT query_id, value FROM {fn}({inner})"
    inner = ", ".join(f"{name} => {lit(v)}" for name, v in given)
    if dialect == "snowflake":
        return f"SELECT query_id, value FROM TABLE({fn}({inner}))"
    return f"SELECT query_id, value FROM {fn}({inner})"

