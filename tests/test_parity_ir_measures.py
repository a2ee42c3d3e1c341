"""ir_measures, run in the test: every measure it can compute here (pytrec_eval, judged, msmarco, accuracy and gdeval
providers) in its own spelling, per query (iter_calc) and aggregated (calc_aggregate), equal to ours under the
ir_measures preset to 1e-9. Each case names the provider that computes the reference. Data: trec_eval's graded
suite (qrels.rel_level, grades -1..4) and synthetic runs with tied scores (exact in float32, as pytrec_eval
reads them), unjudged items and queries on one side only."""
import atexit
import math
import os
import shutil
import tempfile

import pytest

import ir_measures  # the test extra installs it: a missing one fails, never skips

import rankmetrics_duckdb as rm  # noqa: E402
from conftest import TREC, cli  # noqa: E402
from synthetic import make, write_trec  # noqa: E402

CASES = [  # (ir_measures' name, the provider computing the reference)
    ("nDCG@10", "pytrec_eval"), ("nDCG", "pytrec_eval"), 
    ("nDCG(dcg='log2')@20", "pytrec_eval"), ("P@5", "pytrec_eval"), ("P(rel=2)@5", "pytrec_eval"),
    ("R@100", "pytrec_eval"), ("R(rel=2)@20", "pytrec_eval"), ("AP", "pytrec_eval"), ("AP(rel=2)", "pytrec_eval"),
    ("AP@100", "pytrec_eval"), ("RR", "pytrec_eval"), ("RR(rel=2)", "pytrec_eval"), ("Rprec", "pytrec_eval"),
    ("Bpref", "pytrec_eval"), ("SetP", "pytrec_eval"), ("SetR", "pytrec_eval"), ("SetF", "pytrec_eval"),
    ("SetAP", "pytrec_eval"), ("SetRelP", "pytrec_eval"), ("SetP(relative=True)", "pytrec_eval"),
    ("P(judged_only=True)@10", "pytrec_eval"), ("nDCG(judged_only=True)@10", "pytrec_eval"),
    ("AP(judged_only=True)", "pytrec_eval"), ("SetF(beta=0.5)", "pytrec_eval"), ("SetF(beta=2.0)", "pytrec_eval"), ("SetF(beta=0.25)", "pytrec_eval"),
    ("SetP(rel=2)", "pytrec_eval"), ("IPrec@0.2", "pytrec_eval"), ("IPrec@0.0", "pytrec_eval"),
    # IPrec with parameters (refused before: "IPrec takes no cutoff", "unknown parameter 'recall'")
    ("IPrec(rel=2)@0.2", "pytrec_eval"), ("IPrec(judged_only=True)@0.3", "pytrec_eval"),
    ("IPrec(recall=0.4)", "pytrec_eval"), ("IPrec(rel=2,recall=0.1)", "pytrec_eval"),
    ("infAP", "pytrec_eval"), ("Success@10", "pytrec_eval"), ("NumRet", "pytrec_eval"),
    ("NumRel", "pytrec_eval"), ("NumRelRet", "pytrec_eval"), ("NumQ", "pytrec_eval"),
    ("nDCG(gains={0:0,1:1,2:3,3:3,4:3})@10", "pytrec_eval"), ("nDCG(gains={0:1,1:2,2:9,3:3,4:2})", "pytrec_eval"),
    ("nDCG(gains={1:0,2:5})@20", "pytrec_eval"),
    ("NumRet(rel=2)", "pytrec_eval"), ("NumRet(rel=1)", "pytrec_eval"),
    ("Judged@10", "judged"), ("Judged@5", "judged"), ("Judged", "judged"), ("RR(cutoff=10)", "msmarco"),
    ("RR(cutoff=10,rel=2)", "msmarco"),
]
# how each provider orders tied scores: pytrec_eval as trec_eval (score, then doc id descending); the judged and
# msmarco providers sort by (-score, doc id), doc id ascending (ir_measures/providers/judged_provider.py,
# msmarco_provider.py). The preset alone must give each provider's order (ties 'provider').
TIES = {"pytrec_eval": "item_desc", "judged": "item_asc", "msmarco": "item_asc"}
# ir_measures gives every judged query missing from the run each measure's DEFAULT, 0 (providers/base.py,
# iter_calc), even NumRel, which counts judgments, and NumQ, whose sum then counts the queries of the run only;
# we count those queries' judgments (as trec_eval -c does): these two differ on data with such queries.
COUNTS_OF_JUDGMENTS = {"NumRel", "NumQ"}


def _data():
    qrels, run = make(seed=11, queries=20, depth=50)
    # a folder of this test process's own, removed at its end: a fixed one was written by both test processes at
    # once (and _without_missing_queries writes beside the synthetic qrels), and stayed in /tmp
    folder = tempfile.mkdtemp(prefix="rankmetrics-irm-parity-")
    atexit.register(shutil.rmtree, folder, True)
    return {"suite": (os.path.join(TREC, "qrels.rel_level"), os.path.join(TREC, "results.test")),
            "synthetic": write_trec(qrels, run, folder)}


