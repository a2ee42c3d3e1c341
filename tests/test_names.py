"""Metric names: canonical, ir_measures-style parameters, trec_eval's and ranx's names, clear errors."""
import pytest

from rankmetrics_duckdb import UsageError, parse_metric
from rankmetrics_duckdb.measures import parse_all


@pytest.mark.parametrize("name,metric,k,params", [
    ("nDCG@10", "nDCG", 10, {}), ("ndcg_cut_10", "nDCG", 10, {}), ("ndcg_cut.10", "nDCG", 10, {}),
    ("ndcg", "nDCG", None, {}), ("ndcg@10", "nDCG", 10, {}), ("ndcg_burges@10", "nDCG", 10, {"gain": "exponential"}),
    ("nDCG(gain=exponential)@10", "nDCG", 10, {"gain": "exponential"}), ("map", "AP", None, {}),
    ("map_cut_100", "AP", 100, {}), ("map@100", "AP", 100, {}), ("AP(rel=2)@100", "AP", 100, {"rel": 2}),
    ("P_10", "P", 10, {}), ("P.10", "P", 10, {}), ("precision@10", "P", 10, {}), ("recall_100", "R", 100, {}),
    ("recall@100", "R", 100, {}), ("recip_rank", "RR", None, {}), ("mrr", "RR", None, {}), ("mrr@10", "RR", 10, {}),
    ("Rprec", "Rprec", None, {}), ("r-precision", "Rprec", None, {}), ("bpref", "bpref", None, {}),
    ("success_10", "Success", 10, {}), ("hit_rate@10", "Success", 10, {}), ("f1@10", "F1", 10, {}),
    ("num_q", "NumQ", None, {}), ("num_rel_ret", "NumRelRet", None, {}), ("RBP(p=0.8)", "RBP", None, {"p": 0.8}),
    ("rbp", "RBP", None, {"p": 0.9}), ("RBP", "RBP", None, {}),  # trec_eval's rbp (p 0.9) vs ir_measures' RBP
    ("ERR@20", "ERR", 20, {}), ("Judged@10", "Judged", 10, {}), ("ndcg@10-l2", "nDCG", 10, {"rel": 2}),
])
def test_names(name, metric, k, params):
    (m,) = parse_metric(name)
    assert (m.metric.name, m.k, dict(m.params)) == (metric, k, params)
    # echoed back as requested, except trec_eval's -m parameter syntax, printed as trec_eval prints it
    assert m.requested == {"P.10": "P_10", "ndcg_cut.10": "ndcg_cut_10"}.get(name, name)


def test_trec_families_expand_to_default_cutoffs():
    names = [m.requested for m in parse_all(["P"])]
    assert names == ["P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000"]
    assert [m.requested for m in parse_all(["P.5,10"])] == ["P_5", "P_10"]


@pytest.mark.parametrize("name,words", [
    ("nDGC@10", "did you mean"), ("P@0", "positive"), ("nDCG@-3", "positive"), ("P@x", "not a whole number"),
    ("nDCG(gain=cubic)@10", "unknown value 'cubic'"), ("AP(foo=1)", "unknown parameter 'foo'"),
    ("Rprec@10", "takes no cutoff"), ("RBP(p=1.5)", "between 0 and 1"), ("", "empty"),
    ("G.1=0", "a gain map is taken by ndcg, dcg and ideal_dcg"), ("Rndcg.2=5", "Rndcg uses the grades as gains"),
])
def test_bad_names(name, words):
    with pytest.raises(UsageError, match=words):
        parse_metric(name)
