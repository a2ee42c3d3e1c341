"""Warehouse-shaped tables (issue 15): other column names, several models and segments in one table, list columns.

The data: 3 models x 2 segments of recommendations in one table recs(model_version, segment, user_id BIGINT,
movie_id BIGINT, pred), and labels(user_id BIGINT, movie_id BIGINT, rating) shared by every group (or, in the
`segment_labels` variant, labels per segment). Every (group, query, metric) value must equal pytrec_eval's
(trec_eval's own code) on that group's slice, computed in the test, whatever route computes it: the DuckDB
macros, `rankmetrics sql` on every real engine, the native objects, and the list (array) form of the same data.
"""
from __future__ import annotations

import itertools
import math
import random

import duckdb
import pyarrow as pa
import pytest
import pytrec_eval

import engines
import rankmetrics_duckdb as rm
from rankmetrics_duckdb import native
from rankmetrics_duckdb.errors import UsageError
from rankmetrics_duckdb.shape import Shape

MODELS = ("v1", "v2", "v3")
SEGMENTS = ("app", "web")
USERS = [1000 + u for u in range(12)]
MOVIES = [500 + i for i in range(25)]

# ours -> pytrec_eval's measure (the trec_eval names of the same definitions)
MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@5": "P_5", "RR": "recip_rank", "R@10": "recall_10"}


def _data():
    rnd = random.Random(15)
    recs = []
    for model, segment, user in itertools.product(MODELS, SEGMENTS, USERS):
        movies = rnd.sample(MOVIES, 8)
        scores = rnd.sample(range(1, 1000), 8)  # distinct: no ties, so the order is the same in every tool
        recs += [(model, segment, user, m, s / 1000) for m, s in zip(movies, scores)]
    labels = []
    for user in USERS:
        for m in rnd.sample(MOVIES, 6):
            labels.append((user, m, rnd.choice((0, 1, 1, 2, 3))))
    # per-segment labels: each segment judges its own items (the web segment shifts the grades)
    seg_labels = [(seg, u, m, (r + (1 if seg == "web" else 0)) % 4) for seg in SEGMENTS for u, m, r in labels]
    return recs, labels, seg_labels


RECS, LABELS, SEG_LABELS = _data()


def recs_table():
    cols = list(zip(*RECS))
    return pa.table({"model_version": list(cols[0]), "segment": list(cols[1]),
                     "user_id": pa.array(cols[2], pa.int64()), "movie_id": pa.array(cols[3], pa.int64()),
                     "pred": list(cols[4])})


def labels_table(per_segment=False):
    if per_segment:
        cols = list(zip(*SEG_LABELS))
        return pa.table({"segment": list(cols[0]), "user_id": pa.array(cols[1], pa.int64()),
                         "movie_id": pa.array(cols[2], pa.int64()), "rating": pa.array(cols[3], pa.int64())})
    cols = list(zip(*LABELS))
    return pa.table({"user_id": pa.array(cols[0], pa.int64()), "movie_id": pa.array(cols[1], pa.int64()),
                     "rating": pa.array(cols[2], pa.int64())})


def list_tables(per_segment=False):
    """The same data as lists: recs(model_version, segment, user_id, items) in rank order; labels(user_id, items,
    grades) as parallel lists (labels(segment, ...) per segment)."""
    con = duckdb.connect()
    con.register("recs", recs_table())
    con.register("labels", labels_table(per_segment))
    lrecs = con.sql("SELECT model_version, segment, user_id, list(movie_id ORDER BY pred DESC) AS items "
                        "FROM recs GROUP BY ALL ORDER BY ALL").to_arrow_table()
    keys = "segment, user_id" if per_segment else "user_id"
    llabels = con.sql(f"SELECT {keys}, list(movie_id ORDER BY movie_id) AS items, "
                          f"list(rating ORDER BY movie_id) AS grades FROM labels GROUP BY ALL ORDER BY ALL"
                          ).to_arrow_table()
    return lrecs, llabels


def expected(per_segment=False):
    """{(model, segment): {measure: {user or None (the mean): value}}} from pytrec_eval on each slice."""
    out = {}
    for model, segment in itertools.product(MODELS, SEGMENTS):
        run = {}
        for m, s, u, movie, score in RECS:
            if (m, s) == (model, segment):
                run.setdefault(str(u), {})[str(movie)] = score
        qrels = {}
        if per_segment:
            for s, u, movie, r in SEG_LABELS:
                if s == segment:
                    qrels.setdefault(str(u), {})[str(movie)] = r
        else:
            for u, movie, r in LABELS:
                qrels.setdefault(str(u), {})[str(movie)] = r
        per_query = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(run)
        group = {}
        for ours, theirs in MEASURES.items():
            values = {q: v[theirs] for q, v in per_query.items()}
            values[None] = sum(values.values()) / len(values)
            group[ours] = values
        out[(model, segment)] = group
    return out


EXPECTED = expected()
EXPECTED_SEGMENT = expected(per_segment=True)

NO_LISTS = ("sqlite", "datafusion", "mysql")  # no list type (MySQL: JSON only); DataFusion: no WITH ORDINALITY
COLUMNS = {"query_id": "user_id", "item_id": "movie_id", "score": "pred", "relevance": "rating"}
BY = ["model_version", "segment"]


def check(rows, want, label):
    """rows (measure, model_version, segment, query_id, value) equal want, every group, query and measure."""
    got = {}
    for measure, model, segment, qid, value in rows:
        key = (str(model), str(segment))
        cell = got.setdefault(key, {}).setdefault(measure, {})
        q = None if qid is None else str(qid)
        assert q not in cell, f"{label}: duplicate row {measure} {key} {q}"
        cell[q] = math.nan if value is None else float(value)
    assert set(got) == set(want), f"{label}: groups differ: {sorted(got)}"
    for key, measures in want.items():
        assert set(got[key]) == set(measures), f"{label} {key}: measures differ"
        for measure, values in measures.items():
            assert set(got[key][measure]) == set(values), f"{label} {key} {measure}: queries differ"
            for q, w in values.items():
                assert got[key][measure][q] == pytest.approx(w, abs=1e-9), f"{label} {key} {measure} {q}"


def macro_rows(con, run, judgments, **shape):
    """Every measure of MEASURES through the DuckDB macros, as rows (measure, model, segment, query, value)."""
    calls = {"nDCG@10": "ndcg({}, k := 10)", "AP": "ap({})", "P@5": '"precision"({}, k := 5)', "RR": "rr({})",
             "R@10": "recall({}, k := 10)"}
    def value(v):
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, list):
            return "[" + ", ".join(f"'{x}'" for x in v) + "]"
        return f"'{v}'"
    named = [('"by"' if k == "by" else k) + " := " + value(v) for k, v in shape.items()]
    args = ", ".join([f"'{run}'", f"'{judgments}'"] + named)
    rows = []
    for measure, call in calls.items():
        sql = f"SELECT model_version, segment, query_id, value FROM {call.format(args)}"
        for model, segment, qid, value in con.execute(sql).fetchall():
            rows.append((measure, model, segment, qid, value))
        mean = f"SELECT model_version, segment, avg(value) FROM {call.format(args)} GROUP BY ALL"
        rows += [(measure, m, s, None, v) for m, s, v in con.execute(mean).fetchall()]
    return rows


@pytest.fixture(scope="module")
def duck():
    con = duckdb.connect()
    rm.register(con)
    con.register("recs_in", recs_table())
    con.register("labels_in", labels_table())
    con.register("seg_labels_in", labels_table(per_segment=True))
    con.execute("CREATE TABLE recs AS FROM recs_in; CREATE TABLE labels AS FROM labels_in; "
                "CREATE TABLE seg_labels AS FROM seg_labels_in")
    lrecs, llabels = list_tables()
    _, lseg = list_tables(per_segment=True)
    for name, t in (("lrecs", lrecs), ("llabels", llabels), ("lseg_labels", lseg)):
        con.register(name + "_in", t)
        con.execute(f"CREATE TABLE {name} AS FROM {name}_in")
    yield con
    con.close()


def test_macros_groups_and_column_names(duck):
    shape = dict(query_column="user_id", item_column="movie_id", score_column="pred", relevance_column="rating",
                 by=BY)
    check(macro_rows(duck, "recs", "labels", **shape), EXPECTED, "macros")
    # judgments with a group column of their own: joined on it
    check(macro_rows(duck, "recs", "seg_labels", **shape), EXPECTED_SEGMENT, "macros, labels per segment")


def test_macros_lists(duck):
    shape = dict(query_column="user_id", item_column="items", relevance_column="grades", by=BY, run_lists=True,
                 judgment_lists=True)
    check(macro_rows(duck, "lrecs", "llabels", **shape), EXPECTED, "macros, lists")
    check(macro_rows(duck, "lrecs", "lseg_labels", **shape), EXPECTED_SEGMENT, "macros, lists per segment")
    # a long run against list judgments, and the other way round
    duck.execute("CREATE OR REPLACE TABLE recs2 AS SELECT model_version, segment, user_id, movie_id AS items, pred "
                 "FROM recs")
    check(macro_rows(duck, "recs2", "llabels", **dict(shape, run_lists=False, score_column="pred")), EXPECTED,
          "macros, long run and list judgments")


def test_macros_without_shape_are_unchanged(duck):
    # the plain shape still returns (query_id, value): one group, the query ids as text
    duck.execute("CREATE OR REPLACE TABLE plain_run AS SELECT CAST(user_id AS VARCHAR) AS query_id, "
                 "CAST(movie_id AS VARCHAR) AS item_id, pred AS score FROM recs WHERE model_version = 'v1' "
                 "AND segment = 'app'")
    duck.execute("CREATE OR REPLACE TABLE plain_qrels AS SELECT CAST(user_id AS VARCHAR) AS query_id, "
                 "CAST(movie_id AS VARCHAR) AS item_id, rating AS relevance FROM labels")
    rel = duck.execute("SELECT * FROM ndcg('plain_run', 'plain_qrels', k := 10) ORDER BY query_id")
    assert [d[0] for d in rel.description] == ["query_id", "value"]
    got = dict(rel.fetchall())
    want = EXPECTED[("v1", "app")]["nDCG@10"]
    assert got == pytest.approx({q: v for q, v in want.items() if q is not None}, abs=1e-9)


# --- rankmetrics sql on every real engine ---------------------------------------------------------------------

@pytest.fixture(params=list(engines.REAL))
def engine(request, started):
    def start():
        e = engines.start(request.param)
        names = {"recs": e.load("wh_recs", recs_table()), "labels": e.load("wh_labels", labels_table()),
                 "seg_labels": e.load("wh_seg_labels", labels_table(per_segment=True))}
        if e.dialect not in NO_LISTS:
            lrecs, llabels = list_tables()
            _, lseg = list_tables(per_segment=True)
            names.update(lrecs=e.load("wh_lrecs", lrecs), llabels=e.load("wh_llabels", llabels),
                         lseg_labels=e.load("wh_lseg_labels", lseg),
                         **{name: e.load(f"wh_{name}", t) for name, t in {**GRADE_LISTS, **EMPTY_LISTS}.items()})
        return e, names
    return started.get(("warehouse", request.param), start, lambda pair: pair[0].close())


