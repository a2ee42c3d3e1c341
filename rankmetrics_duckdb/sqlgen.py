"""One query for many measures, built from the metric macros of sql/.

Each metric's table macro in sql/ has the same shape:

    SELECT f.query_id, <value> AS value
    FROM (SELECT s.*, <feature> AS name, ... FROM rm_stream(run, judgments, ties, judged_only) AS s) AS f
    GROUP BY f.query_id
    HAVING rm_in_query_set(f.kind, queries)

so a request for several measures becomes one query: the stream once, every distinct feature (window) once,
and every measure's value as one more aggregate of the same GROUP BY. Parameters become literals and the
macros are inlined (sqlsource.expand), so the result is plain SQL that dialects.render turns into any engine's.

With split_kinds (plan), the stream's two halves are CTEs of their own: `retrieved` (its 'R' rows) and `judged`
(its 'J' rows). A feature that the measures read only on 'R' rows and whose windows never mix the two kinds
(PARTITION BY ..., kind: a running count in rank order, bpref's non-relevant items above, ERR's reach) is
computed on the retrieved rows alone, and the judged rows carry NULL for it: sorting the judged rows for a value
nobody reads was a third of the query's window work. Features whose windows span both kinds (|G| on every row)
are computed over both.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from sqlglot import exp

from . import sqlsource
from .checks import PRESORTED_FAULT
from .determinism import in_order
from .dialects import FLOAT32, PARTITION, REPEATED
from .errors import UsageError
from .measures import (GAIN_GRADE_RULES, GRADE_LIMIT, GradeRule, Measure, cutoff_depth, deepest, grade_rules,
                       listed_aggregates, mean_sql, needs_side_tables, read_depths)


@dataclass
class Source:
    """A relation to read: a table (possibly qualified) or a subquery, with what it holds.

    columns maps our names (query_id, item_id, score, rank, relevance) to the relation's own, where they differ;
    groups are the group columns (plan's `by`) the relation has: the run has all of them, the judgments any
    (the judgments are joined on those they have and shared by the groups on the others)."""
    expression: exp.Expression  # exp.Table or exp.Subquery
    has_score: bool = True
    has_rank: bool = False
    columns: dict = field(default_factory=dict)
    groups: tuple = ()
    lists: bool = False   # the item column is a list: a run's in rank order; judgments' relevant items, with
    #                       their grades in a parallel list when columns names a relevance column, else grade 1
    group_rows: exp.Expression | None = None  # a run's groups read from this relation (its group columns), not
    #                       from `expression`: a warehouse view of unnested lists has no row for a group whose
    #                       lists are all empty, which is still a run of the table (warehouse.view)
    empty_lists: exp.Expression | None = None  # a run of lists read through a view of its unnested rows
    #                       (warehouse.view): the relation of its rows whose list is empty (query_id and the group
    #                       columns), each a query that retrieved nothing, which the unnested rows do not have

    def column(self, alias: str, name: str) -> exp.Column:
        """The relation's column holding our column `name`, read through the alias."""
        return user_column(self.columns.get(name, name), alias)


def listed(run: Source) -> bool:
    """Whether the run is one of lists (its own list column, or a view of them with its empty lists beside it):
    its queries whose list is empty are queries of the run that retrieved nothing (EMPTY_LISTS)."""
    return run.lists or run.empty_lists is not None


def user_column(name: str, table: str | None = None) -> exp.Column:
    """A column of the user's table: quoted unless a plain lower-case name, so that its case survives engines
    that fold unquoted names (PostgreSQL to lower, Snowflake to upper case)."""
    return exp.column(exp.to_identifier(name, quoted=not re.fullmatch(r"[a-z_][a-z0-9_]*", name)), table=table)


# Groups (plan's `by`): each group of the run is evaluated as a run of its own, in the same query. The groups
# are numbered in the CTE rm_groups (in their sort order), and each query id of the stream is prefixed with its
# group's key, its number and GROUP_SEPARATOR ('3:' + query id): every window and GROUP BY of the metrics
# partitions by query_id, so the stream needs nothing else, and the results split the prefix off again at the
# first separator (a number has none). The prefix is short on purpose: DuckDB keeps strings of up to 12 bytes
# inline, and a longer key makes every sort, join and window of a 10M-row run markedly slower.
GROUP_SEPARATOR = ":"


def _group(i: int) -> str:
    return f"rm_g{i + 1}"


def groups_cte(run: Source, by: tuple) -> exp.Select:
    """rm_groups: the run's distinct groups (typed as in the run), numbered in sort order (NULLs first). Where
    the default collation may hold distinct values equal (MySQL, SQL Server), the dialect layer keeps them apart
    (dialects._bytewise_groups: the DISTINCT and the joins with rm_groups compare a byte-wise form too)."""
    rows = run if run.group_rows is None else Source(run.group_rows, columns=run.columns)
    distinct = exp.select(*[exp.alias_(rows.column("r", g), _group(i)) for i, g in enumerate(by)]).from_(
        _source(rows, "r")).distinct()
    order = exp.Order(expressions=[exp.Ordered(this=exp.column(_group(i), table="d"), nulls_first=True)
                                   for i in range(len(by))])
    number = exp.Window(this=exp.RowNumber(), order=order)
    key = exp.DPipe(this=_cast(number.copy(), "VARCHAR"), expression=exp.Literal.string(GROUP_SEPARATOR), safe=True)
    return exp.select(*[exp.column(_group(i), table="d") for i in range(len(by))],
                      exp.alias_(number, "group_no"), exp.alias_(key, "group_key")).from_(
        exp.Subquery(this=distinct, alias=exp.TableAlias(this=exp.to_identifier("d"))))


def _group_join(select: exp.Select, src: Source, alias: str, by: tuple) -> exp.Select:
    """select joined with rm_groups (as g) on the group columns src has (NULL-safe), or crossed with it."""
    # each in parentheses: DataFusion reads `a IS NOT DISTINCT FROM b AND c` as `a IS NOT DISTINCT FROM (b AND c)`
    conds = [exp.Paren(this=exp.NullSafeEQ(this=src.column(alias, g), expression=exp.column(_group(i), table="g")))
             for i, g in enumerate(by) if g in src.groups]
    table = exp.Table(this=exp.to_identifier("rm_groups"), alias=exp.TableAlias(this=exp.to_identifier("g")))
    if conds:
        return select.join(table, on=exp.and_(*conds))
    return select.join(table, join_type="cross")


def _query_key(src: Source, alias: str, by: tuple) -> exp.Expression:
    """The stream's query id: the query as text, prefixed with its group's number when there are groups."""
    query = _cast(src.column(alias, "query_id"), "VARCHAR")
    if not by:
        return query
    return exp.DPipe(this=exp.column("group_key", table="g"), expression=query, safe=True)


def key_parts(key: exp.Expression) -> tuple[exp.Expression, exp.Expression, exp.Expression]:
    """(its group's key, its group's number as text, the query id) of a grouped query id (see GROUP_SEPARATOR)."""
    at = exp.StrPosition(this=key.copy(), substr=exp.Literal.string(GROUP_SEPARATOR))
    return (exp.Substring(this=key.copy(), start=exp.Literal.number(1), length=at.copy()),
            exp.Substring(this=key.copy(), start=exp.Literal.number(1),
                          length=exp.Sub(this=at.copy(), expression=exp.Literal.number(1))),
            exp.Substring(this=key.copy(), start=exp.Add(this=at.copy(), expression=exp.Literal.number(1))))


def ungroup(select: exp.Select, alias: str, by: tuple, keep_unkeyed: bool = False) -> tuple[exp.Select, exp.Expression]:
    """select (reading rows keyed by a grouped query id as `alias`) joined with rm_groups (as g), and the query id
    without its group's key; the caller projects group_columns(by). keep_unkeyed: a LEFT JOIN, so that a row whose
    key is NULL (a row without a query id: the group's key || NULL) is kept, in a group of NULLs of its own, where
    it fails with the fault it carries (the grouped stream's rm_fault): the join dropped it, and with it the fault."""
    group_key, _, query = key_parts(exp.column("query_id", table=alias))
    joined = select.join(exp.Table(this=exp.to_identifier("rm_groups"), alias=exp.TableAlias(this=exp.to_identifier("g"))),
                         on=exp.EQ(this=exp.column("group_key", table="g"), expression=group_key),
                         join_type="left" if keep_unkeyed else None)
    return joined, query


def group_columns(by: tuple, text: bool = False) -> list[exp.Expression]:
    """The group columns of rm_groups (as g) under their own names (cast to text with text=True)."""
    out = []
    for i, name in enumerate(by):
        value = exp.column(_group(i), table="g")
        out.append(exp.alias_(_cast(value, "VARCHAR") if text else value, exp.to_identifier(name, quoted=True)))
    return out


def _fault_query(key: exp.Expression, by: tuple) -> list[exp.Expression]:
    """The parts of a fault message that name a query: its id, and with groups the group's number in sort order
    (rm_groups) after the id without its group's key."""
    if not by:
        return [key]
    _, number, query_id = key_parts(key)
    return [query_id, exp.Literal.string(" (group "), number, exp.Literal.string(" of the by columns, in sort order)")]


def _run_fault(item: exp.Expression, count: exp.Expression, query: list, where: str = "run") -> list[exp.Expression]:
    """The parts of the message of an item found count times in a query of the run (or of the reference)."""
    lit = exp.Literal.string
    return [lit("rankmetrics: item "), item, lit(" appears "), _cast(count, "VARCHAR"), lit(" times for query "),
            *[q.copy() for q in query], lit(f" in the {where}")]


def _judged_fault(item: exp.Expression, count: exp.Expression, query: list, low: exp.Expression,
                  high: exp.Expression) -> list[exp.Expression]:
    """The parts of the message of an item judged count times in a query, with grades low to high."""
    lit = exp.Literal.string
    return [lit("rankmetrics: item "), item, lit(" of query "), *[q.copy() for q in query], lit(" is judged "),
            _cast(count, "VARCHAR"), lit(" times (grades "), _cast(low, "VARCHAR"), lit(" to "),
            _cast(high, "VARCHAR"), lit(")")]


def _missing_id(row: str, where: str, by: tuple = (), items: bool = True) -> tuple[exp.Expression, exp.Expression]:
    """(the condition, the message) of a row (its alias) of the run or the judgments (where) without a query id or
    an item id, NULL or empty (or all spaces), as the Python routes refuse them (checks.check_sql): a query (or an
    item) of its own otherwise, and a per-query row whose query_id is NULL reads as the mean row. With groups (by)
    the query id is the one after its group's key (key_parts). items=False: the query id alone (a row of
    EMPTY_LISTS, a run of lists' row whose list is empty, has no item)."""
    query = key_parts(_column(row, "query_id"))[2] if by else _column(row, "query_id")
    # blank: empty or ASCII spaces only, TRIM(' ' FROM x) on every engine (DuckDB's TRIM(x) strips Unicode spaces
    # too, PostgreSQL's spaces only: an id of a no-break space was refused on one and taken on the other)
    empty = lambda e: exp.EQ(this=exp.Trim(this=e, expression=exp.Literal.string(" ")),  # noqa: E731
                             expression=exp.Literal.string(""))
    ids = ("query_id", "item_id") if items else ("query_id",)
    condition = exp.or_(*[exp.Is(this=_column(row, name), expression=exp.Null()) for name in ids],
                        *[empty(query if name == "query_id" else _column(row, name)) for name in ids])
    return condition, exp.Literal.string(f"rankmetrics: a row of the {where} has no query id or no item id "
                                         f"(NULL or empty)")


def not_finite(value: exp.Expression) -> exp.Expression:
    """value is NULL, NaN or infinite (sql/00_common.sql's rm_not_finite, expanded)."""
    return sqlsource.expand(exp.Anonymous(this="rm_not_finite", expressions=[value]))


def _number_fault(row: str, query: list, where: str) -> tuple[exp.Expression, exp.Expression]:
    """(the condition, the message) of a row (its alias) of the run or the reference (its score, or -rank) or of
    the judgments (where; its grade) whose number is NULL, NaN or infinite: such a score ranks where each engine
    sorts NULL or NaN (last, or first), and such a grade counts as 0 or as relevant, where the Python routes refuse
    both (nan_scores='error'). query: the message parts of the row's query (_fault_query)."""
    column, what = ("grade", "a relevance grade") if where == "judgments" else ("score", "a score (or rank)")
    return not_finite(_column(row, column)), _item_message(row, query,
                                                            f" has {what} that is NULL, NaN or infinite in the {where}")


def _item_message(row: str, query: list, text: str) -> exp.Concat:
    """'rankmetrics: item I of query Q' + text, for the row (its alias) of an item; query: _fault_query's parts."""
    lit = exp.Literal.string
    return exp.Concat(expressions=[lit("rankmetrics: item "), _column(row, "item_id"), lit(" of query "),
                                   *[q.copy() for q in query], lit(text)])


_GRADE_CONDITION = {"<": exp.LT, ">=": exp.GTE}


def _grade_fault(row: str, query: list, rule) -> tuple[exp.Expression, exp.Expression]:
    """(the condition, the message) of a judgment (row: its alias) whose grade a measures.GradeRule refuses, as
    api._check_gain_grades refuses it on the Python routes."""
    text = (f" has a grade too high for exponential gain in {rule.measure} (2^grade - 1 overflows past grade "
            f"{GRADE_LIMIT})" if rule.kind == "overflow" else
            f" has a negative grade, which {rule.measure} with raw gain does not take (nor does scikit-learn "
            f"ndcg_score)")
    return (_GRADE_CONDITION[rule.op](this=_column(row, "grade"), expression=exp.Literal.number(rule.bound)),
            _item_message(row, query, text))


def rank_faults(by: tuple = ()) -> exp.Select:
    """The run's rows (run_items) whose given rank beside a score is NaN or infinite, one row each, its message as
    fault (_number_fault's): such a rank orders the run under ties 'input', and eval refuses it. For the native
    objects and dbt, whose run_items keep one score expression (the SQL of to_sql refuses it through
    run_items(checked=True))."""
    x = lambda name: _column("x", name)  # noqa: E731
    _, message = _number_fault("x", _fault_query(x("query_id"), by), "run")
    return exp.select(exp.alias_(message, "fault")).from_(exp.Table(
        this=exp.to_identifier("run_items"), alias=exp.TableAlias(this=exp.to_identifier("x")))).where(
        exp.and_(exp.Not(this=exp.Is(this=x("rank_in"), expression=exp.Null())), not_finite(x("rank_in"))))


def union_all(selects: list) -> exp.Expression | None:
    """The selects as one UNION ALL, in their order; None for none."""
    out = selects[0] if selects else None
    for select in selects[1:]:
        out = exp.union(out, select, distinct=False)
    return out


def gain_grade_faults(macro_name: str, gain: exp.Expression, by: tuple = (), label: str = "") -> list[exp.Select]:
    """For each rule of measures.GAIN_GRADE_RULES that applies to the metric macro, the judgments (judgment_items)
    whose grade it refuses when the gain argument (gain: the native objects' prm.gain) is the rule's, one row
    each, its message (naming label, default the macro) as fault. For the SQL that takes the gain when it is
    called."""
    x = lambda name: _column("x", name)  # noqa: E731
    query = _fault_query(x("query_id"), by)
    faults = []
    for kind, macros, rule_gain, op, bound in GAIN_GRADE_RULES:
        if macro_name in macros:
            condition, message = _grade_fault("x", query, GradeRule(kind, label or macro_name, op, bound))
            given = exp.EQ(this=gain.copy(), expression=exp.Literal.string(rule_gain))
            faults.append(exp.select(exp.alias_(message, "fault")).from_(exp.Table(
                this=exp.to_identifier("judgment_items"), alias=exp.TableAlias(this=exp.to_identifier("x")))).where(
                exp.and_(given, condition)))
    return faults


def grouped_fault(by: tuple = (), grades: tuple = (), rank_positions: bool = False,
                  listed: bool = False) -> exp.Expression:
    """The input checks of the grouped stream (rm_grouped_stream), as an aggregate over its rows (as f): the
    first fault's message (input_checks' messages, and the least of them as there), NULL when the inputs are
    clean. Each of its items carries how many run rows and judgment rows it had; the checks read them on its 'R'
    row and its 'J' row. grades: measures.grade_rules, read on the 'J' rows. rank_positions: a given rank that is
    not its row's position fails (rank_positions_fault). listed: a run of lists, whose 'Q' rows (EMPTY_LISTS) fail
    without a query id as its 'R' rows do."""
    f = lambda name: _column("f", name)  # noqa: E731
    query = _fault_query(f("query_id"), by)
    kind = lambda k: exp.EQ(this=f("kind"), expression=exp.Literal.string(k))  # noqa: E731
    over = lambda name: exp.GT(this=f(name), expression=exp.Literal.number(1))  # noqa: E731
    def no_id(k: str, where: str) -> exp.If:
        condition, message = _missing_id("f", where, by, items=k != "Q")
        return exp.If(this=exp.and_(kind(k), condition), true=message)
    def no_number(k: str, where: str) -> exp.If:  # the 'R' row's score, the 'J' row's grade
        condition, message = _number_fault("f", query, where)
        return exp.If(this=exp.and_(kind(k), condition), true=message)
    fault = exp.Case(ifs=[
        no_id("R", "run"), no_id("J", "judgments"), *([no_id("Q", "run")] if listed else []),
        no_number("R", "run"), no_number("J", "judgments"),
        *[exp.If(this=exp.and_(kind("J"), condition), true=message)
          for condition, message in (_grade_fault("f", query, rule) for rule in grades)],
        exp.If(this=exp.and_(kind("R"), over("run_rows")),
               true=exp.Concat(expressions=_run_fault(f("item_id"), f("run_rows"), query))),
        exp.If(this=exp.and_(kind("J"), over("judgment_rows")),
               true=exp.Concat(expressions=_judged_fault(f("item_id"), f("judgment_rows"), query, f("low_grade"),
                                                         f("grade")))),
        *([exp.If(this=rank_positions_fault("f"), true=_rank_positions_message(query))] if rank_positions else [])])
    return exp.Min(this=fault)


def _rank_positions_message(query: list, what: str = "run") -> exp.Concat:
    """The message of a query whose given ranks are not 1..n under a preset whose library reads rank values as
    positions (conventions.RANK_VALUES: RecTools), as inputs.check_rank_positions refuses it on the Python
    routes. query: _fault_query's parts; what: the run, or the reference run (Intersection's)."""
    lit = exp.Literal.string
    return exp.Concat(expressions=[
        lit("rankmetrics: query "), *[q.copy() for q in query],
        lit(f" of the {what}: its ranks are not 1..n (tied, missing one, not from 1, or not whole): RecTools reads rank "
            "values as positions (an item is in the top k when its rank is at most k), rankmetrics ranks a query's "
            "items 1, 2, ... in rank order, and the two agree only for ranks 1..n; give each query's ranks as 1..n")])


def rank_positions_faults(by: tuple = (), reference: bool = False) -> exp.Select:
    """The queries of the run (run_items; with reference, of Intersection's reference run: REFERENCE_ITEMS, which
    RecTools reads by rank too) whose given ranks are not 1..n, one row each, its message as fault
    (_rank_positions_message): tied, missing one, not from 1, or not whole (NULL ranks, which rank last, left
    out as inputs.check_rank_positions leaves them)."""
    x = lambda name: _column("x", name)  # noqa: E731
    rank = x("rank_in")
    given = exp.Count(this=rank.copy())
    fraction = exp.Max(this=exp.Case(ifs=[exp.If(this=exp.NEQ(this=rank.copy(), expression=exp.Floor(this=rank.copy())),
                                                 true=exp.Literal.number(1))], default=exp.Literal.number(0)))
    message = _rank_positions_message(_fault_query(x("query_id"), by), "reference run" if reference else "run")
    table = REFERENCE_ITEMS if reference else "run_items"
    return exp.select(exp.alias_(message, "fault")).from_(
        exp.Table(this=exp.to_identifier(table), alias=exp.TableAlias(this=exp.to_identifier("x")))).where(
        exp.Not(this=exp.Is(this=rank.copy(), expression=exp.Null()))).group_by(x("query_id")).having(exp.or_(
            exp.NEQ(this=exp.Min(this=rank.copy()), expression=exp.Literal.number(1)),
            exp.NEQ(this=exp.Max(this=rank.copy()), expression=given.copy()),
            exp.NEQ(this=exp.Count(this=exp.Distinct(expressions=[rank.copy()])), expression=given.copy()),
            exp.EQ(this=fraction, expression=exp.Literal.number(1))))


def rank_positions_checks(by: tuple = (), reference: bool = False) -> list[exp.Select]:
    """The checks of ranks 1..n (rank_positions_faults): the run's, then, with a reference run (Intersection's),
    the reference's, which RecTools reads by rank too."""
    return [rank_positions_faults(by)] + ([rank_positions_faults(by, reference=True)] if reference else [])


def rank_positions_fault(row: str) -> exp.Expression:
    """The condition of a run's row (its alias, of the grouped stream) whose given rank is not its position in
    the ranking (its message: _rank_positions_message): with ties 'input' the ranking orders by the given rank, so a
    query's ranks are 1..n exactly when every row's rank is its position (NULL ranks last, left out)."""
    rank, pos = _column(row, "rank_in"), _column(row, "pos")
    return exp.and_(exp.EQ(this=_column(row, "kind"), expression=exp.Literal.string("R")),
                    exp.Not(this=exp.Is(this=rank, expression=exp.Null())),
                    exp.NEQ(this=rank.copy(), expression=pos))


def _fail(message: exp.Expression) -> exp.Expression:
    """rm_fail(message), expanded (sql/00_common.sql; the dialect layer writes each engine's way to fail)."""
    return sqlsource.expand(exp.Anonymous(this="rm_fail", expressions=[message]))


def unless_fault(value: exp.Expression, fault: exp.Expression) -> exp.Expression:
    """value, or the statement fails (rm_fail) with the message fault when it is not NULL."""
    return exp.Case(ifs=[exp.If(this=exp.Is(this=fault, expression=exp.Null()), true=value)],
                    default=_fail(fault.copy()))


def input_checks(by: tuple = (), reference: bool = False, grades: tuple = (),
                 rank_positions: bool = False, listed: bool = False, vectors: bool = False) -> exp.Select:
    """rm_checks: one row holding the inputs' first fault as a message, NULL when they are clean: an item twice
    in a query of the run (a table holding two models, say), or an item judged twice in a query; with reference,
    an item twice in a query of the reference run (REFERENCE_ITEMS, Intersection's). The careful
    path checks its inputs before the query; SQL over tables this program does not read checks them itself
    (plan's checks), so that it fails rather than count a row twice. grades: measures.grade_rules, on the
    judgments. rank_positions: a query whose given ranks are not 1..n (rank_positions_faults). listed: a run of
    lists, whose rows with an empty list (EMPTY_LISTS) fail without a query id, as its unnested rows do.
    vectors: the items' vectors IntraListDiversity reads (vector_faults)."""
    x = lambda name: _column("x", name)  # noqa: E731
    count = exp.Count(this=exp.Star())
    query = _fault_query(x("query_id"), by)

    def repeated(table: str, *message) -> exp.Select:  # the (query, item) pairs of table found more than once
        select = exp.select(exp.alias_(exp.Concat(expressions=list(message)), "fault")).from_(
            exp.Table(this=exp.to_identifier(table), alias=exp.TableAlias(this=exp.to_identifier("x")))).group_by(
            x("query_id"), x("item_id")).having(exp.GT(this=count.copy(), expression=exp.Literal.number(1)))
        select.meta[REPEATED] = True
        return select
    def faulty(table: str, where: str) -> exp.Select:  # rows without an id (_missing_id) or a number (_number_fault)
        no_id, id_message = _missing_id("x", where, by)       # or, in the judgments, a grade a rule refuses
        no_number, number_message = _number_fault("x", query, where)
        refused = [_grade_fault("x", query, rule) for rule in (grades if where == "judgments" else ())]
        return exp.select(exp.alias_(exp.Case(ifs=[exp.If(this=no_id, true=id_message),
                                                   exp.If(this=no_number, true=number_message),
                                                   *[exp.If(this=c, true=m) for c, m in refused]]),
                                     "fault")).from_(
            exp.Table(this=exp.to_identifier(table), alias=exp.TableAlias(this=exp.to_identifier("x")))).where(
            exp.or_(no_id.copy(), no_number.copy(), *[c.copy() for c, _ in refused]))
    run = repeated("run_items", *_run_fault(x("item_id"), count, query))
    judged = repeated("judgment_items", *_judged_fault(x("item_id"), count, query, exp.Min(this=x("grade")),
                                                       exp.Max(this=x("grade"))))
    faults = exp.union(exp.union(run, judged, distinct=False),
                       exp.union(faulty("run_items", "run"), faulty("judgment_items", "judgments"), distinct=False),
                       distinct=False)
    if listed:  # a row whose list is empty and whose query id is missing: no item, refused all the same
        no_query, message = _missing_id("x", "run", by, items=False)
        faults = exp.union(faults, exp.select(exp.alias_(message, "fault")).from_(exp.Table(
            this=exp.to_identifier(EMPTY_LISTS), alias=exp.TableAlias(this=exp.to_identifier("x")))).where(no_query),
            distinct=False)
    if reference:
        faults = exp.union(faults, exp.union(
            repeated(REFERENCE_ITEMS, *_run_fault(x("item_id"), count.copy(), query, "reference")),
            faulty(REFERENCE_ITEMS, "reference"), distinct=False), distinct=False)
    if vectors:
        faults = exp.union(faults, vector_faults(), distinct=False)
    if rank_positions:
        faults = union_all([faults, *rank_positions_checks(by, reference)])
    return exp.select(exp.alias_(exp.Min(this=_column("d", "fault")), "fault")).from_(
        exp.Subquery(this=faults, alias=exp.TableAlias(this=exp.to_identifier("d"))))


def guarded(query: exp.Expression) -> exp.Select:
    """query, failing (rm_fail) when rm_checks holds a fault: its rows are returned only when the scalar
    subquery over rm_checks is NULL, which it is when there is no fault; otherwise computing it fails."""
    check = exp.select(_fail(_column("c", "fault"))).from_(exp.Table(this=exp.to_identifier("rm_checks"),
                                             alias=exp.TableAlias(this=exp.to_identifier("c")))).where(
        exp.Not(this=exp.Is(this=_column("c", "fault"), expression=exp.Null())))
    return exp.select("*").from_(exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier("results")))
                                 ).where(exp.Is(this=exp.Subquery(this=check), expression=exp.Null()))


