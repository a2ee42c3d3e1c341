"""prepare(): the judgments and a run read and checked once, evaluated again and again (as ranx's Qrels and Run
objects are built once): its numbers are pytrec_eval's (trec_eval's C code, run here) to 1e-9, per query and
mean, and evaluate()'s bit for bit, under every convention and for requests that read the run another way."""
from __future__ import annotations

import math
import os

import pyarrow as pa
import pytest
import pytrec_eval  # a test dependency: pip install -e .[test]

import rankmetrics_duckdb as rm
from conftest import TREC
import synthetic
from test_parity_pytrec_eval import PAIRS, TREC_MEASURES, read_qrels, read_run


@pytest.fixture(scope="module")
def trec_tables():
    return synthetic.to_tables(read_qrels(os.path.join(TREC, "qrels.test")),
                               read_run(os.path.join(TREC, "results.test")))


def test_prepared_equals_pytrec_eval(trec_tables):
    qrels, run = read_qrels(os.path.join(TREC, "qrels.test")), read_run(os.path.join(TREC, "results.test"))
    want = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    with rm.prepare(*trec_tables) as p:
        for _ in range(2):  # the second evaluation reads the stream kept by the first
            got = p.evaluate(list(PAIRS.values()), per_query=True)
            assert set(got["AP"]) == set(want), "evaluated queries differ"
            for q, measures in want.items():
                for key, ours in PAIRS.items():
                    assert got[ours][q] == pytest.approx(measures[key], abs=1e-9), (q, key)
        means = p.evaluate(["AP", "nDCG@10"])
        assert means["AP"] == pytest.approx(sum(m["map"] for m in want.values()) / len(want), abs=1e-9)
        assert means["nDCG@10"] == pytest.approx(sum(m["ndcg_cut_10"] for m in want.values()) / len(want), abs=1e-9)


REQUESTS = [
    ("trec_eval", {}, ["nDCG@10", "AP", "P@10", "R@100", "RR", "bpref", "Rprec", "NumQ", "infAP", "GMAP"]),
    ("trec_eval", {}, ["P(judged_only=true)@10", "AP(judged_only=true)"]),  # a stream of its own (-J)
    ("ranx", {}, ["ndcg@10", "map", "mrr", "precision@5", "hits@10"]),
    ("mllib", {}, ["P@10", "nDCG@10", "AP"]),
    ("sklearn", {}, ["nDCG@5", "nDCG", "AUC"]),
    ("trec_eval", {"gain": "exponential", "rel": 2}, ["nDCG@10", "ERR@20", "P@10"]),
    ("trec_eval", {"ties": "average"}, ["nDCG@10", "DCG@10"]),
]


@pytest.mark.parametrize("convention,overrides,metrics", REQUESTS, ids=[f"{c}-{i}" for i, (c, _, _) in
                                                                       enumerate(REQUESTS)])
def test_prepared_equals_evaluate(trec_tables, convention, overrides, metrics):
    qrels, run = trec_tables
    run = run.append_column("rank", pa.array(range(1, run.num_rows + 1), pa.int64()))  # mllib orders by rank
    with rm.prepare(qrels, run, convention=convention, **overrides) as p:
        for per_query in (True, False):
            got = p.evaluate(metrics, per_query=per_query)
            want = rm.evaluate(qrels, run, metrics, convention=convention, per_query=per_query, **overrides)
            assert repr(got) == repr(want), (metrics, per_query)  # bit for bit (repr: NaN equals NaN)
        assert [r[:2] for r in p.rows(metrics)] == [r[:2] for r in rm.Evaluation(
            qrels, run, metrics, convention=convention, **overrides).rows()]


def test_prepared_checks_its_inputs_once(trec_tables):
    qrels, run = trec_tables
    twice = pa.concat_tables([run, run.slice(0, 1)])
    with pytest.raises(rm.InputError) as got:
        rm.prepare(qrels, twice)
    with pytest.raises(rm.InputError) as want:
        rm.evaluate(qrels, twice, ["AP"])
    assert str(got.value) == str(want.value)  # the careful path's message, naming the query and the item
    with pytest.raises(rm.UsageError, match="convention"):
        rm.prepare(qrels, run, convention="nonsense")
    with rm.prepare(qrels, run) as p:
        with pytest.raises(rm.UsageError, match="MeanInvUserFreq@10: evaluate"):
            p.evaluate(["MeanInvUserFreq@10"])
        with pytest.raises(rm.UsageError, match="alpha-nDCG@10: evaluate"):
            p.evaluate(["alpha-nDCG@10"])
        assert p.note() is None or "quer" in p.note()


def test_prepared_leaves_nothing_behind(trec_tables):
    p = rm.prepare(*trec_tables)
    assert not math.isnan(p.evaluate(["AP"])["AP"])
    p.close()
    with pytest.raises(Exception):
        p.evaluate(["AP"])


def test_what_prepare_does_not_take_and_a_closed_one_say_so():
    # found by a differential run: by= and columns= were refused as "unknown convention parameter", and evaluate()
    # after close() raised DuckDB's ConnectionException
    import pyarrow as pa
    import rankmetrics_duckdb as rm
    j = pa.table({"query_id": ["1"], "item_id": ["a"], "relevance": [1]})
    r = pa.table({"query_id": ["1"], "item_id": ["a"], "score": [1.0]})
    for kw in ({"by": ["model"]}, {"columns": {"query_id": "user_id"}}):
        with pytest.raises(rm.UsageError, match=f"prepare\\(\\) takes plain inputs under our column names: no "
                                                f"{next(iter(kw))} "):
            rm.prepare(j, r, **kw)
    # a run (or judgments) of lists: "the run has neither a score nor a rank column" named no way out
    lists = pa.table({"query_id": ["1"], "item_id": [["a"]]})
    for jj, rr, kind in ((j, lists, "run"), (lists, r, "judgments")):
        with pytest.raises(rm.UsageError, match=f"prepare\\(\\) takes plain inputs: the {kind}'s item column is a "
                                                f"list, which evaluate\\(\\) reads"):
            rm.prepare(jj, rr)
    p = rm.prepare(j, r)
    assert p.evaluate(["P@1"]) == {"P@1": 1.0}  # by hand: a, relevant, first
    p.close()
    with pytest.raises(rm.UsageError, match="closed"):
        p.evaluate(["P@1"])