# judgments as lists of text ids with a parallel list of grades: as long as the items (the run a, b, c against b
# relevant at grade 2, c at 1), a grade short, a grade too many
_RUN_ABC = pa.table({"query_id": ["u"], "item_id": [["a", "b", "c"]]})
GRADE_LISTS = {"run_abc": _RUN_ABC, "run_bac": pa.table({"query_id": ["u"], "item_id": [["b", "a", "c"]]}),
               "bcd_grades": pa.table({"query_id": ["u"], "item_id": [["b", "c", "d"]], "grades": [[2, 1, 2]]}),
               **{name: pa.table({"query_id": ["u"], "item_id": [["b", "c"]], "grades": [grades]})
                  for name, grades in (("even_grades", [2, 1]), ("short_grades", [2]), ("long_grades", [2, 1, 3]))}}


def test_sql_grade_lists_of_another_length_fail(engine):
    """A list of grades shorter or longer than its list of items fails the statement, as eval and the DuckDB
    macros refuse it (to_sql read the grades by position and ignored the extra ones). Lists of equal length give
    the hand-computed value: run a, b, c; b grade 2, c grade 1; nDCG@3 = (2 / log2(3) + 1 / 2) / (2 + 1 / log2(3))."""
    e, names = engine
    if e.dialect in NO_LISTS:
        return  # test_sql_lists: refused with 'has no list'
    columns = {"relevance": "grades"}
    sql = lambda judged: rm.to_sql(["nDCG@3"], dialect=e.dialect, run=names["run_abc"],  # noqa: E731
                                   judgments=names[judged], columns=columns, run_lists=True, judgment_lists=True)
    want = (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))
    assert [float(r[-1]) for r in e.rows(sql("even_grades"))] == [pytest.approx(want, abs=1e-12)]
    for judged in ("short_grades", "long_grades"):
        with pytest.raises(Exception, match="item b of query u has a relevance grade that is NULL, NaN or infinite"):
            e.rows(sql(judged))
    for judged, grades in (("short_grades", "1 grade"), ("long_grades", "3 grades")):  # eval refuses both, in a line
        with pytest.raises(rm.InputError, match=f"query u has 2 items \\(item_id\\) and {grades} \\(grades\\) in "
                                                f"the judgments; give one grade per item"):
            rm.evaluate(GRADE_LISTS[judged], _RUN_ABC, ["nDCG@3"], columns=columns)


# A run of lists in which a user's list is empty: the model was asked for u1 and u2 and returned nothing (MLlib's and
# BigQuery ML's shape). u0 retrieves a (relevant) then b; u1 is judged (c), u2 is not; u4 is judged and not in the run.
_STRINGS = pa.list_(pa.string())
EMPTY_LISTS = {
    "empty_run": pa.table({"query_id": ["u0", "u1", "u2"], "item_id": pa.array([["a", "b"], [], []], _STRINGS)}),
    "empty_qrels": pa.table({"query_id": ["u0", "u1", "u4"], "item_id": ["a", "c", "d"],
                             "relevance": pa.array([1, 1, 1], pa.int64())}),
    # the brief's MLlib rows: (u0: [a, b] / {a}), (u1: [] / {})
    "mllib_run": pa.table({"query_id": ["u0", "u1"], "item_id": pa.array([["a", "b"], []], _STRINGS)}),
    "mllib_qrels": pa.table({"query_id": ["u0"], "item_id": ["a"], "relevance": pa.array([1], pa.int64())}),
    # a row whose list is empty and whose query id is missing (NULL; blank, in a run of one model named by `model`):
    # it names no query, and must be refused as a row of unnested items without a query id is (it vanished, unsaid)
    "no_id_run": pa.table({"query_id": ["u0", None], "item_id": pa.array([["a", "b"], []], _STRINGS)}),
    "blank_id_run": pa.table({"model": ["m", "m"], "query_id": ["u0", " "],
                              "item_id": pa.array([["a", "b"], []], _STRINGS)}),
    # every list empty: a run of queries that retrieved nothing (refused before: "every item list is empty")
    "all_empty_run": pa.table({"query_id": ["u0", "u1", "u2"], "item_id": pa.array([[], [], []], _STRINGS)}),
}
# ours -> pytrec_eval's name, and whether the mean is a sum (trec_eval's counts)
EMPTY_MEASURES = {"P@2": ("P_2", False), "AP": ("map", False), "nDCG@2": ("ndcg_cut_2", False),
                  "RR": ("recip_rank", False), "NumRet": ("num_ret", True)}


def empty_lists_expected():
    """{convention name: {(measure, query or None): value}} for EMPTY_LISTS, each from an independent source:
    - 'both' (trec_eval's default): pytrec_eval, run here, on the run as its dict ({'u1': {}}: a query whose ranking
      is empty is evaluated, num_ret 0; u2 is not judged and u4 not in the run, so neither is evaluated);
    - 'mllib': Spark MLlib's RankingMetrics over the rows (u0: [a, b] / {a}), (u1: [] / {}) (an empty label set
      scores 0, 'Empty ground truth set'), computed by hand: P@2 (0.5 + 0) / 2, nDCG@2 (1 + 0) / 2, MAP (1 + 0) / 2
      (test_sql_empty_lists_... runs RankingMetrics itself on Spark);
    - 'all_nan' (queries 'all', empty 'nan', as the rectools preset): by hand. u0: a relevant at rank 1, P@2 1/2,
      AP 1, two items of k = 2, SufficientReco 1; u1 (empty list, judged) and u4 (judged, not retrieved): 0; u2
      (empty list, no judgment): NaN, left out of the means; SufficientReco is a query of the run's: u1 and u2 got
      none of their 2 items, 0, and u4, not in the run, has none (NaN)."""
    qrels = {"u0": {"a": 1}, "u1": {"c": 1}, "u4": {"d": 1}}
    ran = pytrec_eval.RelevanceEvaluator(qrels, {m for m, _ in EMPTY_MEASURES.values()}).evaluate(
        {"u0": {"a": 2.0, "b": 1.0}, "u1": {}, "u2": {}})
    assert set(ran) == {"u0", "u1"} and ran["u1"]["num_ret"] == 0
    both = {}
    for ours, (theirs, summed) in EMPTY_MEASURES.items():
        values = [ran[q][theirs] for q in ("u0", "u1")]
        both.update({(ours, q): v for q, v in zip(("u0", "u1"), values)})
        both[(ours, None)] = sum(values) if summed else sum(values) / len(values)
    nan = math.nan
    all_nan = {("P@2", "u0"): 0.5, ("P@2", "u1"): 0.0, ("P@2", "u2"): nan, ("P@2", "u4"): 0.0, ("P@2", None): 1 / 6,
               ("AP", "u0"): 1.0, ("AP", "u1"): 0.0, ("AP", "u2"): nan, ("AP", "u4"): 0.0, ("AP", None): 1 / 3,
               ("SufficientReco@2", "u0"): 1.0, ("SufficientReco@2", "u1"): 0.0, ("SufficientReco@2", "u2"): 0.0,
               ("SufficientReco@2", "u4"): nan, ("SufficientReco@2", None): 1 / 3}
    mllib = {("P@2", None): 0.25, ("nDCG@2", None): 0.5, ("AP", None): 0.5}
    return {"both": both, "mllib": mllib, "all_nan": all_nan}


EMPTY_EXPECTED = empty_lists_expected()
# (run, judgments, measures, evaluate()'s keywords, per query) of each expectation
EMPTY_CASES = {"both": ("empty_run", "empty_qrels", list(EMPTY_MEASURES), {}, True),
               "mllib": ("mllib_run", "mllib_qrels", ["P@2", "nDCG@2", "AP"], {"convention": "mllib"}, False),
               "all_nan": ("empty_run", "empty_qrels", ["P@2", "AP", "SufficientReco@2"],
                           {"queries": "all", "empty": "nan"}, True)}


def check_empty(rows, want, label):
    """rows (measure, query_id, value) equal want {(measure, query or None): value}, NaN for NaN (or NULL)."""
    got = {(m, None if q is None else str(q)): math.nan if v is None else float(v) for m, q, v in rows}
    assert set(got) == set(want), f"{label}: rows {sorted(got, key=str)}"
    for key, w in want.items():
        if math.isnan(w):
            assert math.isnan(got[key]), f"{label} {key}: {got[key]}"
        else:
            assert got[key] == pytest.approx(w, abs=1e-12), f"{label} {key}"


def test_sql_empty_lists_are_queries_that_retrieved_nothing(engine):
    """A run of lists whose list is empty for a query: the query is in the run and retrieved nothing, on every
    engine with lists (the grouped stream on Spark). It vanished before (its unnested rows have none): 'both' and
    'run' dropped it, and the means were over the other queries (MLlib's P@2 0.25 came out 0.5). The numbers are
    EMPTY_EXPECTED's (pytrec_eval, MLlib by hand, by hand); on Spark, MLlib's RankingEvaluator (RankingMetrics
    underneath) is run on the same rows too."""
    e, names = engine
    if e.dialect in NO_LISTS:
        return  # test_sql_lists: refused with 'has no list'
    for case, (run, judged, measures, kw, per_query) in EMPTY_CASES.items():
        sql = rm.to_sql(measures, dialect=e.dialect, run=names[run], judgments=names[judged], per_query=per_query,
                        run_lists=True, **kw)
        check_empty([r[-3:] for r in e.rows(sql)], EMPTY_EXPECTED[case], f"{e.dialect} {case}")
    if e.dialect == "postgres":  # the native functions over the same tables (rankmetrics macros --run-lists)
        e.con.execute("CREATE SCHEMA IF NOT EXISTS rm_empty")
        e.con.execute(native.script("postgres", run=names["empty_run"], judgments=names["empty_qrels"],
                                    schema="rm_empty", form=Shape(run_lists=True)))
        calls = {"P@2": "rm_precision(2)", "AP": "rm_ap()", "nDCG@2": "rm_ndcg(2)", "RR": "rm_rr()",
                 "NumRet": "rm_num_ret()"}
        rows = []
        for m, call in calls.items():
            rows += [(m, q, v) for q, v in e.rows(f"SELECT query_id, value FROM rm_empty.{call}")]
            rows += [(m, None, v) for (v,) in e.rows(f"SELECT {'sum' if m == 'NumRet' else 'avg'}(value) "
                                                     f"FROM rm_empty.{call}")]
        check_empty(rows, EMPTY_EXPECTED["both"], "postgres functions")
        rows = [(m, q, v) for m, call in (("P@2", "rm_precision(2, queries => 'all', empty => 'nan')"),
                                          ("AP", "rm_ap(queries => 'all', empty => 'nan')"),
                                          ("SufficientReco@2", "rm_sufficient_reco(2, queries => 'all')"))
                for q, v in e.rows(f"SELECT query_id, value FROM rm_empty.{call}")]
        check_empty(rows, {k: v for k, v in EMPTY_EXPECTED["all_nan"].items() if k[1] is not None},
                    "postgres functions, queries 'all'")
    if e.dialect == "spark":  # MLlib itself, on the rows of mllib_run (a -> 1.0, b -> 2.0) and their labels
        from pyspark.ml.evaluation import RankingEvaluator
        rows = e.spark.createDataFrame([([1.0, 2.0], [1.0]), ([], [])], "prediction ARRAY<DOUBLE>, label ARRAY<DOUBLE>")
        for metric, ours in (("precisionAtK", "P@2"), ("ndcgAtK", "nDCG@2"), ("meanAveragePrecision", "AP")):
            evaluator = RankingEvaluator(predictionCol="prediction", labelCol="label", metricName=metric, k=2)
            value = evaluator.evaluate(rows)
            assert value == pytest.approx(EMPTY_EXPECTED["mllib"][(ours, None)], abs=1e-12), metric


