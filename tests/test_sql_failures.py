"""Never a silent wrong number in SQL (issue 15.4): on every real engine, the SQL of `rankmetrics sql` and the
native objects fail, with the engine's own error and a message naming the fault, on a duplicate item in the run
(a table holding two models), a conflicting judgment, and an argument outside its range. Without the checks, the
duplicate counts twice: P@2 of the run below would be (1 + 1) / 2 = 1 with d1 counted twice, where eval refuses
the input."""
from __future__ import annotations

import math
import re

import duckdb
import pyarrow as pa
import pytest

import engines
import rankmetrics_duckdb as rm
from rankmetrics_duckdb import native

RUN = pa.table({"query_id": ["q1", "q1", "q1"], "item_id": ["d1", "d1", "d2"], "score": [0.9, 0.8, 0.1]})
# d2, unjudged, twice: with judged_only the ranking leaves it out, but the run holds two models all the same
UNJUDGED_TWICE = pa.table({"query_id": ["q1", "q1", "q1"], "item_id": ["d1", "d2", "d2"], "score": [0.9, 0.8, 0.1]})
CLEAN_RUN = pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"], "score": [0.9, 0.1]})
QRELS = pa.table({"query_id": ["q1"], "item_id": ["d1"], "relevance": pa.array([1], pa.int64())})
CONFLICT = pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "d1"], "relevance": pa.array([1, 0], pa.int64())})
# the conflict in a query the run does not have (no query of the results would show it)
# a row with no query id: without the check a query of its own (P@2 0), counted in the mean (0.25 instead of 0.5),
# its per-query row's query_id NULL, which reads as the mean row; a judgment with no item id
NO_QUERY = pa.table({"query_id": ["q1", "q1", None], "item_id": ["d1", "d2", "d3"], "score": [0.9, 0.1, 0.5]})
NO_ITEM = pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", None], "relevance": pa.array([1, 1], pa.int64())})
# an empty or all-space id, which eval refuses as it refuses NULL: a query (or item) '' of its own otherwise; in a
# run of two models (by), the empty query id is the one after the group's key
EMPTY_ITEM = pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", ""], "score": [0.9, 0.1]})
SPACE_QUERY = pa.table({"query_id": ["q1", "  "], "item_id": ["d1", "d2"], "relevance": pa.array([1, 1], pa.int64())})
# a NULL query id in a grouped run: Spark's grouped stream keys it NULL (the group's key || NULL), and the join of
# the results with the groups dropped it with its fault: P@2 of group a 0.5, as if the row were not there
NULL_QUERY_BY = pa.table({"model": ["a", "a", "a"], "query_id": ["q1", "q1", None], "item_id": ["d1", "d2", "d3"],
                          "score": [0.9, 0.1, 0.5]})
NO_QUERY_JUDGED = pa.table({"query_id": ["q1", None], "item_id": ["d1", "d2"], "relevance": pa.array([1, 1], pa.int64())})
EMPTY_QUERY_BY = pa.table({"model": ["a", "a", "b"], "query_id": ["q1", "q1", ""], "item_id": ["d1", "d2", "d1"],
                           "score": [0.9, 0.1, 0.5]})
# a score or a grade that is NULL, NaN or infinite, which eval refuses: without the check, d2's NULL score ranks
# last (NULLS LAST: P@1 1, d1 first) and a NaN score first (above every number in DuckDB, PostgreSQL and Spark: P@1
# 0); a NULL grade made the judgment non-relevant (and the DuckDB table macros' judgment relevant). MariaDB cannot
# hold NaN or infinity (a DOUBLE column refuses them), SQLite reads NaN as NULL.
def _scored(score):
    return pa.table({"query_id": ["q1", "q1", "q1"], "item_id": ["d1", "d2", "d3"],
                     "score": pa.array([0.9, score, 0.1], pa.float64())})


def _ranked(rank):  # a score and a rank column: a NaN or infinite rank is refused beside the score (eval does)
    return pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"], "score": [0.9, 0.1],
                     "rank": pa.array([1.0, rank], pa.float64())})


def _graded(grade):
    return pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"], "relevance": pa.array([1.0, grade], pa.float64())})


NOT_FINITE = {"null": None, "nan": float("nan"), "inf": float("inf")}
# an item id of a no-break space is an id (eval's rule: blank is empty or ASCII spaces only): DuckDB's TRIM(x)
# strips Unicode spaces, PostgreSQL's ASCII spaces, so the DuckDB SQL refused what eval and PostgreSQL took
NBSP_ITEM = pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "\u00a0"], "score": [0.9, 0.1]})
NBSP_QRELS = pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "\u00a0"], "relevance": pa.array([0, 1], pa.int64())})
# judgments of another query only: no query in common, so the results have no row (SQLite then never evaluated the
# check in their WHERE)
OTHER_QUERY = pa.table({"query_id": ["q9"], "item_id": ["d1"], "relevance": pa.array([1], pa.int64())})
ELSEWHERE = pa.table({"query_id": ["q1", "q9", "q9"], "item_id": ["d1", "d7", "d7"],
                      "relevance": pa.array([1, 2, 1], pa.int64())})


