"""The dialect layer: how the one fused query of sqlgen.plan is written for each SQL engine.

sqlglot does the translation of types and functions (DOUBLE -> FLOAT64, LN -> LOG, ...). What sqlglot cannot
know is what our query means, so the few rewrites that keep the numbers identical on every engine live here,
one small entry per dialect (the way sqlglot keeps a dialect as a small class, or dbt dispatches a macro per
adapter):

  bytewise     how to compare item ids byte-wise, as trec_eval's strcmp does (the rm_bytewise marker of
               sql/00_common.sql): PostgreSQL needs COLLATE "C", SQL Server a binary collation; the others
               already compare strings by bytes / code points (the same order for UTF-8). Where the default
               collation is case-insensitive (MySQL, SQL Server), the ids are written in it where they are made,
               and the group values (by) compared in a byte-wise form of any type too (bytewise_value).
  null order   every window ORDER BY term says where NULLs go (NULLS FIRST/LAST); engines that cannot write
               that in a window (T-SQL, BigQuery) get an explicit `CASE WHEN x IS NULL ...` sort key.
  division     every divisor goes through NULLIF(divisor, 0): PostgreSQL, Spark (ANSI), BigQuery, T-SQL and
               Snowflake raise on division by zero; DuckDB and SQLite return NULL, the meaning we want.
  per engine   ClickHouse: SETTINGS join_use_nulls = 1 (a LEFT JOIN miss is NULL, not 0 / '');
               Snowflake: it upper-cases unquoted identifiers, so the result columns are quoted to keep the
               names measure, query_id, value (the rest resolves as usual: r.query_id is the column QUERY_ID
               of a table created without quotes); T-SQL: ids as NVARCHAR(4000).

render(query, dialect) applies these to a copy of the query and writes it with sqlglot.

A dialect that can hold every metric as its own kind of object (`rankmetrics macros`, native.py) also carries a
Native record: what the objects are, how their body reads a parameter, the types, the body quoting, the CREATE
statement, the call and the script header. native.py reads only these fields, so adding an engine is one
record here. The records are plain data: the command line reads the names for its help without sqlglot (a
cached `rankmetrics eval` imports neither sqlglot nor the query builder); sqlglot is imported on first use.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

from ._lazy import LazyModule
from .checks import FLOAT32_TOO_LARGE
from .errors import UsageError

sqlglot = LazyModule("sqlglot")  # imported when SQL is first rendered (_lazy.py)
exp = LazyModule("sqlglot.expressions")

MARKER = "rm_marker"          # meta key set by sqlsource.expand on the expansion of a marker macro
BYTEWISE = "rm_bytewise"      # the marker macros of sql/00_common.sql
FAIL = "rm_fail"
PARTITION = "rm_partition"    # meta key set by sqlgen on a subquery to partition by that column (partition_hint)
FLOAT32 = "rm_float32"        # meta key set by sqlgen on the type of scores='float32' rounding cast (Dialect.float32)
REPEATED = "rm_repeated"      # meta key set by sqlgen on a check for ids found twice (GROUP BY the ids, HAVING
#                               COUNT(*) > 1; Dialect.join_key)
OUTPUT_COLUMNS = ("measure", "query_id", "value")
DEFAULT = "duckdb"


@dataclass(frozen=True)
class Native:
    """How a dialect installs every metric once as its own kind of object (read by native.py).

    ddl is the CREATE statement of one metric, with {fn} its (qualified) name, {groups} the group columns of the
    result (`name TYPE, ` each, or nothing), {args} its argument list
    (`name TYPE`, with ` DEFAULT value` when arg_defaults) and {body} the query (between body_quote tags when
    there are some). A call is `SELECT query_id, value FROM ` + call, with {fn} the name and {args} the
    arguments given, each written as named_arg (None: every argument, in order, the defaults of sql/ filled in).
    """
    kind: str                         # what the objects are: "SQL UDTFs"
    listing: int                      # place in the lists of dialects with native objects (help, messages)
    arguments: str = ""               # how they are called, for the script's header
    sql_macros: bool = False          # the objects are sql/'s table macros as they are (called with the tables)
    ddl: str = ""
    arg_defaults: bool = True         # arguments declare defaults; False: a NULL argument means the default
    param_ref: str = "name"           # how the body reads a parameter: "name", "function.name" (qualified with
    #                                   the function, so no column can capture it) or "placeholder" ({name:Type})
    types: tuple = ()                 # (generic type, the dialect's type) of a parameter, where not sqlglot's
    body_quote: str | None = None     # the tag that quotes the body in {body} ($$)
    alias_columns: bool = False       # alias every selected column with its name
    named_arg: str | None = "{name} => {value}"
    call: str = "{fn}({args})"
    schema_required: str | None = None  # the message when the objects need --schema


_BY_NAME = "arguments by position or by name (k => 10); left out, they take the defaults of sql/"
_SQL_FUNCTION = "CREATE OR REPLACE FUNCTION {fn}({args})\nRETURNS TABLE ("
_SPARK = Native(
    "SQL table functions", 3, _BY_NAME, param_ref="function.name",
    ddl=_SQL_FUNCTION + "{groups}query_id STRING, value DOUBLE)\nRETURN\n{body};\n")


# MySQL and MariaDB cannot fail a SELECT with a message of its own (casts and JSON paths only warn, EXTRACTVALUE
# wants a constant path): the SQL calls this function, which raises the message. The DELIMITER lines are the
# mysql/mariadb client's, so that the body's semicolons do not end the statement.
_MYSQL_FAIL = """\
-- rankmetrics for mysql (MySQL 8, MariaDB 10.2+): these engines have no table functions, so there are no metric
-- objects; `rankmetrics sql --dialect mysql` prints each evaluation as one SELECT. That SELECT fails on a
-- duplicate item or a conflicting judgment by calling rm_fail(message), which raises the message as an error
-- (SIGNAL SQLSTATE '45000'). Create it once in the database the queries run in (the DELIMITER lines are for the
-- mysql/mariadb command-line client; send the CREATE statement alone from a driver).
DROP FUNCTION IF EXISTS rm_fail;
DELIMITER //
CREATE FUNCTION rm_fail(msg TEXT) RETURNS INT DETERMINISTIC NO SQL
BEGIN
  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = msg;
  RETURN 0;