DATA = _data()


def _without_missing_queries(qrels_path, run_path):
    """The qrels kept to the queries of the run (for NumRel and NumQ, see COUNTS_OF_JUDGMENTS)."""
    with open(run_path) as fh:
        queries = {line.split()[0] for line in fh}
    kept = qrels_path + ".run-queries"
    with open(qrels_path) as fh, open(kept, "w") as out:
        out.writelines(line for line in fh if line.split()[0] in queries)
    return kept, run_path


def _reference(name, provider, qrels_path, run_path):
    measure = ir_measures.parse_measure(name)
    prov = ir_measures.providers.registry[provider]
    if not prov.is_available():
        pytest.fail(f"ir_measures' {provider} provider is not available here")
    assert prov.supports(measure), (provider, name)
    qrels = list(ir_measures.read_trec_qrels(qrels_path))
    run = list(ir_measures.read_trec_run(run_path))
    per_query = {m.query_id: m.value for m in prov.iter_calc([measure], qrels, run)}
    return per_query, prov.calc_aggregate([measure], qrels, run)[measure]


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("name,provider", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_ir_measures_measure_equals_ours(name, provider, data):
    qrels_path, run_path = DATA[data]
    want_q, want_mean = _reference(name, provider, qrels_path, run_path)
    if name in COUNTS_OF_JUDGMENTS and data == "synthetic":
        qrels_path, run_path = _without_missing_queries(qrels_path, run_path)
        want_q, want_mean = _reference(name, provider, qrels_path, run_path)
    got_q = rm.evaluate(qrels_path, run_path, [name], convention="ir_measures", per_query=True)[name]
    got_mean = rm.evaluate(qrels_path, run_path, name, convention="ir_measures")[name]
    if name != "NumQ":  # NumQ has no per-query value in ir_measures' pytrec_eval provider (1 per query)
        assert want_q, name
        for q, value in want_q.items():
            assert got_q[q] == pytest.approx(value, abs=1e-9), (name, q)
    assert got_mean == pytest.approx(want_mean, abs=1e-9), name


def _untied(run_path, folder):
    """The run with the order trec_eval gives it (score, then doc id descending) written as distinct scores: the
    accuracy provider keeps tied items in file order (a stable sort), a tie rule no convention names."""
    by_query = {}
    with open(run_path) as fh:
        for line in fh:
            q, _, doc, _, score, *_ = line.split()
            by_query.setdefault(q, []).append((float(score), doc))
    out = os.path.join(folder, "untied.run")
    with open(out, "w") as fh:
        for q, items in by_query.items():
            items.sort(key=lambda x: (x[0], x[1]), reverse=True)
            for rank, (_, doc) in enumerate(items, 1):
                fh.write(f"{q} Q0 {doc} {rank} {len(items) - rank + 1} untied\n")
    return out


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("name", ["Accuracy", "Accuracy@10", "Accuracy@5", "Accuracy(rel=2)@20", "Accuracy(rel=2)"])
def test_accuracy_equals_the_accuracy_provider(name, data, tmp_path):
    """ir_measures' Accuracy (providers/accuracy_provider.py): per query where it reports a value, NaN (left out
    of the mean) where it leaves the query out (no relevant item in the top k), and the mean over the reported
    queries. Its ZeroDivisionError (a top k with no non-relevant item) does not occur on this data."""
    qrels_path, run_path = DATA[data]
    run_path = _untied(run_path, str(tmp_path))
    want_q, want_mean = _reference(name, "accuracy", qrels_path, run_path)
    got = rm.evaluate(qrels_path, run_path, [name], convention="ir_measures", per_query=True)[name]
    got_mean = rm.evaluate(qrels_path, run_path, name, convention="ir_measures")[name]
    assert want_q
    for q, value in got.items():
        if q in want_q:
            assert value == pytest.approx(want_q[q], abs=1e-9), (name, q)
        else:
            assert math.isnan(value), (name, q)
    assert got_mean == pytest.approx(want_mean, abs=1e-9), name
    assert any(math.isnan(v) for v in got.values()) or data == "suite" or name == "Accuracy"


def test_one_string_names_several_measures(tmp_path):
    """ir_measures takes "nDCG@10 P@5 AP" (its command line; parse_measure per name); so do evaluate() and -m."""
    from conftest import cli
    qrels_path, run_path = DATA["suite"]
    want = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in "nDCG@10 P(rel=2)@5 AP".split()],
                                      list(ir_measures.read_trec_qrels(qrels_path)),
                                      list(ir_measures.read_trec_run(run_path)))
    got = rm.evaluate(qrels_path, run_path, "nDCG@10 P(rel=2)@5 AP", convention="ir_measures")
    assert set(got) == {"nDCG@10", "P(rel=2)@5", "AP"}
    for m, v in want.items():
        assert got[str(m)] == pytest.approx(v, abs=1e-9)
    objects = rm.evaluate(qrels_path, run_path, [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5],
                          convention="ir_measures")
    assert objects["nDCG@10"] == got["nDCG@10"] and objects["P(rel=2)@5"] == got["P(rel=2)@5"]
    out = cli("eval", qrels_path, run_path, "-m", "nDCG@10 P(rel=2)@5 AP", "--convention", "ir_measures").stdout
    assert [line.split()[0] for line in out.splitlines()] == ["nDCG@10", "P(rel=2)@5", "AP"]