# IntraListDiversity's vectors as eval refuses them: an item listed twice (its pairs summed twice), an item without
# a list (left out of the pairs), lists of other lengths (compared on their common positions), a value not finite.
# Clean: d1 (1, 0) and d2 (0, 1) are orthogonal, cosine distance 1: ILD@2 = 1 by hand.
def _vectors(rows):
    return pa.table({"item_id": [r[0] for r in rows], "embedding": pa.array([r[1] for r in rows], pa.list_(pa.float64()))})


GOOD_VECTORS = [("d1", [1.0, 0.0]), ("d2", [0.0, 1.0])]
BAD_VECTORS = {"twice": (GOOD_VECTORS + [("d1", [0.0, 5.0])], "item d1 has 2 rows in the vectors table"),
               "null": ([("d1", None)] + GOOD_VECTORS[1:], "item d1 of the vectors table has no list of finite numbers"),
               "empty": ([("d1", [])] + GOOD_VECTORS[1:], "item d1 of the vectors table has no list of finite numbers"),
               "lengths": ([("d1", [1.0])] + GOOD_VECTORS[1:], r"lists of different lengths \(1 to 2"),
               "nan": ([("d1", [float("nan"), 1.0])] + GOOD_VECTORS[1:],
                       "item d1 of the vectors table has a value that is not a finite number")}


# RecTools reads rank values as positions (an item is in the top k when its rank is at most k): ranks tied, with a
# gap, from 0 or not whole give other numbers than rankmetrics' ranking 1, 2, ... (eval refuses them under the
# rectools preset, naming the query; the SQL must fail too). The tie past the cutoff matters as well: with ranks
# 1, 2, 2, P@1 is RecTools' too, but P@2 counts d3, tied at 2, in RecTools' top 2. Clean ranks 1..n: the rows are
# ranked by their rank; P@2 = (d1 relevant) 1 / 2 by hand.
def _rank_values(*ranks):
    n = len(ranks)
    return pa.table({"query_id": ["q1"] * n, "item_id": [f"d{i + 1}" for i in range(n)],
                     "score": [1.0 - i / 10 for i in range(n)], "rank": pa.array(ranks, pa.float64())})


RANK_VALUES = {"tied": (1.0, 1.0, 3.0), "tied_past_cutoff": (1.0, 2.0, 2.0), "gap": (1.0, 2.0, 4.0),
               "from_zero": (0.0, 1.0, 2.0), "fraction": (1.0, 2.5, 3.0)}


@pytest.fixture(params=list(engines.REAL))
def engine(request, started):
    def start():
        e = engines.start(request.param)
        return e, {"dup_run": e.load("f_dup_run", RUN), "run": e.load("f_run", CLEAN_RUN),
                   "unjudged_twice": e.load("f_unjudged_twice", UNJUDGED_TWICE),
                   "qrels": e.load("f_qrels", QRELS), "conflict": e.load("f_conflict", CONFLICT),
                   "elsewhere": e.load("f_elsewhere", ELSEWHERE), "other_query": e.load("f_other_query", OTHER_QUERY),
                   "no_query": e.load("f_no_query", NO_QUERY),
                   "no_item": e.load("f_no_item", NO_ITEM), "empty_item": e.load("f_empty_item", EMPTY_ITEM),
                   "space_query": e.load("f_space_query", SPACE_QUERY),
                   "nbsp_item": e.load("f_nbsp_item", NBSP_ITEM), "nbsp_qrels": e.load("f_nbsp_qrels", NBSP_QRELS),
                   "empty_query_by": e.load("f_empty_query_by", EMPTY_QUERY_BY),
                   "null_query_by": e.load("f_null_query_by", NULL_QUERY_BY),
                   "no_query_judged": e.load("f_no_query_judged", NO_QUERY_JUDGED),
                   **{f"{name}_score": e.load(f"f_{name}_score", _scored(v)) for name, v in NOT_FINITE.items()
                      if name == "null" or e.dialect != "mysql"},
                   **{f"{name}_grade": e.load(f"f_{name}_grade", _graded(v)) for name, v in NOT_FINITE.items()
                      if name == "null" or e.dialect != "mysql"},
                   "negative_grade": e.load("f_negative_grade", _graded(-1.0)),
                   "huge_grade": e.load("f_huge_grade", _graded(2000.0)),
                   "ranks_ok": e.load("f_ranks_ok", _rank_values(2.0, 1.0, 3.0)),
                   **{f"ranks_{name}": e.load(f"f_ranks_{name}", _rank_values(*ranks))
                      for name, ranks in RANK_VALUES.items()},
                   # (a NULL rank beside a score is fine; SQLite reads NaN as NULL)
                   **{f"{name}_rank": e.load(f"f_{name}_rank", _ranked(v)) for name, v in NOT_FINITE.items()
                      if name != "null" and e.dialect != "mysql" and not (name == "nan" and e.dialect == "sqlite")},
                   **({f"vectors_{name}": e.load(f"f_vectors_{name}", _vectors(rows)) for name, (rows, _) in
                       [("good", (GOOD_VECTORS, None)), *BAD_VECTORS.items()]}
                      if rm.dialects.get(e.dialect).lists else {})}
    return started.get(("sql_failures", request.param), start, lambda pair: pair[0].close())


def test_clean_tables_give_the_hand_computed_value(engine):
    e, t = engine
    # q1: d1 (relevant) first, d2 second: P@2 = 1 / 2
    rows = e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["run"], judgments=t["qrels"]))
    assert [float(r[-1]) for r in rows] == [0.5]


