"""ranx preset against ranx, run here, to 1e-9 (scores without ties: ranx's own tie order is an unstable sort).
ranx evaluates every judged query (make_comparable=True) and applies the relevance level to nDCG too."""
import pytest
from ranx import Qrels, Run, evaluate as ranx_evaluate

from rankmetrics_duckdb import evaluate
import synthetic

NAMES = ["ndcg@10", "ndcg", "ndcg_burges@10", "map", "map@100", "mrr", "mrr@10", "precision@10", "recall@100",
         "hit_rate@10", "f1@10", "r-precision", "bpref", "dcg@10", "hits@10", "hits@100"]


def ranx_scores(qrels, run, metrics):
    q, r = Qrels.from_dict(qrels), Run.from_dict(run)
    per = {}
    for m in metrics:
        ranx_evaluate(q, r, m, make_comparable=True)
        per[m] = dict(r.scores[m])
    return per


@pytest.mark.parametrize("seed", [3, 4])
def test_ranx_metrics_per_query(seed):
    qrels, run = synthetic.make(seed=seed, ties=False)
    # ranx cannot score a run query that has no judgments, nor bpref for a query without judged non-relevant
    run.pop("zz_unjudged")
    qrels = {q: d for q, d in qrels.items() if any(v < 1 for v in d.values()) and any(v >= 1 for v in d.values())}
    want = ranx_scores(qrels, {q: d for q, d in run.items() if q in qrels}, NAMES)
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, NAMES, convention="ranx", per_query=True)
    for m in NAMES:
        assert set(got[m]) == set(want[m]), m
        for q, v in want[m].items():
            assert got[m][q] == pytest.approx(v, abs=1e-9), (m, q)


def test_relevance_level_reaches_ndcg():
    qrels, run = synthetic.make(seed=8, ties=False, missing=False)
    names = ["ndcg@10-l2", "map-l2", "precision@10-l2"]
    want = ranx_scores(qrels, run, names)
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, names, convention="ranx", per_query=True)
    for m in names:
        for q, v in want[m].items():
            assert got[m][q] == pytest.approx(v, abs=1e-9), (m, q)


def test_means_over_judged_queries_missing_ones_zero():
    qrels, run = synthetic.make(seed=9, ties=False)
    run.pop("zz_unjudged")
    qrels.pop("q_norel")
    run.pop("q_norel")
    q, r = Qrels.from_dict(qrels), Run.from_dict(run)
    want = ranx_evaluate(q, r, ["ndcg@10", "map"], make_comparable=True)
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, ["ndcg@10", "map"], convention="ranx")
    assert got["ndcg@10"] == pytest.approx(want["ndcg@10"], abs=1e-9)
    assert got["map"] == pytest.approx(want["map"], abs=1e-9)
