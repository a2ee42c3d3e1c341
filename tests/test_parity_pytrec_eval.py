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


# trec_eval's counts, summed over queries rather than averaged (their calc_avg is te_calc_avg_meas_empty:
# m_num_q.c, m_num_ret.c, m_num_rel.c, m_num_rel_ret.c, m_num_nonrel_judged_ret.c)
SUMMED = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def compare_every_measure(qrels, run, level=1):
    """Every measure pytrec_eval supports (pytrec_eval.supported_measures: every key it returns, with its default
    parameters, e.g. P_5 ... P_1000, iprec_at_recall_0.00 ..., Rprec_mult_0.20 ...), per query and mean, under
    the pytrec_eval preset. runid and relstring are text, not numbers. pytrec_eval's per-query gm_map and
    gm_bpref are trec_eval's accumulators, ln(max(value, 1e-5)) (m_gm_map.c), and their mean is
    exp(mean of those): ours are the per-query value and that geometric mean."""
    params = {"relevance_level": level} if level != 1 else {}
    want = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures, **params).evaluate(run)
    keys = sorted({k for m in want.values() for k in m} - {"runid", "relstring"})
    assert len(keys) > 90 and {"11pt_avg", "G", "Rndcg", "utility", "set_F", "infAP", "binG"} <= set(keys)
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, keys, per_query=True, rel=level, convention="pytrec_eval")
    means = evaluate(jt, rt, keys, rel=level, convention="pytrec_eval")
    for key in keys:
        values = {q: m[key] for q, m in want.items()}
        if key in ("gm_map", "gm_bpref"):
            for q, v in values.items():
                assert max(got[key][q], 1e-5) == pytest.approx(math.exp(v), rel=1e-9), (q, key)
            mean = math.exp(math.fsum(values.values()) / len(values))
        else:
            for q, v in values.items():
                assert got[key][q] == pytest.approx(v, abs=1e-9), (q, key)
            mean = math.fsum(values.values()) / len(values)
        if key in SUMMED:
            mean = math.fsum(values.values())
        assert means[key] == pytest.approx(mean, abs=1e-9), key


@pytest.mark.parametrize("qrels,level", [("qrels.test", 1), ("qrels.rel_level", 2)])
def test_every_supported_measure_on_the_suite(qrels, level):
    compare_every_measure(read_qrels(os.path.join(TREC, qrels)), read_run(os.path.join(TREC, "results.test")),
                          level)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_supported_measure_with_ties(seed):
    qrels, run = synthetic.make(seed=seed)
    compare_every_measure(qrels, run)


@pytest.mark.parametrize("switches", [{}, {"relevance_level": 2}, {"judged_docs_only_flag": True}],
                         ids=["default", "relevance_level", "judged_docs_only"])