def test_duplicate_item_fails(engine):
    e, t = engine
    with pytest.raises(Exception, match="item d1 appears 2 times for query q1 in the run"):
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["dup_run"], judgments=t["qrels"]))
    with pytest.raises(Exception, match="item d1 appears 2 times for query q1 in the run"):  # the rows and the means
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["dup_run"], judgments=t["qrels"], per_query=True))
    with pytest.raises(Exception, match="item d2 appears 2 times for query q1 in the run"):  # unranked with -J
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["unjudged_twice"], judgments=t["qrels"], judged_only=True))
    # Intersection's reference run is checked as the run is (a duplicate there would join the run's row twice)
    with pytest.raises(Exception, match="item d1 appears 2 times for query q1 in the reference"):
        e.rows(rm.to_sql(["Intersection@2"], dialect=e.dialect, run=t["run"], judgments=t["qrels"],
                         reference=t["dup_run"]))


def test_rectools_ranks_not_positions_fail(engine):
    """Under the rectools preset the SQL fails on a query whose ranks are not 1..n, as eval refuses it
    (inputs.check_rank_positions); on Spark (the grouped stream) a tie past the cutoff too, whose row the
    measures do not read. Clean ranks give the hand-computed value, the run ordered by its ranks."""
    e, t = engine
    for columns in ("score,rank", "rank"):
        sql = lambda run, **kw: rm.to_sql(["P@2"], dialect=e.dialect, run=run, judgments=t["qrels"],  # noqa: E731
                                          convention="rectools", run_columns=columns, **kw)
        # d2 ranked 1 (score below d1's): under ties 'input' d2, d1: P@1 = 0, P@2 = 1 / 2
        assert [float(r[-1]) for r in e.rows(sql(t["ranks_ok"]))] == [0.5]
        # every kind of bad ranks in the means' SQL; the per-query SQL (the same checks) once
        for name, kw in [(name, {}) for name in RANK_VALUES] + [("tied", {"per_query": True})]:
            with pytest.raises(Exception, match="query q1 of the run: its ranks are not 1..n"):
                e.rows(sql(t[f"ranks_{name}"], **kw))
    # the trec_eval convention reads no rank column (scores): nothing to refuse
    assert [float(r[-1]) for r in e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["ranks_tied"],
                                                   judgments=t["qrels"]))] == [0.5]


def test_faults_fail_when_no_query_is_in_common(engine):
    """A fault fails the statement even when the results have no row: the run's queries are not judged (the
    default queries 'both' reports none). SQLite returned no row instead (dialects.Dialect.guard_first)."""
    e, t = engine
    for kwargs in ({}, {"per_query": True}):
        with pytest.raises(Exception, match="item d1 appears 2 times for query q1 in the run"):
            e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["dup_run"], judgments=t["other_query"], **kwargs))
    assert e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["run"], judgments=t["other_query"],
                            per_query=True)) == []  # clean: no row, no failure


def test_bad_vectors_fail(engine):
    """IntraListDiversity's SQL fails on vectors eval refuses (sqlgen.vector_faults, the checks of sql/'s
    rm_vector_fault), where it gave a number: item d1 twice gave ILD@2 0.16 for 1."""
    e, t = engine
    sql = lambda vectors: rm.to_sql(["IntraListDiversity@2"], dialect=e.dialect, run=t["run"],  # noqa: E731
                                    judgments=t["qrels"], items=vectors)
    if not rm.dialects.get(e.dialect).lists:  # no lists: refused, with no SQL (test_dialects.py)
        with pytest.raises(rm.UsageError, match=f"{e.dialect} has no list"):
            sql("i")
        return
    assert [float(r[-1]) for r in e.rows(sql(t["vectors_good"]))] == [1.0]
    for name, (rows, message) in BAD_VECTORS.items():
        with pytest.raises(rm.InputError):
            rm.evaluate(QRELS, CLEAN_RUN, ["IntraListDiversity@2"], items=_vectors(rows))
        with pytest.raises(Exception, match=message):
            e.rows(sql(t[f"vectors_{name}"]))


def test_conflicting_judgment_fails(engine):
    e, t = engine
    with pytest.raises(Exception, match="item d1 of query q1 is judged 2 times"):
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["run"], judgments=t["conflict"]))
    with pytest.raises(Exception, match="item d7 of query q9 is judged 2 times"):
        e.rows(rm.to_sql(["P@2", "NumQ"], dialect=e.dialect, run=t["run"], judgments=t["elsewhere"]))


def test_postgres_functions_refuse_duplicates():
    e = engines.start("postgres")
    try:
        run, qrels = e.load("g_run", RUN), e.load("g_qrels", QRELS)
        e.con.execute("CREATE SCHEMA rmf")
        e.con.execute(native.script("postgres", run=run, judgments=qrels, schema="rmf"))
        with pytest.raises(Exception, match="item d1 appears 2 times for query q1 in the run"):
            e.rows("SELECT * FROM rmf.rm_precision(2)")
    finally:
        e.close()