END//
DELIMITER ;
"""


# SQLite's keywords (https://www.sqlite.org/lang_keywords.html, 3.45), lower case
SQLITE_KEYWORDS = tuple("""abort action add after all alter always analyze and as asc attach autoincrement before
begin between by cascade case cast check collate column commit conflict constraint create cross current current_date
current_time current_timestamp database default deferrable deferred delete desc detach distinct do drop each else
end escape except exclude exclusive exists explain fail filter first following for foreign from full generated glob
group groups having if ignore immediate in index indexed initially inner insert instead intersect into is isnull join
key last left like limit match materialized natural no not nothing notnull null nulls of offset on or order others
outer over partition plan pragma preceding primary query raise range recursive references regexp reindex release
rename replace restrict returning right rollback row rows savepoint select set table temp temporary then ties to
transaction trigger unbounded union unique update using vacuum values view virtual when where window with
without""".split())


@dataclass(frozen=True)
class Dialect:
    name: str
    sqlglot: str                      # the sqlglot dialect that writes it
    bytewise: str | None = None       # collation that compares item ids byte-wise, None: the engine already does
    nulls_in_windows: bool = True     # can write NULLS FIRST/LAST in a window's ORDER BY
    settings: tuple = ()              # ClickHouse query settings, (name, value)
    quote_output: bool = False        # quote the result columns (measure, query_id, value) to keep their case
    text_type: str | None = None      # type for CAST(... AS VARCHAR), when the engine's VARCHAR is short
    keywords: tuple = ()              # our names that are keywords there (sqlglot does not know): quoted
    fail: str = "CAST({msg} AS INTEGER)"  # an expression that fails the statement with the text msg (the
    #                                   rm_fail marker): the engine's error function, else a cast of the text to
    #                                   a number, whose error quotes the text
    concat_function: bool = False     # write text concatenation as CONCAT(...) (T-SQL: + would add numbers)
    regexp: str | None = "function"   # its regular-expression match: "function" (sqlglot writes RegexpLike: ~,
    #                                   RLIKE, match(), REGEXP_CONTAINS, REGEXP_LIKE), "operator" (RegexpLike
    #                                   written x REGEXP p, _regexp_operator: MariaDB has no REGEXP_LIKE, MySQL
    #                                   has both), None: none (SQL Server before 2025), where the argument checks
    #                                   that match a pattern (a gain map's form, native._macro_rules) are left
    #                                   out rather than fail every call (_regexp)
    lists: str | None = "unnest"      # list columns (run_lists, judgment_lists): "unnest" (sqlglot writes UNNEST
    #                                   WITH ORDINALITY, POSEXPLODE, WITH OFFSET, FLATTEN), "array_join"
    #                                   (ClickHouse's ARRAY JOIN), None: the engine has no list type
    helper: str | None = None         # a function the rendered SQL calls (MySQL's rm_fail), as a client script
    #                                   that `rankmetrics macros --dialect D` prints, for dialects without native
    #                                   objects; a missing helper fails the statement ("does not exist")
    dbt_adapter: str | None = None    # the dbt adapter whose macros this dialect writes (dbt.py; "default": DuckDB)
    lacks: dict = field(default_factory=dict, compare=False)  # {metric: why}: metrics refused on this engine
    note: str = field(default="", compare=False)
    native: Native | None = None      # its native objects (`rankmetrics macros`), None: it has none
    stream: str = "joined"            # the stream's shape in `rankmetrics sql` (sqlgen.plan's grouped):
    #                                   "joined" (rm_stream: the run ranked, then joined with the judgments) or
    #                                   "grouped" (rm_grouped_stream: run and judgments grouped by (query, item)
    #                                   once, for engines that repartition rows for each join and GROUP BY)
    partition_hint: str | None = None  # the hint that partitions a subquery's rows by a column ({column}), for
    #                                   the grouped stream: its GROUP BY (query, item) and the windows by query
    #                                   then share one exchange (Spark would otherwise partition by both keys,
    #                                   then again by the query)
    guard_first: bool = False         # sqlgen.guarded's check read as a one-row table before the results (CROSS
    #                                   JOIN), not as their WHERE: SQLite evaluates a WHERE's subquery only for a
    #                                   row it reads, so a fault went unnoticed when the results had no row
    values_rows: bool = False         # rows of constants (the grouped stream's kinds, the list of measures) as a
    #                                   VALUES table, not a UNION ALL of one-row SELECTs: Spark runs a job of its
    #                                   own to broadcast each of those to its join (0.1 s of a 0.9 s query)
    collate_ids: bool = False         # its default collation may hold ids equal that differ in case or accents
    #                                   (MySQL, MariaDB, SQL Server): the ids are written COLLATE bytewise where
    #                                   run_items and judgment_items make them, so that every window, grouping
    #                                   and join after them compares them byte-wise, not only the sorts
    bytewise_value: str | None = None  # for such an engine: a value {x} of any type (a group column's: text,
    #                                   number, date) in a form compared byte-wise, case and accents apart, so
    #                                   that group values equal in the column's collation are two groups
    #                                   (_bytewise_groups); None: its comparisons keep group values apart already
    group_form: str | None = None     # a form {x} of a group value of any type, for an engine whose GROUP BY and
    #                                   hash joins compare some values by their bits where its = holds them equal
    #                                   (ClickHouse: a float's -0.0 and 0.0, two groups): rm_groups grouped by
    #                                   the form alone, each group's value one of its values, and each join
    #                                   with rm_groups comparing the forms (_bytewise_groups)
    pads_spaces: str | None = None    # its comparisons ignore trailing spaces (PAD SPACE), even in a binary
    #                                   collation, so id 'd1 ' would match judgment 'd1': the engines' names, for
    #                                   the message of an id ending in a space, which fails the statement
    #                                   (_padded_ids). Not SQL Server's: its NCHAR columns pad every id with
    #                                   spaces, and refusing them would refuse those tables outright
    float32: str | None = "FLOAT"     # its 32-bit float type, to which scores='float32' (the pytrec_eval preset)
    #                                   rounds the scores; None: the engine has none (refuse_float32)
    float32_cast: str | None = None   # how its cast to that type parts from DuckDB's (and C's), which rounds a
    #                                   magnitude below half the least 32-bit float to 0 and fails past the
    #                                   largest (3.4e38): "underflow" (PostgreSQL: such a small magnitude fails
    #                                   the statement, "value out of range: underflow": written 0 first),
    #                                   "clamp" (MariaDB: a magnitude past the largest becomes 3.4e38, ranked
    #                                   as a number: the statement fails naming the score) (_float32_range)
    distinct_levels: str | None = None  # true when the gain map {g} ('1=3,2=9', its form checked) names each
    #                                   level once: the native objects' check of gains (native._argument_checks,
    #                                   the rm_distinct_levels marker), which needs the engine's list functions;
    #                                   None: not checked there (the dbt macros check it when they compile)
    join_key: str | None = None       # a short key {x} of a text (a number), for an engine that keys a joined
    #                                   derived table only when the key is short (MariaDB: at most about 1,000
    #                                   bytes, where two VARCHAR(255) utf8mb4 ids are 2,040), and otherwise
    #                                   joins by a block nested loop, in time the product of the two tables'
    #                                   rows: each join on ids (rm_bytewise equalities) also compares this key
    #                                   of the ids, made in the joined table, materialized (_keyed_joins); and
    #                                   the checks for ids found twice group only the rows whose key is found
    #                                   twice (_keyed_repeats: a long key's GROUP BY took 9 times as long)
    signed_zero: bool = False         # sorts and partitions -0.0 apart from 0.0 (a total order; its = holds
    #                                   them equal): the run's scores and ranks are written with 0 for -0.0
    #                                   (run_items), or a score of -0.0 ranked below 0.0 where trec_eval ties them


_SPARK_LEVELS = "size(array_distinct(regexp_extract_all(concat(',', {g}), ',([0-9]+)=', 1))) = size(split({g}, ','))"

DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("duckdb", "duckdb", dbt_adapter="default", fail="error({msg})", note="the reference engine",
            distinct_levels="len(list_distinct(regexp_extract_all(',' || {g}, ',([0-9]+)=', 1))) "
                            "= len(string_split({g}, ','))",
            native=Native("table macros", 0, sql_macros=True, named_arg="{name} := {value}")),
    # NORMALIZE is a column-name keyword of PostgreSQL: no function argument may be called normalize unquoted
    Dialect("postgres", "postgres", dbt_adapter="postgres", bytewise='"C"', note='item ids compared with COLLATE "C"',
            keywords=("normalize",), float32_cast="underflow",
            distinct_levels="(SELECT count(DISTINCT m[1]) FROM regexp_matches(',' || {g}, ',([0-9]+)=', 'g') AS m) "
                            "= array_length(string_to_array({g}, ','), 1)",
            native=Native("SQL functions returning TABLE", 1, _BY_NAME, param_ref="function.name",
                          types=(("VARCHAR", "TEXT"),), body_quote="$rankmetrics$",
                          ddl=_SQL_FUNCTION + "{groups}query_id TEXT, value DOUBLE PRECISION) LANGUAGE sql STABLE AS "
                                              "{body};\n")),
    Dialect("sqlite", "sqlite", lists=None, fail="json_extract('{{}}', {msg})", guard_first=True, float32=None,
            # a column named like one of SQLite's keywords (`select`, `order`, `index`, ...) fails there even
            # after a table's alias, and sqlglot leaves it bare: quoted (SQLite's names compare case-blind)
            keywords=SQLITE_KEYWORDS,
            note="BINARY collation (memcmp) by default"),
    Dialect("clickhouse", "clickhouse", dbt_adapter="clickhouse", settings=(("join_use_nulls", 1),), lists="array_join",
            # throwIf wants a constant message; a Nullable text cast to a number is NULL: assumeNotNull first
            fail="toInt64(assumeNotNull({msg}))",
            # its GROUP BY and hash joins hold a float's -0.0 and 0.0 apart: the group values' text, -0 as 0
            group_form="if(toTypeName({x}) LIKE '%Float%' AND toString({x}) = '-0', '0', toString({x}))",
            distinct_levels="length(arrayDistinct(extractAll(concat(',', {g}), ',([0-9]+)='))) "
                            "= length(splitByChar(',', {g}))",
            note="SETTINGS join_use_nulls = 1",
            # every parameter Nullable: one left out of the call is NULL, which params turns into the default;
            # k unsigned, as ClickHouse cannot unify Int64 with the UInt64 of a count in one CASE. ClickHouse
            # names an unaliased `r.query_id` of a subquery with a join "r.query_id": every column is aliased.
            native=Native("parameterized views", 6,
                          "arguments by name (k=10); one left out, or NULL, takes the default of sql/",
                          arg_defaults=False, param_ref="placeholder", alias_columns=True,
                          types=(("INT", "Nullable(UInt64)"), ("DOUBLE", "Nullable(Float64)"),
                                 ("VARCHAR", "Nullable(String)"), ("BOOLEAN", "Nullable(Bool)")),
                          ddl="CREATE OR REPLACE VIEW {fn} AS\n{body};\n", named_arg="{name}={value}")),
    Dialect("spark", "spark", dbt_adapter="spark", fail="raise_error({msg})", stream="grouped",
            distinct_levels=_SPARK_LEVELS,
            partition_hint="REPARTITION({column})", values_rows=True,
            note="ANSI mode safe: every divisor through NULLIF",
            native=replace(_SPARK, kind="SQL table functions (Spark 4)", listing=2)),
    Dialect("databricks", "databricks", dbt_adapter="databricks", fail="raise_error({msg})", stream="grouped",
            distinct_levels=_SPARK_LEVELS,
            partition_hint="REPARTITION({column})", values_rows=True,
            note="as spark",
            native=_SPARK),
    Dialect("bigquery", "bigquery", dbt_adapter="bigquery", nulls_in_windows=False, fail="ERROR({msg})", float32=None,
            distinct_levels="(SELECT COUNT(DISTINCT x) FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', {g}), "
                            "',([0-9]+)=')) AS x) = ARRAY_LENGTH(SPLIT({g}, ','))",
            note="null order as a CASE sort key",
            native=Native("table functions", 4,
                          "every argument, in order (BigQuery table functions have no defaults); NULL means the "
                          "default", arg_defaults=False, named_arg=None,
                          ddl="CREATE OR REPLACE TABLE FUNCTION {fn}({args})\nAS (\n{body}\n);\n",
                          schema_required="BigQuery table functions live in a dataset: give one with --schema "
                                          "DATASET")),
    Dialect("snowflake", "snowflake", dbt_adapter="snowflake", quote_output=True, float32=None,
            distinct_levels="ARRAY_SIZE(ARRAY_DISTINCT(REGEXP_SUBSTR_ALL(',' || {g}, ',([0-9]+)=', 1, 1, 'e', 1))) "
                            "= ARRAY_SIZE(SPLIT({g}, ','))",
            note="result columns quoted: Snowflake upper-cases",
            native=Native("SQL UDTFs", 5, _BY_NAME, types=(("INT", "NUMBER"),), body_quote="$$",
                          ddl=_SQL_FUNCTION + "{groups}query_id VARCHAR, value DOUBLE)\nAS {body};\n",
                          call="TABLE({fn}({args}))")),
    Dialect("trino", "trino", dbt_adapter="trino", fail="fail({msg})"),
    Dialect("presto", "presto", fail="fail({msg})"),
    Dialect("redshift", "redshift", dbt_adapter="redshift", float32_cast="underflow",  # as PostgreSQL's REAL
            lacks={"IntraListDiversity": "sqlglot writes Redshift's unnesting of a list without the element's "
                                         "position, which pairs the items' vectors dimension by dimension"},
            note="Redshift has no locale collations: comparisons are byte-wise"),
    # group values in the ids' form (their = ignores trailing spaces there too, as NCHAR columns pad)
    Dialect("tsql", "tsql", dbt_adapter="sqlserver", regexp=None, bytewise="Latin1_General_BIN2", collate_ids=True,
            bytewise_value="CAST({x} AS NVARCHAR(4000)) COLLATE Latin1_General_BIN2",
            float32="REAL", nulls_in_windows=False,
            text_type="NVARCHAR(4000)", lists=None, concat_function=True,
            note="binary collation; null order as a CASE sort key"),
    # MySQL 8 / MariaDB 10.2+: ids compared in a binary collation (the default ones are case-insensitive); no
    # NULLS FIRST/LAST at all; no SELECT can fail with a message, so the SQL calls the helper function rm_fail,
    # which `rankmetrics macros --dialect mysql` creates (SIGNAL); a missing helper fails the statement too.
    # group values as the bytes of their text in the connection's character set (utf8mb4, which the ids' COLLATE
    # utf8mb4_bin needs already: a latin1 column and a utf8mb4 one give the same bytes), compared as binary
    # strings, which are NO PAD: 'v1' and 'v1 ' are two groups
    Dialect("mysql", "mysql", dbt_adapter="mysql", regexp="operator", bytewise="utf8mb4_bin", collate_ids=True,
            bytewise_value="CAST(CAST({x} AS CHAR) AS BINARY)",
            pads_spaces="MySQL and MariaDB", float32_cast="clamp",
            nulls_in_windows=False, lists=None,
            concat_function=True, fail="rm_fail({msg})", helper=_MYSQL_FAIL, join_key="CRC32({x})",
            lacks=dict.fromkeys(("G", "nDCGRel", "RnDCG"),
                                "MariaDB computes its windows over the run and the ideal ranking wrongly when other "
                                "metrics' windows share the query (measured against DuckDB in tests/test_dialects.py)"),
            note="binary collation; null order as a CASE sort key; the rm_fail helper"),
    # DataFusion: PostgreSQL-flavoured SQL; it compares Utf8 strings byte-wise, and has no COLLATE.
    # (its UNNEST has no WITH ORDINALITY yet: list columns are refused there)
    Dialect("datafusion", "postgres", lists=None, signed_zero=True,
            note="PostgreSQL-flavoured SQL; no list columns; -0.0 written as 0"),
)}


def names() -> list[str]:
    return list(DIALECTS)


def native_names() -> list[str]:
    """The dialects that have native objects (`rankmetrics macros`), in their listing order."""
    return [d.name for d in sorted((d for d in DIALECTS.values() if d.native), key=lambda d: d.native.listing)]


def helper_names() -> list[str]:
    """The dialects without native objects whose SQL calls a helper function (Dialect.helper), which `rankmetrics
    macros` prints for them."""
    return [d.name for d in DIALECTS.values() if d.native is None and d.helper]


def get(name: str) -> Dialect:
    """The dialect called name (case-insensitive); a UsageError listing the supported ones otherwise."""
    d = DIALECTS.get(str(name).strip().lower()) if name is not None else None
    if d is None:
        raise UsageError(f"unknown SQL dialect '{name}'; supported: {', '.join(DIALECTS)}")
    return d


# --- the rewrites ---------------------------------------------------------------------------------------------

def meta_value(node: exp.Expression, key: str):
    """node.meta[key], or None, read without sqlglot's meta property, which gives every node it is asked of a
    dict of its own (the rewrites below ask every node of the tree; each later copy then copies those dicts)."""
    meta = node._meta
    return meta.get(key) if meta else None


def _bytewise(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """Give the expansions of rm_bytewise(x) the dialect's byte-wise collation."""
    if d.bytewise is None:
        return tree
    collation = (exp.Identifier(this=d.bytewise[1:-1], quoted=True) if d.bytewise.startswith('"')
                 else exp.Var(this=d.bytewise))

    def swap(node):
        if meta_value(node, MARKER) == BYTEWISE:
            inner = node.copy()
            inner.meta.pop(MARKER, None)
            return exp.Collate(this=inner, expression=collation.copy())
        return node
    return tree.transform(swap, copy=False)