def test_relevance_evaluator_is_pytrec_eval_s(switches):
    """rankmetrics_duckdb.RelevanceEvaluator in place of pytrec_eval's: every measure of
    pytrec_eval.supported_measures, the same {query: {key: value}} to 1e-9, pytrec_eval run here, on trec_eval's
    graded suite and on a synthetic run with ties, a query the judgments lack and one the run lacks (queries and
    keys exactly pytrec_eval's: gm_map's per-query log, runid and relstring as 0.0 included); and on one whose
    run maps queries to no item ({}): two judged ones, which pytrec_eval evaluates (num_ret 0), and one it does
    not judge. There pytrec_eval's iprec_at_recall_0.00 and 11pt_avg are NaN, trec_eval's 0/0: its
    m_iprec_at_recall.c starts from precis = num_rel_ret / num_ret, 0 / 0 when nothing is retrieved, and gives
    it to recall 0 (to every level when nothing is relevant) (docs/conventions.md); ours is 0, as every other
    measure of such a query."""
    from rankmetrics_duckdb import RelevanceEvaluator
    measures = set(pytrec_eval.supported_measures)
    emptied = synthetic.make(seed=10, queries=15, depth=40)
    judged = sorted(q for q in emptied[0] if q in emptied[1])
    emptied[1].update({judged[0]: {}, judged[-1]: {}, "not_judged": {}})
    for qrels, run in ((read_qrels(os.path.join(TREC, "qrels.rel_level")), read_run(os.path.join(TREC, "results.test"))),
                       synthetic.make(seed=9, queries=15, depth=40), emptied):
        want = pytrec_eval.RelevanceEvaluator(qrels, measures, **switches).evaluate(run)
        got = RelevanceEvaluator(qrels, measures, **switches).evaluate(run)
        assert got.keys() == want.keys()
        for q in want:
            if run[q] == {}:  # retrieved nothing: trec_eval's 0 / 0 (above) at each recall level whose cutoff,
                #               (long) (level * num_rel + 0.9), is 0 (recall 0; every level when nothing is relevant)
                nan = {key for key, value in want[q].items() if math.isnan(value)}
                assert {"iprec_at_recall_0.00", "11pt_avg"} <= nan, q
                assert nan <= {"11pt_avg"} | {key for key in want[q] if key.startswith("iprec_at_recall_")}, q
                assert all(got[q][key] == 0.0 for key in nan), q
                want[q].update(dict.fromkeys(nan, 0.0))
                assert want[q]["num_ret"] == 0 and want[q]["map"] == 0.0, q
            assert got[q].keys() == want[q].keys(), q
            assert got[q] == pytest.approx(want[q], abs=1e-9), q


def test_relevance_evaluator_reads_pytrec_eval_s_measure_spellings():
    """Parameters and families as pytrec_eval takes them ('P.5', 'ndcg_cut.3,7', 'relstring.5'), an evaluator
    used for two runs; an unknown measure refused when the evaluator is made, as pytrec_eval refuses it."""
    from rankmetrics_duckdb import RelevanceEvaluator, UsageError
    qrels = {"q": {"a": 1, "b": 0}}
    for measures in ({"P.5", "ndcg_cut.3,7", "relstring.5", "runid", "recall"}, {"runid"}):
        ours = RelevanceEvaluator(qrels, measures)
        for run in ({"q": {"a": 0.5, "b": 0.7}}, {"q": {"a": 0.9, "b": 0.7}, "x": {"a": 1.0}}):
            want = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
            got = ours.evaluate(run)
            assert got.keys() == want.keys() == {"q"}
            assert got["q"] == pytest.approx(want["q"], abs=1e-9) and got["q"].keys() == want["q"].keys()
    with pytest.raises(UsageError, match="unknown metric 'nope'"):
        RelevanceEvaluator(qrels, {"map", "nope"})


def test_the_package_stands_in_for_pytrec_eval_s_module():
    """`import rankmetrics_duckdb as pytrec_eval`: supported_measures holds pytrec_eval's (and trec_eval 10's
    rbp, rbp_resid and unj), and compute_aggregated_measure makes each key's per-query values from our
    RelevanceEvaluator the number pytrec_eval's makes from its own (counts summed, gm_* from their logs), both run
    here, on the synthetic run with ties."""
    import rankmetrics_duckdb as ours
    assert set(pytrec_eval.supported_measures) <= ours.supported_measures
    assert ours.supported_measures - set(pytrec_eval.supported_measures) == {"rbp", "rbp_resid", "unj"}
    qrels, run = synthetic.make(seed=10, queries=15, depth=40)
    want = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures).evaluate(run)
    got = ours.RelevanceEvaluator(qrels, pytrec_eval.supported_measures).evaluate(run)
    for key in next(iter(want.values())):
        theirs = pytrec_eval.compute_aggregated_measure(key, [want[q][key] for q in want])
        assert ours.compute_aggregated_measure(key, [got[q][key] for q in got]) == pytest.approx(theirs, abs=1e-9), key
    assert ours.compute_aggregated_measure("num_ret", []) == 0.0 and math.isnan(ours.compute_aggregated_measure("map", []))