def test_native_objects_and_macros_refuse_bad_vectors():
    """The native object of IntraListDiversity (PostgreSQL's function) and the DuckDB macro refuse the vectors eval
    refuses (test_bad_vectors_fail: the SQL of `rankmetrics sql`); both gave a number. The clean vectors give the
    hand value 1 (orthogonal: cosine distance 1)."""
    from rankmetrics_duckdb import shape
    e = engines.start("postgres")
    con = duckdb.connect()
    rm.register(con)
    try:
        run, qrels = e.load("v_run", CLEAN_RUN), e.load("v_qrels", QRELS)
        con.register("run", CLEAN_RUN)
        con.register("qrels", QRELS)
        for i, (name, (rows, message)) in enumerate([("good", (GOOD_VECTORS, None)), *BAD_VECTORS.items()]):
            items = e.load(f"v_items_{name}", _vectors(rows))
            e.con.execute(f"CREATE SCHEMA rmv{i}")
            e.con.execute(native.script("postgres", run=run, judgments=qrels, items=items, schema=f"rmv{i}",
                                        form=shape.Shape(items_columns={"embedding": "embedding"})))
            con.register(f"items_{name}", _vectors(rows))
            pg = f"SELECT value FROM rmv{i}.rm_intra_list_diversity(2)"
            macro = f"SELECT value FROM intra_list_diversity('run', 'qrels', 2, vectors := 'items_{name}')"
            if message is None:
                assert [float(r[0]) for r in e.rows(pg)] == [1.0] and con.execute(macro).fetchall() == [(1.0,)]
                continue
            with pytest.raises(Exception, match=message):
                e.rows(pg)
            with pytest.raises(duckdb.Error, match=message):
                con.execute(macro).fetchall()
    finally:
        e.close()


def test_duckdb_macros_refuse_duplicates_and_conflicts():
    con = duckdb.connect()
    rm.register(con)
    for name, t in (("dup_run", RUN), ("run", CLEAN_RUN), ("qrels", QRELS), ("conflict", CONFLICT)):
        con.register(name + "_in", t)
        con.execute(f"CREATE TABLE {name} AS FROM {name}_in")
    assert con.execute('SELECT value FROM "precision"(\'run\', \'qrels\', 2)').fetchall() == [(0.5,)]
    with pytest.raises(duckdb.Error, match="item d1 appears 2 times for query q1 in the run"):
        con.execute('SELECT * FROM "precision"(\'dup_run\', \'qrels\', 2)').fetchall()
    with pytest.raises(duckdb.Error, match="item d1 of query q1 is judged 2 times"):
        con.execute('SELECT * FROM ndcg(\'run\', \'conflict\', 10)').fetchall()
    # run d1, d2 against the reference d1, d1, d2 (d1 twice): refused; against itself, 2 of 2 (hand count)
    with pytest.raises(duckdb.Error, match="item d1 appears 2 times for query q1 in the reference"):
        con.execute("SELECT * FROM intersection('run', 'qrels', 2, reference := 'dup_run')").fetchall()
    assert con.execute("SELECT value FROM intersection('run', 'qrels', 2, reference := 'run')").fetchall() == [(1.0,)]