def _column(table: str, name: str) -> exp.Column:
    return exp.column(name, table=table)


# Internal CTE names are no keyword of any engine: `stream` is one in Spark 4 (FROM STREAM reads a stream) and
# Databend, so the stream's CTE is item_stream.
STREAM = "item_stream"
LIST = "rm_list"   # the alias of an unnested list: rm_list.rm_item, its position rm_list.rm_pos (base 0 or 1)


def _unnest(select: exp.Select, src: Source, alias: str) -> exp.Select:
    """select crossed with the unnested item list of src (read as alias), keeping each item's position."""
    unnest = exp.Unnest(expressions=[src.column(alias, "item_id")],
                        alias=exp.TableAlias(this=exp.to_identifier(LIST), columns=[exp.to_identifier("rm_item")]),
                        offset=exp.to_identifier("rm_pos"))
    return select.join(unnest, join_type="cross")


def _item(src: Source, alias: str) -> exp.Expression:
    return _column(LIST, "rm_item") if src.lists else src.column(alias, "item_id")


def _cast(e: exp.Expression, to: str) -> exp.Cast:
    return exp.Cast(this=e, to=exp.DataType.build(to))


def _source(src: Source, alias: str) -> exp.Expression:
    e = src.expression.copy()
    e.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    return e


def run_items(src: Source, conv: dict | None = None, by: tuple = (), checked: bool = False) -> exp.Select:
    """The run normalized as rm_run_items does in DuckDB: text ids, a score (or -rank) and the given rank. With
    the convention scores='float32' (pytrec_eval), the score is rounded to a 32-bit float before ranking. With
    groups (by), the query id carries its group's number (see GROUP_SEPARATOR). checked (plan's checks: the SQL of
    to_sql and `rankmetrics sql`): a rank beside a score that is NaN or infinite makes the score NULL, which the
    checks refuse (_number_fault), as eval refuses such a rank (a NULL rank beside a score is fine: it ranks last
    under ties 'input'). The native objects check rank_in instead (rank_faults): dbt.py's templates take one
    score and one rank expression from these rows."""
    rank = _column(LIST, "rm_pos") if src.lists else src.column("r", "rank")
    if src.has_score and not src.lists:
        score = _cast(src.column("r", "score"), "DOUBLE")
        if conv and conv.get("scores") == "float32":
            rounded = _cast(src.column("r", "score"), "FLOAT")
            rounded.to.meta[FLOAT32] = True  # the dialect's 32-bit type (Dialect.float32)
            score = _cast(rounded, "DOUBLE")
    elif src.lists:  # -position - 1: below 0 whatever the engine's base (Spark's POSEXPLODE, BigQuery's OFFSET
        #              and Snowflake's FLATTEN count from 0, and -0.0 is not below 0, which Compat's ideal reads)
        score = exp.Sub(this=exp.Neg(this=_cast(rank, "DOUBLE")), expression=exp.Literal.number(1))
    else:
        score = exp.Neg(this=_cast(rank, "DOUBLE"))
    rank_in = _cast(rank, "DOUBLE") if src.has_rank or src.lists else _cast(exp.Null(), "DOUBLE")
    if checked and src.has_score and src.has_rank and not src.lists:
        score = exp.Case(ifs=[exp.If(this=exp.and_(exp.Not(this=exp.Is(this=rank_in.copy(), expression=exp.Null())),
                                                   not_finite(rank_in.copy())), true=_cast(exp.Null(), "DOUBLE"))],
                         default=score)
    select = exp.select(
        exp.alias_(_query_key(src, "r", by), "query_id"),
        exp.alias_(_cast(_item(src, "r"), "VARCHAR"), "item_id"),
        exp.alias_(score, "score"),
        exp.alias_(rank_in, "rank_in"),
    ).from_(_source(src, "r"))
    if src.lists:
        select = _unnest(select, src, "r")
    return _group_join(select, src, "r", by) if by else select