def _evaluated(judgments, run, measures, one_statement, **kw):
    """(rows, path, summary) of an Evaluation, closed."""
    ev = rm.Evaluation(judgments, run, measures, one_statement=one_statement, **kw)
    try:
        return ev.rows(), ev.path, ev.summary
    finally:
        ev.close()


@pytest.mark.parametrize("one_statement", [True, False])
def test_python_empty_lists_are_queries_that_retrieved_nothing(one_statement, tmp_path):
    """evaluate() and the command line on a run of lists with empty ones (the one statement, and the careful
    path): EMPTY_EXPECTED's numbers, and the empty-list queries counted as the run's in the summary. A NULL list is
    an empty one (BigQuery reads a NULL array as empty)."""
    import json
    import pyarrow.parquet as pq
    from conftest import cli
    for case, (run, judged, measures, kw, per_query) in EMPTY_CASES.items():
        rows, path, summary = _evaluated(EMPTY_LISTS[judged], EMPTY_LISTS[run], measures, one_statement, **kw)
        assert path == ("one statement" if one_statement else "careful")
        check_empty([r for r in rows if per_query or r[1] is None], EMPTY_EXPECTED[case], f"python {case}")
        if case == "both":  # u0, u1, u2 in the run (u1, u2 empty); u0, u1, u4 judged
            assert summary == {"run_queries": 3, "judged_queries": 3, "common_queries": 2, "judged_not_in_run": 1,
                               "run_not_judged": 1}
    nulls = EMPTY_LISTS["empty_run"].set_column(1, "item_id", pa.array([["a", "b"], None, None], _STRINGS))
    got = rm.evaluate(EMPTY_LISTS["empty_qrels"], nulls, list(EMPTY_MEASURES), per_query=True,
                      one_statement=one_statement)
    check_empty([(m, q, v) for m, values in got.items() for q, v in values.items()],
                {k: v for k, v in EMPTY_EXPECTED["both"].items() if k[1] is not None}, "python, NULL lists")
    if one_statement:  # the command line, on Parquet files
        pq.write_table(EMPTY_LISTS["empty_run"], tmp_path / "run.parquet")
        pq.write_table(EMPTY_LISTS["empty_qrels"], tmp_path / "qrels.parquet")
        out = json.loads(cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"),
                             *[a for m in EMPTY_MEASURES for a in ("-m", m)], "-q", "--format", "json").stdout)
        check_empty([(r["measure"], None if r["aggregate"] else r["query_id"], r["value"]) for r in out],
                    EMPTY_EXPECTED["both"], "cli")


def test_a_pandas_run_of_lists_whose_first_list_is_missing_is_read_as_lists():
    """A pandas frame's list column is found by its first value that is not missing: with the first row's list
    None, NaN or pandas' NA (a NULL list, an empty one) the run was read as plain rows and refused ("neither a score
    nor a rank column"). By hand: u1 retrieved nothing (AP 0, num_ret 0), u0 ranks a (relevant) first (AP 1);
    compare() reads it the same way (mean 1/2)."""
    import pandas as pd
    judgments = pd.DataFrame({"query_id": ["u0", "u1"], "item_id": ["a", "b"], "relevance": [1, 1]})
    for missing in (None, float("nan"), pd.NA):
        run = pd.DataFrame({"query_id": ["u1", "u0"], "item_id": [missing, ["a", "b"]]})
        for one_statement in (True, False):
            assert rm.evaluate(judgments, run, ["AP", "num_ret"], per_query=True, one_statement=one_statement) == {
                "AP": {"u0": 1.0, "u1": 0.0}, "num_ret": {"u0": 2.0, "u1": 0.0}}, (missing, one_statement)
        means = {r["run"]: r["mean"] for r in rm.compare(judgments, {"a": run, "b": run}, ["AP"])}
        assert means == {"a": 0.5, "b": 0.5}


def test_pandas_lists_of_numpy_text_arrays_are_read():
    """A pandas column of numpy text arrays (np.array(['a', 'c']), dtype <U1, as .apply(np.array) makes them),
    which DuckDB's scan of a frame cannot read ("Data type '<U1' not recognized", refused as "cannot evaluate the
    inputs" before), is read as lists, on both sides (grades as numpy integer arrays). By hand: judgments u0: c
    (grade 2), u1: b; run u0: [a, c], u1: [b], u2: None (not judged: not reported). AP u0 1/2 (c at rank 2), u1 1;
    num_ret 2 and 1."""
    import numpy as np
    import pandas as pd
    run = pd.DataFrame({"query_id": ["u0", "u1", "u2"], "item_id": [np.array(["a", "c"]), np.array(["b"]), None]})
    judgments = pd.DataFrame({"query_id": ["u0", "u1"], "item_id": [np.array(["c"]), np.array(["b"])],
                              "relevance": [np.array([2]), np.array([1])]})
    # the first array an empty one of objects (found by a fuzz of the input kinds: the text arrays after it failed)
    first_empty = pd.DataFrame({"query_id": ["u2", "u0", "u1"],
                                "item_id": [np.array([], dtype=object), np.array(["a", "c"]), np.array(["b"])]})
    for ranking in (run, first_empty):
        for one_statement in (True, False):
            assert rm.evaluate(judgments, ranking, ["AP", "num_ret"], per_query=True, one_statement=one_statement) == {
                "AP": {"u0": 0.5, "u1": 1.0}, "num_ret": {"u0": 2.0, "u1": 1.0}}, one_statement


@pytest.mark.parametrize("one_statement", [True, False])
def test_an_empty_label_list_is_no_judgment(one_statement):
    """An empty list in judgments of lists is no judgment, as a query mapped to no item in pytrec_eval's qrels
    (docs/conventions.md section 6), under the mllib preset too. By hand, with judgments u0: [a], u1: []:
    - run u0: [a, b] only: u1 is in neither side's rows, left out: P@2 1/2, nDCG@2 1, AP 1 (MLlib, given the
      outer join's row (u1: [] / []), counts it 0 and gives 0.25 / 0.5 / 0.5: the documented difference);
    - run u0: [a, b], u1: []: u1 is a query of the run that retrieved nothing, counted under 'all': 0.25, 0.5, 0.5
      (MLlib's numbers for those two rows, README);
    - run u0: [a, b], u1: [c]: u1 retrieved c, nothing relevant: 0.25, 0.5, 0.5."""
    judgments = pa.table({"query_id": ["u0", "u1"], "item_id": pa.array([["a"], []], _STRINGS)})
    for u1, want in (([], (0.25, 0.5, 0.5)), (["c"], (0.25, 0.5, 0.5)), (None, (0.5, 1.0, 1.0))):
        queries, lists = (["u0"], [["a", "b"]]) if u1 is None else (["u0", "u1"], [["a", "b"], u1])
        run = pa.table({"query_id": queries, "item_id": pa.array(lists, _STRINGS)})
        got = rm.evaluate(judgments, run, ["P@2", "nDCG@2", "AP"], convention="mllib", one_statement=one_statement)
        assert [got[m] for m in ("P@2", "nDCG@2", "AP")] == pytest.approx(list(want), abs=1e-12), u1


def test_max_retrieved_cuts_a_run_of_lists_and_a_dict_with_queries_mapped_to_nothing(tmp_path):
    """-M N (max_retrieved) keeps each query's first N items of a run of lists found under our own names and of a
    run dict that maps a query to no item (both read as a shape): it was silently ignored there (num_ret 2,
    map 0.25 below). By hand, judgments q: b, u: x; run q: [a, b] (b at position 2), u: [] (nothing retrieved).
    Without -M: q AP 1/2, u 0, map 0.25, num_ret 2. With -M 1: q keeps a alone, AP 0, u 0: map 0, num_ret 1. A
    shape given (columns=, by=) stays refused with -M."""
    import json
    import pyarrow.parquet as pq
    from conftest import cli
    judgments = pa.table({"query_id": ["q", "u"], "item_id": ["b", "x"], "relevance": [1, 1]})
    lists = pa.table({"query_id": ["q", "u"], "item_id": pa.array([["a", "b"], []], _STRINGS)})
    scored = {"q": {"a": 2.0, "b": 1.0}, "u": {}}
    for run in (lists, scored):
        assert rm.evaluate(judgments, run, ["map", "num_ret"]) == {"map": 0.25, "num_ret": 2.0}
        assert rm.evaluate(judgments, run, ["map", "num_ret"], max_retrieved=1) == {"map": 0.0, "num_ret": 1.0}
        assert rm.evaluate(judgments, run, ["map", "num_ret", "num_q"], max_retrieved=1, per_query=True) == {
            "map": {"q": 0.0, "u": 0.0}, "num_ret": {"q": 1.0, "u": 0.0}, "num_q": {"q": 1.0, "u": 1.0}}
    pq.write_table(lists, tmp_path / "run.parquet")
    pq.write_table(judgments, tmp_path / "qrels.parquet")
    out = json.loads(cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "map", "-m",
                         "num_ret", "-M", "1", "--format", "json").stdout)
    assert {r["measure"]: r["value"] for r in out} == {"map": 0.0, "num_ret": 1}
    with pytest.raises(UsageError, match="max_retrieved \\(-M\\) applies to runs under our own column names"):
        rm.evaluate(judgments, lists.rename_columns(["qid", "item_id"]), ["map"], columns={"query_id": "qid"},
                    max_retrieved=1)


def test_macros_empty_lists(duck):
    """The DuckDB macros (run_lists := true) on a run of lists with empty ones: EMPTY_EXPECTED's numbers under
    'both' and under queries 'all' with empty 'nan' (mllib's conventions are to_sql's and evaluate()'s to set)."""
    for name, t in EMPTY_LISTS.items():
        duck.register(name, t)
    calls = {"P@2": '"precision"({}, k := 2)', "AP": "ap({})", "nDCG@2": "ndcg({}, k := 2)", "RR": "rr({})",
             "NumRet": "num_ret({})", "SufficientReco@2": "sufficient_reco({}, k := 2)"}
    for case, extra in (("both", ""), ("all_nan", ", queries := 'all', empty := 'nan'")):
        run, judged, measures, _, _ = EMPTY_CASES[case]
        args = f"'{run}', '{judged}', run_lists := true{extra}"
        rows = []
        for m in measures:
            sql = f"SELECT query_id, value FROM {calls[m].format(args)}"
            rows += [(m, q, v) for q, v in duck.execute(sql).fetchall()]
            summed = m == "NumRet"  # trec_eval's counts sum
            rows.append((m, None, duck.execute(f"SELECT {'sum' if summed else 'avg'}(value) FROM "
                                               f"{calls[m].format(args)}").fetchall()[0][0]))
        check_empty(rows, EMPTY_EXPECTED[case], f"macros {case}")


