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


def assert_per_query_equal(got, want, names):
    """Each measure's queries, and each value to 1e-9."""
    for m in names:
        assert set(got[m]) == set(want[m]), m
        for q, v in want[m].items():
            assert got[m][q] == pytest.approx(v, abs=1e-9), (m, q)


@pytest.mark.parametrize("seed", [3, 4])
def test_ranx_metrics_per_query(seed):
    qrels, run = synthetic.make(seed=seed, ties=False)
    # ranx cannot score a run query that has no judgments, nor bpref for a query without judged non-relevant
    run.pop("zz_unjudged")
    qrels = {q: d for q, d in qrels.items() if any(v < 1 for v in d.values()) and any(v >= 1 for v in d.values())}
    want = ranx_scores(qrels, {q: d for q, d in run.items() if q in qrels}, NAMES)
    jt, rt = synthetic.to_tables(qrels, run)
    assert_per_query_equal(evaluate(jt, rt, NAMES, convention="ranx", per_query=True), want, NAMES)


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


@pytest.mark.parametrize("names", [["bpref"], ["bpref-l2"]])
def test_negative_grades_are_judged_non_relevant_in_bpref(names):
    """ranx counts a negative grade (TREC Web's -2, junk) as a judged non-relevant item in bpref (every judged
    grade below the level); trec_eval leaves it out, as unjudged. negative_grades: the ranx preset's
    'nonrelevant', trec_eval's 'unjudged'."""
    qrels, run = synthetic.make(seed=11, ties=False, missing=False, grades=(-2, -1, 0, 0, 1, 1, 2, 3))
    qrels = {q: d for q, d in qrels.items()  # ranx divides by min(R, N): a query needs both (see the docs)
             if any(0 <= v < 2 for v in d.values()) and any(v >= 2 for v in d.values())}
    run = {q: d for q, d in run.items() if q in qrels}
    want = ranx_scores(qrels, run, names)[names[0]]
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, names, convention="ranx", per_query=True)[names[0]]
    assert set(got) == set(want)
    for q, v in want.items():
        assert got[q] == pytest.approx(v, abs=1e-9), q
    trec = evaluate(jt, rt, names, convention="ranx", negative_grades="unjudged", per_query=True)[names[0]]
    assert sum(trec[q] != pytest.approx(want[q], abs=1e-9) for q in want) > 0  # the switch is what differs


def test_negative_grade_in_bpref_by_hand():
    """One query: d2 (grade -1) ranked first, then d1 (relevant), d3 (grade 0). R = 1. trec_eval: d2 is unjudged,
    no judged non-relevant item above d1: bpref 1 (pytrec_eval gives 1). ranx: d2 is judged non-relevant, N = 2,
    one above d1: 1 - min(1, R) / min(R, N) = 1 - 1/1 = 0."""
    import pyarrow as pa
    import pytrec_eval
    judgments = pa.table({"query_id": ["q1"] * 3, "item_id": ["d1", "d2", "d3"], "relevance": [1, -1, 0]})
    run = pa.table({"query_id": ["q1"] * 3, "item_id": ["d2", "d1", "d3"], "score": [3.0, 2.0, 1.0]})
    assert evaluate(judgments, run, ["bpref"], convention="ranx") == {"bpref": 0.0}
    assert evaluate(judgments, run, ["bpref"]) == {"bpref": 1.0}
    assert ranx_scores({"q1": {"d1": 1, "d2": -1, "d3": 0}}, {"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}},
                       ["bpref"])["bpref"] == {"q1": 0.0}
    ref = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": -1, "d3": 0}}, {"bpref"})
    assert ref.evaluate({"q1": {"d2": 3.0, "d1": 2.0, "d3": 1.0}})["q1"]["bpref"] == 1.0


def test_fractional_grades_are_truncated_as_ranx_keeps_integers():
    """ranx keeps grades as integers: Qrels.from_dict turns 1.5 into 1, 0.9 into 0 and -1.7 into -1 (toward zero;
    its TREC reader refuses fractions); the ranx preset truncates them the same way (grades 'truncate')."""
    qrels, run = synthetic.make(seed=12, ties=False, missing=False, grades=(0, 0.4, 0.9, 1, 1.5, 2.7, 3.2, -1.7))
    qrels = {q: d for q, d in qrels.items()
             if any(0 <= v < 1 for v in d.values()) and any(v >= 1 for v in d.values())}
    run = {q: d for q, d in run.items() if q in qrels}
    assert Qrels.from_dict({"q": {"a": 1.5, "b": 0.9, "c": -1.7}}).to_dict()["q"] == {"a": 1, "b": 0, "c": -1}
    names = ["ndcg@10", "ndcg", "map", "precision@10", "bpref", "dcg@10"]
    want = ranx_scores(qrels, run, names)
    jt, rt = synthetic.to_tables(qrels, run)
    assert_per_query_equal(evaluate(jt, rt, names, convention="ranx", per_query=True), want, names)