def test_ids_are_joined_byte_wise_under_a_case_insensitive_collation():
    """A case-insensitive collation (MariaDB's and SQL Server's defaults; here a nondeterministic ICU collation on
    PostgreSQL) matches item AB with judgment ab in a plain join. The stream joins ids byte-wise (rm_bytewise),
    so P@1 is 0, as `eval` says: the run's only item, AB, is not the judged item ab."""
    e = engines.start("postgres")
    try:
        e.con.execute("CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
        e.con.execute('CREATE TABLE rm.ci_run (query_id TEXT COLLATE ci, item_id TEXT COLLATE ci, score FLOAT8)')
        e.con.execute('CREATE TABLE rm.ci_qrels (query_id TEXT COLLATE ci, item_id TEXT COLLATE ci, relevance INT)')
        e.con.execute("INSERT INTO rm.ci_run VALUES ('q1', 'AB', 1.0)")
        e.con.execute("INSERT INTO rm.ci_qrels VALUES ('q1', 'ab', 1), ('q1', 'zz', 0)")
        assert e.rows("SELECT count(*) FROM rm.ci_run r JOIN rm.ci_qrels j ON r.item_id = j.item_id") == [(1,)]
        rows = e.rows(rm.to_sql(["P@1"], dialect="postgres", run="rm.ci_run", judgments="rm.ci_qrels"))
        assert [float(r[-1]) for r in rows] == [0.0]
        assert rm.evaluate(QRELS.from_pylist([{"query_id": "q1", "item_id": "ab", "relevance": 1},
                                              {"query_id": "q1", "item_id": "zz", "relevance": 0}]),
                           pa.table({"query_id": ["q1"], "item_id": ["AB"], "score": [1.0]}), ["P@1"]) == {"P@1": 0.0}
    finally:
        e.close()


def test_mariadb_joins_byte_wise_and_needs_its_helper():
    """MariaDB's default collation is case-insensitive: a plain join matches item AB with judgment ab (P@1 1,
    the wrong number of the issue). The rendered SQL joins in utf8mb4_bin, so P@1 is 0, as `eval` says. The SQL
    fails through the rm_fail helper of `rankmetrics macros --dialect mysql`; in a database without it, the
    statement fails too (the function does not exist), never returning a number."""
    e = engines.start("mysql")
    try:
        e.rows("CREATE TABLE rm.ci_run (query_id VARCHAR(20), item_id VARCHAR(20), score DOUBLE)")
        e.rows("CREATE TABLE rm.ci_qrels (query_id VARCHAR(20), item_id VARCHAR(20), relevance INT)")
        e.rows("INSERT INTO rm.ci_run VALUES ('q1', 'AB', 1.0)")
        e.rows("INSERT INTO rm.ci_qrels VALUES ('q1', 'ab', 1), ('q1', 'zz', 0)")
        assert e.rows("SELECT count(*) FROM rm.ci_run r JOIN rm.ci_qrels j ON r.item_id = j.item_id") == [(1,)]
        sql = rm.to_sql(["P@1"], dialect="mysql", run="rm.ci_run", judgments="rm.ci_qrels")
        assert sql.startswith("-- fails through rm_fail(message), a function to create once: rankmetrics macros "
                              "--dialect mysql\n")
        assert [float(r[-1]) for r in e.rows(sql)] == [0.0]
        dup = e.load("h_dup_run", RUN)
        qrels = e.load("h_qrels", QRELS)
        e.rows("CREATE DATABASE bare")
        e.rows("USE bare")  # no helper here: the statement fails rather than count d1 twice
        with pytest.raises(Exception, match="(?i)FUNCTION bare.rm_fail does not exist"):
            e.rows(rm.to_sql(["P@2"], dialect="mysql", run=dup, judgments=qrels))
    finally:
        e.close()


def test_mariadb_refuses_ids_ending_in_a_space():
    """MariaDB (as MySQL) compares 'd1 ' equal to 'd1' even in utf8mb4_bin (PAD SPACE): a plain join matches run
    item 'd1 ' with judged item 'd1'. Byte by byte, as every other route compares ids, they differ: the run's top
    item is unjudged, P@1 0, where MariaDB would have said 1. The rendered SQL fails on such an id, in the run or
    the judgments, with groups or without, naming it; an id of spaces only is refused as no id, as before."""
    e = engines.start("mysql")
    try:
        e.rows("CREATE TABLE rm.pad_run (query_id VARCHAR(20), item_id VARCHAR(20), score DOUBLE, model VARCHAR(5))")
        e.rows("CREATE TABLE rm.pad_qrels (query_id VARCHAR(20), item_id VARCHAR(20), relevance INT)")
        e.rows("INSERT INTO rm.pad_run VALUES ('q1', 'd1', 1.0, 'a'), ('q1', 'd2', 0.5, 'a')")
        e.rows("INSERT INTO rm.pad_qrels VALUES ('q1', 'd1', 1), ('q1', 'd2', 0)")
        sql = {by: rm.to_sql(["P@1"], dialect="mysql", run="rm.pad_run", judgments="rm.pad_qrels",
                          by=["model"] if by else None, judgments_by=[])
               for by in (False, True)}
        assert [float(r[-1]) for r in e.rows(sql[False]) + e.rows(sql[True])] == [1.0, 1.0]  # d1 judged 1, first
        e.rows("UPDATE rm.pad_run SET item_id = 'd1 ' WHERE item_id = 'd1'")
        assert e.rows("SELECT count(*) FROM rm.pad_run r JOIN rm.pad_qrels j ON r.item_id = j.item_id "
                      "COLLATE utf8mb4_bin") == [(2,)]
        for by in (False, True):
            with pytest.raises(Exception, match=r"rankmetrics: item id 'd1 ' ends with a space: MySQL and MariaDB "
                                                r"compare it equal to the id without it \(PAD SPACE\); trim the ids"):
                e.rows(sql[by])
        e.rows("UPDATE rm.pad_run SET item_id = 'd1' WHERE item_id = 'd1 '")
        e.rows("UPDATE rm.pad_qrels SET query_id = 'q1  ' WHERE item_id = 'd2'")
        for by in (False, True):
            with pytest.raises(Exception, match=r"rankmetrics: query id 'q1  ' ends with a space"):
                e.rows(sql[by])
        e.rows("UPDATE rm.pad_qrels SET query_id = ' ' WHERE item_id = 'd2'")
        with pytest.raises(Exception, match=r"a row of the judgments has no query id or no item id \(NULL or empty\)"):
            e.rows(sql[False])
    finally:
        e.close()


def test_mysql_helper_script_takes_no_table_options():
    from rankmetrics_duckdb.errors import UsageError
    script = native.script("mysql")
    assert "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = msg;" in script and "CREATE FUNCTION rm_fail" in script
    with pytest.raises(UsageError, match="mysql has no metric objects.*schema does not apply"):
        native.script("mysql", schema="metrics")


def test_missing_ids_fail(engine):
    e, t = engine
    for per_query in (False, True):
        with pytest.raises(Exception, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
            e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["no_query"], judgments=t["qrels"],
                             per_query=per_query))
    with pytest.raises(Exception, match=r"a row of the judgments has no query id or no item id \(NULL or empty\)"):
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["run"], judgments=t["no_item"]))
    with pytest.raises(Exception, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["empty_item"], judgments=t["qrels"]))
    with pytest.raises(Exception, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
        # the item '' unjudged: judged_only leaves it unranked, the check finds it all the same
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["empty_item"], judgments=t["qrels"], judged_only=True))
    with pytest.raises(Exception, match=r"a row of the judgments has no query id or no item id \(NULL or empty\)"):
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["run"], judgments=t["space_query"]))
    with pytest.raises(Exception, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
        e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["empty_query_by"], judgments=t["qrels"], by=["model"],
                         judgments_by=[]))
    for per_query in (False, True):
        with pytest.raises(Exception, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
            e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["null_query_by"], judgments=t["qrels"], by=["model"],
                             judgments_by=[], per_query=per_query))
        with pytest.raises(Exception, match=r"a row of the judgments has no query id or no item id \(NULL or empty\)"):
            e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=t["null_query_by"], judgments=t["no_query_judged"],
                             by=["model"], judgments_by=[], per_query=per_query))


