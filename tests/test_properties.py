"""Property-based cross-checks: random runs and judgments (tied scores, graded relevance with 0, queries on one
side only, queries with nothing relevant, ids whose byte order matters) evaluated per query and compared with
independent references: pytrec_eval (trec_eval's C code) for the trec_eval preset, scikit-learn for the sklearn
preset, and the plain-Python reference in tests/reference.py for everything no library covers."""
import math

import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from sklearn.metrics import dcg_score, ndcg_score

import reference
from rankmetrics_duckdb import Evaluation, InputError, evaluate

# no shrinking phase: every example is a whole evaluation, and a failing one is printed in full anyway
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate], database=None)
# ids whose byte-wise order differs from a numeric or case-insensitive one
ITEMS = ["a", "b", "c", "d1", "d10", "d2", "D", "Z", "\u00e9", "zz"]
GRADES = [0, 0, 1, 1, 2, 3]
WITH_NEGATIVE = GRADES + [-1]  # bpref's negative_grades; scikit-learn's raw gain (ndcg_score refuses it)


@st.composite
def collections(draw, min_retrieved=1, grades=None):
    """(qrels, run, ranks): query q0 on both sides, the others on both, one, or the other side. Scores are
    multiples of 0.25 (exact in pytrec_eval's float32) from a small range: many ties. grades: the grades drawn
    (GRADES; WITH_NEGATIVE adds -1 where the reference takes it: pytrec_eval hangs on some queries with one)."""
    grade_choices = GRADES if grades is None else grades
    qrels, run, ranks = {}, {}, {}
    for i in range(draw(st.integers(1, 7))):
        q = f"q{i}"
        side = "both" if i == 0 else draw(st.sampled_from(["both", "both", "judged", "run"]))
        if side in ("both", "judged"):
            judged = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=len(ITEMS), unique=True))
            drawn = draw(st.lists(st.sampled_from(grade_choices), min_size=len(judged), max_size=len(judged)))
            qrels[q] = dict(zip(judged, drawn))
        if side in ("both", "run"):
            items = draw(st.lists(st.sampled_from(ITEMS), min_size=min_retrieved, max_size=len(ITEMS), unique=True))
            scores = draw(st.lists(st.integers(0, 6), min_size=len(items), max_size=len(items)))
            run[q] = {d: s / 4 for d, s in zip(items, scores)}
            order = draw(st.permutations(range(1, len(items) + 1)))
            ranks[q] = dict(zip(items, order))
    return qrels, run, ranks


def tables(qrels, run, ranks):
    j = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    r = [(q, d, s, ranks[q][d]) for q, docs in run.items() for d, s in docs.items()]
    return (pa.table({"query_id": [x[0] for x in j], "item_id": [x[1] for x in j], "relevance": [x[2] for x in j]}),
            pa.table({"query_id": [x[0] for x in r], "item_id": [x[1] for x in r], "score": [x[2] for x in r],
                      "rank": [x[3] for x in r]}))


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == pytest.approx(b, abs=1e-9)


# ---- trec_eval preset against pytrec_eval -------------------------------------------------------------------

PYTREC = {  # pytrec_eval key -> our name
    "map": "AP", "map_cut_3": "AP@3", "ndcg": "nDCG", "ndcg_cut_3": "nDCG@3", "ndcg_cut_5": "nDCG@5",
    "P_1": "P@1", "P_3": "P@3", "P_10": "P@10", "recall_3": "R@3", "recall_10": "R@10", "recip_rank": "RR",
    "Rprec": "Rprec", "bpref": "bpref", "success_1": "Success@1", "success_5": "Success@5", "num_ret": "NumRet",
    "num_rel": "NumRel", "num_rel_ret": "NumRelRet",
}
PYTREC_MEASURES = {"map", "map_cut.3", "ndcg", "ndcg_cut.3,5", "P.1,3,10", "recall.3,10", "recip_rank", "Rprec",
                   "bpref", "success.1,5", "num_ret", "num_rel", "num_rel_ret"}


@SETTINGS
@given(collections(), st.sampled_from([1, 1, 2]), st.lists(st.sampled_from(sorted(PYTREC)), min_size=8, max_size=8,
                                                          unique=True))
def test_trec_eval_preset_equals_pytrec_eval(data, level, keys):
    qrels, run, ranks = data
    want = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES, relevance_level=level).evaluate(run)
    j, r = tables(qrels, run, ranks)
    got = evaluate(j, r, [PYTREC[key] for key in keys], per_query=True, rel=level)
    for key in keys:
        assert set(got[PYTREC[key]]) == set(want) == set(qrels) & set(run)
    for q, measures in want.items():
        for key, ours in ((key, PYTREC[key]) for key in keys):
            assert close(got[ours][q], measures[key]), (q, key, got[ours][q], measures[key])