def test_judged_counts_negative_grades_as_ir_measures_does():
    """qrels.rel_level has grades of -1. trec_eval 10's unj counts them as unjudged (out.test.aql: unj_10 per
    query), ir_measures' Judged counts any qrels row: the judged_count switch gives each tool's number."""
    from conftest import read_trec_output
    qrels_path, run_path = DATA["suite"]
    aql = read_trec_output(os.path.join(TREC, "out.test.aql"))
    ours_trec = rm.evaluate(qrels_path, run_path, ["Judged@10"], per_query=True)["Judged@10"]
    for q in ("301", "302", "303"):
        assert ours_trec[q] == pytest.approx(1 - aql["unj_10"][q], abs=5.1e-5)
    want_q, _ = _reference("Judged@10", "judged", qrels_path, run_path)
    ours_irm = rm.evaluate(qrels_path, run_path, ["Judged@10"], per_query=True, judged_count="any",
                           ties="item_asc")["Judged@10"]
    assert ours_irm == pytest.approx(want_q, abs=1e-9)
    assert any(not math.isclose(ours_trec[q], want_q[q]) for q in want_q)  # the data tells the two apart


@pytest.mark.parametrize("name,message", [
    ("nDCG(dcg='jarvelin')@10", "dcg='jarvelin' is not one we compute"),
    ("SetP@10", "SetP takes no cutoff"), ("SetF(beta=-1)", "beta must be a number >= 0"),
    ("RR(cutoff=10)@5", "the cutoff is given twice"), ("SetP(relative=maybe)", "relative must be True or False"),
    ("Compat(normalize=maybe)", "unknown value 'maybe' for normalize"), ("Compat@10", "Compat takes no cutoff"),
    ("SDCG(dcg='exp-log2',max_rel=4)@10", "dcg='exp-log2' is not one we compute"),
    ("BPM(max_rel=4)", "BPM needs k"), ("SDCG(max_rel=4)", "SDCG needs k"), ("INST@10", "INST takes no cutoff"),
    ("INST", "max_rel has no default"), ("BPM(T=0,max_rel=4)@10", "t must be a number > 0"),
])
def test_ir_measures_spellings_we_refuse_say_why(name, message):
    with pytest.raises(rm.UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rm.evaluate(*DATA["suite"], [name])


def test_accuracy_by_hand():
    """Top 5 = N R N R N (grades 0 1 0 1 0): the relevant items have 1 and 2 non-relevant items above them, so
    Accuracy@5 = 1 - (1 + 2) / (3 non-relevant x 2 relevant) = 0.5; Accuracy@2 = 1 - 1 / (1 x 1) = 0. A top k
    without a relevant item (Accuracy@1) or without a non-relevant one (query b) is undefined: NaN, left out of
    the mean."""
    import pyarrow as pa
    run = pa.table({"query_id": ["a"] * 5 + ["b"] * 2, "item_id": list("vwxyz") + list("vw"),
                    "score": [5.0, 4, 3, 2, 1, 2, 1]})
    qrels = pa.table({"query_id": ["a"] * 5 + ["b"] * 2, "item_id": list("vwxyz") + list("vw"),
                      "relevance": [0, 1, 0, 1, 0, 1, 1]})
    got = rm.evaluate(qrels, run, ["Accuracy@5", "Accuracy@2", "Accuracy@1"], per_query=True)
    assert got["Accuracy@5"]["a"] == 0.5 and got["Accuracy@2"]["a"] == 0.0
    assert math.isnan(got["Accuracy@1"]["a"]) and math.isnan(got["Accuracy@5"]["b"])
    means = rm.evaluate(qrels, run, ["Accuracy@5", "Accuracy@1"])
    assert means["Accuracy@5"] == 0.5 and math.isnan(means["Accuracy@1"])


def test_accuracy_is_the_value_asked_alone_whatever_else_is_asked():
    """ir_measures 0.4.3 leaves a query without a relevant item retrieved out of Accuracy's mean when Accuracy is
    asked alone; in one call with another provider's measure (Judged@3) it gives that query 0 and counts it. q1
    ranks R N (Accuracy 1), q2 ranks N and an unjudged item, its relevant item not retrieved: 1.0 alone, 0.5
    beside Judged@3 there. Ours is the value asked alone in both requests (q2 NaN, left out)."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 0}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"d": 2.0, "x": 1.0}}
    alone = ir_measures.calc_aggregate([ir_measures.parse_measure("Accuracy")], qrels, run)
    beside = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in ("Accuracy", "Judged@3")], qrels, run)
    assert {str(m): v for m, v in alone.items()} == {"Accuracy": 1.0}
    assert {str(m): v for m, v in beside.items()}["Accuracy"] == 0.5  # ir_measures: q2 counted as 0 here
    for measures in (["Accuracy"], ["Accuracy", "Judged@3"]):
        got = rm.evaluate(qrels, run, measures, convention="ir_measures", per_query=True)
        assert got["Accuracy"]["q1"] == 1.0 and math.isnan(got["Accuracy"]["q2"])
        assert rm.evaluate(qrels, run, measures, convention="ir_measures")["Accuracy"] == 1.0


# gdeval (the TREC Web track's gdeval.pl, ir_measures' gdeval provider, the default provider of ERR) prints
# five decimals: equal to that precision, per query and in the mean of its rounded values
GDEVAL = ["ERR@20", "ERR@10", "ERR@5", "nDCG(dcg='exp-log2')@20", "nDCG(dcg='exp-log2')@10"]


@pytest.mark.parametrize("ties", ["item_desc", "item_asc"])
@pytest.mark.parametrize("name", GDEVAL)
def test_gdeval_measures_to_its_printed_precision(name, ties):
    """On trec_eval's graded suite (qrels.rel_level, grades -1..4, and results.test with its tied scores; gdeval
    reads numeric query ids only, so not the synthetic data): ERR@k as gdeval (grades capped at 4,
    (2^g - 1) / 16) and nDCG with exponential gain; both tie rules give gdeval's values on this data."""
    qrels_path, run_path = DATA["suite"]
    want_q, want_mean = _reference(name, "gdeval", qrels_path, run_path)
    got_q = rm.evaluate(qrels_path, run_path, [name], convention="ir_measures", per_query=True, ties=ties)[name]
    got_mean = rm.evaluate(qrels_path, run_path, name, convention="ir_measures", ties=ties)[name]
    assert len(want_q) == 3
    for q, value in want_q.items():
        assert got_q[q] == pytest.approx(value, abs=5.1e-6), (name, q)
    assert got_mean == pytest.approx(want_mean, abs=5.1e-6), name


