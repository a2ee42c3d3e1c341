"""Cutoff-only requests rank each query's top K only (issue 5): the ranking stops at K before the join with the
judgments, and on lists much longer than K (measures.top_n_pays) it takes the one-key shape that DuckDB computes
with a heap of K rows per query. A change of plan, not of definition: the numbers come from pytrec_eval run here
and from hand computations written out below."""
import math
import os

import pyarrow as pa
import pytest
import pytrec_eval

from rankmetrics_duckdb import Evaluation, conventions, measures, plancache
from conftest import TREC
import synthetic
from test_performance_paths import _single_spaced

# our name -> pytrec_eval key; every one reads ranks 1..10 at most
CUT = {"P@5": "P_5", "P@10": "P_10", "nDCG@5": "ndcg_cut_5", "nDCG@10": "ndcg_cut_10", "AP@10": "map_cut_10",
       "R@10": "recall_10", "Success@1": "success_1"}
TREC_KEYS = {"P.5,10", "ndcg_cut.5,10", "map_cut.10", "recall.10", "success.1"}


@pytest.fixture
def spy(monkeypatch):
    """The top_n choice of every fused query built (plancache.duckdb_parts)."""
    seen = []
    real = plancache.duckdb_parts

    def record(*args, **kwargs):
        seen.append(kwargs.get("top_n", args[6] if len(args) > 6 else False))
        return real(*args, **kwargs)
    monkeypatch.setattr(plancache, "duckdb_parts", record)
    return seen


def _pytrec(qrels_path, run_path):
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    return pytrec_eval.RelevanceEvaluator(qrels, TREC_KEYS).evaluate(run)


def _arrow(path, names):
    cols = list(zip(*[ln.split() for ln in open(path) if ln.strip()]))
    number = {"score": float, "relevance": int}
    return pa.table({n: [number.get(n, str)(x) for x in cols[i]] for n, i in names.items()})


def test_cutoff_only_requests_on_long_lists_use_the_heap_and_match_pytrec_eval(tmp_path, spy):
    """trec_eval's results.test has 500 items per query (>= 30 x 10): every path chooses the heap."""
    qrels, run = _single_spaced(tmp_path)
    want = _pytrec(qrels, run)
    kinds = {
        "careful (tab-separated TREC)": (os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")),
        "one statement (strict TREC)": (qrels, run),
        "one statement (Arrow)": (_arrow(qrels, {"query_id": 0, "item_id": 2, "relevance": 3}),
                                  _arrow(run, {"query_id": 0, "item_id": 2, "score": 4})),
    }
    for kind, (j, r) in kinds.items():
        spy.clear()
        ev = Evaluation(j, r, list(CUT))
        try:
            got = ev.rows()
        finally:
            ev.close()
        assert spy == [True], kind
        assert ev.path == kind.split(" (")[0], kind
        per = {(m, q): v for m, q, v in got if q is not None}
        assert {q for _, q in per} == set(want), kind
        for ours, key in CUT.items():
            for q in want:
                assert per[ours, q] == pytest.approx(want[q][key], abs=1e-12), (kind, ours, q)


def test_short_lists_and_deep_cutoffs_keep_the_sort(spy):
    """80 items per query and P@5 (80 < 30 x 5), or a measure without cutoff: no heap; same numbers."""
    qrels, run = synthetic.make(seed=21, depth=80)
    want = pytrec_eval.RelevanceEvaluator(qrels, TREC_KEYS | {"map"}).evaluate(run)
    jt, rt = synthetic.to_tables(qrels, run)
    for names in (["P@5", "nDCG@10"], ["P@5", "AP"]):
        spy.clear()
        ev = Evaluation(jt, rt, names)
        try:
            got = {(m, q): v for m, q, v in ev.rows() if q is not None}
        finally:
            ev.close()
        assert spy == [False], names
        for ours in names:
            key = CUT.get(ours, "map")
            for q in want:
                assert got[ours, q] == pytest.approx(want[q][key], abs=1e-12), (ours, q)


def test_the_heap_keeps_trec_eval_order_for_ties_and_missing_scores():
    """One query of 70 items, K = 2 (70 >= 30 x 2: the heap). d00 has no score (NaN, nan_scores='last': ranked
    last), d01 scores 0.9, d02 and d03 tie at 0.8 (trec_eval: item id descending, so d03 before d02), the rest
    score below. Judged: d00 = 0, d01 = 1, d02 = 0, d03 = 1.
    Right order: d01 (rel), d03 (rel)  -> P@2 = 2/2 = 1, RR@2 = 1/1 = 1, nDCG@2 = (1 + 1/log2(3)) / same = 1.
    A missing score first would give d00, d01 -> P@2 = 1/2; ascending ties d01, d02 -> P@2 = 1/2,
    nDCG@2 = 1 / (1 + 1/log2(3)) = 0.6131471927654584."""
    items = [f"d{i:02d}" for i in range(70)]
    scores = [math.nan, 0.9, 0.8, 0.8] + [0.5 - i / 1000 for i in range(4, 70)]
    run = pa.table({"query_id": ["q"] * 70, "item_id": items, "score": scores})
    qrels = pa.table({"query_id": ["q"] * 4, "item_id": items[:4], "relevance": [0, 1, 0, 1]})
    ev = Evaluation(qrels, run, ["P@2", "RR@2", "nDCG@2"], nan_scores="last")
    try:
        got = {m: v for m, q, v in ev.rows() if q == "q"}
        sql = ev.sql()
    finally:
        ev.close()
    assert got == {"P@2": 1.0, "RR@2": 1.0, "nDCG@2": 1.0}
    assert "ROW(" in sql  # the one-key shape was used
    assert 1 / (1 + 1 / math.log2(3)) == pytest.approx(0.6131471927654584)  # the wrong orders' value, for reference


def test_top_n_pays_only_for_cutoff_only_requests_on_long_lists():
    conv = conventions.resolve("trec_eval")
    ms = measures.parse_all(["nDCG@10", "P@20"])
    assert measures.cutoff_depth(ms, conv) == 20
    assert measures.top_n_pays(ms, conv, 600) and not measures.top_n_pays(ms, conv, 599)
    assert not measures.top_n_pays(ms, conv, None)
    assert measures.cutoff_depth(measures.parse_all(["nDCG@10", "AP"]), conv) is None
    assert measures.cutoff_depth(measures.parse_all(["P@10", "NumRet"]), conv) is None
    assert not measures.top_n_pays(ms, conventions.resolve("trec_eval", ties="item_asc"), 10 ** 6)
    # tie-averaged DCG and the 'candidates' ideal read every row: no cutoff
    assert measures.cutoff_depth(ms, conventions.resolve("sklearn")) is None