def test_macros_empty_list_without_a_query_id_and_all_lists_empty(duck):
    """The DuckDB macros (run_lists := true): a row whose list is empty and whose query id is NULL (or blank,
    within a group) fails the call, as a row of items without one does (under queries 'run' it was a query of its
    own, NULL, scoring 0 in the mean); a run whose every list is empty gives ALL_EMPTY_EXPECTED's numbers
    (pytrec_eval) under 'both'."""
    for name, t in EMPTY_LISTS.items():
        duck.register(name, t)
    for run, extra in (("no_id_run", ""), ("no_id_run", ", queries := 'run'"),
                       ("blank_id_run", ", \"by\" := ['model']")):
        with pytest.raises(duckdb.Error, match=MISSING_QUERY_ID):
            duck.execute(f"SELECT * FROM \"precision\"('{run}', 'empty_qrels', k := 2, run_lists := true{extra})")
    calls = {"P@2": '"precision"({}, k := 2)', "AP": "ap({})", "nDCG@2": "ndcg({}, k := 2)", "RR": "rr({})",
             "NumRet": "num_ret({})"}
    args = "'all_empty_run', 'empty_qrels', run_lists := true"
    rows = []
    for m, call in calls.items():
        rows += [(m, q, v) for q, v in duck.execute(f"SELECT query_id, value FROM {call.format(args)}").fetchall()]
        mean = "sum" if m == "NumRet" else "avg"  # trec_eval's counts sum
        rows.append((m, None, duck.execute(f"SELECT {mean}(value) FROM {call.format(args)}").fetchall()[0][0]))
    check_empty(rows, ALL_EMPTY_EXPECTED["both"], "macros, all empty")


def all_empty_expected():
    """{convention: {(measure, query or None): value}} for all_empty_run (u0, u1, u2, every list empty) against
    empty_qrels (u0, u1, u4 judged), each from an independent source:
    - 'both' (trec_eval's default): pytrec_eval, run here, on {'u0': {}, 'u1': {}, 'u2': {}}: it evaluates the
      judged queries whose ranking is empty (u0, u1: num_ret 0, every measure 0) and leaves out u2 (not judged)
      and u4 (not in the run), trec_eval's rule of averaging over the queries judged and in the run;
    - 'mllib': RankingMetrics over (u0: [] / {a}), (u1: [] / {c}), (u2: [] / {}), by hand: no item retrieved, so
      no hit at any rank: P@2 = 0 / 2, DCG 0 over a positive ideal DCG, AP 0 / |labels|, and an empty label set
      scores 0 ('Empty ground truth set'); P@2, nDCG@2 and MAP are (0 + 0 + 0) / 3 = 0."""
    qrels = {"u0": {"a": 1}, "u1": {"c": 1}, "u4": {"d": 1}}
    ran = pytrec_eval.RelevanceEvaluator(qrels, {m for m, _ in EMPTY_MEASURES.values()}).evaluate(
        {"u0": {}, "u1": {}, "u2": {}})
    assert set(ran) == {"u0", "u1"} and ran["u0"]["num_ret"] == ran["u1"]["num_ret"] == 0
    both = {}
    for ours, (theirs, summed) in EMPTY_MEASURES.items():
        values = [ran[q][theirs] for q in ("u0", "u1")]
        both.update({(ours, q): v for q, v in zip(("u0", "u1"), values)})
        both[(ours, None)] = sum(values) if summed else sum(values) / len(values)
    return {"both": both, "mllib": {("P@2", None): 0.0, ("nDCG@2", None): 0.0, ("AP", None): 0.0}}


ALL_EMPTY_EXPECTED = all_empty_expected()
# (measures, evaluate()'s keywords, per query) of each expectation of all_empty_run against empty_qrels
ALL_EMPTY_CASES = {"both": (list(EMPTY_MEASURES), {}, True),
                   "mllib": (["P@2", "nDCG@2", "AP"], {"convention": "mllib"}, False)}
MISSING_QUERY_ID = "a row of the run has no query id or no item id \\(NULL or empty\\)"


def test_sql_empty_list_without_a_query_id_and_all_lists_empty(engine):
    """On every engine with lists (the grouped stream on Spark): a row whose list is empty and whose query id is
    NULL (or blank, within a group) fails the statement as a row of items without a query id does (the SQL left
    it out: u0's P@2 0.5 came back); a run whose every list is empty is a run of queries that retrieved nothing:
    ALL_EMPTY_EXPECTED's numbers (pytrec_eval; MLlib by hand). On PostgreSQL the native function refuses the row
    too."""
    e, names = engine
    if e.dialect in NO_LISTS:
        return  # test_sql_lists: refused with 'has no list'
    slow = e.dialect == "spark"  # a second or two a statement: one failure and one case (the grouped stream's)
    for run, by, per_query in (("no_id_run", [], False), ("blank_id_run", ["model"], True))[:1 if slow else 2]:
        with pytest.raises(Exception, match=MISSING_QUERY_ID):
            e.rows(rm.to_sql(["P@2"], dialect=e.dialect, run=names[run], judgments=names["empty_qrels"],
                             run_lists=True, by=by, judgments_by=[], per_query=per_query))
    for case, (measures, kw, per_query) in list(ALL_EMPTY_CASES.items())[:1 if slow else 2]:
        sql = rm.to_sql(measures, dialect=e.dialect, run=names["all_empty_run"], judgments=names["empty_qrels"],
                        per_query=per_query, run_lists=True, **kw)
        check_empty([r[-3:] for r in e.rows(sql)], ALL_EMPTY_EXPECTED[case], f"{e.dialect} all empty, {case}")
    if e.dialect == "postgres":  # the native function of P@k (rankmetrics macros --run-lists) over no_id_run
        from rankmetrics_duckdb import dialects, sqlgen
        run = sqlgen.Source(dialects.table(names["no_id_run"], "postgres", "run table"), has_score=False,
                            lists=True)
        judged = sqlgen.Source(dialects.table(names["empty_qrels"], "postgres", "judgments table"))
        e.con.execute("CREATE SCHEMA IF NOT EXISTS rm_no_id")
        e.con.execute(native.ddl("precision", "postgres", run, judged, schema="rm_no_id"))
        with pytest.raises(Exception, match=MISSING_QUERY_ID):
            e.rows("SELECT query_id, value FROM rm_no_id.rm_precision(2)")


@pytest.mark.parametrize("one_statement", [True, False])
def test_python_empty_list_without_a_query_id_is_refused(one_statement, tmp_path):
    """evaluate(), compare() and `eval` (the one statement, and the careful path) refuse a run of lists'
    row without a query id whether its list is empty or not, in the one line that names the rows without one: it
    was dropped without a word when its list was empty (u0's P@2 0.5 came back). Counted: the run u0 [a, b],
    NULL [], NULL [x, y], ' ' NULL has 1 + 2 + 1 = 4 such rows (the unnested ones and the two whose list is empty)."""
    from conftest import cli
    import pyarrow.parquet as pq
    qrels = EMPTY_LISTS["empty_qrels"]
    message = r"^pyarrow Table: {} row\(s\) with an empty or NULL query_id in the run$"
    with pytest.raises(rm.InputError, match=message.format(1)):
        rm.evaluate(qrels, EMPTY_LISTS["no_id_run"], ["P@2"], one_statement=one_statement)
    with pytest.raises(rm.InputError, match=message.format(1)):  # blank, within a group
        rm.evaluate(qrels, EMPTY_LISTS["blank_id_run"], ["P@2"], by=["model"], one_statement=one_statement)
    counted = pa.table({"query_id": ["u0", None, None, " "],
                        "item_id": pa.array([["a", "b"], [], ["x", "y"], None], _STRINGS)})
    with pytest.raises(rm.InputError, match=message.format(4)):
        rm.evaluate(qrels, counted, ["P@2"], one_statement=one_statement)
    ints = pa.table({"query_id": pa.array([0, None], pa.int64()),
                     "item_id": pa.array([[1, 2], []], pa.list_(pa.int64()))})
    with pytest.raises(rm.InputError, match=message.format(1)):  # a list of numbers: the same
        rm.evaluate(pa.table({"query_id": [0], "item_id": [1], "relevance": [1]}), ints, ["P@2"],
                    one_statement=one_statement)
    if one_statement:  # compare, and the command line on Parquet files: one line, exit 1, no traceback
        with pytest.raises(rm.InputError, match=message.format(1)):
            rm.compare(qrels, [EMPTY_LISTS["no_id_run"], EMPTY_LISTS["empty_run"]], ["P@2"])
        pq.write_table(EMPTY_LISTS["no_id_run"], tmp_path / "run.parquet")
        pq.write_table(qrels, tmp_path / "qrels.parquet")
        p = cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "P@2", check=False)
        assert p.returncode == 1 and p.stderr == (f"rankmetrics: error: {tmp_path / 'run.parquet'}: 1 row(s) with "
                                                  f"an empty or NULL query_id in the run\n")


@pytest.mark.parametrize("one_statement", [True, False])
def test_python_a_run_whose_every_list_is_empty_retrieved_nothing(one_statement, tmp_path):
    """evaluate(), compare() and the command line on a run of lists whose every list is empty (NULL or []): a
    run of queries that retrieved nothing, ALL_EMPTY_EXPECTED's numbers (pytrec_eval run on it; MLlib by hand),
    its queries counted in the summary; it was refused ("the run has no item: every item list is empty"). A run
    of lists without rows is still an empty run."""
    import json
    import pyarrow.parquet as pq
    from conftest import cli
    qrels = EMPTY_LISTS["empty_qrels"]
    nulls = EMPTY_LISTS["all_empty_run"].set_column(1, "item_id", pa.array([[], None, None], _STRINGS))
    for run in (EMPTY_LISTS["all_empty_run"], nulls):
        for case, (measures, kw, per_query) in ALL_EMPTY_CASES.items():
            rows, path, summary = _evaluated(qrels, run, measures, one_statement, **kw)
            assert path == ("one statement" if one_statement else "careful")
            check_empty([r for r in rows if per_query or r[1] is None], ALL_EMPTY_EXPECTED[case], f"python {case}")
            assert summary == {"run_queries": 3, "judged_queries": 3, "common_queries": 2, "judged_not_in_run": 1,
                               "run_not_judged": 1}
    with pytest.raises(rm.InputError, match=r"^pyarrow Table: the run has no rows$"):
        rm.evaluate(qrels, EMPTY_LISTS["all_empty_run"].slice(0, 0), ["P@2"], one_statement=one_statement)
    if one_statement:  # compare, and the command line on Parquet files
        rows = rm.compare(qrels, [EMPTY_LISTS["all_empty_run"], EMPTY_LISTS["empty_run"]], ["P@2"])
        # empty_run: u0 retrieves a (relevant) then b, P@2 1/2; u1 retrieves nothing, 0 (EMPTY_EXPECTED's)
        assert [(r["queries"], r["mean"]) for r in rows] == [
            (2, ALL_EMPTY_EXPECTED["both"][("P@2", None)]), (2, EMPTY_EXPECTED["both"][("P@2", None)])]
        pq.write_table(EMPTY_LISTS["all_empty_run"], tmp_path / "run.parquet")
        pq.write_table(qrels, tmp_path / "qrels.parquet")
        out = json.loads(cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"),
                             *[a for m in EMPTY_MEASURES for a in ("-m", m)], "-q", "--format", "json").stdout)
        check_empty([(r["measure"], None if r["aggregate"] else r["query_id"], r["value"]) for r in out],
                    ALL_EMPTY_EXPECTED["both"], "cli")