def test_judged_only_in_names_must_agree():
    """ir_measures writes pytrec_eval's -J into each name (P(judged_only=True)@10). One read of the run serves
    every measure of an evaluation: names that agree set it for the evaluation (above); a mix is refused, naming
    the measures, rather than computed the wrong way for some."""
    for names in (["P(judged_only=True)@10", "P@10"], ["P(judged_only=True)@10", "AP(judged_only=False)"]):
        with pytest.raises(rm.UsageError, match=r"judged_only is False for '(P@10|AP\(judged_only=False\))', True "
                                                r"for 'P\(judged_only=True\)@10'"):
            rm.evaluate(*DATA["suite"], names)
    # the value a name writes out and the evaluation's own agree: taken (it was refused as a disagreement)
    qrels_path, run_path = DATA["suite"]
    got = rm.evaluate(qrels_path, run_path, ["P@5", "AP(judged_only=False)"], convention="ir_measures")
    for name in ("P@5", "AP(judged_only=False)"):
        assert got[name] == pytest.approx(_reference(name, "pytrec_eval", qrels_path, run_path)[1], abs=1e-9)
    with pytest.raises(rm.UsageError, match=r"judged_only is False for 'RR\(judged_only=False\)', True for "
                                            r"'P\(judged_only=True\)@5', 'AP\(judged_only=True\)'"):
        rm.evaluate(qrels_path, run_path, ["P(judged_only=True)@5", "AP(judged_only=True)", "RR(judged_only=False)"])
    both = rm.evaluate(*DATA["suite"], ["P(judged_only=True)@10", "AP(judged_only=True)"], convention="ir_measures")
    alone = rm.evaluate(*DATA["suite"], ["P@10", "AP"], convention="ir_measures", judged_only=True)
    assert both["P(judged_only=True)@10"] == alone["P@10"] and both["AP(judged_only=True)"] == alone["AP"]




# Two scores tied as 32-bit floats (pytrec_eval reads scores into C floats) and apart as doubles (the Python
# providers': cwl_eval, gdeval, msmarco, judged, accuracy, compat): the relevant a is scored 1e-10 above b.
PRECISION = ("1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 1.0000000001 x\n1 Q0 b 2 1.0 x\n")
PROVIDED = [("RBP(rel=1)", "cwl_eval"), ("INSQ(max_rel=1)", "cwl_eval"), ("ERR@1", "gdeval"),
            ("nDCG(dcg='exp-log2')@1", "gdeval"), ("Accuracy@2", "accuracy"), ("RR(cutoff=1)", "msmarco"),
            ("Judged@1", "judged"), ("P@1", "pytrec_eval"), ("RR", "pytrec_eval"), ("nDCG@1", "pytrec_eval")]


def _write(tmp_path, qrels, run):
    q, r = tmp_path / "q.txt", tmp_path / "r.txt"
    q.write_text(qrels)
    r.write_text(run)
    return str(q), str(r)