@SETTINGS
@given(collections(), st.sampled_from([1, 1, 2]))
def test_pytrec_eval_preset_iprec_equals_pytrec_eval(data, level):
    """iprec_at_recall at trec_eval's eleven levels under the pytrec_eval preset (trec_eval 9's level x |G| + 0.9
    truncated, iprec_rounding='v9'), against pytrec_eval run here."""
    qrels, run, ranks = data
    want = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}, relevance_level=level).evaluate(run)
    j, r = tables(qrels, run, ranks)
    got = evaluate(j, r, ["iprec_at_recall"], per_query=True, rel=level, convention="pytrec_eval")
    assert len(got) == 11
    for q, measures in want.items():
        for key, value in measures.items():
            assert close(got[key][q], value), (q, key, got[key][q], value)


# ---- sklearn preset against scikit-learn --------------------------------------------------------------------

@SETTINGS
@given(collections(min_retrieved=2, grades=WITH_NEGATIVE), st.sampled_from([None, 1, 2, 3, 5]))
def test_sklearn_preset_equals_scikit_learn(data, k):
    qrels, run, ranks = data
    j, r = tables(qrels, run, ranks)
    names = ["nDCG", "DCG"] if k is None else [f"nDCG@{k}", f"DCG@{k}"]
    if any(g < 0 for docs in qrels.values() for g in docs.values()):  # ndcg_score refuses negative y_true
        with pytest.raises(InputError, match="is negative"):
            evaluate(j, r, names, convention="sklearn", per_query=True)
        names = names[1:]
    got = evaluate(j, r, names, convention="sklearn", per_query=True)
    assert set(got[names[-1]]) == set(run)  # one sample per query of the run
    for q, docs in run.items():
        y_true = [[qrels.get(q, {}).get(d, 0) for d in docs]]  # unjudged candidates count 0
        y_score = [list(docs.values())]
        if len(names) == 2:
            assert close(got[names[0]][q], ndcg_score(y_true, y_score, k=k)), (q, "ndcg")
        assert close(got[names[-1]][q], dcg_score(y_true, y_score, k=k)), (q, "dcg")


# ---- every preset and single switches against the reference -------------------------------------------------

MEASURES = [  # (our name, metric, k, parameters written in the name)
    ("precision", "P", None, {}), ("P@1", "P", 1, {}), ("P@3", "P", 3, {}), ("P@20", "P", 20, {}),
    ("R", "R", None, {}), ("R@3", "R", 3, {}), ("F1", "F1", None, {}), ("F1@3", "F1", 3, {}),
    ("AP", "AP", None, {}), ("AP@3", "AP", 3, {}), ("AP(denominator=capped)@2", "AP", 2, {"denominator": "capped"}),
    ("AP(denominator=retrieved)@4", "AP", 4, {"denominator": "retrieved"}), ("AP(rel=2)", "AP", None, {"rel": 2}),
    ("RR", "RR", None, {}), ("RR@2", "RR", 2, {}), ("Rprec", "Rprec", None, {}), ("bpref", "bpref", None, {}),
    ("Success@1", "Success", 1, {}), ("Success@3", "Success", 3, {}),
    ("nDCG", "nDCG", None, {}), ("nDCG@3", "nDCG", 3, {}), ("DCG", "DCG", None, {}), ("DCG@3", "DCG", 3, {}),
    ("nDCG(gain=exponential)@4", "nDCG", 4, {"gain": "exponential"}),
    ("nDCG(ideal=retrieved)@3", "nDCG", 3, {"ideal": "retrieved"}),
    ("nDCG(ideal=candidates)", "nDCG", None, {"ideal": "candidates"}), ("nDCG(rel=2)@5", "nDCG", 5, {"rel": 2}),
    ("ERR", "ERR", None, {}), ("ERR@3", "ERR", 3, {}), ("ERR(max_grade=2)@5", "ERR", 5, {"max_grade": 2}),
    ("RBP(p=0.8)", "RBP", None, {"p": 0.8}), ("RBP(p=0.5)@3", "RBP", 3, {"p": 0.5}),
    ("RBP(p=0.8,rel=2)", "RBP", None, {"p": 0.8, "rel": 2}),
    ("Judged", "Judged", None, {}), ("Judged@3", "Judged", 3, {}),
    ("NumQ", "NumQ", None, {}), ("NumRet", "NumRet", None, {}), ("NumRel", "NumRel", None, {}),
    ("NumRelRet", "NumRelRet", None, {}),
    ("INST(max_rel=3)", "INST", None, {"max_rel": 3}), ("INST(T=0.5,max_rel=2)", "INST", None, {"t": 0.5, "max_rel": 2}),
    ("BPM(T=1.5,max_rel=2)@4", "BPM", 4, {"t": 1.5, "max_rel": 2}),
    ("BPM(min_rel=1,max_rel=3)@20", "BPM", 20, {"min_rel": 1, "max_rel": 3}),
    ("SDCG(max_rel=3)@3", "SDCG", 3, {"max_rel": 3}), ("SDCG(min_rel=1,max_rel=2)@20", "SDCG", 20, {"min_rel": 1, "max_rel": 2}),
    ("Compat", "Compat", None, {}), ("Compat(p=0.5,normalize=false)", "Compat", None, {"p": 0.5, "normalize": "false"}),
]


