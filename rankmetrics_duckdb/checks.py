"""Each input check written once, as SQL text: the query-id overlap, the checks of one input (CheckSQL: its name,
the column it is about, the aggregate over rows t that counts the rows at fault) and the column types read as
numbers. The careful path (inputs.Reader, inputs.query_overlap) runs them and turns a non-zero count into its
message; the one-statement path (onepass) counts the same SQL in its statement. Imports nothing of the package."""
from __future__ import annotations

from dataclasses import dataclass

RUN, JUDGMENTS = "run", "judgments"


def overlap_counts(run_ids: str, judged_ids: str, keys: int = 0) -> list[str]:
    """The query-id overlap as three SQL scalar subqueries (run queries, judged queries, common queries) over two
    relations of distinct query ids in a column q: the one definition that query_overlap and the one-statement
    path (onepass) both count with. keys: the group columns the judgments have (overlap_keys), beside q as k0,
    k1, ...: a query is then one of a group, and is in common when both have it in the same group."""
    on = " AND ".join(["a.q = b.q"] + [f"a.k{i} IS NOT DISTINCT FROM b.k{i}" for i in range(keys)])
    return [f"(SELECT count(*) FROM {run_ids})", f"(SELECT count(*) FROM {judged_ids})",
            f"(SELECT count(*) FROM {run_ids} AS a JOIN {judged_ids} AS b ON {on})"]


def overlap_keys(judged_groups, quote) -> list[str]:
    """The group columns the judgments have (the run has them all: shape.Shape), quoted by quote, as the keys
    k0, k1, ... of overlap_counts: the judgments of such a group are joined with the run's rows of that group only
    (the others are shared by every group), so their queries overlap within a group."""
    return [f"t.{quote(g)} AS k{i}" for i, g in enumerate(judged_groups)]


# The message with which the fused query fails when it ranked a run as presorted (numbering its rows in their
# input order, sqlgen.presorted_ranking) and found it was not in rank order: the caller evaluates again with the
# sort (onepass.evaluate, api.Evaluation.rows). Not an input error: any order is a valid run.
PRESORTED_FAULT = "rankmetrics: the run is not in rank order"


@dataclass(frozen=True)
class CheckSQL:
    """One input check as SQL: its name, the column it is about (or None), and the aggregate over the input's
    rows (alias t) that counts the rows at fault (0 or NULL when all is well)."""
    name: str
    column: str | None
    count: str


def text_number(text: str) -> str:
    """The SQL of the number a text (SQL of a VARCHAR) reads as, NULL when it is not one: DuckDB's cast, which also
    reads digits grouped by '_' (1_000 as 1000, as Python's float does, where trec_eval's atof reads 1) and a sign
    after a '+' (+-1 as -1, where atol reads 0): such text is not a number here (textfiles.NUMBER, the Python
    readers' rule). Spaces around it are the caller's (ASCII_SPACES)."""
    return f"CASE WHEN contains({text}, '_') OR contains({text}, '+-') THEN NULL ELSE TRY_CAST({text} AS DOUBLE) END"


# The white space around a field that the readers drop: ASCII's (trec_eval's isspace, C's strtod), as an argument
# of DuckDB's trim(x, characters). trim(x) alone drops Unicode spaces too, and read '\u00a02' as 2.
ASCII_SPACES = "' \t\n\r\f'"


def non_finite_test(c: str, has_score: bool) -> str:
    """The test of a row t whose number c is NaN, infinite or missing (a missing rank is fine beside a score).
    isfinite, not isnan or a comparison: DuckDB 2.0 folds `isnan(x)` (and `x > 1e308`) to false from a Parquet
    column's statistics, whose minimum and maximum leave NaN out, so a NaN among finite values passed."""
    return (f"NOT isfinite(TRY_CAST(t.{c} AS DOUBLE)) "
            f"{'OR t.' + c + ' IS NULL' if c != 'rank' or not has_score else ''}")


def group_sql(groups: tuple, table: str = "t") -> str:
    """The group columns (already quoted names) of a row of `table`, as the leading arguments of a hash or a
    GROUP BY ('' without groups)."""
    return "".join(f"{table}.{g}, " for g in groups)