def test_an_id_of_unicode_spaces_is_an_id(engine):
    # q1 ranks d1 (not relevant) then the no-break space item (relevant): AP = (1/2) / 1, P@2 = 1/2 (by hand),
    # as evaluate() gives
    e, t = engine
    assert rm.evaluate(NBSP_QRELS, NBSP_ITEM, ["AP", "P@2"]) == {"AP": 0.5, "P@2": 0.5}
    rows = e.rows(rm.to_sql(["AP", "P@2"], dialect=e.dialect, run=t["nbsp_item"], judgments=t["nbsp_qrels"]))
    assert sorted((r[0], float(r[-1])) for r in rows) == [("AP", 0.5), ("P@2", 0.5)]


def test_duckdb_macros_take_an_id_of_unicode_spaces():
    con = duckdb.connect()
    rm.register(con)
    con.register("nbsp_run", NBSP_ITEM)
    con.register("nbsp_qrels", NBSP_QRELS)
    assert con.execute("SELECT value FROM ap('nbsp_run', 'nbsp_qrels')").fetchall() == [(0.5,)]  # as above


def test_scores_and_grades_not_finite_fail(engine):
    """A score or a grade that is NULL, NaN or infinite fails the statement, as eval refuses it (nan_scores
    'error'): the means and the rows; an item whose NULL score ranks it below the cutoff (P@1 reads the first row
    only) and an unjudged one that judged_only leaves unranked are found all the same."""
    e, t = engine
    names = [n for n in NOT_FINITE if f"{n}_score" in t]
    assert names == (["null"] if e.dialect == "mysql" else ["null", "nan", "inf"])
    for name in names:
        # the rows and -J for NULL alone: NaN and infinity take the same condition
        for kwargs in ({}, {"per_query": True}, {"judged_only": True}) if name == "null" else ({},):
            with pytest.raises(Exception, match="item d2 of query q1 has a score \\(or rank\\) that is NULL, NaN or "
                                                "infinite in the run"):
                e.rows(rm.to_sql(["P@1", "map"], dialect=e.dialect, run=t[f"{name}_score"], judgments=t["qrels"],
                                 **kwargs))
        with pytest.raises(Exception, match="item d2 of query q1 has a relevance grade that is NULL, NaN or "
                                            "infinite in the judgments"):
            e.rows(rm.to_sql(["P@2", "ndcg"], dialect=e.dialect, run=t["run"], judgments=t[f"{name}_grade"]))
        if f"{name}_rank" in t:  # the rank orders the run under mllib's ties 'input'
            with pytest.raises(Exception, match=r"item d2 of query q1 has a score \(or rank\) that is NULL, NaN"):
                e.rows(rm.to_sql(["RR"], dialect=e.dialect, run=t[f"{name}_rank"], judgments=t["qrels"],
                                 convention="mllib", run_columns="score,rank"))


