"""trec_eval preset against pytrec_eval (trec_eval's own C code), run here, to 1e-9: per query and means."""
import math
import os

import pytest

import pytrec_eval  # a test dependency: pip install -e .[test]

from rankmetrics_duckdb import evaluate
from conftest import TREC
import synthetic

# pytrec_eval measure key -> our name
PAIRS = {
    "map": "AP", "ndcg": "nDCG", "ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10", "ndcg_cut_100": "nDCG@100",
    "P_5": "P@5", "P_10": "P@10", "P_100": "P@100", "recall_10": "R@10", "recall_100": "R@100",
    "recip_rank": "RR", "Rprec": "Rprec", "bpref": "bpref", "success_1": "Success@1", "success_10": "Success@10",
    "map_cut_10": "AP@10", "map_cut_100": "AP@100", "num_ret": "NumRet", "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
}
TREC_MEASURES = {"map", "ndcg", "ndcg_cut.5,10,100", "P.5,10,100", "recall.10,100", "recip_rank", "Rprec",
                 "bpref", "success.1,10", "map_cut.10,100", "num_ret", "num_rel", "num_rel_ret"}


def read_qrels(path):
    out = {}
    for line in open(path):
        q, _, d, r = line.split()[:4]
        out.setdefault(q, {})[d] = int(r)
    return out


def read_run(path):
    out = {}
    for line in open(path):
        p = line.split()
        out.setdefault(p[0], {})[p[2]] = float(p[4])
    return out


def compare(qrels, run, level=1, ours_kwargs=None):
    params = {"relevance_level": level} if level != 1 else {}
    want = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, **params).evaluate(run)
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, list(PAIRS.values()), per_query=True, rel=level, **(ours_kwargs or {}))
    assert set(got["AP"]) == set(want), "evaluated queries differ"
    for q, measures in want.items():
        for key, ours in PAIRS.items():
            assert got[ours][q] == pytest.approx(measures[key], abs=1e-9), (q, key)
    means = evaluate(jt, rt, ["AP", "nDCG@10"], rel=level)
    assert means["AP"] == pytest.approx(sum(m["map"] for m in want.values()) / len(want), abs=1e-9)
    assert means["nDCG@10"] == pytest.approx(sum(m["ndcg_cut_10"] for m in want.values()) / len(want), abs=1e-9)


def test_trec_eval_collection():
    compare(read_qrels(os.path.join(TREC, "qrels.test")), read_run(os.path.join(TREC, "results.test")))


def test_graded_collection_with_relevance_level():
    compare(read_qrels(os.path.join(TREC, "qrels.rel_level")), read_run(os.path.join(TREC, "results.test")), level=2)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthetic_with_ties_and_missing_queries(seed):
    qrels, run = synthetic.make(seed=seed)
    compare(qrels, run)


def test_synthetic_level_2():
    qrels, run = synthetic.make(seed=11)
    compare(qrels, run, level=2)