def grade_of(relevance: exp.Expression, grades) -> exp.Expression:
    """The grade the measures read of a relevance value: sql/'s rm_grade under the convention `grades` (a value,
    'truncate' or 'as_given', or an expression: the native objects' parameter), inlined."""
    if not isinstance(grades, exp.Expression):
        grades = _bind_value(grades)
    return sqlsource.fold(sqlsource.expand(exp.Anonymous(this="rm_grade", expressions=[relevance, grades])))


def judgment_items(src: Source, conv: dict | None = None, grades: exp.Expression | None = None,
                   by: tuple = ()) -> exp.Select:
    """The judgments normalized as rm_judgment_items does in DuckDB: text ids and the grade of sql/'s rm_grade,
    with the convention `grades` (trec_eval's 'truncate' or 'as_given') folded in from conv, or left as the
    expression `grades` (native objects read it from their parameters)."""
    if grades is None:
        grades = _bind_value((conv or {}).get("grades", "as_given"))
    relevance = src.column("j", "relevance")
    if src.lists:  # the grade at the item's position in a parallel list, or 1; NULL (refused by input_checks,
        #           as eval and the macros refuse it) when the two lists differ in length
        relevance = (exp.Case(ifs=[exp.If(this=exp.EQ(this=exp.ArraySize(this=relevance.copy()),
                                                      expression=exp.ArraySize(this=src.column("j", "item_id"))),
                                          true=exp.Bracket(this=relevance, expressions=[_column(LIST, "rm_pos")]))])
                     if "relevance" in src.columns else exp.Literal.number(1))
    select = exp.select(
        exp.alias_(_query_key(src, "j", by), "query_id"),
        exp.alias_(_cast(_item(src, "j"), "VARCHAR"), "item_id"),
        exp.alias_(grade_of(relevance, grades), "grade"),
    ).from_(_source(src, "j"))
    if src.lists:
        select = _unnest(select, src, "j")
    return _group_join(select, src, "j", by) if by else select


# The CTE of a run of lists' queries whose list is empty (sql/01_stream.sql's rm_empty_lists): the stream gives each
# a 'Q' row of its own, with no item, which the query sets count as the run's (rm_reported) and no measure reads.
EMPTY_LISTS = "empty_lists"


def empty_lists(src: Source, by: tuple = ()) -> exp.Select:
    """The stream's query id of each row of a run of lists whose list is empty or NULL (a query that retrieved
    nothing), as rm_empty_lists gives it in DuckDB: read from the list column itself (src.lists), or from the
    relation of such rows beside a view of the unnested rows (src.empty_lists). A row without a query id (NULL or
    blank) is kept, for the checks to refuse it (input_checks, grouped_fault: listed) as they refuse an unnested
    row without one; where nothing checks (the careful path's loaded tables), the Python routes have refused it
    already (warehouse.view gives it an unnested row, which the input checks count)."""
    if src.empty_lists is not None:
        rows = Source(src.empty_lists, columns=src.columns, groups=src.groups)
        empty = None
    else:
        rows = src
        empty = exp.LT(this=exp.Coalesce(this=exp.ArraySize(this=src.column("r", "item_id")),
                                         expressions=[exp.Literal.number(0)]), expression=exp.Literal.number(1))
    select = exp.select(exp.alias_(_query_key(rows, "r", by), "query_id")).from_(_source(rows, "r"))
    if empty is not None:
        select = select.where(empty)
    return _group_join(select, rows, "r", by) if by else select


def _bind_value(v):
    if v == "e":
        return sqlsource.literal(math.e)
    return sqlsource.literal(v)


def _prepare(e: exp.Expression, bindings: dict) -> exp.Expression:
    """e with its parameters bound, its macros inlined and the constants folded: a new tree (substitute's copy,
    then expanded and folded in it, not copied again)."""
    return sqlsource.fold(sqlsource.expand(sqlsource.substitute(e, bindings), copy=False), copy=False)


def stream_body(bindings: dict, macro: str = "rm_stream", listed: bool = False) -> exp.Expression:
    """sql/01_stream.sql's rm_stream (or another stream macro of its parameters, rm_grouped_stream) with its
    parameters bound to the given expressions (not folded), reading the run_items and judgment_items CTEs
    (native.py binds them to a view's parameters). listed: a run of lists, whose queries with an empty list have
    a 'Q' row each (the macro's last branch, reading the EMPTY_LISTS CTE); otherwise that branch is left out."""
    body = sqlsource.substitute(sqlsource.macros()[macro].body, bindings)
    if not listed:
        body = split_empty_lists(body)[0]
    return sqlsource.expand(read_items(body))


def split_empty_lists(body: exp.Expression) -> tuple[exp.Expression, exp.Select | None]:
    """(a stream macro's body without its 'Q' rows, the SELECT of its 'Q' rows or None): the last branch of its
    UNION ALL, the rows of a run of lists' queries whose list is empty (sql/01_stream.sql's rm_empty_lists)."""
    if isinstance(body, exp.Union) and not body.args.get("distinct") and _kind_of(body.expression) == "Q":
        return body.this, body.expression
    return body, None


def read_items(tree: exp.Expression) -> exp.Expression:
    """tree reading the run_items and judgment_items CTEs where the macros read sql/01_stream.sql's rm_run_items
    and rm_judgment_items (the stream; rm_reported's run)."""
    def inputs(node):
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
            name = {"rm_run_items": "run_items", "rm_judgment_items": "judgment_items",
                    "rm_empty_lists": EMPTY_LISTS}.get(node.this.name.lower())
            if name:
                return exp.Table(this=exp.to_identifier(name), alias=node.args.get("alias"))
        return node
    return tree.transform(inputs)