def test_sql_list_positions_read_as_ranks_from_one(engine):
    """A list's item at position i ranks i, read as the score -i as a rank column is: Spark's POSEXPLODE counts
    from 0, and its first item's score -0.0 (not below 0) moved it in Compat's ideal ranking (0.73 where
    ir_measures gives 0.41). The reference: ir_measures' compat provider on the run with scores -1, -2, -3 (b,
    relevant, first: the item the sign moved before d, of its grade and not retrieved)."""
    e, names = engine
    if e.dialect in NO_LISTS:
        return  # test_sql_lists: refused with 'has no list'
    import ir_measures
    qrels = [ir_measures.Qrel("u", "b", 2), ir_measures.Qrel("u", "c", 1), ir_measures.Qrel("u", "d", 2)]
    for p in (0.5, 0.8):
        measure = ir_measures.parse_measure(f"Compat(p={p})")
        run = [ir_measures.ScoredDoc("u", item, -float(i + 1)) for i, item in enumerate("bac")]
        want = ir_measures.compat.calc_aggregate([measure], qrels, run)[measure]
        sql = rm.to_sql([f"Compat(p={p})"], dialect=e.dialect, run=names["run_bac"], judgments=names["bcd_grades"],
                        columns={"relevance": "grades"}, run_lists=True, judgment_lists=True)
        assert [float(r[-1]) for r in e.rows(sql)] == [pytest.approx(want, abs=1e-12)], p


def test_sql_column_names_that_are_keywords(engine):
    """Columns named select, order, index, values and a group column named group: SQLite refused the SQL (`near
    "select": syntax error`; sqlglot leaves such names bare for SQLite, and SQLite takes no keyword even after a
    table's alias). By hand: model m ranks a (1.0) above b (0.5), b relevant: P@2 = 1 / 2, P@1 = 0."""
    e, _ = engine
    key = ("keyword_tables", e.dialect)
    if key not in KEYWORD_TABLES:
        KEYWORD_TABLES[key] = (
            e.load("wh_kw_run", pa.table({"group": ["m", "m"], "select": ["q1", "q1"], "order": ["a", "b"],
                                          "index": [1.0, 0.5]})),
            e.load("wh_kw_judged", pa.table({"select": ["q1"], "order": ["b"], "values": pa.array([1], pa.int64())})))
    run, judged = KEYWORD_TABLES[key]
    sql = rm.to_sql(["P@2", "P@1"], dialect=e.dialect, run=run, judgments=judged, by=["group"], judgments_by=[],
                    columns={"query_id": "select", "item_id": "order", "score": "index", "relevance": "values"})
    got = {r[0]: float(r[-1]) for r in e.rows(sql)}
    assert got == {"P@2": 0.5, "P@1": 0.0}


KEYWORD_TABLES = {}


def test_sql_groups_and_column_names(engine):
    e, names = engine
    sql = rm.to_sql(list(MEASURES), dialect=e.dialect, run=names["recs"], judgments=names["labels"],
                    per_query=True, columns=COLUMNS, by=BY, judgments_by=[])
    check(e.rows(sql), EXPECTED, f"{e.dialect} sql")
    sql = rm.to_sql(list(MEASURES), dialect=e.dialect, run=names["recs"], judgments=names["seg_labels"],
                    per_query=True, columns=COLUMNS, by=BY, judgments_by=["segment"])
    check(e.rows(sql), EXPECTED_SEGMENT, f"{e.dialect} sql, labels per segment")


def test_sql_lists(engine):
    e, names = engine
    columns = {"query_id": "user_id", "item_id": "items", "relevance": "grades"}
    if e.dialect in NO_LISTS:
        with pytest.raises(UsageError, match=f"{e.dialect} has no list"):
            rm.to_sql(list(MEASURES), dialect=e.dialect, run=names["recs"], judgments=names["labels"],
                      columns=columns, by=BY, judgments_by=[], run_lists=True)
        return
    sql = rm.to_sql(list(MEASURES), dialect=e.dialect, run=names["lrecs"], judgments=names["llabels"],
                    per_query=True, columns=columns, by=BY, judgments_by=[], run_lists=True, judgment_lists=True)
    check(e.rows(sql), EXPECTED, f"{e.dialect} sql, lists")
    sql = rm.to_sql(list(MEASURES), dialect=e.dialect, run=names["lrecs"], judgments=names["lseg_labels"],
                    per_query=True, columns=columns, by=BY, judgments_by=["segment"], run_lists=True,
                    judgment_lists=True)
    check(e.rows(sql), EXPECTED_SEGMENT, f"{e.dialect} sql, lists per segment")


def test_native_functions_on_postgres():
    e = engines.start("postgres")
    try:
        recs, labels = e.load("n_recs", recs_table()), e.load("n_labels", labels_table())
        e.con.execute("CREATE SCHEMA rmf")
        e.con.execute(native.script("postgres", run=recs, judgments=labels, schema="rmf",
                                    form=Shape(columns=COLUMNS, by=BY)))
        calls = {"nDCG@10": "rmf.rm_ndcg(10)", "AP": "rmf.rm_ap()", "P@5": "rmf.rm_precision(5)",
                 "RR": "rmf.rm_rr()", "R@10": "rmf.rm_recall(10)"}
        rows = []
        for measure, call in calls.items():
            for model, segment, qid, value in e.rows(f"SELECT model_version, segment, query_id, value FROM {call}"):
                rows.append((measure, model, segment, qid, value))
            rows += [(measure, m, s, None, v) for m, s, v in e.rows(
                f"SELECT model_version, segment, avg(value) FROM {call} GROUP BY 1, 2")]
        check(rows, EXPECTED, "postgres functions")
    finally:
        e.close()


def test_sql_groups_must_say_which_group_columns_the_judgments_have():
    """The SQL cannot see the judgments table: with by, it must be told which group columns the judgments have
    (judgments_by, --judgments-by) or that they have none (judgments_by=[], --shared-judgments). Left unsaid, the
    judgments were read as shared: labels per day (day 1 judges a, day 2 judges b) gave day 2, which ranks a then b,
    P@1 1 (a judged on day 1), where its own labels give 0 and AP 1/2 (b relevant at rank 2), as eval gives."""
    import duckdb
    from conftest import cli
    con = duckdb.connect()
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES (1, 'u', 'a', 2.0), (1, 'u', 'b', 1.0), (2, 'u', 'a', 2.0), "
                "(2, 'u', 'b', 1.0)) AS t(ds, query_id, item_id, score)")
    con.execute("CREATE TABLE labels AS SELECT * FROM (VALUES (1, 'u', 'a', 1), (2, 'u', 'b', 1)) "
                "AS t(ds, query_id, item_id, relevance)")
    con.execute("CREATE TABLE shared AS SELECT * FROM (VALUES ('u', 'b', 1)) AS t(query_id, item_id, relevance)")
    with pytest.raises(UsageError, match=r"by: say which of the group columns the judgments table has too"):
        rm.to_sql(["P@1", "AP"], run="run", judgments="labels", by=["ds"])
    p = cli("sql", "--run", "run", "--judgments", "labels", "--by", "ds", check=False)
    assert p.returncode == 2 and "--shared-judgments" in p.stderr and p.stdout == ""
    p = cli("macros", "--dialect", "postgres", "--run", "run", "--judgments", "labels", "--by", "ds", check=False)
    assert p.returncode == 2 and "say which of the group columns" in p.stderr
    want = {(1,): {"P@1": 1.0, "AP": 1.0}, (2,): {"P@1": 0.0, "AP": 0.5}}
    assert rm.evaluate(con.table("labels"), con.table("run"), ["P@1", "AP"], by=["ds"]) == want
    sql = rm.to_sql(["P@1", "AP"], run="run", judgments="labels", by=["ds"], judgments_by=["ds"])
    assert {(r[1], r[0]): r[-1] for r in con.execute(sql).fetchall()} == {
        (d, m): v for (d,), values in want.items() for m, v in values.items()}
    # shared judgments (b relevant for both days, a unjudged): P@1 0, AP 1/2 each day
    sql = rm.to_sql(["P@1", "AP"], run="run", judgments="shared", by=["ds"], judgments_by=[])
    assert sorted((r[1], r[0], r[-1]) for r in con.execute(sql).fetchall()) == [
        (1, "AP", 0.5), (1, "P@1", 0.0), (2, "AP", 0.5), (2, "P@1", 0.0)]
    p = cli("sql", "-m", "P@1", "--run", "run", "--judgments", "shared", "--by", "ds", "--shared-judgments")
    assert sorted((r[1], r[-1]) for r in con.execute(p.stdout).fetchall()) == [(1, 0.0), (2, 0.0)]
    p = cli("sql", "--run", "run", "--judgments", "labels", "--by", "ds", "--shared-judgments", "--judgments-by", "ds",
            check=False)
    assert p.returncode == 2 and "contradicts --judgments-by ds" in p.stderr


def test_shape_options_are_checked():
    with pytest.raises(UsageError, match="unknown key"):
        rm.to_sql(["AP"], run="r", judgments="j", columns={"user": "user_id"})
    with pytest.raises(UsageError, match="judgments_by: ds is not a group column"):
        rm.to_sql(["AP"], run="r", judgments="j", by=["model"], judgments_by=["ds"])
    with pytest.raises(UsageError, match="one of the run's id"):
        rm.to_sql(["AP"], run="r", judgments="j", columns={"query_id": "user_id"}, by=["user_id"])