def test_duckdb_macros_refuse_missing_ids_and_numbers():
    """The DuckDB table macros check what the rendered SQL checks: a row without an id, a score or a grade that is
    NULL, NaN or infinite (in the run, the judgments and Intersection's reference). A NULL grade is no grade:
    before, the macros read it as grade 1, the grade of judgments without a relevance column, which stays."""
    con = duckdb.connect()
    rm.register(con)
    tables = {"run": CLEAN_RUN, "qrels": QRELS, "no_query": NO_QUERY, "no_item": NO_ITEM, "empty_item": EMPTY_ITEM,
              "space_query": SPACE_QUERY,
              **{f"{n}_score": _scored(v) for n, v in NOT_FINITE.items()},
              **{f"{n}_grade": _graded(v) for n, v in NOT_FINITE.items()},
              # judgments without a relevance column: every listed item relevant (grade 1)
              "listed": pa.table({"query_id": ["q1"], "item_id": ["d2"]}),
              # judgment lists whose grades list is a grade short: d2 has no grade
              "short": pa.table({"query_id": ["q1"], "item_id": [["d1", "d2"]], "relevance": [[1.0]]}),
              "lists": pa.table({"query_id": ["q1"], "item_id": [["d1", "d2"]], "relevance": [[0.0, 2.0]]}),
              # a score and a rank column: the score ranks (d1 first), a NULL score is refused, not read as -rank
              "scored_ranked": pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"], "score": [0.9, 0.1],
                                         "rank": [2, 1]}),
              "null_scored_ranked": pa.table({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"],
                                              "score": pa.array([0.9, None], pa.float64()), "rank": [2, 1]})}
    for name, t in tables.items():
        con.register(name + "_in", t)
        con.execute(f"CREATE TABLE {name} AS FROM {name}_in")

    def value(sql):
        return con.execute(sql).fetchall()
    # run d1, d2: d2 alone relevant, P@1 = 0 / 1 and P@2 = 1 / 2 (hand count)
    assert value("SELECT value FROM \"precision\"('run', 'listed', 2)") == [(0.5,)]
    assert value("SELECT value FROM \"precision\"('run', 'lists', 1, judgment_lists := true)") == [(0.0,)]
    assert value("SELECT value FROM \"precision\"('run', 'lists', 2, judgment_lists := true)") == [(0.5,)]
    # scored_ranked against judgments with d2 alone relevant: by the score d1 first, P@1 = 0; by the rank
    # (ties := 'input', MLlib's) d2 first, P@1 = 1
    assert value("SELECT value FROM \"precision\"('scored_ranked', 'listed', 1)") == [(0.0,)]
    assert value("SELECT value FROM \"precision\"('scored_ranked', 'listed', 1, ties := 'input')") == [(1.0,)]
    with pytest.raises(duckdb.Error, match=r"item d2 of query q1 has a score \(or rank\) that is NULL"):
        value("SELECT * FROM \"precision\"('null_scored_ranked', 'listed', 1)")
    con.register("nan_ranked_in", _ranked(float("nan")))
    con.execute("CREATE TABLE nan_ranked AS FROM nan_ranked_in")
    with pytest.raises(duckdb.Error, match=r"item d2 of query q1 has a score \(or rank\) that is NULL, NaN"):
        value("SELECT * FROM rr('nan_ranked', 'listed', ties := 'input')")
    with pytest.raises(duckdb.Error, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
        value("SELECT * FROM \"precision\"('no_query', 'qrels', 2)")
    with pytest.raises(duckdb.Error, match=r"a row of the judgments has no query id or no item id \(NULL or empty\)"):
        value("SELECT * FROM ndcg('run', 'no_item', 2)")
    with pytest.raises(duckdb.Error, match=r"a row of the run has no query id or no item id \(NULL or empty\)"):
        value("SELECT * FROM ndcg('empty_item', 'qrels', 2)")
    with pytest.raises(duckdb.Error, match=r"a row of the judgments has no query id or no item id \(NULL or empty\)"):
        value("SELECT * FROM ndcg('run', 'space_query', 2)")
    for name in NOT_FINITE:
        with pytest.raises(duckdb.Error, match=r"item d2 of query q1 has a score \(or rank\) that is NULL, NaN or "
                                               r"infinite in the run"):
            value(f"SELECT * FROM \"precision\"('{name}_score', 'qrels', 1)")
        with pytest.raises(duckdb.Error, match=r"item d2 of query q1 has a score \(or rank\) that is NULL, NaN or "
                                               r"infinite in the reference"):
            value(f"SELECT * FROM intersection('run', 'qrels', 2, reference := '{name}_score')")
        with pytest.raises(duckdb.Error, match="item d2 of query q1 has a relevance grade that is NULL, NaN or "
                                               "infinite in the judgments"):
            value(f"SELECT * FROM ndcg('run', '{name}_grade', 2)")
    with pytest.raises(duckdb.Error, match="item d2 of query q1 has a relevance grade that is NULL"):
        value("SELECT * FROM \"precision\"('run', 'short', 2, judgment_lists := true)")


def test_macros_and_postgres_functions_refuse_grades_their_gain_cannot_take():
    """The gain is an argument of the DuckDB macros and of the native objects (PostgreSQL functions here; the dbt
    macros are the same bodies): a negative grade for ndcg with gain 'raw', a grade whose exponential gain 2^g - 1
    overflows a double (ndcg gave NaN, dcg infinity), fail the call as they fail eval and the rendered SQL. The
    same tables under other gains still give their numbers: dcg with raw gain takes the negative grade, d1
    (grade 1) at rank 1 and d2 (grade -1) at rank 2 give 1 - 1/log2(3) (by hand, as scikit-learn's dcg_score)."""
    want = 1 - 1 / math.log2(3)
    con = duckdb.connect()
    rm.register(con)
    for name, t in (("run", CLEAN_RUN), ("negative", _graded(-1.0)), ("huge", _graded(2000.0))):
        con.register(name + "_in", t)
        con.execute(f"CREATE TABLE {name} AS FROM {name}_in")
    negative = "item d2 of query q1 has a negative grade, which ndcg with raw gain"
    huge = r"item d2 of query q1 has a grade too high for exponential gain in {} \(2\^grade - 1 overflows"
    with pytest.raises(duckdb.Error, match=negative):
        con.execute("SELECT * FROM ndcg('run', 'negative', 10, gain := 'raw', grades := 'as_given')").fetchall()
    for macro in ("ndcg", "dcg", "ideal_dcg"):  # ideal_dcg gave infinity (found by a fuzz of the objects)
        with pytest.raises(duckdb.Error, match=huge.format(macro)):
            con.execute(f"SELECT * FROM {macro}('run', 'huge', 10, gain := 'exponential')").fetchall()
    assert con.execute("SELECT value FROM dcg('run', 'negative', 10, gain := 'raw', grades := 'as_given')"
                       ).fetchall() == [(pytest.approx(want, abs=1e-12),)]
    e = engines.start("postgres")
    try:
        run, neg, big = e.load("h_run", CLEAN_RUN), e.load("h_neg", _graded(-1.0)), e.load("h_huge", _graded(2000.0))
        for schema, judged in (("rmneg", neg), ("rmhuge", big)):
            e.con.execute(f"CREATE SCHEMA {schema}")
            e.con.execute(native.script("postgres", run=run, judgments=judged, schema=schema))
        with pytest.raises(Exception, match=negative.replace("ndcg", "rm_ndcg")):
            e.rows("SELECT * FROM rmneg.rm_ndcg(10, gain => 'raw', grades => 'as_given')")
        for macro in ("ndcg", "dcg", "ideal_dcg"):
            with pytest.raises(Exception, match=huge.format(f"rm_{macro}")):
                e.rows(f"SELECT * FROM rmhuge.rm_{macro}(10, gain => 'exponential')")
        assert [float(r[-1]) for r in e.rows("SELECT * FROM rmneg.rm_dcg(10, gain => 'raw', grades => 'as_given')")
                ] == pytest.approx([want], abs=1e-12)
    finally:
        e.close()


def test_evaluate_refuses_a_grade_exponential_gain_cannot_take():
    """evaluate() (eval's routes) refuses a grade above 1023 under exponential gain, 2^grade - 1 overflowing a
    double, naming it, for every measure whose gain it is: IdealDCG returned infinity (found by a differential fuzz
    of the native objects). Grade 1023 is taken: IdealDCG@1 of that one item is 2^1023 - 1 (by hand: the discount
    at rank 1 is 1)."""
    run = pa.table({"query_id": ["q1"], "item_id": ["a"], "score": [1.0]})
    for measure in ("DCG@3", "nDCG@3", "IdealDCG@3"):
        with pytest.raises(rm.InputError, match=rf"grade 1024 \(query q1, item a\) is too high for exponential "
                                                rf"gain in {re.escape(measure)}: 2\^grade - 1 overflows"):
            rm.evaluate(pa.table({"query_id": ["q1"], "item_id": ["a"], "relevance": [1024]}), run, [measure],
                        gain="exponential")
    assert rm.evaluate(pa.table({"query_id": ["q1"], "item_id": ["a"], "relevance": [1023]}), run, ["IdealDCG@1"],
                       gain="exponential") == {"IdealDCG@1": 2.0 ** 1023 - 1}


def test_postgres_functions_refuse_a_rank_beside_the_score_that_is_not_finite():
    """The native objects of a run with a score and a rank column (--run-columns score,rank): a NaN or infinite
    rank, which orders the run under ties 'input' (MLlib's), fails the call as eval, to_sql and the DuckDB macros
    refuse it; a NULL rank stays fine (last). Run d1 (rank 1), d2 (rank NaN) against d1 relevant: RR 1 when d2's
    rank is NULL (by hand)."""
    e = engines.start("postgres")
    try:
        qrels = e.load("k_qrels", QRELS)
        cases = (("nan", float("nan")), ("inf", float("inf")), ("null", None))
        runs = {name: e.load(f"k_{name}", _ranked(rank)) for name, rank in cases}
        # the functions created once, over a view that each case points at its table
        e.con.execute(f"CREATE VIEW k_run AS SELECT * FROM {runs['null']}")
        e.con.execute("CREATE SCHEMA rk")
        e.con.execute(native.script("postgres", run="k_run", judgments=qrels, schema="rk", run_columns="score,rank"))
        for name, rank in cases:
            e.con.execute(f"CREATE OR REPLACE VIEW k_run AS SELECT * FROM {runs[name]}")
            call = "SELECT value FROM rk.rm_rr(ties => 'input')"
            if rank is None:
                assert [float(r[0]) for r in e.rows(call)] == [1.0]
            else:
                with pytest.raises(Exception, match=r"item d2 of query q1 has a score \(or rank\) that is NULL, NaN"):
                    e.rows(call)
    finally:
        e.close()


def test_grades_a_gain_cannot_take_fail(engine):
    """The grades eval refuses for the gain a measure uses fail the SQL too: a negative grade for nDCG with raw
    gain (the sklearn preset: scikit-learn's ndcg_score refuses it; the SQL gave a value below 0), a grade whose
    exponential gain 2^g - 1 overflows a double. DCG takes the negative grade: d1 (grade 1) at rank 1 and d2
    (grade -1) at rank 2 give 1/log2(2) - 1/log2(3) = 0.36907 (by hand; scikit-learn's dcg_score agrees)."""
    e, t = engine
    with pytest.raises(Exception, match="item d2 of query q1 has a negative grade, which nDCG@10 with raw gain"):
        e.rows(rm.to_sql(["nDCG@10"], dialect=e.dialect, run=t["run"], judgments=t["negative_grade"],
                         convention="sklearn", per_query=True))
    rows = e.rows(rm.to_sql(["DCG@10"], dialect=e.dialect, run=t["run"], judgments=t["negative_grade"],
                            convention="sklearn"))
    assert [float(r[-1]) for r in rows] == pytest.approx([1 - 1 / math.log2(3)], abs=1e-12)
    with pytest.raises(Exception, match="item d2 of query q1 has a grade too high for exponential gain in nDCG@10"):
        e.rows(rm.to_sql(["nDCG@10"], dialect=e.dialect, run=t["run"], judgments=t["huge_grade"],
                         gain="exponential"))
    with pytest.raises(Exception, match="item d2 of query q1 has a grade too high for exponential gain in IdealDCG"):
        e.rows(rm.to_sql(["IdealDCG@10"], dialect=e.dialect, run=t["run"], judgments=t["huge_grade"],
                         gain="exponential"))
