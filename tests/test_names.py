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
    ("G.-1=0", "gain levels are grades >= 0, not -1"), ("Rndcg.2=x", "not '2=x'"), ("ndcg_rel.1=3,1=4", "given twice"),
    # trec_eval's parameters we cannot read: the message names the parameters and the family's form (trec_eval
    # reads some of these through atol/atof, or marks unjudged items with levels -1 and -2)
    ("P.a", "cannot read 'a' as the parameters of trec_eval's P; it takes positive whole cutoffs"),
    ("P.5,x", "cannot read '5,x'"), ("success.x", "trec_eval's success"),
    ("ndcg.-1=5,1=2", "gain levels are grades >= 0, not -1"), ("ndcg.a=3", "not 'a=3'"), ("ndcg.1=3,a=2", "not 'a=2'"),
    ("ndcg.1=", "not '1='"), ("ndcg.=3", "not '=3'"), ("ndcg.1=1e999", "must be a finite number"),
    ("set_F.-1", "one beta > 0"), ("set_F.1,2", "set_F takes one parameter, beta"),
    ("iprec_at_recall.-0.1", "trec_eval's iprec_at_recall; it takes decimal values"),
    ("relstring.2.5", "it takes one length"), ("runid.5", "trec_eval's runid; it takes none"),
    ("rbp.x", "rbp.p=0.8"), ("rbp_resid.x", "rbp_resid.p=0.8"),
    # meas_init.c's get_double_cutoffs: "duplicate cutoffs detected"
    ("iprec_at_recall.0.33,0.33", "a value of at_recall is given twice"), ("Rprec_mult.0.5,0.5", "given twice"),
    # m_11pt_avg.c walks its levels as if ascending: 11pt_avg.1,0 is not 11pt_avg.0,1 there
    ("11pt_avg.1,0", "ascending order"),
])
def test_bad_names(name, words):
    with pytest.raises(UsageError, match=words):
        parse_metric(name)


def test_trec_eval_parameter_forms_read_as_trec_eval_reads_them():
    # gain_init.c reads a gain with atof (1e1 is 10) and a level with a sign; meas_init.c ignores the parameters
    # of a measure that takes none (map.x is map)
    [m] = parse_metric("ndcg.1=1e1")
    assert dict(m.params)["gains"] == "1=10" and m.requested == "ndcg_1=1e1"
    [m] = parse_metric("ndcg.+1=3")
    assert dict(m.params)["gains"] == "1=3"
    [m] = parse_metric("map.x")
    assert m.requested == "map" and m.metric.name == "AP"