def stream(conv: dict, grouped: bool = False, listed: bool = False) -> exp.Expression:
    """sql/01_stream.sql's rm_stream with the conventions folded in, reading the run_items and judgment_items
    CTEs: the 'R' rows UNION ALL the 'J' rows (and, listed, the 'Q' rows of a run of lists' empty lists, from the
    EMPTY_LISTS CTE); with grouped, rm_grouped_stream (the same rows and values, and the rows behind each item for
    grouped_fault), without its 'Q' rows (plan puts them after what it adds to it: empty_list_rows)."""
    body = sqlsource.fold(stream_body({"ties": _bind_value(conv["ties"]),
                                       "judged_only": _bind_value(bool(conv["judged_only"])),
                                       "grades": _bind_value(conv["grades"])},
                                      "rm_grouped_stream" if grouped else "rm_stream", listed and not grouped))
    if grouped:  # the run's and the judgments' rows put together (u): partitioned by query for the dialects that
        #          say how (Dialect.partition_hint), so that the grouping and the windows after it share one exchange
        for sub in body.find_all(exp.Subquery):
            if sub.alias == "u":
                sub.meta[PARTITION] = "query_id"
    return body


def empty_list_rows(grouped: bool = False) -> exp.Select:
    """The 'Q' rows of the stream (rm_stream's, or rm_grouped_stream's with grouped): one per query of a run of
    lists whose list is empty, read from the EMPTY_LISTS CTE, every column but the query id and the kind NULL."""
    body = stream_body({}, "rm_grouped_stream" if grouped else "rm_stream", listed=True)
    rows = split_empty_lists(body)[1]
    if rows is None:
        raise ValueError("sql/01_stream.sql: the stream must end with UNION ALL SELECT ... 'Q' AS kind ...")
    return rows


def _with_empty_lists(rows: exp.Select, names: list[str], grouped: bool = False) -> exp.Expression:
    """rows (a SELECT of the stream's columns and more, named names) UNION ALL the stream's 'Q' rows
    (empty_list_rows), NULL in the columns they do not have."""
    empty = empty_list_rows(grouped)
    own = {e.alias_or_name: e for e in empty.expressions}
    missing = [n for n in own if n not in names]
    if missing:
        raise ValueError(f"the stream's 'Q' rows have columns the stream lacks: {missing}")
    empty.set("expressions", [own[n] if n in own else exp.alias_(exp.Null(), n) for n in names])
    return exp.union(rows, empty, distinct=False)


# The conventions the stream's rows depend on (run_items, judgment_items, rm_stream): a stream made under them
# serves every request whose conventions agree on these (api.Prepared keeps one table per combination).
STREAM_CONVENTIONS = ("ties", "judged_only", "grades", "scores")


def stream_select(conv: dict, run: Source, judgments: Source) -> exp.Select:
    """The stream's rows (rm_stream over run_items and judgment_items) as one query, to be kept in a table
    (plan's stream_table)."""
    items = [("run_items", run_items(run, conv)), ("judgment_items", judgment_items(judgments, conv))]
    query = exp.select("*").from_(STREAM)
    for name, cte in items + [(STREAM, stream(conv))]:
        query = query.with_(name, as_=cte, copy=False)
    return query


# The tables beside the run and the judgments that some metrics read (Metric.tables): the training interactions
# (user_id, item_id) and the catalog (item_id), as CTEs of these names.
SIDE_CTES = {"interactions": "interaction_items", "catalog": "catalog_items"}
SIDE_COLUMNS = {"interactions": ("user_id", "item_id"), "catalog": ("item_id",)}


def side_items(name: str, src: Source) -> exp.Select:
    """A side table (SIDE_COLUMNS) under our column names: the columns the metrics' SQL reads (and casts)."""
    return exp.select(*[exp.alias_(src.column("x", c), c) for c in SIDE_COLUMNS[name]]).from_(_source(src, "x"))


def _side_tables(tree: exp.Expression, catalog: bool) -> exp.Expression:
    """A macro body of sql/01_stream.sql with its tables read from the plan's CTEs: query_table(interactions) and
    query_table(COALESCE(catalog, interactions)) (the catalog, or the interactions' items without one), and the
    table macros rm_stream, rm_item_stats and rm_train_totals."""
    ctes = {"rm_stream": PLAIN_STREAM, "rm_item_stats": "item_stats", "rm_train_totals": "train_totals"}

    def read(node):
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
            name = node.this.name.lower()
            if name == "query_table":
                arg = node.this.expressions[0]
                table = SIDE_CTES["catalog" if catalog and isinstance(arg, exp.Coalesce) else "interactions"]
            else:
                table = ctes.get(name)
            if table:
                return exp.Table(this=exp.to_identifier(table), alias=node.args.get("alias"))
        return node
    return tree.transform(read)


PLAIN_STREAM = "rm_plain_stream"  # the stream before the item statistics are joined (item_stream)


def item_stream_ctes(conv: dict, interactions: Source, catalog: Source | None,
                     plain: exp.Expression | None = None, listed: bool = False) -> list:
    """The CTEs of the stream with item statistics (sql/01_stream.sql's rm_item_stream): the side tables, the
    statistics, the plain stream (stream(conv, listed=listed), or the given one: native.py's, with parameters),
    and the stream (STREAM) with the statistics beside each row."""
    macros = sqlsource.macros()
    ctes = [(SIDE_CTES["interactions"], side_items("interactions", interactions))]
    if catalog is not None:
        ctes.append((SIDE_CTES["catalog"], side_items("catalog", catalog)))
    for name, macro in (("item_stats", "rm_item_stats"), ("train_totals", "rm_train_totals")):
        ctes.append((name, sqlsource.expand(_side_tables(macros[macro].body.copy(), catalog is not None))))
    ctes.append((PLAIN_STREAM, stream(conv, listed=listed) if plain is None else plain))
    ctes.append((STREAM, sqlsource.expand(_side_tables(macros["rm_item_stream"].body.copy(), catalog is not None))))
    return ctes


VECTORLESS_STREAM = "rm_vectorless_stream"  # the stream before the item vectors' sums are joined (vector_stream_ctes)


def vector_stream_ctes(ctes: list, vectors: Source) -> list:
    """ctes (ending with the STREAM CTE) with the stream of sql/01_stream.sql's rm_vector_stream in its place: the
    items' vectors one row per position (item_vectors: the embedding list unnested), and the stream (STREAM) with
    each retrieved row's sums against the rows ranked above it, over the stream before them (VECTORLESS_STREAM)."""
    name, last = ctes[-1]
    if name != STREAM:
        raise ValueError("sqlgen.vector_stream_ctes: the CTEs must end with the stream")
    unnest = exp.Unnest(expressions=[vectors.column("v", "embedding")],
                        alias=exp.TableAlias(this=exp.to_identifier(LIST), columns=[exp.to_identifier("rm_item")]),
                        offset=exp.to_identifier("rm_pos"))
    item_vectors = exp.select(exp.alias_(_cast(vectors.column("v", "item_id"), "VARCHAR"), "vec_item_id"),
                              exp.alias_(_column(LIST, "rm_pos"), "vec_dim"),
                              exp.alias_(_cast(_column(LIST, "rm_item"), "DOUBLE"), "vec_value")).from_(
        _source(vectors, "v")).join(unnest, join_type="cross")
    body = _macro_over_ctes("rm_vector_stream", {"rm_stream": VECTORLESS_STREAM, "rm_item_vectors": "item_vectors"})
    rows = exp.select(exp.alias_(_cast(vectors.column("v", "item_id"), "VARCHAR"), "vec_item_id")).from_(
        _source(vectors, "v"))
    return ctes[:-1] + [(VECTORLESS_STREAM, last), ("item_vectors", item_vectors), (VECTOR_ROWS, rows),
                        (STREAM, body)]


def _macro_over_ctes(macro: str, tables: dict) -> exp.Expression:
    """A table macro's body (sql/), expanded, reading the CTEs named by tables where it calls those table macros."""
    def read(node):
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous) and \
                node.this.name.lower() in tables:
            return exp.Table(this=exp.to_identifier(tables[node.this.name.lower()]), alias=node.args.get("alias"))
        return node
    return sqlsource.expand(sqlsource.macros()[macro].body.transform(read))


VECTOR_ROWS = "vector_rows"  # the vectors' items, a row per row of the table (sql/01_stream.sql's rm_vector_rows)


def vector_faults() -> exp.Select:
    """The faults of the items' vectors (sql/01_stream.sql's rm_vector_fault: an item listed twice, one without a
    list, a value not finite, lists of other lengths), one row each, its message as fault, over the CTEs
    vector_stream_ctes writes: a branch of rm_checks wherever IntraListDiversity reads the vectors."""
    faults = _macro_over_ctes("rm_vector_fault", {"rm_item_vectors": "item_vectors", "rm_vector_rows": VECTOR_ROWS})
    return exp.select(_column("vf", "fault")).from_(exp.Subquery(this=faults, alias=exp.TableAlias(
        this=exp.to_identifier("vf"))))


REFERENCELESS_STREAM = "rm_referenceless_stream"  # the stream before the reference's ranks are joined
REFERENCE_ITEMS, REFERENCE_RANKS = "reference_items", "reference_ranks"


def reference_stream_ctes(ctes: list, reference: Source, conv: dict, by: tuple = (),
                          ranks: exp.Expression | None = None, checked: bool = False) -> list:
    """ctes (ending with the STREAM CTE) with the stream of sql/01_stream.sql's rm_reference_stream in its place
    (Intersection): the reference normalized as the run is (REFERENCE_ITEMS: run_items, with the run's groups),
    ranked as the run is (REFERENCE_RANKS: the retrieved rows of rm_stream over it; `ranks` is that stream, the
    one of stream(conv) by default, native.py's with parameters), and the stream (STREAM) with each row's item's
    rank in the reference (ref_pos), over the stream before it (REFERENCELESS_STREAM). checked: as run_items'."""
    name, last = ctes[-1]
    if name != STREAM:
        raise ValueError("sqlgen.reference_stream_ctes: the CTEs must end with the stream")
    retrieved = (stream(conv) if ranks is None else ranks).this  # the 'R' rows (stream_parts checks the shape)
    retrieved = retrieved.transform(lambda n: exp.Table(this=exp.to_identifier(REFERENCE_ITEMS), alias=n.args.get(
        "alias")) if isinstance(n, exp.Table) and n.name == "run_items" else n)

    def read(node):
        if (isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous)
                and node.this.name.lower() == "rm_stream"):
            first = node.this.expressions[0]
            table = REFERENCE_RANKS if isinstance(first, exp.Column) and first.name.lower() == "reference" \
                else REFERENCELESS_STREAM
            return exp.Table(this=exp.to_identifier(table), alias=node.args.get("alias"))
        return node
    body = sqlsource.expand(sqlsource.macros()["rm_reference_stream"].body.transform(read))
    return ctes[:-1] + [(REFERENCELESS_STREAM, last), (REFERENCE_ITEMS, run_items(reference, conv, by, checked)),
                        (REFERENCE_RANKS, retrieved), (STREAM, body)]


def _kind_of(select: exp.Expression) -> str | None:
    """The literal kind ('R' or 'J') a branch of the stream's UNION ALL gives its rows, or None."""
    if not isinstance(select, exp.Select):
        return None
    for e in select.expressions:
        if isinstance(e, exp.Alias) and e.alias == "kind" and isinstance(e.this, exp.Literal) and e.this.is_string:
            return e.this.name
    return None


def stream_parts(conv: dict) -> tuple[exp.Select, exp.Select]:
    """The stream's retrieved ('R') rows and judged ('J') rows, as two queries."""
    body = stream(conv)
    if not (isinstance(body, exp.Union) and not body.args.get("distinct")
            and _kind_of(body.this) == "R" and _kind_of(body.expression) == "J"):
        raise ValueError("sql/01_stream.sql: rm_stream must be SELECT ... 'R' AS kind ... UNION ALL SELECT ... 'J' "
                         "AS kind ...")
    return body.this, body.expression


def _conjuncts(e: exp.Expression) -> list[exp.Expression]:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _is_retrieved_test(e: exp.Expression) -> bool:
    """e is f.kind = 'R'."""
    if not isinstance(e, exp.EQ):
        return False
    sides = (e.left, e.right)
    return (any(isinstance(x, exp.Column) and x.name == "kind" for x in sides)
            and any(isinstance(x, exp.Literal) and x.is_string and x.name == "R" for x in sides))