# the column of a joined table's key (_keyed_joins), and the LIMIT that keeps MySQL and MariaDB from merging the
# table into the join (a derived table with a LIMIT is materialized: 2^63 - 1, every row; BIGINT holds it)
JOIN_KEY = "rm_join_key"
_ALL_ROWS = "9223372036854775807"


def _key_of(ids: list, d: Dialect) -> exp.Expression:
    """The dialect's short key (Dialect.join_key) of the ids, concatenated: ids equal byte-wise, equal keys."""
    return _filled(d.join_key, d, "x", exp.Concat(expressions=[i.copy() for i in ids]))


def _keyed_joins(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """Each join whose ON compares ids (equalities of rm_bytewise markers, one side the joined table's) also
    comparing a short key of them (Dialect.join_key): the joined table T AS a becomes
    (SELECT a.*, key(a's ids) AS rm_join_key FROM T AS a LIMIT all rows) AS a, and the ON gains
    a.rm_join_key = key(the other side's ids). MariaDB then keys that table on the one short column and looks
    each row up in it. The key is of the ids' bytes (each id in the byte-wise collation, the ids concatenated),
    so ids equal byte-wise have equal keys; the ids' own equalities stay, so two pairs of ids whose keys collide
    (by the hash, or as q1 + 1d and q11 + d) still differ."""
    for join in list(tree.find_all(exp.Join)):
        on, joined = join.args.get("on"), join.this
        if on is None or not isinstance(joined, (exp.Table, exp.Subquery)) or not joined.alias_or_name:
            continue
        alias = joined.alias_or_name
        mine, theirs = [], []
        terms = on.unnest()
        for eq in terms.flatten() if isinstance(terms, exp.And) else [terms]:
            eq = eq.unnest()
            if not (isinstance(eq, exp.EQ) and meta_value(eq.this, MARKER) == BYTEWISE
                    and meta_value(eq.expression, MARKER) == BYTEWISE):
                continue
            sides = [eq.this, eq.expression]
            tables = [{c.table for c in side.find_all(exp.Column)} for side in sides]
            if tables[1] == {alias} and alias not in tables[0]:
                sides.reverse()
            elif not (tables[0] == {alias} and alias not in tables[1]):
                continue
            mine.append(sides[0])
            theirs.append(sides[1])
        if not mine:
            continue
        inner = joined.copy()
        if isinstance(inner, exp.Table):
            inner.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        keyed = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier(alias)),
                            exp.alias_(_key_of(mine, d), JOIN_KEY))
                 .from_(inner).limit(exp.Literal.number(_ALL_ROWS)))
        joined.replace(exp.Subquery(this=keyed, alias=exp.TableAlias(this=exp.to_identifier(alias))))
        join.set("on", exp.and_(exp.EQ(this=exp.column(JOIN_KEY, table=alias), expression=_key_of(theirs, d)), on))
    return tree