def missing_id(column: str, text: str) -> str:
    """DuckDB SQL: an id that is missing (NULL, empty or ASCII spaces only), the input checks' rule. column: the
    id's column, text: that column as VARCHAR."""
    # trim(x) = '' only for x empty or all spaces, which sort (byte-wise, as DuckDB compares text) before '!':
    # only those rows need the trim. One comparison of the string's first bytes costs less than x = '' and
    # starts_with(x, ' ') (W2M's 2M ids on Arrow: 0.013 s against 0.024 s a column, issue 19, round 9)
    return f"{column} IS NULL OR ({text} < '!' AND trim({text}, ' ') = '')"


def check_sql(kind: str, rows: str, has_score: bool, has_rank: bool, ids_checked: bool, nan_last: bool = False,
              typed: bool = False, groups: tuple = (), empty_lists: str | None = None) -> list[CheckSQL]:
    """The checks of an input, in the order the careful path (Reader.check) reports them: the one definition
    that Reader._checks runs and onepass counts in its statement. rows: the input (a table or a parenthesized
    SELECT), whose rows (alias t) the counts aggregate and the duplicate check reads again. typed: the numbers
    are DOUBLE already (no text to find in them); nan_last: non-finite scores are made NULL and ranked last, not
    refused; groups: the group columns (quoted names) within which a (query, item) pair must be unique.
    empty_lists: a run of lists' rows whose list is empty (inputs.View.empty_lists), queries that retrieved
    nothing: a run of lists with such rows is not empty even when its unnested rows are none (every list empty)."""
    empty = "count(*) = 0" + (f" AND NOT EXISTS (SELECT 1 FROM {empty_lists})" if empty_lists else "")
    out = [CheckSQL("empty", None, f"CASE WHEN {empty} THEN 1 ELSE 0 END")]
    for col in () if ids_checked else ("query_id", "item_id"):
        text = f"CAST(t.{col} AS VARCHAR)"
        out.append(CheckSQL("missing id", col, f"sum(CASE WHEN {missing_id(f't.{col}', text)} THEN 1 ELSE 0 END)"))
    numeric = ["relevance"] if kind == JUDGMENTS else [c for c, has in (("score", has_score), ("rank", has_rank))
                                                         if has]
    for c in () if typed else numeric:  # text in a numeric column of a table or frame (files: named on reading)
        out.append(CheckSQL("not a number", c, f"sum(CASE WHEN t.{c} IS NOT NULL AND "
                                               f"{text_number(f'CAST(t.{c} AS VARCHAR)')} IS NULL THEN 1 ELSE 0 END)"))
    for c in numeric:
        if c == "score" and nan_last:
            continue  # non-finite scores were made NULL: ranked last
        out.append(CheckSQL("not finite", c, f"sum(CASE WHEN {non_finite_test(c, has_score)} THEN 1 ELSE 0 END)"))
    out.append(CheckSQL("duplicate", None, duplicate_count(rows, groups)))
    return out


def duplicate_count(rows: str, groups: tuple = ()) -> str:
    """The duplicate check of an input: how many of its rows (t) repeat the hash of a row before them, (group,)
    query and item, the hashes sorted: a duplicate or, very rarely, a hash collision (the exact query that names
    the row decides). A scalar subquery, not an aggregate beside the other checks: sorting the hashes and
    comparing neighbours costs less than a hash table of every distinct one (count(DISTINCT hash(...))): 6.6 s
    against 9.1 s for 100M Parquet rows, 0.65 s against 0.79 s for 10M rows of a table."""
    h = f"hash({group_sql(groups)}CAST(t.query_id AS VARCHAR), CAST(t.item_id AS VARCHAR))"
    return (f"(SELECT count(*) FROM (SELECT d.h, lag(d.h) OVER (ORDER BY d.h) AS before FROM (SELECT {h} AS h "
            f"FROM {rows} AS t) AS d) AS d WHERE d.h = d.before)")


# Types whose CAST to DOUBLE equals the text conversion of inputs.Reader._materialize. Not FLOAT (0.1 as float32 becomes
# 0.10000000149 directly but 0.1 through its text), not BOOLEAN (text 'true' is not a number). The one list of
# the careful path (is_number_type) and the one-statement path (onepass).
NUMBER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                "UBIGINT", "UHUGEINT", "DOUBLE", "DECIMAL")


