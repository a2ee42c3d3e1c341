"""Every input kind gives the same numbers, and a caller's connection is left as found."""
import os
import re

import duckdb
import pandas as pd
import polars as pl
import pytest

from rankmetrics_duckdb import evaluate, relation
from conftest import TREC

Q, R = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
METRICS = ["map", "ndcg_cut_10", "P_10", "bpref"]


def frames():
    q = pd.read_csv(Q, sep=r"\s+", header=None, names=["query_id", "iter", "item_id", "relevance"])
    r = pd.read_csv(R, sep=r"\s+", header=None, names=["query_id", "q0", "item_id", "rank", "score", "tag"])
    return q[["query_id", "item_id", "relevance"]], r[["query_id", "item_id", "score"]]


def same(a, b):
    """Identical numbers (floating-point sums add their terms in value order: determinism.py)."""
    assert a.keys() == b.keys()
    for m in a:
        assert a[m].keys() == b[m].keys()
        for q in a[m]:
            assert a[m][q] == b[m][q], (m, q)
    return True


def test_all_input_kinds_agree():
    want = evaluate(Q, R, METRICS, per_query=True)
    q, r = frames()  # query ids are integers here, strings in the files: compared as text
    assert same(evaluate(q, r, METRICS, per_query=True), want)
    assert same(evaluate(pl.from_pandas(q), pl.from_pandas(r), METRICS, per_query=True), want)
    import pyarrow as pa
    assert same(evaluate(pa.Table.from_pandas(q), pa.Table.from_pandas(r), METRICS, per_query=True), want)
    con = duckdb.connect()
    con.execute("CREATE TABLE my_qrels AS SELECT * FROM q")
    con.execute("CREATE TABLE my_run AS SELECT query_id AS qid, item_id AS docno, score AS sim FROM r")
    before = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()
    assert same(evaluate("my_qrels", "my_run", METRICS, con=con, per_query=True), want)
    assert con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall() == before
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchall()[0][0] == 0
    assert same(evaluate(con.table("my_qrels"), con.sql("SELECT * FROM my_run"), METRICS, per_query=True), want)


def test_relation_is_long_format():
    rel = relation(Q, R, ["map", "P@10"])
    assert rel.columns == ["measure", "query_id", "value"]
    rows = {(m, q): v for m, q, v in rel.fetchall()}
    assert rows[("map", None)] == pytest.approx(0.1785, abs=5e-5) and ("P@10", "302") in rows