def _read_on_retrieved_only(name: str, values: list[exp.Expression]) -> bool:
    """Every read of the feature f.<name> in the measures' values sits in a CASE branch WHEN f.kind = 'R' AND ...
    (in its condition or its result), so its value on a 'J' row never counts: a false conjunct makes the
    condition false whatever the feature's value, NULL included."""
    for value in values:
        for col in value.find_all(exp.Column):
            if col.table != "f" or col.name != name:
                continue
            node, guarded = col, False
            while node is not None and node is not value and not guarded:
                parent = node.parent
                guarded = isinstance(parent, exp.If) and any(_is_retrieved_test(c) for c in _conjuncts(parent.this))
                node = parent
            if not guarded:
                return False
    return True


def _one_kind(feature: exp.Expression) -> exp.Expression:
    """A feature _within_kind computed over the rows of one kind (the split shape's retrieved rows): its windows
    partitioned without kind, a constant there (the same partitions; a key fewer to hash and compare: W2M's AP
    running count, 200k rows, 0.036 s against 0.028 s)."""
    feature = feature.copy()
    for w in feature.find_all(exp.Window):
        w.set("partition_by", [p for p in w.args.get("partition_by") or [] if not _is_kind(p)])
    return feature


def _is_kind(key: exp.Expression) -> bool:
    """A window's partition key is the stream's kind column."""
    return isinstance(key, exp.Column) and key.name == "kind"


def _within_kind(feature: exp.Expression) -> bool:
    """Every window of the feature is partitioned by kind: its value on an 'R' row depends on 'R' rows only."""
    return all(any(_is_kind(p) for p in w.args.get("partition_by") or []) for w in feature.find_all(exp.Window))


def _ranking_sum(feature: exp.Expression) -> exp.Window | None:
    """The window of a feature SUM(x) OVER (PARTITION BY s.query_id, s.kind ORDER BY s.pos ROWS BETWEEN
    UNBOUNDED PRECEDING AND ...) (its parentheses off) whose x reads the grade alone and is 0 for an unjudged item
    (x is CASE WHEN c THEN ... ELSE 0 END, c a conjunction with a comparison of s.grade: NULL there), or None. Over the grouped
    stream, such a running sum is the same sum over the run's items in the ranking's own order, whatever rows
    keep_rows drops (unjudged ones, which add 0, and rows below the deepest cutoff, which come after): plan
    computes it in the ranking's window (_sum_in_ranking), one sort fewer."""
    while isinstance(feature, exp.Paren):
        feature = feature.this
    if not isinstance(feature, exp.Window) or not isinstance(feature.this, exp.Sum):
        return None
    keys = feature.args.get("partition_by") or []
    order = feature.args.get("order")
    spec = feature.args.get("spec")
    if not (len(keys) == 2 and {k.name for k in keys if isinstance(k, exp.Column)} == {"query_id", "kind"}
            and order is not None and len(order.expressions) == 1 and not order.expressions[0].args.get("desc")
            and isinstance(order.expressions[0].this, exp.Column) and order.expressions[0].this.name == "pos"
            and spec is not None and spec.args.get("kind") == "ROWS" and spec.args.get("start") == "UNBOUNDED"
            and spec.args.get("start_side") == "PRECEDING"):
        return None
    x = feature.this.this
    if not (isinstance(x, exp.Case) and len(x.args.get("ifs") or []) == 1 and isinstance(x.args.get("default"), exp.Literal)
            and x.args["default"].to_py() == 0
            and all(c.name == "grade" for c in x.find_all(exp.Column))
            and any(isinstance(c, (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ))
                    and any(isinstance(side, exp.Column) and side.name == "grade" for side in (c.left, c.right))
                    for c in _conjuncts(x.args["ifs"][0].this))):
        return None
    return feature


def _sum_in_ranking(body: exp.Select, moved: list) -> None:
    """moved [(name, feature)], features _ranking_sum accepts, computed in rm_grouped_stream's ranking window
    (body: sql/01_stream.sql's, folded): each a column of the ranked items (NULL on the others) carried to the
    stream's 'R' rows (NULL on the 'J' rows, where the values do not read them: _read_on_retrieved_only)."""
    ranking = next(a for a in body.find_all(exp.Alias) if a.alias == "pos" and a.find(exp.RowNumber)
                   and a.parent_select.args["from_"].this.alias == "g")
    window = ranking.find(exp.Window)
    ranked = ranking.this.args["ifs"][0].this  # g.ranked = 1
    kinds = next(a for a in body.find_all(exp.Alias) if a.alias == "pos" and isinstance(a.this, exp.Case)
                 and a.parent_select.args["from_"].this.alias == "i")
    for name, feature in moved:
        summed = _ranking_sum(feature)
        x = summed.this.this.transform(
            lambda n: _column("g", "grade") if isinstance(n, exp.Column) and n.name == "grade" else n)
        running = exp.Window(this=exp.Sum(this=x), partition_by=[k.copy() for k in window.args["partition_by"]],
                             order=window.args["order"].copy(), spec=summed.args["spec"].copy(), over="OVER")
        ranking.parent_select.select(exp.alias_(exp.Case(ifs=[exp.If(this=ranked.copy(), true=running)]), name),
                                     copy=False)
        retrieved = kinds.this.args["ifs"][0].this  # k.kind = 'R'
        kinds.parent_select.select(exp.alias_(exp.Case(ifs=[exp.If(this=retrieved.copy(), true=_column("i", name))]),
                                              name), copy=False)
        body.select(_column("s", name), copy=False)


@dataclass
class Plan:
    measures: list[Measure]
    query: exp.Select          # the whole query, rows (measure, query_id, value)


def catalog_part(measure: Measure, conv: dict, by: tuple = ()) -> exp.Select:
    """A catalog-wide measure's rows (measure, [group columns], query_id NULL, value): its macro (sql/catalog.sql,
    auc.sql's gauc, ...) with the parameters bound, reading the stream (the STREAM CTE, never pruned: with the
    catalog's size when the catalog is given) in place of its rm_catalog_stream(...) or rm_stream(...), without
    its argument checks. With groups (by), one row per group: the macro's group key (rm_group_of, per_group) is
    the grouped query id's prefix, and rm_groups gives the group's columns back (see GROUP_SEPARATOR)."""
    macro = sqlsource.macros()[measure.metric.macro]
    bindings = {p.lower(): d for p, d in macro.defaults.items()}
    for key, val in {**conv, **measure.values(conv)}.items():
        if key in macro.params:
            bindings[key] = _bind_value(val)

    def stream_table(node):
        if (isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous)
                and node.this.name.lower() in ("rm_catalog_stream", "rm_stream")):
            return exp.Table(this=exp.to_identifier(STREAM), alias=node.args.get("alias"))
        return node
    body = _prepare(per_group(sqlsource.unchecked(macro.body).transform(stream_table), measure.metric.macro,
                              bool(by)), bindings)
    select = exp.select(exp.alias_(exp.Literal.string(measure.requested), "measure"), *group_columns(by),
                        exp.alias_(_cast(exp.Null(), "VARCHAR"), "query_id"),
                        exp.alias_(_cast(_column("c", "value"), "DOUBLE"), "value")).from_(
        exp.Subquery(this=body, alias=exp.TableAlias(this=exp.to_identifier("c"))))
    if by:
        select = select.join(exp.Table(this=exp.to_identifier("rm_groups"), alias=exp.TableAlias(
            this=exp.to_identifier("g"))), on=exp.EQ(this=_column("g", "group_key"), expression=_column("c", "group_key")))
    return select


GROUP_OF = "rm_group_of"  # sql/01_stream.sql: the group of a DuckDB key, by which the run-wide macros group


def per_group(body: exp.Select, macro_name: str, by: bool) -> exp.Select:
    """A run-wide macro's body (the shape of sql/catalog.sql: SELECT UNNEST(i.group_key), <aggregate over i> AS
    value FROM (SELECT rm_group_of(f.query_id) AS group_key, ... GROUP BY rm_group_of(f.query_id), ...) AS i
    GROUP BY i.group_key) with its group key made ours, before its macros are expanded. With groups (by), the
    group's key is the prefix of the grouped query id (key_parts), and the body returns it as group_key beside
    the value, one row per group; without, the key goes, and the value is over the whole run (one row)."""
    inner = body.args["from_"].this
    items = inner.this if isinstance(inner, exp.Subquery) and inner.alias_or_name == "i" else None
    keys = [e for e in body.expressions if isinstance(e, exp.Explode)]
    group = body.args.get("group")
    if (not isinstance(items, exp.Select) or not items.args.get("group") or len(keys) != 1 or group is None
            or [e.alias_or_name for e in items.expressions if e.alias_or_name == "group_key"] != ["group_key"]):
        raise ValueError(f"macro {macro_name}: expected SELECT UNNEST(i.group_key), ... AS value FROM (SELECT "
                         f"{GROUP_OF}(f.query_id) AS group_key, ... GROUP BY {GROUP_OF}(f.query_id), ...) AS i ... "
                         f"GROUP BY i.group_key")

    def is_key(node) -> bool:
        return isinstance(node, exp.Anonymous) and node.name.lower() == GROUP_OF
    if by:
        for node in list(items.find_all(exp.Anonymous)):
            if is_key(node):
                node.replace(key_parts(node.expressions[0])[0])
        keys[0].replace(keys[0].this.copy())  # i.group_key
        return body
    items.set("expressions", [e for e in items.expressions if e.alias_or_name != "group_key"])
    items.set("group", exp.Group(expressions=[e for e in items.args["group"].expressions if not is_key(e)]))
    for window in items.find_all(exp.Window):
        partition = [e for e in window.args.get("partition_by") or [] if not is_key(e)]
        window.set("partition_by", partition or None)
    body.set("expressions", [e for e in body.expressions if e is not keys[0]])
    body.set("group", None)
    if any(is_key(n) for n in body.find_all(exp.Anonymous)):
        raise ValueError(f"macro {macro_name}: {GROUP_OF} read outside i's select list, GROUP BY and windows")
    return body


def catalog_stream_ctes(conv: dict, catalog: Source, plain: exp.Expression | None = None,
                        listed: bool = False) -> list:
    """The CTEs of the stream with the catalog's size (sql/01_stream.sql's rm_catalog_stream): the catalog, its
    size, the plain stream (stream(conv, listed=listed), or the given one), and the stream (STREAM) with the size
    beside each row."""
    macros = sqlsource.macros()

    def read(node):
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous):
            table = {"query_table": SIDE_CTES["catalog"], "rm_stream": PLAIN_STREAM,
                     "rm_catalog_totals": "catalog_totals"}.get(node.this.name.lower())
            if table:
                return exp.Table(this=exp.to_identifier(table), alias=node.args.get("alias"))
        return node
    return [(SIDE_CTES["catalog"], side_items("catalog", catalog)),
            ("catalog_totals", sqlsource.expand(macros["rm_catalog_totals"].body.transform(read))),
            (PLAIN_STREAM, stream(conv, listed=listed) if plain is None else plain),
            (STREAM, sqlsource.expand(macros["rm_catalog_stream"].body.transform(read)))]


def _macro_parts(macro_name: str):
    """A metric macro's features as (name, expression, stage), its value and its HAVING. Stage 0 are the windows
    over the stream (FROM (SELECT s.*, ... FROM rm_stream(...) AS s) AS f); a macro whose windows read other
    windows (INST: a running sum of a function of the running gain) nests one more SELECT s.*, ... around it,
    stage 1, reading the stage-0 features as s.<name>."""
    body = sqlsource.macros()[macro_name].body
    inner = body.args["from_"].this
    if not isinstance(inner, exp.Subquery):
        raise ValueError(f"macro {macro_name}: expected FROM (SELECT s.*, ... FROM rm_stream(...) AS s) AS f")
    stages, select = [], inner.this
    while True:
        stages.insert(0, [(a.alias, a.this) for a in select.expressions if isinstance(a, exp.Alias)])
        source = select.args["from_"].this
        if not isinstance(source, exp.Subquery):
            break
        select = source.this
    if len(stages) > 2:
        raise ValueError(f"macro {macro_name}: features nest two SELECTs deep at most")
    features = [(alias, e, stage) for stage, named in enumerate(stages) for alias, e in named]
    values = [a.this for a in body.expressions if isinstance(a, exp.Alias) and a.alias == "value"]
    if len(values) != 1:
        raise ValueError(f"macro {macro_name}: expected exactly one projection named value")
    return features, values[0], body.args.get("having")