def is_number_type(t: str, floats: bool = False) -> bool:
    """A column type (DESCRIBE's text) in NUMBER_TYPES, or FLOAT too if floats (for inputs whose FLOAT values
    both paths take as DOUBLE directly)."""
    return t.split("(")[0] in NUMBER_TYPES + (("FLOAT",) if floats else ())


def number_column_fault(column: str, type_text: str) -> str | None:
    """Why a score, rank or relevance column of this type (DESCRIBE's text) cannot be read as numbers, or None:
    numbers of any type, or text (read by text_number), are read; any other type (BLOB, BOOLEAN, INTERVAL, DATE,
    a list) is refused by its type on every input kind, not by one of its values."""
    t = type_text.split("(")[0].strip().upper()
    if is_number_type(t, floats=True) or t == "VARCHAR":
        return None
    return f"the {column} column is {type_text}, not numbers (give numbers, or numbers as text)"


def id_column_fault(column: str, type_text: str) -> str | None:
    """Why an id column of this type (DESCRIBE's text) is refused, or None: ids are compared as text, and a
    floating-point id's text (1.0) is not the integer's (1), so a run and judgments whose ids were written as
    floats on one side only would match nothing, silently (pandas turns an integer column with a missing value
    into float64)."""
    if type_text.split("(")[0].strip().upper() in ("FLOAT", "DOUBLE", "REAL", "FLOAT4", "FLOAT8"):
        return (f"the {column} column is {type_text}: ids are compared as text, where 1.0 is not 1; give them as "
                f"integers or text (pandas makes an integer column with a missing value float64)")
    # a list where an id is (a run of lists' lists of lists) or a structure: its text was taken as one id, and
    # matched nothing (num_ret 1 and map 0 for a list of lists of ids, with no word)
    if type_text.strip().endswith("]") or type_text.strip().upper().startswith(("STRUCT", "MAP", "UNION")):
        return (f"the {column} column holds {type_text} values: an id is text or a whole number, not a list or "
                f"a structure")
    return None


# The side tables some metrics read (the training interactions; the catalog): their columns, and their checks.
SIDE_COLUMNS = {"interactions": ("user_id", "item_id"), "catalog": ("item_id",), "vectors": ("item_id", "embedding")}
SIDE_LISTS = ("embedding",)  # a list of numbers per row (read as DOUBLE[]), not an id


def side_check_sql(name: str, role: str = "") -> list[CheckSQL]:
    """The checks of a side table (SIDE_COLUMNS[name]), over rows t: not empty, no missing or empty id; a list
    (SIDE_LISTS) present, of finite numbers, of one length in every row, and one row per item; a catalog given as
    one (role 'items', not the interactions' items) one row per item too (its size is its items', where RecTools'
    len(catalog) counts a repeated item twice)."""
    out = [CheckSQL("empty", None, "CASE WHEN count(*) = 0 THEN 1 ELSE 0 END")]
    for col in SIDE_COLUMNS[name]:
        if col in SIDE_LISTS:
            # coalesce: list_bool_and skips NULLs, so a NULL element passed where a NaN did not
            finite = f"list_bool_and(list_transform(t.{col}, lambda x: coalesce(isfinite(x), false)))"
            out.append(CheckSQL("missing list", col, f"sum(CASE WHEN t.{col} IS NULL OR len(t.{col}) = 0 OR "
                                                     f"NOT {finite} THEN 1 ELSE 0 END)"))
            out.append(CheckSQL("list lengths", col, f"count(DISTINCT len(t.{col})) - 1"))
            continue
        out.append(CheckSQL("missing id", col, f"sum(CASE WHEN t.{col} IS NULL OR trim(CAST(t.{col} AS VARCHAR), ' ') = '' "
                                               f"THEN 1 ELSE 0 END)"))
    if name == "vectors" or (name == "catalog" and role == "items"):
        out.append(CheckSQL("duplicate item", "item_id", "count(*) - count(DISTINCT t.item_id)"))
    return out


# a score that rounds past the largest 32-bit float under scores='float32': the end of the message of every route
# that refuses it (api._check_float32_scores; the SQL of an engine whose cast keeps it, dialects._float32_range)
FLOAT32_TOO_LARGE = ("is too large for the 32-bit scores of scores='float32' (pytrec_eval's; at most about 3.4e38 in "
                     "magnitude): rescale the scores, or use the trec_eval convention's 64-bit scores")