def test_a_score_too_large_for_float32_scores_is_an_input_error(tmp_path):
    # found by a differential run: scores='float32' (the pytrec_eval preset) cast 1e39 to FLOAT and DuckDB's
    # ConversionException reached the user; now one line naming the row, on eval, prepare() and the CLI
    import pyarrow as pa
    from conftest import cli
    import rankmetrics_duckdb as rm
    j = pa.table({"query_id": ["1", "1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    r = pa.table({"query_id": ["1", "1"], "item_id": ["a", "b"], "score": [5.0, -1e39]})
    want = "score -1e+39 for query 1, item b is too large for the 32-bit scores of scores='float32'"
    with pytest.raises(rm.InputError, match=want.replace("(", r"\(").replace("+", r"\+")):
        rm.evaluate(j, r, ["RR"], convention="pytrec_eval")
    with pytest.raises(rm.InputError, match=r"item b is too large"):
        rm.prepare(j, r, convention="pytrec_eval")
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "run").write_text("1 Q0 a 1 5 t\n1 Q0 b 2 -1e39 t\n")
    p = cli("eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "recip_rank", "--scores", "float32",
            check=False)
    assert p.returncode == 1 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and want in p.stderr
    # within float32's range (up to about 3.4028235e38) the scores are rounded to 32 bits and ranked: a (5) first,
    # relevant: RR 1 (by hand); prepare() drew the line at 1e38 where evaluate() took 2e38 (a pytrec_eval fuzz)
    for low in (-9e37, -2e38, -3.4028235e38):
        r = pa.table({"query_id": ["1", "1"], "item_id": ["a", "b"], "score": [5.0, low]})
        assert rm.evaluate(j, r, ["RR"], convention="pytrec_eval") == {"RR": 1.0}
        assert rm.prepare(j, r, convention="pytrec_eval").evaluate(["RR"]) == {"RR": 1.0}
    with pytest.raises(rm.InputError, match=r"at most about 3.4e38 in magnitude"):
        rm.prepare(j, pa.table({"query_id": ["1", "1"], "item_id": ["a", "b"], "score": [5.0, 3.5e38]}),
                   convention="pytrec_eval")


@pytest.mark.parametrize("metrics", [5, [5], [None], [["map"]], 2.5])
def test_metrics_that_are_not_names_are_refused_by_their_type(metrics):
    """evaluate(Q, R, 5) and the other entry points raised "TypeError: 'int' object is not iterable" (the check of
    diversity measures listed the metrics first): a metric that is not a name is a UsageError naming its type."""
    import rankmetrics_duckdb as rm
    qrels, run = Q, R
    calls = [lambda: rm.evaluate(qrels, run, metrics), lambda: rm.to_sql(metrics, run="r", judgments="j"),
             lambda: rm.prepare(qrels, run).evaluate(metrics),
             lambda: rm.compare(qrels, [run, os.path.join(TREC, "results.trunc")], metrics)]
    for call in calls:
        with pytest.raises(rm.UsageError, match="a metric must be a name such as 'nDCG@10'"):
            call()


def test_arguments_of_the_wrong_type_are_usage_errors():
    """Arguments of the wrong type raised Python's own errors ('int' object is not iterable, dictionary update
    sequence element, 'str' object has no attribute 'execute', could not convert string to float), or were taken:
    pretty='no' failed in sqlglot, per_query='no' was true, judgments=6.5 became the table "6"."5"."""
    import rankmetrics_duckdb as rm
    other = os.path.join(TREC, "results.trunc")
    cases = [
        (lambda: rm.evaluate(Q, R, ["map"], by=5), "by must be a column name or a list of them, not 5"),
        (lambda: rm.evaluate(Q, R, ["map"], columns="user"), "columns must map our column names"),
        (lambda: rm.evaluate(Q, R, ["map"], con="x"), "con must be a DuckDB connection (duckdb.connect()), not str"),
        (lambda: rm.evaluate(Q, R, ["map"], per_query="no"), "per_query must be True or False, not 'no'"),
        (lambda: rm.prepare(Q, R).evaluate(["map"], per_query=1), "per_query must be True or False, not 1"),
        (lambda: rm.fuse(None), "runs: give a list of two or more runs, not None"),
        (lambda: rm.compare(Q, [R, other], ["map"], alpha="x"), "alpha must be a number between 0 and 1, not 'x'"),
        (lambda: rm.to_sql(["map"], run="r", judgments="j", pretty="no"), "pretty must be True or False, not 'no'"),
        (lambda: rm.to_sql(["map"], run="r", judgments=6.5), "judgments table name must be text, not 6.5"),
        (lambda: rm.to_sql(["map"], run="r", judgments="j", run_columns=5), "run columns must be score, rank or "),
    ]
    for call, words in cases:
        with pytest.raises(rm.UsageError, match="^" + re.escape(words)):
            call()
    # what stays accepted: a cursor of a connection, numpy's bool and float
    import numpy as np
    assert evaluate(Q, R, ["map"], con=duckdb.connect().cursor(), per_query=np.bool_(False)) == evaluate(Q, R, ["map"])
    assert rm.compare(Q, [R, other], ["map"], alpha=np.float32(0.05)) == rm.compare(Q, [R, other], ["map"])


def test_pytrec_eval_dicts_are_inputs():
    """pytrec_eval's own inputs, {query: {item: grade}} and {query: {item: score}}, evaluated as they are: per
    query, pytrec_eval's numbers run here (the synthetic run has score ties, a query the judgments lack and one
    the run lacks), and the rows of the same data as Arrow tables, bit for bit."""
    import pytrec_eval
    import synthetic
    from rankmetrics_duckdb import Evaluation
    qrels, run = synthetic.make(seed=41, queries=12, depth=30)
    run["q_empty"] = {}  # a query that retrieved nothing, not judged: not evaluated (pytrec_eval's own)
    keys = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank", "bpref": "bpref"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, set(keys.values())).evaluate(run)
    got = evaluate(qrels, run, list(keys), per_query=True)
    for m, key in keys.items():
        assert got[m] == pytest.approx({q: ref[q][key] for q in ref}, abs=1e-9), m
    del run["q_empty"]
    jt, rt = synthetic.to_tables(qrels, run)
    assert Evaluation(qrels, run, list(keys)).rows() == Evaluation(jt, rt, list(keys)).rows()


def test_a_run_dict_s_query_mapped_to_no_item_is_a_query_that_retrieved_nothing():
    """{query: {}} in a run: the model was asked and returned nothing. pytrec_eval evaluates such a query when it
    is judged (num_ret 0, every measure 0) and leaves out one it does not judge; its numbers run here, per query
    and as means, beside the queries with items (the dict was read as rows, which left the query out: map 1.0 where
    pytrec_eval gives 0.5). A run of such queries only is evaluated too. The query sets of the other conventions
    count it as they count a run of lists' empty list (by hand: under queries='run' an unjudged one scores 0), and
    so do compare() and ranx's Run under its preset (ranx run here). Routes that cannot hold it refuse it in one
    line (prepare(), the diversity measures); fuse() leaves it out (nothing to fuse); a query without an id that
    maps to nothing is refused as any row without one."""
    import pytrec_eval
    import ranx
    import rankmetrics_duckdb as rm
    from rankmetrics_duckdb.errors import InputError, UsageError
    qrels = {"u0": {"a": 1, "b": 0}, "u1": {"x": 1}, "u2": {"y": 2}}
    run = {"u0": {"a": 2.0, "b": 1.0}, "u1": {}, "u2": {"y": 0.5, "z": 0.7}, "u3": {}}
    keys = {"AP": "map", "P@2": "P_2", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "bpref": "bpref",
            "R@5": "recall_5", "num_ret": "num_ret", "num_rel": "num_rel"}
    want = pytrec_eval.RelevanceEvaluator(qrels, set(keys.values())).evaluate(run)
    assert set(want) == {"u0", "u1", "u2"} and want["u1"]["num_ret"] == 0 and want["u1"]["map"] == 0
    got = evaluate(qrels, run, list(keys), per_query=True)
    means = evaluate(qrels, run, list(keys))
    for m, key in keys.items():
        assert got[m] == pytest.approx({q: want[q][key] for q in want}, abs=1e-9), m
        values = [want[q][key] for q in want]
        total = sum(values) if m.startswith("num_") else sum(values) / len(values)
        assert means[m] == pytest.approx(total, abs=1e-9), m
    only = {"u1": {}, "u3": {}}
    want_only = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_2"}).evaluate(only)
    assert want_only == {"u1": {"map": 0.0, "P_2": 0.0}}
    assert evaluate(qrels, only, ["map", "P_2"], per_query=True) == {"map": {"u1": 0.0}, "P_2": {"u1": 0.0}}
    # queries='run' (sklearn's set): every query of the run, u3 unjudged scoring 0 as a query with nothing
    # relevant: P@2 per query u0 1/2, u1 0, u2 1/2, u3 0
    assert evaluate(qrels, run, ["P@2"], per_query=True, queries="run") == {
        "P@2": {"u0": 0.5, "u1": 0.0, "u2": 0.5, "u3": 0.0}}
    # ranx's Run with a query mapped to nothing, under ranx's preset (every judged query): ranx's numbers
    want_ranx = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["map", "precision@2"], return_mean=False,
                              make_comparable=True)
    got_ranx = evaluate(ranx.Qrels(qrels), ranx.Run(run), ["AP", "P@2"], convention="ranx", per_query=True)
    assert [got_ranx["AP"][q] for q in ("u0", "u1", "u2")] == pytest.approx(list(want_ranx["map"]), abs=1e-9)
    assert [got_ranx["P@2"][q] for q in ("u0", "u1", "u2")] == pytest.approx(list(want_ranx["precision@2"]))
    # judgments mapping a query to no item: not judged, as pytrec_eval reads them (left out); ranx counts such a
    # query, 0 (the documented difference, docs/conventions.md section 6): both run here
    unjudged = {**qrels, "u5": {}}
    assert "u5" not in pytrec_eval.RelevanceEvaluator(unjudged, {"map"}).evaluate({**run, "u5": {"y": 1.0}})
    want_u5 = ranx.evaluate(ranx.Qrels(unjudged), ranx.Run({**run, "u5": {"y": 1.0}}), ["map"], return_mean=False,
                            make_comparable=True)
    assert list(want_u5) == pytest.approx(list(want_ranx["map"]) + [0.0])  # u0, u1, u2, u5
    got_u5 = evaluate(unjudged, {**run, "u5": {"y": 1.0}}, ["AP"], convention="ranx", per_query=True)
    assert got_u5 == {"AP": got_ranx["AP"]} and "u5" not in got_u5["AP"]
    # compare: the run's per-query values are evaluate()'s (u1 at 0 among them)
    other = {"u0": {"b": 2.0, "a": 1.0}, "u1": {"x": 1.0}, "u2": {"y": 0.9}}
    rows = {r["run"]: r for r in rm.compare(qrels, {"empty": run, "other": other}, ["AP"])}
    assert rows["empty"]["mean"] == pytest.approx(means["AP"]) and rows["empty"]["queries"] == 3
    with pytest.raises(UsageError, match="prepare\\(\\) takes plain inputs: the run maps query u1 to no item"):
        rm.prepare(qrels, run)
    with pytest.raises(InputError, match="^dict: the run maps query u1 to no item"):
        evaluate(qrels, run, ["alpha-nDCG@10"])
    fused = rm.fuse([run, other])
    assert "u1" in fused.column("query_id").to_pylist() and "u3" not in fused.column("query_id").to_pylist()
    with pytest.raises(InputError, match="^dict: a query of the run without an id \\(' '\\) maps to no item"):
        evaluate(qrels, {"u0": {"a": 1.0}, " ": {}}, ["AP"])


def test_ranx_qrels_and_run_are_inputs():
    """ranx's Qrels and Run objects (and the dicts ranx builds them from): under ranx's convention, ranx's
    evaluate run here, per query (a run without score ties: ranx orders ties in no fixed way), a grade-0 row
    judged non-relevant, a judged query the run lacks counted as ranx counts it (make_comparable)."""
    import ranx
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d7": 3}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 0.5, "d3": 0.2, "d5": 0.9, "d2": 0.7}, "q2": {"d4": 0.1, "d6": 0.3, "d7": 0.05}}
    names = {"AP": "map", "nDCG@10": "ndcg@10", "P@2": "precision@2", "RR": "mrr", "R@3": "recall@3"}
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(names.values()), return_mean=False,
                         make_comparable=True)
    for inputs in ((ranx.Qrels(qrels), ranx.Run(run)), (qrels, run)):
        got = evaluate(*inputs, list(names), convention="ranx", per_query=True)
        for m, key in names.items():
            assert got[m] == pytest.approx(dict(zip(["q1", "q2", "q3"], want[key])), abs=1e-9), m