def stream_call(body: exp.Select) -> exp.Table:
    """The rm_stream(...) call a metric macro's features read: the FROM of its innermost SELECT s.*, ... ."""
    select = body.args["from_"].this.this
    while isinstance(select.args["from_"].this, exp.Subquery):
        select = select.args["from_"].this.this
    return select.args["from_"].this


def _prune_ranking(retrieved: exp.Select, k: int, top_n: bool) -> exp.Select:
    """The retrieved rows ranked 1..k only (QUALIFY pos <= k on the ranking, before the join with the judgments).
    With top_n, the ranking's keys (all descending, NULLs last) become one key, ROW(key IS NOT NULL, key, ...)
    DESC: the same order (inside a ROW, DuckDB sorts a NULL field first when descending, hence the flags), and
    the shape DuckDB's top_n_window_elimination turns into a per-query heap of k rows."""
    retrieved = retrieved.copy()
    ranked = next(s for s in retrieved.find_all(exp.Subquery) if s.alias_or_name == "ranked").this
    pos = next(e for e in ranked.expressions if e.alias_or_name == "pos")
    window = pos.this
    if not isinstance(window, exp.Window) or not isinstance(window.this, exp.RowNumber):
        raise ValueError("sql/01_stream.sql: the ranking must be ROW_NUMBER() OVER (...) AS pos")
    ranked.set("qualify", exp.Qualify(this=exp.LTE(this=exp.column("pos"), expression=exp.Literal.number(k))))
    keys = window.args["order"].expressions
    if top_n and all(o.args.get("desc") and not o.args.get("nulls_first") for o in keys):
        fields = []
        for o in keys:
            fields += [exp.Not(this=exp.Is(this=o.this.copy(), expression=exp.Null())), o.this.copy()]
        window.set("order", exp.Order(expressions=[
            exp.Ordered(this=exp.Anonymous(this="ROW", expressions=fields), desc=True, nulls_first=False)]))
    return retrieved


# Presorted runs (DuckDB only, plan's presorted): a run whose rows already come in rank order (each query's rows
# together, in the ranking's order, ties broken as the convention breaks them: TREC runs and model outputs) is
# ranked by numbering its rows as they come, with no sort. The rows are numbered and compared with the row before
# (ROW_NUMBER and LAG over (), DuckDB's streaming window, which keeps the input's order), and a rank is the row's
# number minus its query's first row's. Both conditions are checked in the same query, so that a run in any other
# order never gives a number: a row that does not come strictly after the one before it within its query fails
# the statement at once (rm_fail(PRESORTED_FAULT), in the streaming pass), and a query whose rows are not
# together (two rows ranked 1) fails it at the per-query aggregate. The caller then evaluates again with the sort
# (checks.PRESORTED_FAULT is the message).


def _after(cur: exp.Expression, prev: exp.Expression, order: exp.Ordered) -> exp.Expression:
    """cur comes strictly after prev under one ORDER BY key (its direction and NULL placement)."""
    later = exp.LT if order.args.get("desc") else exp.GT
    if order.args.get("nulls_first"):
        return exp.and_(exp.Not(this=exp.Is(this=cur, expression=exp.Null())), exp.or_(
            exp.Is(this=prev.copy(), expression=exp.Null()), later(this=cur.copy(), expression=prev.copy())))
    return exp.and_(exp.Not(this=exp.Is(this=prev, expression=exp.Null())), exp.or_(
        exp.Is(this=cur.copy(), expression=exp.Null()), later(this=cur.copy(), expression=prev.copy())))


def _ordered_run(ranked: exp.Select) -> exp.Expression | None:
    """The relation the ranking numbers, read in its own order: the run_items CTE when the ranking reads every
    item of the run (not judged_only, whose branch joins the judgments), else None. The stream is folded
    (sqlsource.fold drops the branch a convention turned off), so the ranking reads one SELECT."""
    source = ranked.args["from_"].this
    select = source.this if isinstance(source, exp.Subquery) else None
    if not isinstance(select, exp.Select) or select.args.get("joins") or select.args.get("where") is not None:
        return None
    table = select.args["from_"].this
    if not (isinstance(table, exp.Table) and table.name == "run_items"):
        return None
    return exp.Table(this=exp.to_identifier("run_items"), alias=exp.TableAlias(this=exp.to_identifier("r")))