def resolve(name, params, conv):
    """The parameters a measure runs with, by the README's rules: -l (rel) applies to the binary metrics, to
    nDCG/DCG/RBP only where the convention says so (ranx, MLlib); RBP is graded unless a level applies."""
    p = dict(params)
    if name in ("nDCG", "DCG"):
        p.setdefault("rel", conv["rel"] if conv["level_for_gain"] else 1)
    elif name == "RBP":
        p["rbp_rel"] = p.pop("rel", conv["rel"] if conv["level_for_gain"] else None)
    elif name not in ("ERR", "Judged", "NumQ", "NumRet"):
        p.setdefault("rel", conv["rel"])
    return p


SWITCHES = st.fixed_dictionaries({}, optional={
    "ties": st.sampled_from(["item_desc", "item_asc", "average", "input"]),
    "gain": st.sampled_from(["linear", "exponential", "binary", "raw"]),
    "negative_grades": st.sampled_from(["unjudged", "nonrelevant"]),
    "ideal": st.sampled_from(["judgments", "candidates", "retrieved"]),
    "denominator": st.sampled_from(["judged", "capped", "retrieved"]),
    "empty": st.sampled_from(["zero", "nan"]),
    "queries": st.sampled_from(["both", "judged", "run", "all"]),
    "rel": st.sampled_from([1, 2]),
    "log_base": st.sampled_from([2, 10]),
})


@SETTINGS
@given(collections(grades=WITH_NEGATIVE), st.sampled_from(sorted(reference.PRESETS)), SWITCHES,
       st.lists(st.sampled_from(MEASURES), min_size=8, max_size=8, unique_by=lambda m: m[0]))
def test_presets_and_switches_equal_the_reference(data, preset, switches, measures):
    """Each example: one preset, some single switches, eight measures (building the fused query for all of
    them every time would make the test slow), every query per measure and the means."""
    qrels, run, ranks = data
    conv = dict(reference.PRESETS[preset], rel=1, log_base=2)
    conv.update(switches)
    j, r = tables(qrels, run, ranks)
    if any(g < 0 for docs in qrels.values() for g in docs.values()):  # nDCG with raw gain refuses it (sklearn)
        raw = [m for m in measures if m[1] == "nDCG" and m[3].get("gain", conv["gain"]) == "raw"]
        if raw:
            with pytest.raises(InputError, match="is negative"):
                Evaluation(j, r, [m[0] for m in measures], convention=preset, **switches).rows()
            measures = [m for m in measures if m not in raw]
    ev = Evaluation(j, r, [m[0] for m in measures], convention=preset, **switches)
    try:
        rows = ev.rows()
    finally:
        ev.close()
    for label, name, k, params in measures:
        got = {q: v for m, q, v in rows if m == label and q is not None}
        want = reference.evaluate(qrels, run, [(label, name, k, resolve(name, params, conv))], conv, ranks)[label]
        assert set(got) == set(want), (label, sorted(got), sorted(want))
        for q in want:
            assert close(got[q], want[q]), (label, q, got[q], want[q])
        mean = [v for m, q, v in rows if m == label and q is None]
        assert len(mean) == 1 and close(mean[0], reference.mean(list(want.values()), name)), label


def test_rbp_cutoff_by_hand():
    """RBP@k counts only the top k (found by the property test: the cutoff used to be ignored). Three relevant
    items of grade 1 at ranks 1-3, p = 0.8: RBP@1 = 0.2 * 1 = 0.2, RBP@2 = 0.2 * (1 + 0.8) = 0.36,
    RBP = 0.2 * (1 + 0.8 + 0.64) = 0.488."""
    j = pa.table({"query_id": ["1"] * 3, "item_id": ["a", "b", "c"], "relevance": [1, 1, 1]})
    r = pa.table({"query_id": ["1"] * 3, "item_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    got = evaluate(j, r, ["RBP(p=0.8)@1", "RBP(p=0.8)@2", "RBP(p=0.8)"])
    assert got == pytest.approx({"RBP(p=0.8)@1": 0.2, "RBP(p=0.8)@2": 0.36, "RBP(p=0.8)": 0.488})