def test_each_provider_compares_scores_in_its_own_precision(tmp_path):
    """Under the ir_measures preset a measure ranks the run as its provider does: pytrec_eval's with the scores as
    32-bit floats (a and b tied, b first by trec_eval's doc id descending: P@1 0, RR 1/2), the Python providers'
    as doubles (a first: RR(cutoff=1) 1). Every measure read 32-bit floats before: RBP(rel=1) 0.16 for cwl_eval's
    0.20, ERR@1 0 for gdeval's 0.0625, Accuracy@2 0 for 1."""
    qrels, run = _write(tmp_path, *PRECISION)
    for name, provider in PROVIDED:
        want_q, want_mean = _reference(name, provider, qrels, run)
        got = rm.evaluate(qrels, run, [name], convention="ir_measures", per_query=True)[name]
        assert got["1"] == pytest.approx(want_q["1"], abs=1e-9), (name, provider)
        assert rm.evaluate(qrels, run, name, convention="ir_measures")[name] == pytest.approx(want_mean, abs=1e-9)
    got = rm.evaluate(qrels, run, ["P@1", "RR", "RR(cutoff=1)"], convention="ir_measures", scores="double")
    assert got == {"P@1": 1.0, "RR": 1.0, "RR(cutoff=1)": 1.0}  # by hand: a first when asked for doubles