def _keyed_repeats(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """Each check for ids found twice (a SELECT sqlgen marked REPEATED: FROM T AS x GROUP BY the ids HAVING
    COUNT(*) > 1) reading only the rows whose short key of the ids (Dialect.join_key) is found twice:
    WHERE key IN (SELECT key FROM T AS x GROUP BY key HAVING COUNT(*) > 1). Ids found twice have equal keys, so
    the check finds what it found; MariaDB groups the numbers in a keyed table, where grouping two long ids took
    9 times as long (64,000 run rows: 0.87 s, against 0.10 s)."""
    for select in list(tree.find_all(exp.Select)):
        if not meta_value(select, REPEATED):
            continue
        key = _key_of(select.args["group"].expressions, d)
        found_twice = (exp.select(key.copy()).from_(select.args["from_"].this.copy()).group_by(key.copy())
                       .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1))))
        select.where(exp.In(this=key, query=exp.Subquery(this=found_twice)), copy=False)
    return tree


def _safe_divisions(tree: exp.Expression) -> exp.Expression:
    """x / y becomes x / NULLIF(y, 0) unless y already is a NULLIF or a non-zero number."""
    for node in list(tree.find_all(exp.Div)):
        den = node.expression
        inner = den.this if isinstance(den, exp.Paren) else den
        if isinstance(inner, exp.Nullif) or (isinstance(inner, exp.Literal) and inner.is_number
                                              and float(inner.this) != 0):
            continue
        # inner moves into the NULLIF (not a copy): a division inside it is still the node the list holds
        node.set("expression", exp.Nullif(this=inner, expression=exp.Literal.number(0)))
    return tree


def _default_nulls_first(target: str, desc: bool) -> bool:
    ordering = sqlglot.Dialect.get_or_raise(target).NULL_ORDERING
    if ordering == "nulls_are_last":
        return False
    return (ordering == "nulls_are_small") != bool(desc)