@pytest.mark.parametrize("judgments,run,message", [
    ({"q1": {"d1": 1}}, {"q1": {"d1": "0.5"}}, "dict: the score of query q1, item d1 is '0.5' (str), not a number"),
    ({"q1": {"d1": True}}, {"q1": {"d1": 0.5}}, "dict: the relevance of query q1, item d1 is True (bool), not a "
                                                "number"),
    ({"q1": {"d1": 1}}, {"d1": 0.5}, "dict: query d1 maps to a float, not a dict; give the run as {query_id: "
                                     "{item_id: score}}"),
    ({("q", 1): {"d1": 1}}, {"q1": {"d1": 0.5}}, "dict: a query id is ('q', 1) (tuple); ids are text"),
    ({"q1": {1.5: 1}}, {"q1": {"d1": 0.5}}, "dict: an item id of query q1 is 1.5 (float); ids are text"),
    ({"q1": {"d1": 1}}, {"q1": {"d1": float("nan")}}, "dict: score nan for query q1, item d1"),
    ({"q1": {"d1": 1}}, {}, "dict: the run has no rows"),
    ({"q1": {"d1": 1}}, {"q1": {"d1": 10 ** 400}}, "dict: the score of query q1, item d1 is too large for a double"),
])
def test_bad_dicts_are_refused_in_one_line(judgments, run, message):
    from rankmetrics_duckdb.errors import InputError
    with pytest.raises(InputError) as e:
        evaluate(judgments, run, ["AP"])
    assert str(e.value).startswith(message) and "\n" not in str(e.value), str(e.value)