def presorted_ranking(retrieved: exp.Select) -> exp.Select | None:
    """The retrieved rows of the stream (stream_parts) with the ranking's sort replaced by the numbering of rows
    in their input order, checked (see PRESORTED_FAULT); None when the ranking cannot be read that way."""
    retrieved = retrieved.copy()
    sub = next(s for s in retrieved.find_all(exp.Subquery) if s.alias_or_name == "ranked")
    ranked = sub.this
    pos = next(e for e in ranked.expressions if e.alias_or_name == "pos")
    window = pos.this
    if not isinstance(window, exp.Window) or not isinstance(window.this, exp.RowNumber):
        raise ValueError("sql/01_stream.sql: the ranking must be ROW_NUMBER() OVER (...) AS pos")
    source = _ordered_run(ranked)
    partition = window.args.get("partition_by") or []
    if source is None or len(partition) != 1 or not isinstance(partition[0], exp.Column):
        return None
    keys = window.args["order"].expressions
    over = lambda f: exp.Window(this=f, over="OVER")  # noqa: E731  (an empty OVER (): the input's order)
    query = partition[0]
    carried = [e for e in ranked.expressions if e is not pos]
    numbered = exp.select(*[c.copy() for c in carried],
                          exp.alias_(query.copy(), "rm_query"),
                          exp.alias_(over(exp.RowNumber()), "rm_row"),
                          exp.alias_(over(exp.Anonymous(this="LAG", expressions=[query.copy()])), "rm_prev_query"),
                          *[exp.alias_(k.this.copy(), f"rm_key_{i}") for i, k in enumerate(keys)],
                          *[exp.alias_(over(exp.Anonymous(this="LAG", expressions=[k.this.copy()])), f"rm_prev_{i}")
                            for i, k in enumerate(keys)]).from_(source)
    n = lambda name: _column("n", name)  # noqa: E731
    # strictly after the row before, in lexicographic order of the keys: after in key i, equal in the keys before
    after, equal = [], []
    for i, k in enumerate(keys):
        after.append(exp.and_(*equal, _after(n(f"rm_key_{i}"), n(f"rm_prev_{i}"), k)) if equal
                     else _after(n(f"rm_key_{i}"), n(f"rm_prev_{i}"), k))
        equal.append(exp.NullSafeEQ(this=n(f"rm_key_{i}"), expression=n(f"rm_prev_{i}")))
    same_query = exp.Paren(this=exp.NullSafeEQ(this=n("rm_query"), expression=n("rm_prev_query")))
    fault = exp.and_(same_query, exp.Not(this=exp.Paren(this=exp.or_(*after))))
    fail = sqlsource.expand(exp.Anonymous(this="rm_fail", expressions=[exp.Literal.string(PRESORTED_FAULT)]))
    # the row's number, or the failure: in the value the rank is computed from, so that it is never pruned (a
    # filter would do too, but DuckDB would estimate it selective and build the judgments' join on the run)
    checked_row = exp.Case(ifs=[exp.If(this=fault, true=fail)], default=n("rm_row"))
    starts = exp.select(*[n(c.alias_or_name) for c in carried], exp.alias_(checked_row, "rm_row"),
                        exp.alias_(exp.Not(this=same_query.copy()), "rm_start")).from_(
        exp.Subquery(this=numbered, alias=exp.TableAlias(this=exp.to_identifier("n"))))
    o = lambda name: _column("o", name)  # noqa: E731
    # the query's first row: the last start up to this row (rows numbered upwards, so MAX would do too, but
    # DuckDB's streaming MAX updated and finalized its state on every row: W2M's 2M rows 0.129 s against 0.083 s
    # in the one thread the numbering runs on, issue 19 round 9)
    first = exp.Window(this=exp.IgnoreNulls(this=exp.LastValue(this=exp.Case(ifs=[exp.If(this=o("rm_start"),
                                                                                         true=o("rm_row"))]))),
                       over="OVER",
                       spec=exp.WindowSpec(kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW"))
    rank = exp.Add(this=exp.Sub(this=o("rm_row"), expression=first), expression=exp.Literal.number(1))
    sub.set("this", exp.select(*[o(c.alias_or_name) for c in carried], exp.alias_(rank, "pos")).from_(
        exp.Subquery(this=starts, alias=exp.TableAlias(this=exp.to_identifier("o")))))
    return retrieved


# The CTE of a presorted run's numbered rows when the plan keeps them (plan's keep_ranking).
RANKED_RUN = "ranked_run"


def presorted_check() -> exp.Expression:
    """The per-query half of the presorted ranking's check (see PRESORTED_FAULT): a query whose rows came in
    more than one block has more than one retrieved row ranked 1 (every block's first row; each query's top row
    is always kept, keep_rows). TRUE, or the statement fails."""
    f = lambda name: _column("f", name)  # noqa: E731
    firsts = exp.Sum(this=exp.Case(ifs=[exp.If(this=exp.and_(
        exp.EQ(this=f("kind"), expression=exp.Literal.string("R")),
        exp.EQ(this=f("pos"), expression=exp.Literal.number(1))), true=exp.Literal.number(1))],
        default=exp.Literal.number(0)))
    fail = sqlsource.expand(exp.Anonymous(this="rm_fail", expressions=[exp.Literal.string(PRESORTED_FAULT)]))
    return exp.Case(ifs=[exp.If(this=exp.GT(this=firsts, expression=exp.Literal.number(1)), true=fail)],
                    default=exp.true())


def presortable(conv: dict) -> bool:
    """Whether the conventions' ranking can number a presorted run (every item ranked: not judged_only)."""
    return presorted_ranking(stream_parts(conv)[0]) is not None


def presorted_probe(conv: dict, run: Source, rows: int) -> exp.Select | None:
    """A cheap look at the run's first `rows` rows: the count of rows out of rank order among them (the presorted
    ranking's check, counted instead of failing) plus the count of query blocks beyond one per query, so that a
    run plainly not in rank order is ranked by the sort at once. None when the ranking cannot be presorted."""
    retrieved, _ = stream_parts(conv)
    checked = presorted_ranking(retrieved)
    if checked is None:
        return None
    starts = next(s for s in checked.find_all(exp.Subquery) if s.alias_or_name == "o").this
    in_order = next(e for e in starts.expressions if e.alias_or_name == "rm_row").this
    numbered = starts.args["from_"].this.this
    head = exp.select("*").from_(exp.Subquery(this=run_items(run, conv), alias=exp.TableAlias(
        this=exp.to_identifier("h")))).limit(rows)
    numbered.set("from_", exp.From(this=exp.Subquery(this=head, alias=exp.TableAlias(this=exp.to_identifier("r")))))
    bad = in_order.args["ifs"][0].this
    # out of order within a query, and queries whose rows are not together (more blocks than queries)
    count = lambda test: exp.Sum(this=exp.Case(ifs=[exp.If(this=test, true=exp.Literal.number(1))],  # noqa: E731
                                               default=exp.Literal.number(0)))
    start = next(e for e in starts.expressions if e.alias_or_name == "rm_start").this
    blocks = exp.Sub(this=count(start.copy()), expression=exp.Count(this=exp.Distinct(
        expressions=[_column("n", "rm_query")])))
    return exp.select(exp.alias_(exp.Add(this=count(bad), expression=blocks), "out_of_order")).from_(
        exp.Subquery(this=numbered, alias=exp.TableAlias(this=exp.to_identifier("n"))))


def keep_rows(measures: list[Measure], conv: dict) -> exp.Expression | None:
    """The retrieved ('R') rows the requested measures read, as a filter applied after ranking (None: every row).

    Every 'J' row stays (|G| and ideal rankings; plan keeps them whatever this says), and so does each query's
    top retrieved row (the query still counts as retrieved). Of the other retrieved rows, most measures read only
    the judged ones ranked within their cutoff (Metric.reads): on a long run with few judgments, that is a small part of the rows. The
    exceptions: tie-averaged DCG shares discounts across tied groups (every row), and the 'candidates' ideal
    ranks the run's items by grade (judged rows at any depth).
    """
    depths = read_depths(measures, conv)
    if depths is None:
        return None
    s = lambda name: _column("s", name)  # noqa: E731
    read = exp.Not(this=exp.Is(this=s("grade"), expression=exp.Null()))
    if deepest(depths) is not None:
        read = exp.and_(read, exp.LTE(this=s("pos"), expression=exp.Literal.number(deepest(depths))))
    return exp.or_(exp.EQ(this=s("pos"), expression=exp.Literal.number(1)), exp.Paren(this=read))


def _split_features(conv: dict, kept: list, values: list, keep, depth: int | None, top_n: bool,
                    read_later: set = frozenset(), presorted: bool = False, keep_ranking: bool = False,
                    listed: bool = False) -> list:
    """The CTEs retrieved, judged and features of the split_kinds shape (see plan). read_later: the features that
    features of stage 1 read (computed over both kinds). presorted: the ranking numbers the rows in their input
    order (presorted_ranking), which the caller has made sure it can; keep_ranking: those numbered rows are a CTE
    of their own (RANKED_RUN, which plan materializes). listed: the 'Q' rows of a run of lists' empty lists join
    the judged rows (empty_list_rows; NULL in the features computed on the retrieved rows alone, as there)."""
    retrieved, judged = stream_parts(conv)
    ranking_cte = []
    if presorted:
        retrieved = presorted_ranking(retrieved)
        sub = next(s for s in retrieved.find_all(exp.Subquery) if s.alias_or_name == "ranked")
        if depth is not None:  # the top K of each query: no heap needed, the ranks are counted as the rows come
            sub.this.set("qualify", exp.Qualify(this=exp.LTE(this=exp.column("pos"),
                                                             expression=exp.Literal.number(depth))))
        if keep_ranking:
            ranking_cte = [(RANKED_RUN, sub.this)]
            sub.replace(exp.Table(this=exp.to_identifier(RANKED_RUN),
                                  alias=exp.TableAlias(this=exp.to_identifier("ranked"))))
    elif depth is not None:
        retrieved = _prune_ranking(retrieved, depth, top_n)
    # features: the retrieved rows (pruned, with the features read on them only) UNION ALL the judged rows, then
    # the features whose windows need both kinds
    own = [(name, e) for name, e in kept
           if _within_kind(e) and _read_on_retrieved_only(name, values) and name not in read_later]
    both = [(name, e) for name, e in kept if name not in dict(own)]
    columns = [_column("s", e.alias_or_name) for e in retrieved.expressions]
    retrieved_rows = exp.select(*columns, *[exp.alias_(_one_kind(e), name) for name, e in own]).from_("retrieved AS s")
    if keep is not None:
        retrieved_rows = retrieved_rows.where(keep)
    judged_rows = exp.select(*[c.copy() for c in columns], *[exp.alias_(exp.Null(), name) for name, _ in own]).from_(
        "judged AS s")
    rows = exp.union(retrieved_rows, judged_rows, distinct=False)
    if listed:
        rows = _with_empty_lists(rows, [c.name for c in columns] + [name for name, _ in own])
    if both:
        columns += [_column("s", name) for name, _ in own]
        rows = exp.select(*[c.copy() for c in columns], *[exp.alias_(e, name) for name, e in both]).from_(
            exp.Subquery(this=rows, alias=exp.TableAlias(this=exp.to_identifier("s"))))
    return ranking_cte + [("retrieved", retrieved), ("judged", judged), ("features", rows)]


def plan(measures: list[Measure], conv: dict, run: Source, judgments: Source,
         per_query: bool = True, means: bool = True, split_kinds: bool = False, top_n: bool = False,
         by: tuple = (), checks: bool = False, interactions: Source | None = None,
         catalog: Source | None = None, vectors: Source | None = None, reference: Source | None = None,
         presorted: bool = False, grouped: bool = False, stream_table: exp.Expression | None = None,
         keep_ranking: bool = False, rank_positions: bool = False) -> Plan:
    """The fused query. split_kinds (for DuckDB; see the module docstring) computes the features read only on 'R'
    rows over the retrieved rows alone. It is off by default, so the SQL rendered for other engines keeps the
    one-stream shape: on Spark 4.x the split shape (a UNION ALL of two halves both hash-partitioned by query_id
    under a GROUP BY query_id, the CTEs computed twice with reused exchanges) hits the partitioning-aware UNION
    of SPARK-52921 and returned queries twice in the means (wrong numbers; right with
    spark.sql.unionOutputPartitioning=false or spark.sql.exchange.reuse=false).

    With split_kinds, a cutoff-only request (cutoff_depth) ranks each query's top K only, before the join with
    the judgments; top_n (see measures.top_n_pays) also gives the ranking the one-key shape DuckDB computes with a heap.

    by names group columns of the run (see GROUP_SEPARATOR): each group is evaluated as a run of its own against the
    judgments (joined on the group columns they have), and the rows gain one column per group column, under its
    own name, between measure and query_id; the means are per group.

    checks: the query fails (the engine's error, see input_checks) on a duplicate item or judgment, for SQL over
    tables nobody checked before (to_sql, rankmetrics sql); the careful path has checked its inputs already.
    rank_positions (with checks): it also fails on a query whose given ranks are not 1..n, under a preset whose
    library reads rank values as positions (conventions.reads_rank_values).

    presorted (DuckDB only, with split_kinds; see PRESORTED_FAULT): the run is ranked by numbering its rows in
    their input order, checked in the query, which fails with PRESORTED_FAULT when the run is not in rank order
    (the caller then evaluates with presorted=False); presortable(conv) says whether the conventions allow it.
    keep_ranking (with presorted): the numbered rows are a MATERIALIZED CTE of their own (RANKED_RUN). The
    numbering is a streaming window, on one thread, and without the CTE the join with the judgments and the rows'
    way to the next windows run in its pipeline, on that thread too; kept, they run on every thread, for the
    memory of the run's ranked rows (the caller decides: onepass, when the run fits its memory limit).

    interactions and catalog: the side tables of the metrics that read them (Metric.tables: MeanInvUserFreq, ...):
    the stream then carries item statistics (item_stream_ctes), and the split_kinds shape is not used.
    vectors: the catalog with its embedding column (IntraListDiversity): the stream then carries each row's sums
    against the rows above it (vector_stream_ctes).
    reference: the second run Intersection compares the run with, in the run's shape (its groups: by): the stream
    then carries each item's rank in it (reference_stream_ctes).

    grouped (the SQL for engines that move rows between workers: dialects.Dialect.stream): the stream is
    sql/01_stream.sql's rm_grouped_stream, the run and the judgments grouped by (query, item) once instead of the
    run ranked, joined and checked apart, and the checks are an aggregate of per_query (grouped_fault): each
    result row fails (rm_fail) instead of a scalar subquery over rm_checks guarding the whole (the rows of the
    catalog-wide measures come in the same statement). Not with side tables or split_kinds, which read
    rm_stream, nor for catalog-wide measures alone, which have no per-query rows to fail.

    stream_table: a table holding the stream already (stream_select's rows, for the same STREAM_CONVENTIONS),
    read in place of computing it (api.Prepared): the run and the judgments are not read, and nothing is
    checked (they were, when the table was made). Not with groups, side tables or split_kinds."""
    by = tuple(by)
    tables = {t for m in measures for t in m.metric.tables}
    for table, given, what in (
            ("interactions", interactions, "read the training interactions; give them (--interactions FILE, or "
                                           "interactions= in Python)"),
            ("vectors", vectors, "read the items' vectors; give the catalog with an embedding column (--items FILE, "
                                 "or items= in Python)"),
            ("reference", reference, "compare the run with a reference run; give it (--reference FILE, or "
                                     "reference= in Python)")):
        if table in tables and given is None:
            raise UsageError(", ".join(m.requested for m in measures if table in m.metric.tables) + ": " + what)
    vectors = vectors if "vectors" in tables else None
    reference = reference if "reference" in tables else None
    if "interactions" in tables:
        pass
    elif "catalog" in tables:
        catalog, interactions = catalog if catalog is not None else interactions, None
        if catalog is None:
            raise UsageError(", ".join(m.requested for m in measures if "catalog" in m.metric.tables)
                             + ": read the catalog; give it (--items FILE, or items= in Python)")
    else:
        interactions = catalog = None
    whole = [m for m in measures if m.metric.scope == "catalog"]
    all_measures, measures = measures, [m for m in measures if m.metric.scope != "catalog"]
    split_kinds = split_kinds and not tables and not whole  # catalog_part reads the one stream
    grouped = grouped and bool(measures) and not (tables or split_kinds)
    lists = listed(run)  # a run of lists: its empty lists are queries of the run too ('Q' rows, EMPTY_LISTS)
    if stream_table is not None and (by or tables or split_kinds or grouped or checks or lists):
        raise ValueError("sqlgen.plan: stream_table reads a stream without groups, side tables, checks, split_kinds "
                         "or lists")
    if presorted and not (split_kinds and presortable(conv)):
        raise ValueError("sqlgen.plan: presorted needs split_kinds and a ranking of every item (presortable)")
    if keep_ranking and not presorted:
        raise ValueError("sqlgen.plan: keep_ranking keeps the presorted ranking's rows (presorted)")
    feature_sql: dict[str, str] = {}   # rendered feature -> its column name
    feature_exprs: list[tuple[str, exp.Expression]] = []
    values: list[exp.Expression] = []
    having = None
    for measure in measures:
        macro = sqlsource.macros()[measure.metric.macro]
        features, value, having_expr = _macro_parts(measure.metric.macro)
        parts = []
        # a measure averaged over several parameter values (trec_eval's 11pt_avg at given recall levels) is the
        # mean of its macro's value at each
        for part in measure.average_of or ((),):
            bindings = {p.lower(): d for p, d in macro.defaults.items()}
            for key, val in {**conv, **measure.values(conv), **dict(part)}.items():
                if key in macro.params:
                    bindings[key] = _bind_value(val)
            bindings["run_lists"] = exp.Boolean(this=lists)  # a run of lists: its empty lists' 'Q' rows
            renames = {}
            for alias, fexpr, stage in features:
                prepared = _prepare(fexpr, bindings)
                if stage:  # reads the stage-0 features as s.<name>: their fused names
                    prepared = prepared.transform(lambda n, r=dict(renames): _column("s", r[n.name]) if isinstance(
                        n, exp.Column) and n.table == "s" and n.name in r else n)
                key = f"{stage}:{prepared.sql(dialect='duckdb')}"
                if key not in feature_sql:
                    feature_sql[key] = f"{alias}_{len(feature_exprs) + 1}"
                    feature_exprs.append((feature_sql[key], prepared, stage))
                renames[alias] = feature_sql[key]

            def rename(node, renames=renames):
                if isinstance(node, exp.Column) and node.table == "f" and node.name in renames:
                    return _column("f", renames[node.name])
                return node
            parts.append(_prepare(value.transform(rename), bindings))
            if having is None and having_expr is not None:
                # sql/01_stream.sql's rm_reported, folded: with judged_only, the judged queries of the run
                # (trec_eval -J), read from the run_items CTE; a run of lists' queries with an empty list ('Q' rows)
                having = read_items(_prepare(having_expr.this, bindings)).unnest()
        total = parts[0]
        for part_value in parts[1:]:
            total = exp.Add(this=total, expression=part_value)
        values.append(total if len(parts) == 1 else exp.Div(
            this=exp.Paren(this=total), expression=exp.Literal.number(len(parts))))

    run_queried = having is not None and any(t.name == "run_items" for t in having.find_all(exp.Table))
    used = {c.name for v in values for c in v.find_all(exp.Column) if c.table == "f"}
    later = [(name, e) for name, e, stage in feature_exprs if stage and name in used]
    read_later = {c.name for _, e in later for c in e.find_all(exp.Column) if c.table == "s"}
    kept = [(name, e) for name, e, stage in feature_exprs if not stage and name in used | read_later]

    keep = keep_rows(measures, conv)
    items = [("run_items", run_items(run, conv, by, checked=checks)),
             ("judgment_items", judgment_items(judgments, conv, by=by))]
    if lists:
        items.append((EMPTY_LISTS, empty_lists(run, by)))
    if by:
        items.insert(0, ("rm_groups", groups_cte(run, by)))
    if split_kinds:
        ctes = list(items)
        ctes += _split_features(conv, kept, values, keep, cutoff_depth(measures, conv), top_n, read_later, presorted,
                                keep_ranking, lists)
        feature_table = "features"
    else:
        ctes = ([*[c for c in items if run_queried and c[0] == "run_items"],  # run_queried's IN reads it
                 (STREAM, exp.select("*").from_(stream_table.copy()))]
                if stream_table is not None
                else items + (item_stream_ctes(conv, interactions, catalog, listed=lists) if interactions is not None
                              else catalog_stream_ctes(conv, catalog, listed=lists) if catalog is not None
                              else [(STREAM, stream(conv, grouped, lists))]))
        if vectors is not None:
            ctes = vector_stream_ctes(ctes, vectors)
        if reference is not None:
            ctes = reference_stream_ctes(ctes, reference, conv, by, checked=checks)
        if keep is not None:  # the judged rows all stay (and, grouped, the run's rows grouped_fault refuses:
            #                   repeated items, no finite score, no id; and a run of lists' 'Q' rows)
            keep = exp.or_(exp.EQ(this=_column("s", "kind"), expression=exp.Literal.string("J")),
                           *([exp.EQ(this=_column("s", "kind"), expression=exp.Literal.string("Q"))] if lists else []),
                           keep.left, keep.right,
                           *([exp.GT(this=_column("s", "run_rows"), expression=exp.Literal.number(1)),
                              not_finite(_column("s", "score")), _missing_id("s", "run", by)[0]]
                             if grouped else []),
                           *([rank_positions_fault("s")] if grouped and checks and rank_positions else []))
        if grouped:  # running sums over the run's items in rank order: in the ranking's window, not a sort of their own
            moved = [(name, e) for name, e in kept if name not in read_later and _read_on_retrieved_only(name, values)
                     and _ranking_sum(e) is not None]
            if moved:
                _sum_in_ranking(dict(ctes)[STREAM], moved)
                kept = [(name, e) for name, e in kept if name not in dict(moved)]
        if keep is not None and grouped and not whole:
            # filtered in the stream's last SELECT, where rm_grouped_stream numbers the 'J' rows: its window then
            # sorts the rows kept (every 'J' row is), not every row (the catalog-wide measures read them all)
            dict(ctes)[STREAM].where(keep, copy=False)
            keep = None
        if grouped and lists:  # the 'Q' rows after what the grouped stream gained (moved running sums)
            at = next(i for i, (name, _) in enumerate(ctes) if name == STREAM)
            body = ctes[at][1]
            ctes[at] = (STREAM, _with_empty_lists(body, [e.alias_or_name for e in body.expressions], grouped=True))
        if kept or keep is not None:
            features_select = exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("s")),
                                         *[exp.alias_(e, name) for name, e in kept]).from_(f"{STREAM} AS s")
            if keep is not None:
                features_select = features_select.where(keep)
            ctes.append(("features", features_select))
            feature_table = "features"
        else:
            feature_table = STREAM
    if later:  # the features of stage 1, over those of stage 0
        ctes.append(("features_later", exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("s")),
                                                  *[exp.alias_(e, name) for name, e in later]).from_(
            exp.Table(this=exp.to_identifier(feature_table), alias=exp.TableAlias(this=exp.to_identifier("s"))))))
        feature_table = "features_later"
    parts = []
    if measures:  # the per-query measures (the catalog-wide ones are catalog_part's)
        wide = exp.select(_column("f", "query_id"), *[exp.alias_(v, f"m_{i + 1}") for i, v in enumerate(values)])
        wide = wide.from_(exp.Table(this=exp.to_identifier(feature_table), alias=exp.TableAlias(this=exp.to_identifier("f"))))
        wide = wide.group_by(_column("f", "query_id"))
        in_order(wide, _column("f", "pos"), _column("f", "kind"))  # DuckDB adds a query's terms in rank order
        fault = None
        if grouped and checks:  # the checks: each query's first fault, and a query with one is kept
            fault = grouped_fault(by, grade_rules(measures, conv), rank_positions, lists)
            wide = wide.select(exp.alias_(fault.copy(), "rm_fault"))
        if having is not None and not (isinstance(having, exp.Boolean) and having.this):
            if fault is not None:
                having = exp.or_(exp.Paren(this=having), exp.Not(this=exp.Is(this=fault, expression=exp.Null())))
            wide = wide.having(exp.and_(presorted_check(), having) if presorted else having)
        elif presorted:
            wide = wide.having(presorted_check())
        ctes.append(("per_query", wide))

        # One row per (measure, query): per_query crossed with the list of measures, so that per_query is read
        # twice (rows, means) whatever the number of measures; engines that do not keep a CTE's result (Spark,
        # Trino, BigQuery) would otherwise compute it again for every branch of a UNION ALL.
        lit = exp.Literal
        listing = [exp.select(exp.alias_(lit.number(i + 1), "measure_no"), exp.alias_(lit.string(m.requested), "measure"),
                              exp.alias_(lit.number(m.metric.mean.code), "summed"))
                   for i, m in enumerate(measures)]
        measure_list = listing[0]
        for part in listing[1:]:
            measure_list = exp.union(measure_list, part, distinct=False)
        ctes.append(("measure_list", measure_list))

        def by_measure(table):  # a row's value in table's column of its measure (measure_list's measure_no)
            return _column(table, "m_1") if len(measures) == 1 else exp.Case(
                this=_column("m", "measure_no"),
                ifs=[exp.If(this=lit.number(i + 1), true=_column(table, f"m_{i + 1}")) for i in range(len(measures))])
        # the means alone over a grouped stream: one aggregate row (measure_means, below), not measure_values
        one_row_means = means and grouped and not per_query and not by
        if not one_row_means:
            ctes.append(("measure_values", exp.select(
                _column("m", "measure_no"), _column("m", "measure"), _column("m", "summed"), _column("p", "query_id"),
                exp.alias_(by_measure("p"), "value"), *([_column("p", "rm_fault")] if fault is not None else [])
            ).from_("per_query AS p").join("measure_list AS m", join_type="cross")))
        query_id = _column("v", "query_id")

        def with_groups(select):  # the group's number off the query id, and its columns from rm_groups
            nonlocal query_id
            if by:
                select, query_id = ungroup(select, "v", by, keep_unkeyed=fault is not None)
            return select
        both = grouped and per_query and means and not by  # one read of measure_values: GROUPING SETS
        if per_query and not both:
            select = with_groups(exp.select(exp.alias_(_column("v", "measure"), "measure"),
                                            *group_columns(by)).from_("measure_values AS v"))
            row_value = _column("v", "value")
            if fault is not None:
                row_value = unless_fault(row_value, _column("v", "rm_fault"))
            parts.append(select.select(exp.alias_(query_id, "query_id"), exp.alias_(row_value, "value")))
        if means:
            # the column `summed` holds the measure's aggregate code (measures.Aggregate.code: 1 sum, 2 geometric)
            mean = mean_sql(_column("v", "value"),
                            lambda a: exp.EQ(this=_column("v", "summed"), expression=lit.number(a.code)),
                            listed_aggregates(measures))
            if both:
                # The rows and the means in one aggregate over measure_values: an engine that inlines CTEs (Spark)
                # computed the whole stream again for a second reader (1.4x the time at 2M rows). The rows are the
                # grouping set with the query (each holds one value), the means the set without it.
                total = exp.EQ(this=exp.Grouping(expressions=[_column("v", "query_id")]), expression=lit.number(1))
                value = exp.Case(ifs=[exp.If(this=total.copy(), true=mean)], default=exp.Min(this=_column("v", "value")))
                if fault is not None:
                    value = unless_fault(value, exp.Min(this=_column("v", "rm_fault")))
                keys = [_column("v", "measure_no"), _column("v", "measure"), _column("v", "summed")]
                select = exp.select(
                    exp.alias_(_column("v", "measure"), "measure"),
                    exp.alias_(exp.Case(ifs=[exp.If(this=total.copy(), true=_cast(exp.Null(), "VARCHAR"))],
                                        default=_column("v", "query_id")), "query_id"),
                    exp.alias_(_cast(value, "DOUBLE"), "value")).from_("measure_values AS v")
                select.set("group", exp.Group(expressions=[exp.GroupingSets(expressions=[
                    exp.Tuple(expressions=[k.copy() for k in keys] + [_column("v", "query_id")]),
                    exp.Tuple(expressions=[k.copy() for k in keys])])]))
                parts.append(select)
            if fault is not None:
                mean = unless_fault(mean, exp.Min(this=_column("v", "rm_fault")))
        if one_row_means:
            # The means alone, for an engine that moves rows between workers (Spark): one aggregate row over
            # per_query (each measure's own aggregate of its column), then one row per measure off it, in place
            # of per_query x the measure list grouped by measure (an exchange and a sort aggregate of their own:
            # 0.79 s against 0.86 s at 200k rows on Spark, warm). An empty run has no row (HAVING), as before.
            p = lambda name: _column("p", name)  # noqa: E731
            one_row = exp.select(*[exp.alias_(m.metric.mean.sql(p(f"m_{i + 1}")), f"m_{i + 1}")
                                   for i, m in enumerate(measures)],
                                 *([exp.alias_(exp.Min(this=p("rm_fault")), "rm_fault")] if fault is not None else [])
                                 ).from_("per_query AS p").having(
                exp.GT(this=exp.Count(this=exp.Star()), expression=lit.number(0)))
            ctes.append(("measure_means", one_row))
            mean = by_measure("a")
            if fault is not None:
                mean = unless_fault(mean, _column("a", "rm_fault"))
            parts.append(exp.select(exp.alias_(_column("m", "measure"), "measure"),
                                    exp.alias_(_cast(exp.Null(), "VARCHAR"), "query_id"),
                                    exp.alias_(_cast(mean, "DOUBLE"), "value")).from_("measure_means AS a").join(
                "measure_list AS m", join_type="cross"))
        elif means and not both:
            means_select = with_groups(exp.select(
                exp.alias_(_column("v", "measure"), "measure"), *group_columns(by),
                # the mean row's query_id is NULL: no query id can be mistaken for it (a query may be named 'all'),
                # as in GROUP BY ROLLUP's total row
                exp.alias_(_cast(exp.Null(), "VARCHAR"), "query_id"),
                exp.alias_(_cast(mean, "DOUBLE"), "value")).from_("measure_values AS v"))
            parts.append(means_select.group_by(_column("v", "measure_no"), _column("v", "measure"), _column("v", "summed"),
                                               *([_column("g", "group_no")] + [_column("g", _group(i)) for i in range(len(by))]
                                                 if by else [])))
    if means:
        parts += [catalog_part(m, conv, by) for m in whole]
    if not parts:
        raise ValueError("sqlgen.plan: no rows asked for (catalog-wide measures have no per-query rows)")
    query = parts[0]
    for part in parts[1:]:
        query = exp.union(query, part, distinct=False)
    if checks and not grouped:
        ctes.append(("rm_checks", input_checks(by, reference is not None, grade_rules(measures, conv),
                                               rank_positions, lists, vectors is not None)))
        query = guarded(query)
    if not isinstance(query, exp.Select):
        query = exp.select("*").from_(exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier("results"))))
    for name, cte in ctes:  # our own tree: no copy per CTE
        query = query.with_(name, as_=cte, copy=False, materialized=True if name == RANKED_RUN else None)
    return Plan(all_measures, query)