def _null_order_keys(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """For engines that cannot write NULLS FIRST/LAST in a window: put the NULLs first or last with an
    explicit sort key (CASE WHEN x IS NULL THEN 1 ELSE 0 END) when the engine's default would differ."""
    never_null = {a.alias for a in tree.find_all(exp.Alias)
                  if isinstance(a.this, exp.Window) and isinstance(a.this.this, exp.RowNumber)}
    for order in list(tree.find_all(exp.Order)):
        terms = []
        for term in order.expressions:
            desc = bool(term.args.get("desc"))
            nulls_first = bool(term.args.get("nulls_first"))
            default = _default_nulls_first(d.sqlglot, desc)
            key = term.this.this if isinstance(term.this, exp.Collate) else term.this
            can_be_null = not _never_null(key, never_null)
            if nulls_first != default and can_be_null:
                flag = exp.Case(ifs=[exp.If(this=exp.Is(this=key.copy(), expression=exp.Null()),
                                            true=exp.Literal.number(1))], default=exp.Literal.number(0))
                terms.append(exp.Ordered(this=flag, desc=nulls_first,
                                         nulls_first=_default_nulls_first(d.sqlglot, nulls_first)))
                term = term.copy()
            term.set("nulls_first", default)
            terms.append(term)
        order.set("expressions", terms)
    return tree


def _never_null(e: exp.Expression, never_null: set) -> bool:
    """Whether an ORDER BY key is never NULL: a literal, a ROW_NUMBER() column, a CASE whose every branch is
    never NULL, or arithmetic on such (2 * pos + CASE WHEN kind = 'J' THEN 0 ELSE 1 END). A key that needs no
    NULL flag keeps a window's ORDER BY one term: MariaDB computes windows wrongly next to others when one of
    them sorts by an extra flag key."""
    if isinstance(e, exp.Paren):
        return _never_null(e.this, never_null)
    if isinstance(e, exp.Literal):
        return True
    if isinstance(e, exp.Column):
        return e.name in never_null
    if isinstance(e, exp.Case):
        return (e.args.get("default") is not None and _never_null(e.args["default"], never_null)
                and all(_never_null(i.args["true"], never_null) for i in e.args.get("ifs") or []))
    if isinstance(e, (exp.Add, exp.Sub, exp.Mul)):
        return _never_null(e.this, never_null) and _never_null(e.expression, never_null)
    return False


def _quote_keywords(tree: exp.Expression, d: Dialect) -> exp.Expression:
    for ident in tree.find_all(exp.Identifier):
        if not ident.quoted and ident.name.lower() in d.keywords:
            ident.set("quoted", True)
    return tree


def _concat_calls(tree: exp.Expression) -> exp.Expression:
    """Every text concatenation (||, CONCAT) as a CONCAT(...) call, nested ones included (innermost first: a
    single top-down pass leaves a || inside a replaced one, which T-SQL would read as +)."""
    for node in reversed(list(tree.find_all(exp.Concat, exp.DPipe))):
        args = node.expressions if isinstance(node, exp.Concat) else [node.this, node.expression]
        call = exp.Anonymous(this="CONCAT", expressions=args)
        if node is tree:
            return call
        node.replace(call)
    return tree


def _text_type(tree: exp.Expression, d: Dialect) -> exp.Expression:
    if d.text_type is None:
        return tree
    to = exp.DataType.build(d.text_type, dialect=d.sqlglot)

    def swap(node):
        if isinstance(node, exp.DataType) and node.this in (exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT):
            return to.copy()
        return node
    return tree.transform(swap, copy=False)


def _outermost_select(tree: exp.Expression) -> exp.Select:
    if isinstance(tree, exp.Select):
        return tree
    return exp.select("*").from_(exp.Subquery(this=tree, alias=exp.TableAlias(this=exp.to_identifier("results"))))


def _settings(tree: exp.Expression, d: Dialect) -> exp.Expression:
    if not d.settings:
        return tree
    outer = _outermost_select(tree)
    if isinstance(tree, exp.Query) and tree is not outer and tree.args.get("with_"):  # keep WITH on the outside
        outer.set("with_", tree.args["with_"])
        tree.set("with_", None)
    from .sqlsource import literal
    outer.set("settings", [exp.EQ(this=exp.column(k), expression=literal(v)) for k, v in d.settings])
    return outer


def _output_branches(tree: exp.Expression):
    """The SELECTs whose projections name the result columns: the outer one, or each UNION branch under it."""
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, exp.Union):
            todo += [node.this, node.expression]
        elif isinstance(node, exp.Subquery):
            todo.append(node.this)
        elif isinstance(node, exp.Select):
            source = node.args.get("from_")
            if any(isinstance(p, exp.Star) for p in node.expressions) and source is not None \
                    and isinstance(source.this, exp.Subquery):
                todo.append(source.this)
            else:
                yield node


def _quote_output(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """Snowflake upper-cases unquoted identifiers: quote the result columns so they keep their names."""
    if not d.quote_output:
        return tree
    for select in _output_branches(tree):
        for projection in select.expressions:
            if isinstance(projection, exp.Alias) and projection.alias.lower() in OUTPUT_COLUMNS:
                projection.set("alias", exp.Identifier(this=projection.alias.lower(), quoted=True))
    return tree


def _lists(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """The unnested list columns (sqlgen's CROSS JOIN UNNEST(list) WITH ORDINALITY AS rm_list(rm_item, rm_pos)),
    written as the engine can: ClickHouse's ARRAY JOIN with arrayEnumerate; refused where there are no lists."""
    joins = [j for j in tree.find_all(exp.Join) if isinstance(j.this, exp.Unnest)]
    if not joins or d.lists == "unnest":
        return tree
    if d.lists is None:
        raise UsageError(f"{d.name} has no list (array) type: list columns (run_lists, judgment_lists, the catalog's "
                         f"embedding) cannot be read there; give the tables one row per item")
    for join in joins:  # array_join
        unnest = join.this
        alias = unnest.args["alias"]
        item, pos = alias.columns[0].name, unnest.args["offset"].name
        values = unnest.expressions[0]
        join.replace(exp.Join(this=exp.alias_(values.copy(), item), kind="ARRAY", expressions=[
            exp.alias_(exp.Anonymous(this="arrayEnumerate", expressions=[values.copy()]), pos)]))
        for col in list(tree.find_all(exp.Column)):
            if col.table == alias.name:
                col.set("table", None)
    return tree


@functools.lru_cache(maxsize=None)
def _template(text: str, read: str, slot: str) -> exp.Expression:
    """A Dialect field's SQL with a slot ({msg} of fail, {x} of bytewise_value) parsed once, the slot a column
    rm_<slot>: _filled copies it."""
    return sqlglot.parse_one(text.format(**{slot: f"rm_{slot}"}), read=read)


def _filled(text: str, d: Dialect, slot: str, value: exp.Expression) -> exp.Expression:
    """The dialect's SQL text (a field of d) with value in its slot."""
    return _template(text, d.sqlglot, slot).transform(
        lambda n: value.copy() if isinstance(n, exp.Column) and n.name == f"rm_{slot}" else n)


DISTINCT_LEVELS = "rm_distinct_levels"  # native._argument_checks' marker: a gain map names each level once


def _distinct_levels(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """rm_distinct_levels(g) written as the engine tests it (Dialect.distinct_levels), else true: not checked."""
    def swap(node):
        if isinstance(node, exp.Anonymous) and node.name == DISTINCT_LEVELS:
            if d.distinct_levels is None:
                return exp.true()
            return exp.Paren(this=_filled(d.distinct_levels, d, "g", node.expressions[0]))
        return node
    if not any(n.name == DISTINCT_LEVELS for n in tree.find_all(exp.Anonymous)):
        return tree
    return tree.transform(swap, copy=False)  # transform's tree (a copy, or the caller's own)


def _fail(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """Write the expansions of rm_fail(msg) (DuckDB's error(msg)) as the dialect fails a statement (Dialect.fail)."""
    def swap(node):
        if meta_value(node, MARKER) == FAIL:
            call = node if isinstance(node, exp.Anonymous) else node.find(exp.Anonymous)
            return _failing(call.expressions[0], d)
        return node
    return tree.transform(swap, copy=False)


def _failing(msg: exp.Expression, d: Dialect) -> exp.Expression:
    """The dialect's expression that fails the statement with the text msg (Dialect.fail)."""
    return _filled(d.fail, d, "msg", msg)


def _partition_hints(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """Each subquery that sqlgen marked (sqlgen.PARTITION) as `(SELECT /*+ hint */ alias.* FROM (...) AS alias)`
    with the dialect's partition_hint, so that the engine partitions its rows by the marked column."""
    def hint(node):
        column = meta_value(node, PARTITION)
        if not (column and isinstance(node, exp.Subquery)):
            return node
        alias = node.alias
        text = d.partition_hint.format(column=exp.column(column, table=alias).sql(dialect=d.sqlglot))
        select = exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier(alias))).from_(
            exp.Subquery(this=node.this, alias=exp.TableAlias(this=exp.to_identifier(alias))))
        select.set("hint", sqlglot.parse_one(f"SELECT /*+ {text} */ 1", read=d.sqlglot).args["hint"])
        return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(alias)))
    return tree.transform(hint, copy=False) if d.partition_hint else tree


def _constant_row(select: exp.Expression) -> list | None:
    """The (name, value) pairs of a SELECT of aliased literals without FROM, else None."""
    if not isinstance(select, exp.Select) or any(v for k, v in select.args.items() if k != "expressions"):
        return None
    pairs = []
    for e in select.expressions:
        value = e.this if isinstance(e, exp.Alias) else None
        inner = value.this if isinstance(value, (exp.Neg, exp.Cast)) else value
        if not isinstance(inner, (exp.Literal, exp.Null)):
            return None
        pairs.append((e.alias, value))
    return pairs


def _constant_rows(tree: exp.Expression) -> exp.Expression:
    """Each CTE or FROM/JOIN subquery that is one-row SELECTs of literals joined by UNION ALL (sqlgen's kinds of
    the grouped stream and list of measures) as `SELECT t.a, ... FROM (VALUES (...), ...) AS t(a, ...)`
    (Dialect.values_rows)."""
    def rows_of(body):
        if isinstance(body, exp.Union):
            if body.args.get("distinct"):
                return None
            left, right = rows_of(body.this), rows_of(body.expression)
            return left + right if left is not None and right is not None else None
        row = _constant_row(body)
        return None if row is None else [row]

    def swap(node):
        table = isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join))
        if not (isinstance(node, exp.CTE) or table):
            return node
        rows = rows_of(node.this)
        if not rows or any([n for n, _ in r] != [n for n, _ in rows[0]] for r in rows):
            return node
        names = [n for n, _ in rows[0]]
        values = exp.Values(expressions=[exp.Tuple(expressions=[v.copy() for _, v in r]) for r in rows],
                            alias=exp.TableAlias(this=exp.to_identifier("t"),
                                                 columns=[exp.to_identifier(n) for n in names]))
        node.set("this", exp.select(*[exp.column(n, table="t") for n in names]).from_(values))
        return node
    return tree.transform(swap, copy=False)