def test_providers_reading_scores_apart_share_a_run_only_where_it_ranks_alike(tmp_path):
    """P@1 (pytrec_eval, 32-bit floats) and ERR@1 (gdeval, doubles) asked together: one read of the run serves
    both, so scores 32-bit floats tie and doubles do not are refused, naming them (a number for one of them would
    be wrong); scores apart in both are evaluated, each as its provider gives it. The SQL (to_sql), which cannot
    see the scores, refuses the mix; --scores chooses one precision for all."""
    qrels, run = _write(tmp_path, *PRECISION)
    with pytest.raises(rm.InputError, match=r"r.txt: query 1: items b and a have scores 1.0 and 1.0000000001, tied "
                                            r"as the 32-bit floats of P@1 \(pytrec_eval\) and apart as the doubles "
                                            r"of ERR@1 \(gdeval\)"):
        rm.evaluate(qrels, run, ["P@1", "ERR@1"], convention="ir_measures")
    out = cli("eval", qrels, run, "--convention", "ir_measures", "-m", "P@1", "-m", "ERR@1", check=False)
    assert out.returncode != 0 and out.stdout == "" and len(out.stderr.strip().splitlines()) == 1, out.stderr
    with pytest.raises(rm.UsageError, match=r"compared as 32-bit floats for P@1 \(pytrec_eval\) and as doubles "
                                            r"for ERR@1 \(gdeval\)"):
        rm.to_sql(["P@1", "ERR@1"], dialect="postgres", run="r", judgments="j", convention="ir_measures")
    qrels, run = _write(tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c 1\n", "1 Q0 b 1 2.5 x\n1 Q0 a 2 1.0 x\n1 Q0 c 3 1.0 x\n")
    got = rm.evaluate(qrels, run, ["P@1", "ERR@1", "AP"], convention="ir_measures")
    for name, provider in (("P@1", "pytrec_eval"), ("ERR@1", "gdeval"), ("AP", "pytrec_eval")):
        assert got[name] == pytest.approx(_reference(name, provider, qrels, run)[1], abs=1e-9), name
    assert got["P@1"] == 0.0 and got["AP"] == pytest.approx((1 / 2 + 2 / 3) / 2)  # by hand: b, c, a (c > a by id)

# cwl_eval (ir_measures' cwl_eval provider): its C/W/L versions of ERR, INSQ, INST, BPM and SDCG, on the runs untied (cwl_eval keeps tied
# items in file order) and with trec_eval's graded suite (grades -1..4) and the synthetic data (grades 0..3)
CWL = ["NERR8(max_rel=4)@10", "NERR8(max_rel=4)@1000", "NERR8(min_rel=1,max_rel=3)@20", "NERR8(max_rel=2)@5",
       "NERR10(max_rel=4)", "NERR10(p=0.5,max_rel=2)", "NERR10(p=0.95,min_rel=1,max_rel=3)",
       "NERR9(max_rel=4)@10", "NERR9(max_rel=3)@1000", "NERR9(min_rel=1,max_rel=3)@20", "NERR11(max_rel=4)",
       "NERR11(T=2.5,max_rel=3)", "INSQ(max_rel=4)", "INSQ(T=3.0,min_rel=1,max_rel=3)",
       "BPM(max_rel=4)@10", "BPM(T=2.5,max_rel=3)@20", "BPM(T=0.5,min_rel=1,max_rel=3)@1000", "BPM(max_rel=2)@5",
       "BPM(T=3.0,max_rel=4)@2000", "SDCG(max_rel=4)@10", "SDCG(max_rel=3)@100", "SDCG(min_rel=1,max_rel=3)@20",
       "SDCG(dcg='log2',max_rel=4)@1000", "SDCG(max_rel=2)@1", "SDCG(max_rel=4)@2000", "INST(max_rel=4)",
       "INST(T=0.5,max_rel=2)", "INST(T=2.5,min_rel=1,max_rel=3)", "INST(T=0.25,max_rel=3)",
       # the trec_eval measures cwl_eval also computes (binary, rel= the level), the same numbers as pytrec_eval's
       "P@10", "P(rel=2)@5", "RR", "RR(rel=2)", "RBP(rel=1)", "RBP(rel=2,p=0.5)"]


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("name", CWL)
def test_cwl_measures_equal_cwl_eval(name, data, tmp_path):
    import logging
    logging.getLogger("ir_measures.cwl_eval").setLevel(logging.ERROR)  # its notes on grades outside the range
    qrels_path, run_path = DATA[data]
    run_path = _untied(run_path, str(tmp_path))
    want_q, want_mean = _reference(name, "cwl_eval", qrels_path, run_path)
    got_q = rm.evaluate(qrels_path, run_path, [name], convention="ir_measures", per_query=True)[name]
    got_mean = rm.evaluate(qrels_path, run_path, name, convention="ir_measures")[name]
    assert want_q
    for q, value in want_q.items():
        assert got_q[q] == pytest.approx(value, abs=1e-9), (name, q)
    assert got_mean == pytest.approx(want_mean, abs=1e-9), name


def test_cwl_measures_need_the_top_grade():
    """max_rel has no default in ir_measures either (ParamInfo(required=True)): it refuses to compute without it."""
    qrels = list(ir_measures.read_trec_qrels(DATA["suite"][0]))
    run = list(ir_measures.read_trec_run(DATA["suite"][1]))
    for name in ("NERR8@10", "NERR9@10", "NERR10", "NERR11", "INSQ", "INST", "BPM@10", "SDCG@10"):
        with pytest.raises(AssertionError, match="invalid param max_rel"):
            ir_measures.calc_aggregate([ir_measures.parse_measure(name)], qrels, run)
        with pytest.raises(rm.UsageError, match=r"max_rel has no default; give it, e.g. \w+\(max_rel=4\)"):
            rm.evaluate(*DATA["suite"], [name], convention="ir_measures")
    with pytest.raises(rm.UsageError, match=r"max_rel has no default; give it, e.g. NERR8\(max_rel=4\)"):
        rm.evaluate(*DATA["suite"], ["NERR8@10"])
    with pytest.raises(rm.UsageError, match="max_rel"):
        rm.evaluate(*DATA["suite"], ["NERR10(max_rel=-1)"])
    with pytest.raises(rm.UsageError, match=r"max_rel must be above min_rel \(2 <= 3\)"):
        rm.evaluate(*DATA["suite"], ["NERR8(min_rel=3,max_rel=2)@10"])


def test_cwl_eval_ap_is_ap_over_the_relevant_retrieved(tmp_path):
    """ir_measures' AP from its cwl_eval provider (cwl's APCWLMetric, Harman's AP) divides by the relevant items
    retrieved (in cwl_eval's 1000 ranks), not by |G| as its default provider (pytrec_eval) does: that is our
    AP(denominator=retrieved). `AP` itself follows ir_measures' default provider (the CASES above)."""
    for data in sorted(DATA):
        qrels_path, run_path = DATA[data]
        run_path = _untied(run_path, str(tmp_path))
        for level in (1, 2):
            name = "AP" if level == 1 else f"AP(rel={level})"
            want_q, want_mean = _reference(name, "cwl_eval", qrels_path, run_path)
            ours = f"AP(denominator=retrieved,rel={level})"
            got = rm.evaluate(qrels_path, run_path, [ours], convention="ir_measures", per_query=True)[ours]
            assert want_q
            for q, value in want_q.items():
                assert got[q] == pytest.approx(value, abs=1e-9), (data, name, q)
            assert rm.evaluate(qrels_path, run_path, ours, convention="ir_measures")[ours] == pytest.approx(
                want_mean, abs=1e-9)


def test_bpm_compares_the_exact_gain_with_t():
    """BPM by hand (Zhang et al. 2017, static, unit costs; the definition in sql/user_models.sql): grades 0 2 3 1 0
    with max_rel 3 are gains 0, 2/3, 1, 1/3, 0. With T = 2 the gain summed reaches 2 exactly at rank 4, so the
    user reads ranks 1-4 (the gain above each is below 2) and BPM@10 = 2 / 4 = 0.5. cwl_eval sums in floating
    point, 2/3 + 1 + 1/3 = 1.9999999999999998 < 2, and reads on to rank 10: 2 / 10 (docs/conventions.md). With
    T = 2.5 the user reads all 10 ranks (5 ranks past the run's end): 2 / 10 = 0.2."""
    import pyarrow as pa
    run = pa.table({"query_id": ["a"] * 5, "item_id": list("vwxyz"), "score": [5.0, 4, 3, 2, 1]})
    qrels = pa.table({"query_id": ["a"] * 5, "item_id": list("vwxyz"), "relevance": [0, 2, 3, 1, 0]})
    got = rm.evaluate(qrels, run, ["BPM(T=2.0,max_rel=3)@10", "BPM(T=2.5,max_rel=3)@10", "BPM(T=1.0,max_rel=3)@2"])
    assert got["BPM(T=2.0,max_rel=3)@10"] == pytest.approx(0.5, abs=1e-12)
    assert got["BPM(T=2.5,max_rel=3)@10"] == pytest.approx(0.2, abs=1e-12)
    assert got["BPM(T=1.0,max_rel=3)@2"] == pytest.approx((0 + 2 / 3) / 2, abs=1e-12)  # k = 2 stops at rank 2


# ir_measures' diversity measures need subtopic qrels (another change adds them); every other measure of its
# registry is computed here (the tests above name its provider)
DIVERSITY = {"alpha_DCG", "alpha_nDCG", "α_DCG", "α_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA",
             "MAP_IA", "StRecall"}


def test_every_ir_measures_measure_on_plain_qrels_is_computed():
    from ir_measures.measures import registry
    for name, measure in sorted(registry.items()):
        if name in DIVERSITY:
            continue
        params = {"max_rel": 4} if "max_rel" in measure.SUPPORTED_PARAMS else {}
        spelled = name + ("(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")" if params else "")
        cutoff = measure.SUPPORTED_PARAMS.get("cutoff")
        spelled += "@10" if cutoff is not None and cutoff.required else ""
        value = rm.evaluate(*DATA["suite"], spelled, convention="ir_measures")[spelled]
        assert value == value, spelled  # a number


@pytest.mark.parametrize("shift", [0, -20.5])
@pytest.mark.parametrize("name", ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)"])
def test_compat_equals_the_compat_provider(name, shift, tmp_path):
    """ir_measures' Compat (providers/compat_provider.py, Clarke et al.'s compatibility): per query and in the mean,
    on the runs untied (its ideal orders retrieved items of equal grade and equal score by the qrels' lines), with
    scores above 0 and, shifted by -20.5, mostly below: an item not retrieved counts score 0 in its ideal, so it
    follows the retrieved items of its grade above 0 and precedes those below (a score of exactly 0 ties with it,
    hence the .5)."""
    for data in sorted(DATA):
        qrels_path, run_path = DATA[data]
        run_path = _untied(run_path, str(tmp_path))
        shifted = os.path.join(str(tmp_path), "shifted.run")
        with open(run_path) as fh, open(shifted, "w") as out:
            for line in fh:
                q, z, doc, rank, score, tag = line.split()
                out.write(f"{q} {z} {doc} {rank} {float(score) + shift} {tag}\n")
        want_q, want_mean = _reference(name, "compat", qrels_path, shifted)
        got = rm.evaluate(qrels_path, shifted, [name], convention="ir_measures", per_query=True)[name]
        assert want_q
        for q, value in want_q.items():
            assert got[q] == pytest.approx(value, abs=1e-9), (data, name, q)
        mean = rm.evaluate(qrels_path, shifted, name, convention="ir_measures")[name]
        assert mean == pytest.approx(want_mean, abs=1e-9), (data, name)


TIED = ("1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 1.0 x\n1 Q0 x 2 1.0 x\n")  # a (relevant) and x (unjudged) tie


@pytest.mark.parametrize("name,provider", [("RR@5", "msmarco"), ("RR(cutoff=1)", "msmarco"), ("Judged@1", "judged"),
                                           ("RR", "pytrec_eval"), ("P@1", "pytrec_eval")])
def test_the_preset_orders_ties_as_each_measures_provider(name, provider, tmp_path):
    """Each measure's provider orders the tie its own way: msmarco and judged by doc id ascending (a first: RR@5 1,
    Judged@1 1), pytrec_eval by doc id descending (x first: RR 1/2, P@1 0). The preset alone gave trec_eval's
    order to every measure before (RR@5 0.5 where ir_measures gives 1.0); the numbers by hand and from ir_measures."""
    qrels, run = _write(tmp_path, *TIED)
    by_hand = {"RR@5": 1.0, "RR(cutoff=1)": 1.0, "Judged@1": 1.0, "RR": 0.5, "P@1": 0.0}[name]
    want_q, want_mean = _reference(name, provider, qrels, run)
    assert want_q["1"] == by_hand and want_mean == by_hand
    assert rm.evaluate(qrels, run, [name], convention="ir_measures", per_query=True)[name] == {"1": by_hand}
    with rm.prepare(qrels, run, convention="ir_measures") as prepared:  # its stream of trec_eval's order first
        assert prepared.evaluate([name]) == {name: by_hand}
    assert rm.compare(qrels, [run, run], [name], convention="ir_measures")[0]["mean"] == by_hand
    out = cli("eval", qrels, run, "--convention", "ir_measures", "-m", name, "--format", "json")
    assert out.returncode == 0 and f'{by_hand}' in out.stdout, out.stdout
    import duckdb  # the SQL of the preset: the provider's order there too
    con = duckdb.connect()
    con.execute("CREATE TABLE r (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.execute("INSERT INTO r VALUES ('1', 'a', 1.0), ('1', 'x', 1.0)")
    con.execute("CREATE TABLE j AS SELECT '1' AS query_id, 'a' AS item_id, 1 AS relevance UNION ALL "
                "SELECT '1', 'b', 0")
    sql = rm.to_sql([name], run="r", judgments="j", convention="ir_measures", per_query=True)
    assert [v for m, q, v in con.execute(sql).fetchall() if q == "1"] == [by_hand]


def test_measures_whose_providers_order_ties_apart_share_a_run_only_where_it_has_no_tie(tmp_path):
    """P@1 (pytrec_eval: doc id descending) and RR@5 (msmarco: ascending) asked together: one ranking serves both,
    so a run with a tie is refused, naming it (a number for one of them would be wrong); a run without ties is
    evaluated, each as its provider gives it. The SQL, which cannot see the run, refuses the mix; --ties chooses."""
    qrels, run = _write(tmp_path, *TIED)
    with pytest.raises(rm.InputError, match=r"r.txt: query 1: items a and x tie on score 1.0, and ir_measures' "
                                            r"providers order tied items by id descending for P@1 \(pytrec_eval\) "
                                            r"and ascending for RR@5 \(msmarco\)"):
        rm.evaluate(qrels, run, ["P@1", "RR@5"], convention="ir_measures")
    out = cli("eval", qrels, run, "--convention", "ir_measures", "-m", "P@1", "-m", "RR@5", check=False)
    assert out.returncode != 0 and out.stdout == "" and len(out.stderr.strip().splitlines()) == 1, out.stderr
    with pytest.raises(rm.UsageError, match=r"ties: under --convention ir_measures, tied scores are ordered by item "
                                            r"id descending for P@1 \(pytrec_eval\) and ascending for "
                                            r"Judged@5 \(judged\)"):
        rm.to_sql(["P@1", "Judged@5"], dialect="postgres", run="r", judgments="j", convention="ir_measures",
                  scores="float32")
    got = rm.evaluate(qrels, run, ["P@1", "RR@5"], convention="ir_measures", ties="item_asc")
    assert got == {"P@1": 1.0, "RR@5": 1.0}  # by hand: a first, as asked
    qrels, run = _write(tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c 1\n", "1 Q0 b 1 2.5 x\n1 Q0 a 2 1.5 x\n1 Q0 c 3 1.0 x\n")
    got = rm.evaluate(qrels, run, ["P@1", "RR@5", "Judged@2"], convention="ir_measures", scores="double")
    for name, provider in (("P@1", "pytrec_eval"), ("RR@5", "msmarco"), ("Judged@2", "judged")):
        assert got[name] == pytest.approx(_reference(name, provider, qrels, run)[1], abs=1e-9), name
    assert got == {"P@1": 0.0, "RR@5": 0.5, "Judged@2": 1.0}  # by hand: b, a, c


def test_a_query_that_retrieved_nothing_under_the_ir_measures_preset():
    """A run dict mapping a judged query to no item ({'u1': {}}): ir_measures evaluates it (its pytrec_eval
    provider: AP, nDCG@10, P@2, RR 0 there, counted in the means), and our preset gives its numbers, run here; its
    judged provider divides 0 by min(k, 0) for Judged@k and raises ZeroDivisionError, where we give 0
    (docs/conventions.md; by hand: u0 ranks a (judged) then c (not): Judged@2 1/2; u2 ranks z (not) then y
    (judged): 1/2; u1 retrieved nothing: 0)."""
    from ir_measures import AP, RR, P, nDCG, Judged
    qrels = {"u0": {"a": 1, "b": 0}, "u1": {"x": 1}, "u2": {"y": 2}}
    run = {"u0": {"a": 2.0, "c": 1.0}, "u1": {}, "u2": {"y": 0.5, "z": 0.7}, "u3": {}}
    theirs = {AP: "AP", nDCG @ 10: "nDCG@10", P @ 2: "P@2", RR: "RR"}
    want = ir_measures.calc_aggregate(list(theirs), qrels, run)
    per_query = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(list(theirs), qrels, run)}
    assert per_query[("AP", "u1")] == 0 and set(q for _, q in per_query) == {"u0", "u1", "u2"}
    got = rm.evaluate(qrels, run, list(theirs.values()), convention="ir_measures")
    for measure, ours in theirs.items():
        assert got[ours] == pytest.approx(want[measure], abs=1e-9), ours
    with pytest.raises(ZeroDivisionError):
        ir_measures.calc_aggregate([Judged @ 2], qrels, run)
    assert rm.evaluate(qrels, run, ["Judged@2"], convention="ir_measures", per_query=True) == {
        "Judged@2": {"u0": 0.5, "u1": 0.0, "u2": 0.5}}