@pytest.mark.parametrize("group", ["value", "measure", "Aggregate", "query_id"])
def test_a_group_named_like_a_column_of_the_results_is_refused(tmp_path, group):
    # found by a differential run of the routes: by=['value'] gave JSON rows whose "value" was the metric's (the
    # group lost) and by=['measure'] rows whose "measure" was the group's value; the DuckDB macros named the
    # group `value` and the metric `value_1`
    import pyarrow.parquet as pq
    from conftest import cli
    from rankmetrics_duckdb import shape
    judgments = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    run = pa.table({group: ["v1", "v1"], "user": ["q1", "q1"], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    columns = {"query_id": "user"}
    want = f"by: a group column named '{group}' would clash with the results' own columns"
    with pytest.raises(UsageError, match=want):
        rm.evaluate(judgments, run, ["P@1"], by=[group], columns=columns)
    with pytest.raises(UsageError, match=want):
        rm.to_sql(["P@1"], run="r", judgments="j", by=[group], columns=columns)
    pq.write_table(run, tmp_path / "run.parquet")
    pq.write_table(judgments, tmp_path / "qrels.parquet")
    p = cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "P@1", "--by", group,
            "--query-column", "user", "--format", "json", check=False)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and want in p.stderr
    assert set(shape.OUTPUT_COLUMNS) == {"measure", "query_id", "value", "aggregate"}
    if group == "value":  # the macros bind this one (DuckDB renamed the metric's column) and refuse it
        con = duckdb.connect()
        con.execute(rm.macros_sql())
        con.register("r", run.rename_columns([group, "query_id", "item_id", "score"]))
        con.register("j", judgments)
        with pytest.raises(duckdb.Error, match="a group column named value would clash"):
            con.execute("SELECT * FROM ndcg('r', 'j', 1, \"by\" := ['value'])").fetchall()


# --- Python and the command line --------------------------------------------------------------------------------

def _per_query_rows(result, measures):
    """evaluate(..., by=, per_query=True) and the means as rows (measure, model, segment, query, value)."""
    rows = []
    for (model, segment), per_measure in result.items():
        for m in measures:
            rows += [(m, model, segment, q, v) for q, v in per_measure[m].items()]
    return rows


@pytest.mark.parametrize("form", ["arrow", "parquet", "csv", "table", "lists"])
def test_python_groups_columns_and_lists(form, tmp_path, duck):
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq
    measures = list(MEASURES)
    columns = dict(COLUMNS)
    run, judgments, con = recs_table(), labels_table(), None
    if form == "parquet":
        pq.write_table(run, tmp_path / "recs.parquet")
        pq.write_table(judgments, tmp_path / "labels.parquet")
        run, judgments = str(tmp_path / "recs.parquet"), str(tmp_path / "labels.parquet")
    elif form == "csv":
        pcsv.write_csv(run, tmp_path / "recs.csv")
        pcsv.write_csv(judgments, tmp_path / "labels.csv")
        run, judgments = str(tmp_path / "recs.csv"), str(tmp_path / "labels.csv")
    elif form == "table":
        run, judgments, con = "recs", "labels", duck
    elif form == "lists":
        run, judgments = list_tables()
        columns = {"query_id": "user_id", "item_id": "items", "relevance": "grades"}
    per_query = rm.evaluate(judgments, run, measures, columns=columns, by=BY, per_query=True, con=con)
    means = rm.evaluate(judgments, run, measures, columns=columns, by=BY, con=con)
    rows = _per_query_rows(per_query, measures)
    rows += [(m, model, segment, None, v) for (model, segment), d in means.items() for m, v in d.items()]
    check(rows, EXPECTED, f"python {form}")
    # clean shaped inputs are read, checked and evaluated in one statement (onepass), with the careful path's
    # rows bit for bit (the numbers above are pytrec_eval's)
    _one_statement_as_careful(judgments, run, measures, columns=columns, by=BY, con=con)


def _one_statement_as_careful(judgments, run, measures, **kw):
    """Evaluation(...) takes the one statement, and its rows equal the careful path's (one_statement=False)."""
    got = {}
    for one in (True, False):
        ev = rm.Evaluation(judgments, run, measures, one_statement=one, **kw)
        try:
            got[one] = (ev.path, ev.rows())
        finally:
            ev.close()
    assert got[True][0] == "one statement" and got[False][0] == "careful"
    assert got[True][1] == got[False][1] and len(got[True][1]) > 0


def test_python_labels_per_segment():
    per_query = rm.evaluate(labels_table(per_segment=True), recs_table(), list(MEASURES), columns=COLUMNS, by=BY,
                            per_query=True)
    means = rm.evaluate(labels_table(per_segment=True), recs_table(), list(MEASURES), columns=COLUMNS, by=BY)
    rows = _per_query_rows(per_query, list(MEASURES))
    rows += [(m, model, segment, None, v) for (model, segment), d in means.items() for m, v in d.items()]
    check(rows, EXPECTED_SEGMENT, "python, labels per segment")
    _one_statement_as_careful(labels_table(per_segment=True), recs_table(), list(MEASURES), columns=COLUMNS, by=BY)


def test_python_rows_carry_group_columns_in_their_types():
    con = duckdb.connect()
    con.register("recs", recs_table())
    # a BIGINT group column (a day) keeps its type; the rows are (measure, ds, query_id, value)
    run = con.sql("SELECT 20261123 + CAST(model_version = 'v2' AS BIGINT) AS ds, user_id, movie_id, pred FROM recs "
                  "WHERE segment = 'app' AND model_version IN ('v1', 'v2')")
    ev = rm.Evaluation(labels_table(), run, ["P@5"], columns=COLUMNS, by=["ds"])
    try:
        table = ev.to_arrow()
    finally:
        ev.close()
    assert table.column_names == ["measure", "ds", "query_id", "value"]
    assert table.schema.field("ds").type == pa.int64()
    assert sorted(set(table.column("ds").to_pylist())) == [20261123, 20261124]
    means = {r["ds"]: r["value"] for r in table.to_pylist() if r["query_id"] is None}
    assert means[20261123] == pytest.approx(EXPECTED[("v1", "app")]["P@5"][None], abs=1e-9)
    assert means[20261124] == pytest.approx(EXPECTED[("v2", "app")]["P@5"][None], abs=1e-9)


def test_python_shape_errors_name_the_column():
    with pytest.raises(rm.InputError, match="no column uid .the query id column. in the run or the judgments"):
        rm.evaluate(labels_table(), recs_table(), ["P@5"], columns=dict(COLUMNS, query_id="uid"), by=BY)
    with pytest.raises(rm.InputError, match="no group column ds in the run"):
        rm.evaluate(labels_table(), recs_table(), ["P@5"], columns=COLUMNS, by=["ds"])


def test_python_duplicate_within_a_group_names_it():
    # grouped by model only, the two segments repeat items of a user: a duplicate within the group
    with pytest.raises(rm.InputError, match=r"appears 2 times for query \d+ \(model_version v1\) in the run"):
        rm.evaluate(labels_table(), recs_table(), ["AP"], columns=COLUMNS, by=["model_version"])


def test_python_shaped_faults_take_the_careful_path():
    """What the one statement counts in a shaped input (a NaN score, a missing id, judgments twice with other
    grades) sends it to the careful path, whose message names the row."""
    run = recs_table()
    scores = run.column("pred").to_pylist()
    nan = run.set_column(4, "pred", pa.array([float("nan")] + scores[1:]))
    with pytest.raises(rm.InputError, match=rf"score (nan|NaN) for query {RECS[0][2]}, item {RECS[0][3]}"):
        rm.evaluate(labels_table(), nan, ["AP"], columns=COLUMNS, by=BY)
    users = run.column("user_id").to_pylist()
    blank = run.set_column(2, "user_id", pa.array([None] + users[1:], pa.int64()))
    with pytest.raises(rm.InputError, match="1 row\\(s\\) with an empty or NULL query_id in the run"):
        rm.evaluate(labels_table(), blank, ["AP"], columns=COLUMNS, by=BY)
    labels = labels_table()
    twice = pa.concat_tables([labels, labels.slice(0, 1).set_column(
        2, "rating", pa.array([LABELS[0][2] + 1], labels.schema.field("rating").type))])
    with pytest.raises(rm.InputError, match=f"item {LABELS[0][1]} of query {LABELS[0][0]} is judged twice"):
        rm.evaluate(twice, run, ["AP"], columns=COLUMNS, by=BY)


def _cli_rows(args, tmp_path):
    from conftest import cli
    import json
    out = json.loads(cli("eval", *args, "-q", "--format", "json").stdout)
    return [(r["measure"], r["model_version"], r["segment"], None if r["aggregate"] else r["query_id"], r["value"])
            for r in out]


def test_cli_eval_groups_and_columns(tmp_path):
    import pyarrow.parquet as pq
    pq.write_table(recs_table(), tmp_path / "recs.parquet")
    pq.write_table(labels_table(per_segment=True), tmp_path / "labels.parquet")
    lrecs, _ = list_tables()  # its list of items under the labels' name for items (one name serves both)
    pq.write_table(lrecs.rename_columns(["model_version", "segment", "user_id", "movie_id"]),
                   tmp_path / "lrecs.parquet")
    args = [str(tmp_path / "labels.parquet"), str(tmp_path / "recs.parquet"), "--query-column", "user_id",
            "--item-column", "movie_id", "--score-column", "pred", "--relevance-column", "rating",
            "--by", "model_version", "--by", "segment", *[a for m in MEASURES for a in ("-m", m)]]
    check(_cli_rows(args, tmp_path), EXPECTED_SEGMENT, "cli")
    # the list form of the run against the long labels: the same numbers
    args[1] = str(tmp_path / "lrecs.parquet")
    check(_cli_rows(args, tmp_path), EXPECTED_SEGMENT, "cli, run as lists")


def test_cli_eval_equals_eval_of_each_slice_as_trec_files(tmp_path):
    """The acceptance's own check: each group's slice written as TREC files and evaluated alone."""
    import json
    import pyarrow.parquet as pq
    from conftest import cli
    pq.write_table(recs_table(), tmp_path / "recs.parquet")
    pq.write_table(labels_table(), tmp_path / "labels.parquet")
    grouped = json.loads(cli("eval", str(tmp_path / "labels.parquet"), str(tmp_path / "recs.parquet"),
                             "--item-column", "movie_id", "--relevance-column", "rating", "--by", "model_version",
                             "--by", "segment", "-m", "nDCG@10", "-m", "AP", "-q", "--format", "json").stdout)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{u} 0 {m} {r}\n" for u, m, r in LABELS))
    for model, segment in itertools.product(MODELS, SEGMENTS):
        run = tmp_path / f"run_{model}_{segment}.txt"
        run.write_text("".join(f"{u} Q0 {m} 0 {s!r} x\n" for mv, sg, u, m, s in RECS if (mv, sg) == (model, segment)))
        alone = json.loads(cli("eval", str(qrels), str(run), "-m", "nDCG@10", "-m", "AP", "-q", "--format",
                               "json").stdout)
        want = {(r["measure"], r["query_id"], r["aggregate"]): r["value"] for r in alone}
        got = {(r["measure"], r["query_id"], r["aggregate"]): r["value"] for r in grouped
               if (r["model_version"], r["segment"]) == (model, segment)}
        assert got.keys() == want.keys()
        for k, v in want.items():
            assert got[k] == pytest.approx(v, abs=1e-9), (model, segment, k)


def test_cli_compare_by_groups(tmp_path):
    import json
    import pyarrow.parquet as pq
    from scipy import stats as scipy_stats
    from conftest import cli
    pq.write_table(recs_table(), tmp_path / "recs.parquet")
    pq.write_table(labels_table(), tmp_path / "labels.parquet")
    out = json.loads(cli("compare", str(tmp_path / "labels.parquet"), str(tmp_path / "recs.parquet"),
                         "--item-column", "movie_id", "--relevance-column", "rating", "--by", "model_version",
                         "--by", "segment", "--baseline", "v2/web", "-m", "AP", "--correction", "none",
                         "--format", "json").stdout)
    assert [r["run"] for r in out] == ["v2/web", "v1/app", "v1/web", "v2/app", "v3/app", "v3/web"]
    base = EXPECTED[("v2", "web")]["AP"]
    for r in out:
        model, segment = r["run"].split("/")
        mine = EXPECTED[(model, segment)]["AP"]
        assert r["mean"] == pytest.approx(mine[None], abs=1e-9)
        if r["run"] != "v2/web":
            queries = sorted(q for q in mine if q is not None)
            t = scipy_stats.ttest_rel([mine[q] for q in queries], [base[q] for q in queries])
            assert r["delta"] == pytest.approx(mine[None] - base[None], abs=1e-9)
            assert r["p_value"] == pytest.approx(t.pvalue, rel=1e-9)


def test_mixed_case_quoted_table_in_a_schema_on_postgres():
    """--run 'analytics."RecsV2"' (a mixed-case table in a schema, a mixed-case column "Pred"): rankmetrics sql
    and the native functions read it, with the numbers of pytrec_eval on the slice."""
    from conftest import cli
    e = engines.start("postgres")
    try:
        e.load("labels_src", labels_table())
        e.load("recs_src", recs_table())
        e.con.execute('CREATE SCHEMA analytics')
        e.con.execute('CREATE TABLE analytics."RecsV2" AS SELECT model_version, segment, user_id, movie_id, '
                      'pred AS "Pred" FROM rm.recs_src WHERE segment = \'app\'')
        e.con.execute('CREATE TABLE analytics."Labels" AS SELECT * FROM rm.labels_src')
        args = ["sql", "--dialect", "postgres", "--run", 'analytics."RecsV2"', "--judgments", 'analytics."Labels"',
                "--query-column", "user_id", "--item-column", "movie_id", "--score-column", "Pred",
                "--relevance-column", "rating", "--by", "model_version", "--shared-judgments", "-m", "AP", "-q"]
        rows = e.rows(cli(*args).stdout)
        got = {(m, str(q) if q is not None else None): float(v) for m, q, v in
               ((r[1], r[2], r[3]) for r in rows if r[0] == "AP")}
        for model in MODELS:
            for q, v in EXPECTED[(model, "app")]["AP"].items():
                assert got[(model, q)] == pytest.approx(v, abs=1e-9), (model, q)
        e.con.execute("CREATE SCHEMA rmq")
        e.con.execute(native.script("postgres", run='analytics."RecsV2"', judgments='analytics."Labels"',
                                    schema="rmq", form=Shape(columns=dict(COLUMNS, score="Pred"), by=["model_version"])))
        means = dict(e.rows("SELECT model_version, avg(value) FROM rmq.rm_ap() GROUP BY 1"))
        for model in MODELS:
            assert means[model] == pytest.approx(EXPECTED[(model, "app")]["AP"][None], abs=1e-9)
    finally:
        e.close()


def test_python_grouped_rows_in_order():
    """Evaluation.rows() with groups: per measure as requested, then the groups in sort order (NULL first), each
    group's queries byte-wise (UTF-8), its mean last. P@2 by hand: query 'Z' has d1 relevant of its top 2 (0.5),
    'a' has both (1.0), 'é' none (0.0); RR: 1, 1, 0 for the top row's grade in each (d1, d3, d5)."""
    judgments = pa.table({"query_id": ["Z", "a", "a", "é"], "item_id": ["d1", "d3", "d4", "d9"],
                          "relevance": [1, 1, 1, 1]})
    rows = [(g, q, d, s) for g in (None, "b", "a") for q, d, s in
            (("é", "d5", 0.9), ("é", "d6", 0.8), ("a", "d3", 0.9), ("a", "d4", 0.8), ("Z", "d1", 0.9), ("Z", "d2", 0.8))]
    run = pa.table({"model": [r[0] for r in rows], "query_id": [r[1] for r in rows], "item_id": [r[2] for r in rows],
                    "score": [r[3] for r in rows]})
    per_query = {"P@2": {"Z": 0.5, "a": 1.0, "é": 0.0}, "RR": {"Z": 1.0, "a": 1.0, "é": 0.0}}
    want = []
    for measure in ("P@2", "RR"):
        for group in (None, "a", "b"):
            want += [(measure, group, q, per_query[measure][q]) for q in ("Z", "a", "é")]
            want.append((measure, group, None, sum(per_query[measure].values()) / 3))
    for one in (True, False):
        ev = rm.Evaluation(judgments, run, ["P@2", "RR"], by=["model"], one_statement=one)
        try:
            got = ev.rows()
        finally:
            ev.close()
        assert [r[:3] for r in got] == [r[:3] for r in want]
        assert [r[3] for r in got] == pytest.approx([r[3] for r in want], abs=1e-12)


def test_sql_judgment_lists_read_the_grades_list_named_relevance(tmp_path):
    """Judgments as lists with their grades in a parallel list whose column is named relevance, our own name: the
    SQL reads it whether named (columns={'relevance': 'relevance'}, --relevance-column relevance) or not, as eval
    and the dbt package read it (without the name the SQL gave every listed item grade 1, with a note: a silent
    1.0). One query, run a, b, c (scores 3, 2, 1), judged [a, b, c] with grades [0, 2, 1]: DCG@3 = 0 + 2/log2(3)
    + 1/2, ideal 2 + 1/log2(3); with every grade 1 the run is ideal (1.0), which --judgment-lists ones asks for
    (MLlib's label arrays). A table without the relevance list fails in the engine, naming the column."""
    import duckdb
    from conftest import cli
    want = (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))
    con = duckdb.connect()
    con.execute("CREATE TABLE recs AS SELECT * FROM (VALUES ('u', 'a', 3.0), ('u', 'b', 2.0), ('u', 'c', 1.0)) "
                "AS t(user_id, item_id, score)")
    con.execute("CREATE TABLE labels AS SELECT 'u' AS user_id, ['a', 'b', 'c'] AS item_id, [0, 2, 1] AS relevance")
    con.execute("CREATE TABLE ones AS SELECT 'u' AS user_id, ['a', 'b', 'c'] AS item_id")
    for columns in ({"query_id": "user_id", "relevance": "relevance"}, {"query_id": "user_id"}):
        sql = rm.to_sql(["nDCG@3"], dialect="duckdb", run="recs", judgments="labels", columns=columns,
                        judgment_lists=True)
        assert con.execute(sql).fetchall() == [("nDCG@3", None, pytest.approx(want, abs=1e-12))]
    for named in (["--relevance-column", "relevance"], []):
        p = cli("sql", "-m", "nDCG@3", "--run", "recs", "--judgments", "labels", "--query-column", "user_id",
                *named, "--judgment-lists")
        assert con.execute(p.stdout).fetchall() == [("nDCG@3", None, pytest.approx(want, abs=1e-12))]
        assert p.stderr == ""
    # no grades: each listed item grade 1, the run ideal
    p = cli("sql", "-m", "nDCG@3", "--run", "recs", "--judgments", "ones", "--query-column", "user_id",
            "--judgment-lists", "ones")
    assert con.execute(p.stdout).fetchall() == [("nDCG@3", None, pytest.approx(1.0, abs=1e-12))]
    sql = rm.to_sql(["nDCG@3"], run="recs", judgments="ones", columns={"query_id": "user_id"}, judgment_lists="ones")
    assert con.execute(sql).fetchall() == [("nDCG@3", None, pytest.approx(1.0, abs=1e-12))]
    with pytest.raises(duckdb.BinderException, match="relevance"):
        con.execute(rm.to_sql(["nDCG@3"], run="recs", judgments="ones", columns={"query_id": "user_id"},
                              judgment_lists=True))
    with pytest.raises(UsageError, match="judgment_lists='ones' gives each listed item grade 1, and columns names a "
                                         "relevance column"):
        rm.to_sql(["nDCG@3"], run="recs", judgments="ones", columns={"relevance": "g"}, judgment_lists="ones")
    with pytest.raises(UsageError, match="judgment_lists must be True, False or 'ones', not 'yes'"):
        rm.to_sql(["nDCG@3"], run="recs", judgments="ones", judgment_lists="yes")
    p = cli("sql", "--run", "recs", "--judgments", "ones", "--judgment-lists", "twos", check=False)
    assert p.returncode == 2 and "invalid choice: 'twos'" in p.stderr
    # the DuckDB macros see the table: the relevance list when there is one, relevance_column := NULL for none
    rm.register(con)
    macro = "SELECT value FROM ndcg('recs', '{}', 3, query_column := 'user_id', judgment_lists := true{})"
    assert con.execute(macro.format("labels", "")).fetchall() == [(pytest.approx(want, abs=1e-12),)]
    for table, extra in (("labels", ", relevance_column := NULL"), ("ones", "")):
        assert con.execute(macro.format(table, extra)).fetchall() == [(pytest.approx(1.0, abs=1e-12),)]
    judged = pa.table({"user_id": ["u"], "item_id": [["a", "b", "c"]], "relevance": [[0, 2, 1]]})
    ran = con.sql("SELECT * FROM recs").to_arrow_table()
    for columns in ({"query_id": "user_id", "relevance": "relevance"}, {"query_id": "user_id"}):
        assert rm.evaluate(judged, ran, ["nDCG@3"], columns=columns)["nDCG@3"] == pytest.approx(want, abs=1e-12)