def test_dict_ids_that_are_whole_numbers_are_their_digits():
    """{1: {2: 1}}: query 1, item 2, as a TREC file's `1 0 2 1` reads: the same per-query values as text ids.
    By hand: item 3 (unjudged) first, item 2 (relevant) second: AP 1/2, RR 1/2."""
    import numpy as np
    got = evaluate({1: {2: 1}}, {1: {2: 0.5, 3: 0.7}}, ["AP", "RR"], per_query=True)
    assert got == {"AP": {"1": 0.5}, "RR": {"1": 0.5}}
    numpy_keys = {np.int64(1): {np.int32(2): np.int64(1)}}, {np.int64(1): {np.int64(2): np.float32(0.5),
                                                                            np.int64(3): np.float64(0.7)}}
    assert evaluate(*numpy_keys, ["AP", "RR"], per_query=True) == got  # a frame's to_dict() gives numpy's
    # whole numbers beyond 64 bits, as doubles: grade 10**30 is relevant, score 10**30 ranks its item first
    assert evaluate({1: {2: 10 ** 30}}, {1: {2: 10 ** 30, 3: 0.7}}, ["AP"]) == {"AP": 1.0}


def test_ir_measures_rows_are_inputs():
    """ir_measures' (and ir_datasets') rows, Qrel and ScoredDoc namedtuples, in a list or an iterator read once:
    per query, ir_measures' numbers run here (its pytrec_eval provider, trec_eval's conventions with -c: a judged
    query the run lacks counts, queries='judged') on the synthetic data with score ties."""
    import ir_measures
    import synthetic
    from ir_measures import Qrel, ScoredDoc
    qrels, run = synthetic.make(seed=43, queries=10, depth=30)
    qrel_rows = [Qrel(q, d, g, "0") for q, docs in qrels.items() for d, g in docs.items()]
    run_rows = [ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    measures = {"AP": ir_measures.AP, "nDCG@10": ir_measures.nDCG @ 10, "P@5": ir_measures.P @ 5}
    want = {}
    for m in ir_measures.iter_calc(list(measures.values()), qrel_rows, run_rows):
        want.setdefault(str(m.measure), {})[m.query_id] = m.value
    for judgments, ranking in ((qrel_rows, run_rows), (iter(qrel_rows), (r for r in run_rows))):
        got = evaluate(judgments, ranking, list(measures), per_query=True, queries="judged")
        for name, measure in measures.items():
            assert got[name] == pytest.approx(want[str(measure)], abs=1e-9), name


def test_bad_rows_are_refused_in_one_line():
    """Rows of the wrong kind (a run's ScoredDoc given as judgments), plain tuples from an iterator, and a row
    twice, each one line naming what is wrong."""
    from ir_measures import Qrel, ScoredDoc
    from rankmetrics_duckdb.errors import InputError
    qrels = [Qrel("q1", "d1", 1, "0")]
    run = [ScoredDoc("q1", "d1", 0.5), ScoredDoc("q1", "d2", 0.7)]
    for judgments, ranking, message in (
            (run, run, "rows of ScoredDoc: no field relevance (fields: query_id, doc_id, score)"),
            (qrels, (tuple(r) for r in run), "cannot read the run from a generator of tuple"),
            (qrels, run + run[:1], "rows of ScoredDoc: item d1 appears 2 times for query q1 in the run"),
            (qrels, [ScoredDoc("q1", "d1", "high")], "rows of ScoredDoc: the score of query q1, item d1 is 'high'"),
            (qrels, [run[0], ("q1", "d2", 0.7)], "rows of ScoredDoc: row 2 is ('q1', 'd2', 0.7), not a row of "
                                                 "query_id, doc_id, score")):
        with pytest.raises(InputError) as e:
            evaluate(judgments, ranking, ["AP"])
        assert str(e.value).startswith(message) and "\n" not in str(e.value), str(e.value)


def test_pytrec_eval_dicts_under_its_preset_give_its_numbers_past_float32():
    """Scores that differ only past float32 precision (0.5 and 0.5 + 2**-40): pytrec_eval ties them and orders
    them by item id descending (b before a), trec_eval 10 ranks a first. By hand: a is relevant, b is not; in
    trec_eval 10's order a is first (AP 1), in pytrec_eval's second (AP 1/2). The pytrec_eval preset gives
    pytrec_eval's number, run here; the default trec_eval 10's."""
    import pytrec_eval
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5 + 2 ** -40, "b": 0.5}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["q"]["map"]
    assert want == 0.5
    assert evaluate(qrels, run, ["AP"], convention="pytrec_eval") == {"AP": want}
    assert evaluate(qrels, run, ["AP"]) == {"AP": 1.0}