def _regexp(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """A pattern match (only the argument checks write one: native._macro_rules) as the engine has it
    (Dialect.regexp): TRUE where it has none (the check left out rather than failing every call); in parentheses
    where it is the operator x REGEXP p (written so by _regexp_operator), so that it stands alone as a function
    call does."""
    def match(node):
        if not isinstance(node, exp.RegexpLike):
            return node
        return exp.true() if d.regexp is None else exp.Paren(this=node)
    return tree.transform(match, copy=False)


def transform(query: exp.Expression, dialect: str, copy: bool = True) -> exp.Expression:
    """The query, rewritten for the dialect (a copy, or the query itself rewritten when copy is False: a tree
    the caller built for this call alone; sqlglot still has to write it)."""
    d = get(dialect)
    tree = query.copy() if copy else query
    tree = _lists(tree, d)
    tree = _fail(tree, d)
    tree = _distinct_levels(tree, d)
    if d.guard_first:
        tree = _guard_first(tree)
    tree = _partition_hints(tree, d)
    if d.float32_cast:
        tree = _float32_range(tree, d)
    if d.float32 not in (None, "FLOAT"):
        tree = _float32_type(tree, d)
    if d.signed_zero:
        tree = _unsigned_zero(tree)
    if d.pads_spaces:
        tree = _padded_ids(tree, d)
    if d.collate_ids:
        tree = _collated_ids(tree, d)
    if d.bytewise_value or d.group_form:
        tree = _bytewise_groups(tree, d)
    if d.values_rows:
        tree = _constant_rows(tree)
    if d.concat_function:
        tree = _concat_calls(tree)
    if d.regexp != "function":
        tree = _regexp(tree, d)
    if d.join_key:
        tree = _keyed_joins(tree, d)
        tree = _keyed_repeats(tree, d)
    tree = _bytewise(tree, d)
    tree = _safe_divisions(tree)
    if not d.nulls_in_windows:
        tree = _null_order_keys(tree, d)
    tree = _text_type(tree, d)
    tree = _quote_keywords(tree, d)
    tree = _settings(tree, d)
    tree = _quote_output(tree, d)
    return tree


# the CTEs where sqlgen.run_items makes a run's rows: the run's, and the reference run's (Intersection), which
# dbt.py checks to be the run's, written alike
RUN_ITEMS = ("run_items", "reference_items")


def _item_columns(tree: exp.Expression, ctes: tuple, names: tuple):
    """The columns names (aliased projections) of the CTEs ctes, where sqlgen.run_items and judgment_items make
    the standard columns: the one place the rewrites below find them."""
    for cte in tree.find_all(exp.CTE):
        if cte.alias in ctes and isinstance(cte.this, exp.Select):
            yield from (c for c in cte.this.expressions if isinstance(c, exp.Alias) and c.alias in names)


def _collated_ids(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """The query and item ids where run_items (and reference_items) and judgment_items make them (their columns
    query_id and item_id) written COLLATE the dialect's byte-wise collation: a derived column keeps it, so the
    windows partitioned by query, the groupings by (query, item), the checks and the joins after them compare
    ids byte-wise; with only the sorts collated, a case-insensitive default merged queries q and Q into one."""
    collation = exp.Var(this=d.bytewise)
    for column in list(_item_columns(tree, RUN_ITEMS + ("judgment_items",), ("query_id", "item_id"))):
        column.set("this", exp.Collate(this=column.this, expression=collation.copy()))
    return tree


# the CTE of the run's groups (sqlgen.groups_cte: SELECT DISTINCT of the group columns as d, numbered), joined as g
# on the group columns (sqlgen._group_join: NULL-safe equalities)
GROUPS = "rm_groups"


def group_keys(value: exp.Expression, dialect: str) -> list[exp.Expression]:
    """What a grouping or an equality of group values compares of value in the dialect: the value, and beside it
    its byte-wise form (Dialect.bytewise_value) where the default collation holds distinct values equal (MySQL,
    SQL Server), as rm_groups keeps them apart (_bytewise_groups)."""
    d = get(dialect)
    return [value] + ([_bytewise_value(value, d)] if d.bytewise_value else [])


def _bytewise_value(value: exp.Expression, d: Dialect) -> exp.Expression:
    """The dialect's byte-wise form of value (Dialect.bytewise_value), or the form its groupings compare
    (Dialect.group_form)."""
    return _filled(d.bytewise_value or d.group_form, d, "x", value)


def _bytewise_groups(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """The group values compared byte-wise where rm_groups is made and wherever it is joined: its DISTINCT of the
    group columns written as a GROUP BY of each column and its byte-wise form (Dialect.bytewise_value), so that
    values equal in the column's collation ('A' and 'a', MySQL's 'v1' and 'v1 ') are groups of their own, each
    holding its value as stored; its numbering ordered by each column, then its byte-wise form (the same numbers
    on every run); and each NULL-safe equality of a joined table's group column with rm_groups' (g.rm_g1) comparing
    their byte-wise forms too. A form of any type, where a COLLATE would fail on a number; beside the column's own
    equality, which keeps apart what the form might not (a number or a date written as text). With a group_form
    instead (ClickHouse), the column's own grouping is what parts values its = holds equal: rm_groups is grouped
    by the form alone (each group's value any of its values), its numbering ordered by the value, and each join
    compares the forms alone."""
    alone = d.group_form is not None
    for cte in tree.find_all(exp.CTE):
        outer = cte.this
        if cte.alias != GROUPS or not isinstance(outer, exp.Select):
            continue
        source = outer.args.get("from_")
        inner = source.this.this if source is not None and isinstance(source.this, exp.Subquery) else None
        if isinstance(inner, exp.Select) and inner.args.get("distinct"):
            inner.set("distinct", None)
            inner.set("group", exp.Group(expressions=[e for p in inner.expressions for e in (
                () if alone else (p.this.copy(),)) + (_bytewise_value(p.this, d),)]))
            if alone:
                for p in inner.expressions:
                    p.set("this", exp.AnyValue(this=p.this))
        for window in () if alone else outer.find_all(exp.Window):
            order = window.args.get("order")
            if order is not None:
                order.set("expressions", [t for term in order.expressions for t in (
                    term, exp.Ordered(this=_bytewise_value(term.this, d), desc=term.args.get("desc"),
                                      nulls_first=term.args.get("nulls_first")))])
    for join in list(tree.find_all(exp.Join)):
        if not (isinstance(join.this, exp.Table) and join.this.name == GROUPS and join.args.get("on") is not None):
            continue
        alias = join.this.alias_or_name
        for eq in list(join.args["on"].find_all(exp.NullSafeEQ)):
            if isinstance(eq.expression, exp.Column) and eq.expression.table == alias:
                same = exp.NullSafeEQ(this=_bytewise_value(eq.this, d), expression=_bytewise_value(eq.expression, d))
                eq.replace(same if alone else exp.and_(eq.copy(), same))
    return tree


def _padded_ids(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """The query and item ids where run_items (and reference_items) and judgment_items make them, failing the
    statement (Dialect.fail) for an id that ends in a space: the engine compares it equal to the id without the
    space (PAD SPACE, binary collations included), so run item 'd1 ' would count as judged 'd1', where every other
    route compares ids byte by byte. A query id with groups ends its group's key (sqlgen.key_parts): the key is
    tested, the id named. An id of spaces only is left to the input checks, which refuse it as no id."""
    lit = exp.Literal.string
    for column in list(_item_columns(tree, RUN_ITEMS + ("judgment_items",), ("query_id", "item_id"))):
        made = column.this
        named = (made.expressions[-1] if isinstance(made, exp.Concat) else
                 made.expression if isinstance(made, exp.DPipe) else made)
        what = "query" if column.alias == "query_id" else "item"
        message = exp.Concat(expressions=[
            lit(f"rankmetrics: {what} id '"), named.copy(),
            lit(f"' ends with a space: {d.pads_spaces} compare it equal to the id without it (PAD SPACE); trim "
                f"the ids")])
        failing = exp.Cast(this=_failing(message, d), to=exp.DataType.build("VARCHAR"))
        blank = exp.EQ(this=exp.Trim(this=named.copy(), expression=lit(" ")), expression=lit(""))  # the input
        #                                                       checks refuse it as no id (sqlgen._missing_id)
        padded = exp.and_(exp.Like(this=made.copy(), expression=lit("% ")), exp.Not(this=blank))
        column.set("this", exp.Case(ifs=[exp.If(this=padded, true=failing)], default=made))
    return tree


def _float32_type(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """The type of scores='float32' rounding cast (sqlgen.run_items marks it FLOAT32) as the dialect's 32-bit float
    type (T-SQL's FLOAT is 64-bit, its REAL 32); other FLOAT types (the native objects' parameters) stay."""
    # written as named (sqlglot reads REAL as its FLOAT, which T-SQL writes FLOAT)
    to = exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=d.float32)

    def swap(node):
        if isinstance(node, exp.DataType) and meta_value(node, FLOAT32):
            return to.copy()
        return node
    return tree.transform(swap, copy=False)


# the doubles whose rounding to a 32-bit float (to nearest, ties to even) is 0 (a magnitude at most half the least
# subnormal, 2^-150) and infinite (at least halfway from the largest, 2^128 - 2^104, to 2^128: 2^128 - 2^103)
FLOAT32_ZERO, FLOAT32_INFINITE = 2.0 ** -150, 2.0 ** 128 - 2.0 ** 103


def _float32_range(tree: exp.Expression, d: Dialect) -> exp.Expression:
    """The rounding cast of scores='float32' (marked FLOAT32) as DuckDB rounds, where the engine's cast parts from
    it (Dialect.float32_cast): a magnitude that rounds to 0 written 0 first ("underflow"), or one that rounds past
    the largest 32-bit float failing the statement, naming the score ("clamp"), as evaluate() refuses it."""
    for cast in list(tree.find_all(exp.Cast)):
        if not meta_value(cast.to, FLOAT32):
            continue
        magnitude = exp.Abs(this=exp.Cast(this=cast.this.copy(), to=exp.DataType.build("DOUBLE")))
        if d.float32_cast == "underflow":
            beyond = exp.LTE(this=magnitude, expression=exp.Literal.number(repr(FLOAT32_ZERO)))
            value = exp.Cast(this=exp.Literal.number(0), to=cast.to.copy())
        else:
            beyond = exp.GTE(this=magnitude, expression=exp.Literal.number(repr(FLOAT32_INFINITE)))
            value = _failing(exp.DPipe(this=exp.Literal.string("score "), expression=exp.DPipe(
                this=exp.Cast(this=cast.this.copy(), to=exp.DataType.build("VARCHAR")),
                expression=exp.Literal.string(f" {FLOAT32_TOO_LARGE}"))), d)
        guard = exp.Case(ifs=[exp.If(this=beyond, true=value)])
        cast.replace(guard)
        guard.set("default", cast)
    return tree


def refuse_float32(d: Dialect, conv: dict) -> None:
    """scores='float32' (the pytrec_eval preset) on an engine without a 32-bit float type: refused, as its
    scores would be compared as doubles there and ties pytrec_eval makes would be ranked apart."""
    if conv.get("scores") == "float32" and d.float32 is None:
        raise UsageError(f"the {d.name} dialect has no 32-bit float type, so scores='float32' (the pytrec_eval "
                         f"convention's scores) cannot be rounded there: use the trec_eval convention, or another "
                         f"dialect")


def _unsigned_zero(tree: exp.Expression) -> exp.Expression:
    """The run's score and rank (sqlgen.run_items: the CTE run_items, its columns score and rank_in) as CASE WHEN
    x = 0 THEN 0 ELSE x END: an engine whose sort is a total order puts -0.0 below 0.0, where every other engine,
    trec_eval and the other routes tie them (= holds them equal, so the CASE folds the two into one)."""
    for column in list(_item_columns(tree, RUN_ITEMS, ("score", "rank_in"))):
        value = column.this
        if isinstance(value, exp.Cast) and isinstance(value.this, exp.Null):
            continue
        zero = exp.Literal.number(0)
        column.set("this", exp.Case(
            ifs=[exp.If(this=exp.EQ(this=value.copy(), expression=zero),
                        true=exp.Cast(this=zero.copy(), to=exp.DataType.build("DOUBLE")))],
            default=value))
    return tree


def _guard_first(tree: exp.Expression) -> exp.Expression:
    """sqlgen.guarded's SELECT * FROM (...) AS results WHERE (check) IS NULL as SELECT results.* FROM (SELECT 1 AS
    rm_ok WHERE (check) IS NULL) AS rm_guard CROSS JOIN (...) AS results: the one-row guard is read first (SQLite
    keeps the left table of a CROSS JOIN outermost), so its check runs whether the results have rows or not."""
    def rewrite(node):
        source = node.args.get("from_") if isinstance(node, exp.Select) else None
        where = node.args.get("where") if source is not None else None
        if (source is None or where is None or not isinstance(source.this, exp.Subquery)
                or source.this.alias != "results" or not isinstance(where.this, exp.Is)
                or not isinstance(where.this.this, exp.Subquery) or node.args.get("joins")):
            return node
        guard = exp.select(exp.alias_(exp.Literal.number(1), "rm_ok")).where(where.this)
        out = exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("results"))).from_(
            exp.Subquery(this=guard, alias=exp.TableAlias(this=exp.to_identifier("rm_guard")))).join(
            source.this, join_type="cross")
        for key, value in node.args.items():  # its CTEs
            if key not in ("expressions", "from_", "where", "joins") and value:
                out.set(key, value)
        return out
    return tree.transform(rewrite, copy=False)


def _explicit_nulls(ordered_sql):
    """An Ordered writer that adds NULLS FIRST/LAST (and ASC) where the dialect's own left them implicit."""
    def ordered(self, expression):
        text = ordered_sql(self, expression)
        if not re.search(r" NULLS (FIRST|LAST)$", text):
            if expression.args.get("desc") is None and not text.endswith((" ASC", " DESC")):
                text += " ASC"
            text += " NULLS FIRST" if expression.args.get("nulls_first") else " NULLS LAST"
        return text
    return ordered


def _regexp_operator(self, expression):
    """A pattern match as the operator x REGEXP p (Dialect.regexp "operator": MariaDB has no REGEXP_LIKE, which
    sqlglot's MySQL writes; _regexp puts it in parentheses)."""
    return self.binary(expression, "REGEXP")


def _writers(d: Dialect) -> dict:
    """{expression class: a function of sqlglot's writer of that class giving ours}: how the dialect's writing
    differs from its sqlglot dialect's."""
    writers = {}
    if d.nulls_in_windows:
        writers[exp.Ordered] = _explicit_nulls
    if d.regexp == "operator":
        writers[exp.RegexpLike] = lambda _: _regexp_operator
    return writers


def _generator(dialect, base, writers: dict, pretty: bool):
    """A generator of class base (the sqlglot dialect's) for that dialect, with the writers of _writers. Not a
    subclass: sqlglot's compiled build (`sqlglot[c]`, sqlglotc) refuses to make interpreted subclasses of its
    generators ("interpreted classes cannot inherit from compiled"), so the writers are replaced in this
    instance's dispatch table; sqlglot releases without that table get a subclass (its TRANSFORMS come first)."""
    options = dict(dialect=dialect, pretty=pretty, unsupported_level=sqlglot.ErrorLevel.RAISE)
    generator = base(**options)
    if not writers:
        return generator
    dispatch = getattr(generator, "_dispatch", None)
    if isinstance(dispatch, dict):
        generator._dispatch = {**dispatch, **{cls: own(dispatch.get(cls)) for cls, own in writers.items()}}
        return generator
    transforms = {cls: own(base.TRANSFORMS.get(cls) or getattr(base, f"{cls.__name__.lower()}_sql", None))
                  for cls, own in writers.items()}
    return type("Rewritten", (base,), {"TRANSFORMS": {**base.TRANSFORMS, **transforms}})(**options)


def generate(tree: exp.Expression, dialect: str, pretty: bool = True) -> str:
    """Write a tree already transformed for the dialect (the tree may be changed in the writing)."""
    d = get(dialect)
    target = sqlglot.Dialect.get_or_raise(d.sqlglot)
    return _generator(target, target.generator_class, _writers(d), pretty).generate(tree, copy=False)


def refuse_lacking(d: Dialect, metric_names) -> None:
    """One line naming the first metric the dialect cannot compute (Dialect.lacks), and why."""
    for name in metric_names:
        if name in d.lacks:
            raise UsageError(f"the {d.name} dialect cannot compute {name}: {d.lacks[name]}; compute it in DuckDB "
                             f"(rankmetrics eval) or another dialect")


def render(query: exp.Expression, dialect: str, pretty: bool = True, copy: bool = True) -> str:
    """The query as SQL text for the dialect, with the rewrites above. copy=False: the query is a tree built for
    this call alone, rewritten in place rather than copied first (a copy is a third of a rewrite's time)."""
    return generate(transform(query, dialect, copy=copy), dialect, pretty=pretty)


def table(name: str, dialect: str = "duckdb", what: str = "table") -> exp.Table:
    """A (possibly qualified) table name as a sqlglot Table: db.schema.table, BigQuery project.dataset.table.

    Parts are plain names (letters, digits, _, $ and -) or identifiers quoted as the dialect quotes them
    (analytics."RecsV2", `my-project`.ds.t, [dbo].[Recs]), which keep their case and may be keywords. Anything
    else (spaces outside quotes, semicolons, comments, expressions) is refused, so a name never becomes SQL.
    Plain parts that need quoting (a '-' in a BigQuery project, a leading digit) are quoted by sqlglot when the
    query is written."""
    d = get(dialect)
    if name is not None and not isinstance(name, str):  # 6.5 was the table "6"."5"
        raise UsageError(f"{what} name must be text, not {name!r}")
    text = name or ""
    parts = text.split(".")
    refusal = (f"{what} name {text!r} is not a (possibly qualified) table name: use dot-separated parts, each "
               f"a plain name (letters, digits, _, $ and -) or a quoted identifier (\"RecsV2\"); spaces outside "
               f"quotes, semicolons and comments are not allowed")
    if text and len(parts) <= 3 and all(re.fullmatch(r"[^\W][\w$-]*", p) for p in parts):
        return _qualified([(p, False) for p in parts])
    if not text or not any(q in text for q in ('"', "`", "[")) or text != text.strip():
        raise UsageError(refusal)
    try:  # quoted identifiers: read as the dialect reads them
        tree = sqlglot.parse(f"SELECT * FROM {text}", read=d.sqlglot)
    except sqlglot.errors.SqlglotError:
        raise UsageError(refusal) from None
    select = tree[0] if len(tree) == 1 else None
    source = select.args.get("from_") if isinstance(select, exp.Select) else None
    found = source.this if source is not None else None
    if (not isinstance(found, exp.Table) or set(select.args) - {"expressions", "from_"} - {
            k for k, v in select.args.items() if not v} or found.alias or any(
            n.comments for n in select.walk()) or not all(isinstance(p, exp.Identifier) for p in found.parts)
            or len(found.parts) > 3 or any(not p.name for p in found.parts)):
        raise UsageError(refusal)
    return _qualified([(p.name, p.quoted) for p in found.parts])


def _qualified(parts: list[tuple[str, bool]]) -> exp.Table:
    """A Table of up to three (name, quoted) parts; a name that is not a plain identifier is quoted too."""
    ids = [exp.Identifier(this=name, quoted=quoted or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name))
           for name, quoted in parts]
    catalog, db, this = [None] * (3 - len(ids)) + ids
    return exp.Table(this=this, db=db, catalog=catalog)