def test_group_column_types_across_the_run_and_the_judgments(tmp_path):
    """A group column both sides have: numbers of other widths match as numbers (int32 against int64: segment 1
    holds user 1's movie 10, relevant and ranked first, AP 1; segment 2 ranks movie 10 and judges movie 11,
    AP 0); text against numbers is refused in one line naming the column, both types and both inputs (a cast
    decided the match, or failed with DuckDB's conversion error naming an internal column); a struct or list
    group column is refused too (its rows could not be put in order)."""
    import pyarrow.parquet as pq
    from conftest import cli
    cols = {"query_id": "user_id", "item_id": "movie_id", "score": "pred", "relevance": "rating"}
    run = pa.table({"segment": pa.array([1, 1, 2], pa.int32()), "user_id": [1, 1, 1], "movie_id": [10, 11, 10],
                    "pred": [1.0, 0.5, 0.2]})
    labels = pa.table({"segment": pa.array([1, 2], pa.int64()), "user_id": [1, 1], "movie_id": [10, 11],
                       "rating": [1, 1]})
    assert rm.evaluate(labels, run, ["AP"], columns=cols, by=["segment"]) == {(1,): {"AP": 1.0}, (2,): {"AP": 0.0}}
    text_run = run.set_column(0, "segment", pa.array(["1", "1", "2"]))
    with pytest.raises(rm.InputError, match=r"^group column segment: VARCHAR in the run \(pyarrow Table\), BIGINT "
                                            r"in the judgments \(pyarrow Table\); give it one type on both sides"):
        rm.evaluate(labels, text_run, ["AP"], columns=cols, by=["segment"])
    pq.write_table(text_run, tmp_path / "run.parquet")
    pq.write_table(labels, tmp_path / "labels.parquet")
    p = cli("eval", str(tmp_path / "labels.parquet"), str(tmp_path / "run.parquet"), "-m", "AP", "--query-column",
            "user_id", "--item-column", "movie_id", "--score-column", "pred", "--relevance-column", "rating",
            "--by", "segment", check=False)
    assert p.returncode == 1 and p.stdout == "" and len(p.stderr.splitlines()) == 1
    assert p.stderr.startswith(f"rankmetrics: error: group column segment: VARCHAR in the run ({tmp_path / 'run.parquet'})")
    nested = run.set_column(0, "segment", pa.array([{"x": 1}, {"x": 1}, {"x": 2}]))
    with pytest.raises(rm.InputError, match="group column segment is a STRUCT: group by columns of single values"):
        rm.evaluate(labels.drop_columns(["segment"]), nested, ["AP"], columns=cols, by=["segment"])
    # the DuckDB macros match the groups on their values as JSON (1 is not "1" nor 1.0): integers of other widths
    # give the same AP as above; text or a double against integers is refused as eval refuses text (the macros
    # returned no row)
    con = duckdb.connect()
    rm.register(con)
    tables = {"run": run, "labels": labels, "text_run": text_run,
              "double_labels": labels.set_column(0, "segment", pa.array([1.0, 2.0]))}
    for name, t in tables.items():
        con.register(name + "_in", t)
        con.execute(f"CREATE TABLE {name} AS FROM {name}_in")
    call = ("SELECT segment, value FROM ap('{}', '{}', \"by\" := ['segment'], query_column := 'user_id', "
            "item_column := 'movie_id', score_column := 'pred', relevance_column := 'rating') ORDER BY segment")
    assert con.execute(call.format("run", "labels")).fetchall() == [(1, 1.0), (2, 0.0)]
    for run_name, judged, types in (("text_run", "labels", "VARCHAR in the run, BIGINT"),
                                    ("run", "double_labels", "INTEGER in the run, DOUBLE")):
        with pytest.raises(duckdb.Error, match=f"group column segment: {types} in the judgments; give it one type "):
            con.execute(call.format(run_name, judged)).fetchall()


@pytest.mark.parametrize("form", ["arrow", "pandas", "polars", "parquet", "table", "relation"])
def test_python_lists_under_our_own_names_need_no_shape(form, tmp_path):
    """A run whose item_id column is a list (MLlib's and BigQuery ML's shape) and judgments whose item_id is a list
    with a parallel relevance list, under our own column names: evaluate() and compare() read them as lists
    without columns= or by= (they used to refuse the run: 'neither a score nor a rank column'). The numbers are
    pytrec_eval's on model v1, segment app (EXPECTED)."""
    import polars as pl
    import pyarrow.parquet as pq
    lrecs, llabels = list_tables()
    run = lrecs.filter(pa.compute.and_(pa.compute.equal(lrecs["model_version"], "v1"),
                                       pa.compute.equal(lrecs["segment"], "app")))
    run = pa.table({"query_id": run["user_id"], "item_id": run["items"]})
    judgments = pa.table({"query_id": llabels["user_id"], "item_id": llabels["items"],
                          "relevance": llabels["grades"]})
    con = None
    if form == "pandas":
        run, judgments = run.to_pandas(), judgments.to_pandas()
    elif form == "polars":
        run, judgments = pl.from_arrow(run), pl.from_arrow(judgments)
    elif form == "parquet":
        pq.write_table(run, tmp_path / "run.parquet")
        pq.write_table(judgments, tmp_path / "qrels.parquet")
        run, judgments = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    elif form in ("table", "relation"):
        con = duckdb.connect()
        con.register("run_in", run)
        con.register("qrels_in", judgments)
        con.execute("CREATE TABLE run AS FROM run_in; CREATE TABLE qrels AS FROM qrels_in")
        run, judgments = ("run", "qrels") if form == "table" else (con.table("run"), con.table("qrels"))
    want = EXPECTED[("v1", "app")]
    per_query = rm.evaluate(judgments, run, list(MEASURES), per_query=True, con=con)
    means = rm.evaluate(judgments, run, list(MEASURES), con=con)
    for m in MEASURES:
        assert per_query[m] == pytest.approx({q: v for q, v in want[m].items() if q is not None}, abs=1e-9), m
        assert means[m] == pytest.approx(want[m][None], abs=1e-9), m
    if form == "arrow":  # the graded judgments as a plain table, two runs of lists: compare reads them too
        rows = rm.compare(labels_table().rename_columns(["query_id", "item_id", "relevance"]), [run, run], ["AP"])
        assert [r["mean"] for r in rows] == pytest.approx([want["AP"][None]] * 2, abs=1e-9)
        assert rows[1]["delta"] == 0 and rows[1]["ties"] == len(USERS)


@pytest.mark.parametrize("one_statement", [True, False])
def test_a_group_whose_lists_are_all_empty_is_a_run_that_retrieved_nothing(one_statement, tmp_path):
    """Run lists with by: a model ('v0') whose every list is empty is a run of the table that retrieved nothing,
    and each of its users a query of that run (pytrec_eval evaluates a query whose ranking is empty: {user: {}}).
    Under queries 'judged' (trec_eval -c) and the default 'both' each judged query of it scores 0 on every measure
    (pytrec_eval, run in the test). evaluate() used to drop the group (its unnested rows have none), and then under
    'both' its queries (no 'R' row). The other models' numbers are pytrec_eval's (EXPECTED, segment app)."""
    from scipy import stats as scipy_stats
    lrecs, llabels = list_tables()
    app = lrecs.filter(pa.compute.equal(lrecs["segment"], "app"))
    empty = pa.table({"model_version": ["v0"] * 3, "user_id": pa.array(USERS[:3], pa.int64()),
                      "items": pa.array([[]] * 3, lrecs["items"].type)})
    run = pa.concat_tables([empty, app.select(["model_version", "user_id", "items"])])
    columns = {"query_id": "user_id", "item_id": "items", "relevance": "grades"}
    qrels = {}
    for u, movie, r in LABELS:
        qrels.setdefault(str(u), {})[str(movie)] = r
    nothing = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate({str(u): {} for u in USERS})
    judged = rm.evaluate(llabels, run, list(MEASURES), columns=columns, by=["model_version"], queries="judged",
                         per_query=True, one_statement=one_statement)
    assert set(judged) == {("v0",), *((m,) for m in MODELS)}
    for m in MEASURES:
        assert judged[("v0",)][m] == {str(u): nothing[str(u)][MEASURES[m]] for u in USERS} == {
            str(u): 0.0 for u in USERS}, m
        for model in MODELS:
            want = {q: v for q, v in EXPECTED[(model, "app")][m].items() if q is not None}
            assert judged[(model,)][m] == pytest.approx(want, abs=1e-9), (model, m)
    default = rm.evaluate(llabels, run, list(MEASURES), columns=columns, by=["model_version"], per_query=True,
                          one_statement=one_statement)
    assert set(default) == {("v0",), *((m,) for m in MODELS)}
    for m in MEASURES:  # its three users, in the run (empty lists) and judged
        assert default[("v0",)][m] == {str(u): nothing[str(u)][MEASURES[m]] for u in USERS[:3]}, m
    # the SQL of the same tables says the same
    con = duckdb.connect()
    con.register("run", run)
    con.register("labels", llabels)
    sql = rm.to_sql(list(MEASURES), run="run", judgments="labels", columns=columns, by=["model_version"],
                    judgments_by=[], run_lists=True, judgment_lists=True, queries="judged")
    means = {(measure, model): value for measure, model, _, value in con.sql(sql).fetchall()}
    assert {k: v for k, v in means.items() if k[1] == "v0"} == {(m, "v0"): 0.0 for m in MEASURES}
    # compare --by: the empty model is a run of its own, with three queries in common with the judgments (it used
    # to be refused for having none, or left out); AP against v1 over them, as scipy's paired t-test gives it
    import pyarrow.parquet as pq
    pq.write_table(run.filter(pa.compute.is_in(run["model_version"], pa.array(["v0", "v1"]))),
                   tmp_path / "run.parquet")
    with pytest.warns(UserWarning, match="v1 and the baseline v0 have values for 3 common queries of 12"):
        rows = rm.compare(llabels, str(tmp_path / "run.parquet"), ["AP"], columns=columns, by=["model_version"],
                          correction="none")
    assert [(r["run"], r["queries"]) for r in rows] == [("v0", 3), ("v1", 3)]
    v1 = [EXPECTED[("v1", "app")]["AP"][str(u)] for u in USERS[:3]]
    assert rows[0]["mean"] == 0.0 and rows[1]["mean"] == pytest.approx(EXPECTED[("v1", "app")]["AP"][None], abs=1e-9)
    assert rows[1]["p_value"] == pytest.approx(scipy_stats.ttest_rel(v1, [0.0] * 3).pvalue, rel=1e-9)


@pytest.mark.parametrize("nan_scores", ["error", "last"])  # the one statement, and the careful path
def test_no_query_in_common_within_a_group_is_refused(nan_scores):
    # found by a differential run of the routes: judgments whose group values match none of the run's ('V1' for
    # 'v1') made an empty result with no error, where the same inputs without groups are refused
    run = pa.table({"mv": ["v1", "v1"], "query_id": ["q1", "q1"], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    judgments = pa.table({"mv": ["V1", "V1"], "query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    with pytest.raises(rm.InputError, match=r"have no query in common within a group \(1 run queries, 1 judged "
                                            r"queries, by mv\).*'v1' is not 'V1'"):
        rm.evaluate(judgments, run, ["P@1"], by=["mv"], nan_scores=nan_scores)


@pytest.mark.parametrize("nan_scores", ["error", "last"])
def test_queries_of_a_group_are_counted_within_their_group(nan_scores):
    # the judgments have mv: (v1, q1) is judged and retrieved; (v3, q2) is judged, not retrieved; the run's (v1,
    # q1), (v2, q1), (v2, q2): 3 run queries, 2 judged, 1 in common; v2's rows have no judgments of their group
    nan = math.nan if nan_scores == "last" else 0.5
    run = pa.table({"mv": ["v1", "v1", "v2", "v2"], "query_id": ["q1", "q1", "q1", "q2"],
                    "item_id": ["a", "b", "a", "b"], "score": [nan, 1.0, 1.0, 2.0]})
    judgments = pa.table({"mv": ["v1", "v1", "v3"], "query_id": ["q1", "q1", "q2"], "item_id": ["a", "b", "b"],
                          "relevance": [1, 0, 1]})
    ev = rm.Evaluation(judgments, run, ["P@1"], by=["mv"], nan_scores=nan_scores)
    try:
        assert ev.summary == {"run_queries": 3, "judged_queries": 2, "common_queries": 1, "judged_not_in_run": 1,
                              "run_not_judged": 2}
        # v1, q1: b (1.0) above a (0.5, or NaN ranked last): P@1 = 0, the only query reported (queries 'both')
        assert ev.rows() == [("P@1", "v1", "q1", 0.0), ("P@1", "v1", None, 0.0)]
    finally:
        ev.close()
    # judgments without the group column serve every group: v2's q1 (a first, relevant) and q2 (b, relevant)
    got = rm.evaluate(judgments.drop(["mv"]), run, ["P@1"], by=["mv"], nan_scores=nan_scores, per_query=True)
    assert got == {("v1",): {"P@1": {"q1": 0.0}}, ("v2",): {"P@1": {"q1": 1.0, "q2": 1.0}}}


def test_lists_all_empty_are_named_as_such():
    # found by a differential run of the routes: "the judgments have no rows" for a table that has rows, all of
    # them empty lists (a run whose lists are all empty is a run that retrieved nothing:
    # test_python_a_run_whose_every_list_is_empty_retrieved_nothing)
    empty = pa.array([[], []], pa.list_(pa.string()))
    judgments = pa.table({"query_id": ["q1", "q2"], "item_id": empty})
    flat_run = pa.table({"query_id": ["q1"], "item_id": ["a"], "score": [1.0]})
    with pytest.raises(rm.InputError, match=r"^pyarrow Table: the judgments have no item: every item list is empty$"):
        rm.evaluate(judgments, flat_run, ["AP"])


def test_group_and_id_columns_named_like_our_columns():
    """A group column named score while the score is read from pred: both routes wrote r.pred for the group (one
    group per score value, AP 0.5 each, where the models m1 and m2 have AP 1 and 1/2). A query column named pos
    (one of the rank column's usual names) was also read as the rank: "rank 'q1' is not a number"."""
    import pyarrow as pa
    import rankmetrics_duckdb as rm
    judgments = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    run = pa.table({"score": ["m1", "m1", "m2", "m2"], "query_id": ["q1"] * 4, "item_id": ["a", "b", "a", "b"],
                    "pred": [2.0, 1.0, 1.0, 2.0]})
    words = "by: score is one of the run's id, score or rank columns, or has one of their names"
    with pytest.raises(rm.UsageError, match=words):
        rm.evaluate(judgments, run, ["AP"], by=["score"], columns={"score": "pred"})
    with pytest.raises(rm.UsageError, match=words):
        rm.to_sql(["AP"], run="run", judgments="judgments", by=["score"], columns={"score": "pred"})
    # named otherwise the groups are the models: m1 ranks a (relevant) first, AP 1; m2 ranks it second, AP 1/2
    renamed = run.rename_columns(["model", "query_id", "item_id", "pred"])
    assert rm.evaluate(judgments, renamed, ["AP"], by=["model"], columns={"score": "pred"}) == {
        ("m1",): {"AP": 1.0}, ("m2",): {"AP": 0.5}}
    # the query column pos: b (score 2, not relevant) first, a second: AP 1/2
    run = pa.table({"pos": ["q1", "q1"], "i": ["a", "b"], "s": [1.0, 2.0]})
    labels = pa.table({"pos": ["q1"], "i": ["a"], "rel": [1]})
    assert rm.evaluate(labels, run, ["AP"], columns={"query_id": "pos", "item_id": "i", "score": "s",
                                                      "relevance": "rel"}) == {"AP": 0.5}
