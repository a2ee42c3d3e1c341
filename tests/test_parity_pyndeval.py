"""The diversity measures (sql/diversity.sql) against pyndeval, run here: pyndeval is the Python interface to
ndeval.c, the TREC Web track's official diversity tool, and ir_measures' pyndeval provider calls it for
alpha_nDCG, alpha_DCG, ERR_IA, nERR_IA, NRBP, nNRBP, P_IA, AP_IA and StRecall. pyndeval returns doubles (not ndeval's
printed 6 decimals), so every value, per query and the mean, must agree to 1e-9.

The macros run in a fresh DuckDB from `rankmetrics macros` (the SQL route), over datasets/diversity (make.py):
TREC diversity qrels ('topic subtopic docno grade', read by trec_qrels into a subtopic column) and three runs
(distinct scores, tied scores, short lists). pyndeval orders a run by score, then docno ascending: ties :=
'item_asc'. ir_measures' judged_only drops the run's unjudged documents before pyndeval sees the run; the
reference does the same here. pyndeval refuses cutoffs above 20 (ndeval's DEPTH)."""
import os

import duckdb
import pytest

import pyndeval  # the test extra installs it: a missing one fails, never skips

from conftest import DATA, cli

DIV = os.path.join(DATA, "diversity")
QRELS = os.path.join(DIV, "qrels.div")
RUNS = ("diverse", "greedy", "short")

# our macro -> ndeval's name (pyndeval's measure strings), with a cutoff or without
CUT = {"alpha_ndcg": "alpha-nDCG", "alpha_dcg": "alpha-DCG", "err_ia": "ERR-IA", "nerr_ia": "nERR-IA", "p_ia": "P-IA",
       "st_recall": "strec"}
WHOLE = {"nrbp": "NRBP", "nnrbp": "nNRBP", "ap_ia": "MAP-IA"}
CUTOFFS = (1, 2, 5, 10, 20)


@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    c.execute(cli("macros").stdout)
    c.execute(f"CREATE TABLE qrels AS FROM trec_qrels('{QRELS}')")
    for name in RUNS:
        c.execute(f"CREATE TABLE {name} AS FROM trec_run('{os.path.join(DIV, name + '.run')}')")
    return c


def read_qrels():
    with open(QRELS) as fh:
        return [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in fh)]


def read_run(name):
    with open(os.path.join(DIV, name + ".run")) as fh:
        return [(q, d, float(score)) for q, _, d, _, score, _ in (line.split() for line in fh)]


def reference(run, measures, rel=1, alpha=0.5, beta=0.5, judged_only=False):
    qrels = read_qrels()
    run = read_run(run)
    if judged_only:  # ir_measures' PyNdEvalInvoker: the run's (query, docno) pairs found in the qrels only
        judged = {(q, d) for q, _, d, _ in qrels}
        run = [r for r in run if (r[0], r[1]) in judged]
    ev = pyndeval.RelevanceEvaluator(qrels, measures, relevance_level=rel, alpha=alpha, beta=beta)
    return ev.evaluate(run)


def ours(con, call):
    return dict(con.execute(f"SELECT query_id, value FROM {call}").fetchall())


def assert_same(got, want, measure, label):
    assert set(got) == set(want), label  # queries in the run and the qrels (ndeval's default)
    for q in want:
        w = want[q][measure]
        assert got[q] == pytest.approx(w, abs=1e-9), (label, q)
    # the mean over the queries (ndeval's amean), NaN left out as our means do
    values = [want[q][measure] for q in want]
    assert sum(got.values()) / len(got) == pytest.approx(sum(values) / len(values), abs=1e-9), label


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("alpha", [0.5, 0.2, 0.9])
def test_cutoff_measures_equal_pyndeval(con, run, alpha):
    names = [f"{m}@{k}" for m in CUT.values() for k in CUTOFFS]
    want = reference(run, names, alpha=alpha)
    for macro, m in CUT.items():
        for k in CUTOFFS:
            extra = f", alpha := {alpha}" if macro in ("alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia") else ""
            got = ours(con, f"{macro}('{run}', 'qrels', {k}{extra}, ties := 'item_asc')")
            assert_same(got, want, f"{m}@{k}", f"{run} {macro}@{k} alpha={alpha}")


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("alpha,beta", [(0.5, 0.5), (0.3, 0.8), (0.9, 0.2)])
def test_whole_run_measures_equal_pyndeval(con, run, alpha, beta):
    want = reference(run, list(WHOLE.values()), alpha=alpha, beta=beta)
    for q in want:  # ndeval's nNRBP of a query without a relevant subtopic is 0/0 (NaN): 0 here (empty := 'zero')
        if want[q]["nNRBP"] != want[q]["nNRBP"]:
            want[q]["nNRBP"] = 0.0
    for macro, m in WHOLE.items():
        extra = f", alpha := {alpha}, beta := {beta}" if macro != "ap_ia" else ""
        got = ours(con, f"{macro}('{run}', 'qrels'{extra}, ties := 'item_asc')")
        assert_same(got, want, m, f"{run} {macro} alpha={alpha} beta={beta}")


@pytest.mark.parametrize("judged_only", [False, True])
def test_relevance_level_and_judged_only_equal_pyndeval(con, judged_only):
    names = ["alpha-nDCG@10", "alpha-DCG@5", "ERR-IA@10", "nERR-IA@20", "P-IA@5", "strec@10", "NRBP", "nNRBP", "MAP-IA"]
    macros = {"alpha-nDCG@10": "alpha_ndcg({}, 10", "alpha-DCG@5": "alpha_dcg({}, 5", "ERR-IA@10": "err_ia({}, 10", "nERR-IA@20": "nerr_ia({}, 20",
              "P-IA@5": "p_ia({}, 5", "strec@10": "st_recall({}, 10", "NRBP": "nrbp({}", "nNRBP": "nnrbp({}",
              "MAP-IA": "ap_ia({}"}
    for rel in (1, 2):
        want = reference("greedy", names, rel=rel, judged_only=judged_only)
        for m in names:
            call = macros[m].format("'greedy', 'qrels'") + f", rel := {rel}, judged_only := {judged_only}, " \
                                                            "ties := 'item_asc')"
            got = ours(con, call)
            for q in want:
                if want[q][m] != want[q][m]:  # nNRBP's NaN: 0 here
                    want[q][m] = 0.0
            assert_same(got, want, m, f"{m} rel={rel} judged_only={judged_only}")


# A hand computation (pyndeval's own test example, ndeval.c's formulas written out): topic 0 has subtopics a
# (A relevant), b (B and D) and c (C); E is judged for a, not relevant. The run: A 9.3, D 8.4, E 8.1, B 7.6
# (C not retrieved). S = 3 subtopics with a relevant document; alpha = beta = 0.5.
#   gains in run order (each subtopic's gain halves after each document relevant to it):
#     A: a -> 1;  D: b -> 1;  E: nothing -> 0;  B: b again -> 0.5
#   ndeval's greedy ideal: A, B, C, D all gain 1 at rank 1; the greatest docno, D (b), goes first; then C and A
#     (1 each: C first), then B (b again, 0.5): gains 1, 1, 1, 0.5
#   alpha-nDCG@3 = (1/log2 2 + 1/log2 3 + 0) / (1/log2 2 + 1/log2 3 + 1/log2 4) = 1.6309298 / 2.1309298
#   ERR-IA@2    = (1/1 + 1/2) / (3 * (1 + 0.5/2)) = 1.5 / 3.75 = 0.4   (ndeval's "ideal ideal": 3 (1 - a)^(i-1) / i)
#   ERR-IA@1    = 1 (ndeval divides from rank 2 on only: the first document's gain)
#   alpha-DCG@2 = (1/log2 2 + 1/log2 3) / (3 * (1/log2 2 + 0.5/log2 3)) = 1.6309298 / 3.9463946 (the "ideal ideal")
#   nERR-IA@4   = (1 + 1/2 + 0 + 0.5/4) / (1 + 1/2 + 1/3 + 0.5/4) = 1.625 / 1.9583333
#   NRBP        = (1 - 0.5 * 0.5) / 3 * (1 + 0.5 + 0 + 0.5 * 0.125) = 0.25 * 1.5625 = 0.390625
#   nNRBP       = 1.5625 / (1 + 0.5 + 0.25 + 0.5 * 0.125) = 1.5625 / 1.8125
#   P-IA@20     = 3 relevant (document, subtopic) pairs in the top 20 / (20 * 3) = 0.05
#   strec@2     = subtopics a, b of 3 = 2/3
#   AP-IA       = (a: (1/1) / 1 + b: (1/2 + 2/4) / 2 + c: 0 / 1) / 3 = (1 + 0.5) / 3 = 0.5
HAND = [("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1), ("0", "a", "E", 0)]
HAND_RUN = [("0", "A", 9.3), ("0", "D", 8.4), ("0", "E", 8.1), ("0", "B", 7.6)]
HAND_VALUES = {
    "alpha_ndcg('hr', 'hq', 3)": (1 + 1 / 1.584962500721156) / (1 + 1 / 1.584962500721156 + 0.5),
    "err_ia('hr', 'hq', 2)": 0.4,
    "err_ia('hr', 'hq', 1)": 1.0,
    "alpha_dcg('hr', 'hq', 2)": (1 + 1 / 1.584962500721156) / (3 * (1 + 0.5 / 1.584962500721156)),
    "nerr_ia('hr', 'hq', 4)": 1.625 / (1 + 1 / 2 + 1 / 3 + 0.5 / 4),
    "nrbp('hr', 'hq')": 0.390625,
    "nnrbp('hr', 'hq')": 1.5625 / 1.8125,
    "p_ia('hr', 'hq', 20)": 0.05,
    "st_recall('hr', 'hq', 2)": 2 / 3,
    "ap_ia('hr', 'hq')": 0.5,
}


def test_hand_computed_example(con):
    con.execute("CREATE OR REPLACE TABLE hq (query_id VARCHAR, subtopic VARCHAR, item_id VARCHAR, relevance INT)")
    con.executemany("INSERT INTO hq VALUES (?, ?, ?, ?)", HAND)
    con.execute("CREATE OR REPLACE TABLE hr (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO hr VALUES (?, ?, ?)", HAND_RUN)
    for call, value in HAND_VALUES.items():
        assert ours(con, call) == {"0": pytest.approx(value, abs=1e-12)}, call


def test_hand_example_is_pyndevals_too():
    # the same numbers from pyndeval, so the hand computation above reads ndeval right
    names = {"alpha-nDCG@3": "alpha_ndcg('hr', 'hq', 3)", "ERR-IA@2": "err_ia('hr', 'hq', 2)",
             "ERR-IA@1": "err_ia('hr', 'hq', 1)", "alpha-DCG@2": "alpha_dcg('hr', 'hq', 2)",
             "nERR-IA@4": "nerr_ia('hr', 'hq', 4)", "NRBP": "nrbp('hr', 'hq')",
             "nNRBP": "nnrbp('hr', 'hq')", "P-IA@20": "p_ia('hr', 'hq', 20)", "strec@2": "st_recall('hr', 'hq', 2)",
             "MAP-IA": "ap_ia('hr', 'hq')"}
    got = pyndeval.ndeval(HAND, HAND_RUN, measures=list(names))["0"]
    for m, call in names.items():
        assert got[m] == pytest.approx(HAND_VALUES[call], abs=1e-12), m


# Ties in ndeval's greedy ideal change the ideal's value: found by a search over small random qrels. A, B, C, D and
# H each gain 2 at the first ideal rank; ndeval takes the greatest docno among equal gains (strcmp > 0 in
# idealResult), H. With the docnos renamed in reverse order (A <-> Z, B <-> Y, ...) and the run renamed alike, the
# run's own gains stay the same but the ideal's tie goes the other way: pyndeval's alpha-nDCG@2 is 0.9033 on the
# one and 1.0 on the other. Both are reproduced.
TIE_QRELS = [("1", "s2", "A", 1), ("1", "s4", "A", 1), ("1", "s3", "B", 1), ("1", "s4", "B", 1), ("1", "s2", "C", 1),
             ("1", "s3", "C", 1), ("1", "s2", "D", 1), ("1", "s3", "D", 1), ("1", "s1", "E", 1), ("1", "s4", "G", 1),
             ("1", "s1", "H", 1), ("1", "s4", "H", 1)]
TIE_RUN = [("1", d, float(9 - i)) for i, d in enumerate("ABCDEFGH")]


@pytest.mark.parametrize("renamed", [False, True])
def test_greedy_ideal_breaks_ties_as_ndeval(con, renamed):
    name = (lambda d: chr(ord("Z") - (ord(d) - ord("A")))) if renamed else (lambda d: d)
    qrels = [(q, s, name(d), g) for q, s, d, g in TIE_QRELS]
    run = [(q, name(d), score) for q, d, score in TIE_RUN]
    con.execute("CREATE OR REPLACE TABLE tq (query_id VARCHAR, subtopic VARCHAR, item_id VARCHAR, relevance INT)")
    con.executemany("INSERT INTO tq VALUES (?, ?, ?, ?)", qrels)
    con.execute("CREATE OR REPLACE TABLE tr (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO tr VALUES (?, ?, ?)", run)
    names = [f"alpha-nDCG@{k}" for k in range(1, 9)] + ["nERR-IA@3", "nNRBP"]
    want = pyndeval.ndeval(qrels, run, measures=names)["1"]
    assert want["alpha-nDCG@2"] == pytest.approx(1.0 if renamed else 0.9032867981913646, abs=1e-12)
    for k in range(1, 9):
        assert ours(con, f"alpha_ndcg('tr', 'tq', {k})") == {"1": pytest.approx(want[f"alpha-nDCG@{k}"], abs=1e-12)}
    assert ours(con, "nerr_ia('tr', 'tq', 3)") == {"1": pytest.approx(want["nERR-IA@3"], abs=1e-12)}
    assert ours(con, "nnrbp('tr', 'tq')") == {"1": pytest.approx(want["nNRBP"], abs=1e-12)}


def test_bad_arguments_and_inputs_name_the_fault(con):
    with pytest.raises(duckdb.Error, match="alpha_ndcg: alpha must be a number from 0 to 1, not '1.5'"):
        con.execute("SELECT * FROM alpha_ndcg('diverse', 'qrels', 10, alpha := 1.5)").fetchall()
    with pytest.raises(duckdb.Error, match="err_ia: k must be a whole number >= 1, not NULL"):
        con.execute("SELECT * FROM err_ia('diverse', 'qrels')").fetchall()
    with pytest.raises(duckdb.Error, match="nrbp: beta must be a number from 0 to below 1, not '1'"):
        con.execute("SELECT * FROM nrbp('diverse', 'qrels', beta := 1)").fetchall()
    con.execute("CREATE OR REPLACE TABLE grouped AS SELECT *, 'm1' AS model FROM diverse")
    with pytest.raises(duckdb.Error, match="take no groups"):
        con.execute("SELECT * FROM p_ia('grouped', 'qrels', 5, \"by\" := ['model'])").fetchall()
    con.execute("CREATE OR REPLACE TABLE dupq AS FROM qrels UNION ALL (FROM qrels LIMIT 1)")
    with pytest.raises(duckdb.Error, match="item d1-00 of query 1 is judged 2 times for subtopic 1"):
        con.execute("SELECT * FROM st_recall('diverse', 'dupq', 5)").fetchall()
    # ad hoc qrels (no subtopic column) are refused, not read as judgments of no subtopic
    con.execute("CREATE OR REPLACE TABLE adhoc AS SELECT query_id, item_id, relevance FROM qrels")
    with pytest.raises(duckdb.Error, match="has no subtopic .the judgments need a column 'subtopic'"):
        con.execute("SELECT * FROM alpha_ndcg('diverse', 'adhoc', 5)").fetchall()


# --- the evaluation routes: ir_measures' names, through its pyndeval provider -------------------------------------

# (judged_only=True is left out: ir_measures 0.4.3's pyndeval provider fails on it, "'generator' object is not
# subscriptable"; the macros' judged_only is checked against pyndeval itself above)
IR_MEASURES_NAMES = ["alpha_nDCG@20", "alpha_nDCG(alpha=0.2)@5", "ERR_IA@20",
                     "nERR_IA@10", "NRBP", "NRBP(alpha=0.9,beta=0.2)", "nNRBP", "P_IA@10", "AP_IA", "StRecall@10",
                     "alpha_nDCG(rel=2)@10"]


@pytest.mark.parametrize("run", RUNS)
def test_ir_measures_pyndeval_provider_equals_evaluate(run):
    """ir_measures' iter_calc and calc_aggregate through its pyndeval provider (ndeval.c), in ir_measures'
    spelling, against rm.evaluate() and `rankmetrics eval` under the ir_measures preset (a judged query the run
    lacks scores 0, as ir_measures gives it) on the same subtopic qrels file and run, per query and mean, to 1e-9
    (nNRBP of a query without relevant subtopics is NaN in ndeval: 0 or NaN here)."""
    import math

    import ir_measures
    import rankmetrics_duckdb as rm
    provider = ir_measures.providers.registry["pyndeval"]
    assert provider.is_available()
    path = os.path.join(DIV, run + ".run")
    qrels = list(ir_measures.read_trec_qrels(QRELS))
    ranking = list(ir_measures.read_trec_run(path))
    measures = [ir_measures.parse_measure(n) for n in IR_MEASURES_NAMES]
    # one measure a call: with measures of several pyndeval invocations (another alpha, rel or judged_only) in one
    # call, ir_measures 0.4.3's provider reports some of them as 0
    want, aggregate = {}, {}
    for measure in measures:
        for m in provider.iter_calc([measure], qrels, ranking):
            want.setdefault(str(m.measure), {})[m.query_id] = m.value
        aggregate.update(provider.calc_aggregate([measure], qrels, ranking))
    got = rm.evaluate(QRELS, path, IR_MEASURES_NAMES, per_query=True, convention="ir_measures")
    means = rm.evaluate(QRELS, path, " ".join(IR_MEASURES_NAMES), convention="ir_measures")
    for name, measure in zip(IR_MEASURES_NAMES, measures):
        assert set(got[name]) >= set(want[str(measure)]), name
        for q, value in want[str(measure)].items():
            if math.isnan(value):
                assert math.isnan(got[name][q]) or got[name][q] == 0, (name, q)
            else:
                assert got[name][q] == pytest.approx(value, abs=1e-9), (name, q)
        if not math.isnan(aggregate[measure]):
            assert means[name] == pytest.approx(aggregate[measure], abs=1e-9), name
    out = cli("eval", QRELS, path, "-m", "alpha_nDCG@20", "-m", "AP_IA", "--format", "json", "--convention",
              "ir_measures").stdout
    import json
    cli_means = {r["measure"]: r["value"] for r in json.loads(out)}
    assert cli_means["alpha_nDCG@20"] == pytest.approx(aggregate[measures[0]], abs=1e-9)


def test_diversity_misuse_says_why():
    p = cli("eval", QRELS, os.path.join(DIV, "diverse.run"), "-m", "alpha_nDCG@20", "-m", "AP", check=False)
    assert p.returncode == 2 and "evaluate the diversity measures on their own" in p.stderr
    p = cli("eval", QRELS, os.path.join(DIV, "diverse.run"), "-m", "NRBP@10", check=False)
    assert p.returncode == 2 and "NRBP takes no cutoff" in p.stderr and "Traceback" not in p.stderr
    p = cli("eval", QRELS, os.path.join(DIV, "diverse.run"), "-m", "alpha_nDCG(gamma=2)@10", check=False)
    assert p.returncode == 2 and "unknown parameter 'gamma'" in p.stderr
    for name, message in (("alpha_nDCG(alpha=1.5)@5", "alpha must be a number from 0 to 1, not 1.5"),
                          ("NRBP(beta=1)", "beta must be a number from 0 to 1 (exclusive), not 1")):
        p = cli("eval", QRELS, os.path.join(DIV, "diverse.run"), "-m", name, check=False)  # exit 2, as usage errors
        assert p.returncode == 2 and message in p.stderr, p.stderr
    for name in ("alpha_nDCG", "ERR_IA", "StRecall"):  # the cutoff is required (it said "k ... not NULL")
        p = cli("eval", QRELS, os.path.join(DIV, "diverse.run"), "-m", name, check=False)
        assert p.returncode == 2 and f"{name} needs a cutoff, e.g. {name}@20" in p.stderr, p.stderr


def test_judged_only_leaves_out_a_query_with_no_judged_item_retrieved():
    """q2 retrieves only an unjudged item, q3 only one judged below 0 (unjudged under judged_only): with them
    dropped, as ir_measures' provider drops them before pyndeval reads the run, neither query has a run, and
    ndeval's query set (both) leaves them out: pyndeval gives q1 alone, 1 (A, relevant to its only subtopic, at
    rank 1). Before, both were reported 0 and the mean was 1/3."""
    import pandas as pd
    import rankmetrics_duckdb as rm
    qrels = [("q1", "a", "A", 1), ("q2", "a", "B", 1), ("q3", "a", "C", -1), ("q3", "b", "D", 1)]
    run = [("q1", "A", 1.0), ("q2", "X", 1.0), ("q3", "C", 1.0)]
    judged = {(q, d) for q, _, d, g in qrels if g >= 0}
    want = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@5"]).evaluate([r for r in run if r[:2] in judged])
    assert {q: v["alpha-nDCG@5"] for q, v in want.items()} == {"q1": 1.0}
    name = "alpha_nDCG(judged_only=true)@5"
    judgments = pd.DataFrame(qrels, columns=["query_id", "subtopic", "item_id", "relevance"])
    frame = pd.DataFrame(run, columns=["query_id", "item_id", "score"])
    assert rm.evaluate(judgments, frame, [name], per_query=True) == {name: {"q1": 1.0}}
    assert rm.evaluate(judgments, frame, [name]) == {name: 1.0}


def test_conventions_the_diversity_route_does_not_apply_are_refused():
    """evaluate(rel=2) with StRecall@1 gave rel 1's value (0.5: subtopics a and b relevant, A covers a), where
    pyndeval with relevance_level=2 (only a, grade 2, relevant; A covers it) gives 1; the command line refused -l
    already. A measure's own parameter gives pyndeval's number."""
    import pandas as pd
    import rankmetrics_duckdb as rm
    qrels = [("1", "a", "A", 2), ("1", "b", "B", 1)]
    run = [("1", "A", 2.0), ("1", "B", 1.0)]
    judgments = pd.DataFrame(qrels, columns=["query_id", "subtopic", "item_id", "relevance"])
    frame = pd.DataFrame(run, columns=["query_id", "item_id", "score"])
    want = pyndeval.RelevanceEvaluator(qrels, ["strec@1"], relevance_level=2).evaluate(run)["1"]["strec@1"]
    assert want == 1.0 and rm.evaluate(judgments, frame, ["StRecall(rel=2)@1"])["StRecall(rel=2)@1"] == want
    for overrides in ({"rel": 2}, {"judged_only": True}, {"gain": "exponential"}, {"empty": "nan"}):
        with pytest.raises(rm.UsageError, match=f"diversity measures do not take {next(iter(overrides))} yet"):
            rm.evaluate(judgments, frame, ["StRecall@1"], **overrides)
    assert rm.evaluate(judgments, frame, ["StRecall@1"], ties="item_asc", queries="judged") == {"StRecall@1": 0.5}


@pytest.mark.parametrize("relevance,message", [
    ([1.0, None], "relevance missing \\(NULL or NaN\\) for query 1, subtopic b, item B"),
    ([1.0, float("nan")], "relevance 'nan', not a finite number, for query 1, subtopic b, item B"),
    (["1", "x"], "relevance 'x', not a finite number"),
])
def test_subtopic_judgments_of_a_table_are_checked_as_a_files_are(relevance, message):
    """A NULL or NaN grade in a frame or Arrow table of subtopic judgments counted as not relevant (StRecall@2 1,
    where the file reader refuses it); an item judged twice for one subtopic, or an id missing, too."""
    import pyarrow as pa
    import rankmetrics_duckdb as rm
    run = pa.table({"query_id": ["1", "1"], "item_id": ["A", "B"], "score": [2.0, 1.0]})
    judgments = pa.table({"query_id": ["1", "1"], "subtopic": ["a", "b"], "item_id": ["A", "B"],
                          "relevance": relevance})
    with pytest.raises(rm.InputError, match=message):
        rm.evaluate(judgments, run, ["StRecall@2"])
    twice = pa.table({"query_id": ["1", "1"], "subtopic": ["a", "a"], "item_id": ["A", "A"], "relevance": [1, 0]})
    with pytest.raises(rm.InputError, match="item A of query 1 is judged 2 times for subtopic a"):
        rm.evaluate(twice, run, ["StRecall@2"])
    no_id = pa.table({"query_id": ["1", "1"], "subtopic": ["a", " "], "item_id": ["A", "B"], "relevance": [1, 1]})
    with pytest.raises(rm.InputError, match="an id missing \\(NULL or blank\\)"):
        rm.evaluate(no_id, run, ["StRecall@2"])


def test_greek_spellings_are_ir_measures_ones():
    """ir_measures also spells alpha_nDCG and alpha_DCG with a Greek alpha (α_nDCG@10): the same measure, under
    the name as written (it said "cannot read metric name ... did you mean 'nDCG@10'?")."""
    import rankmetrics_duckdb as rm
    path = os.path.join(DIV, "diverse.run")
    greek = rm.evaluate(QRELS, path, ["α_nDCG@10", "α_DCG@5"], convention="ir_measures")
    latin = rm.evaluate(QRELS, path, ["alpha_nDCG@10", "alpha_DCG@5"], convention="ir_measures")
    assert set(greek) == {"α_nDCG@10", "α_DCG@5"}
    assert greek["α_nDCG@10"] == latin["alpha_nDCG@10"]  # bit for bit: the macros' sums add in rank order
    assert greek["α_DCG@5"] == latin["alpha_DCG@5"]
    import ir_measures
    ref = ir_measures.providers.registry["pyndeval"].calc_aggregate(
        [ir_measures.parse_measure("α_nDCG@10")], list(ir_measures.read_trec_qrels(QRELS)),
        list(ir_measures.read_trec_run(path)))
    assert greek["α_nDCG@10"] == pytest.approx(next(iter(ref.values())), abs=1e-9)


def test_values_are_bit_identical_whatever_the_row_order(tmp_path):
    """The diversity measures' sums add their terms in rank order, then subtopic order (rm_ordered_sum), not in
    the order DuckDB's threads happen to deliver the rows: the same run, evaluated again or with its lines
    shuffled, gives the same bits per query (before, two calls on this run differed in the last bit in one query
    out of three). The values are pyndeval's (to 1e-9) as in the tests above."""
    import random

    import rankmetrics_duckdb as rm
    names = ["alpha_nDCG@10", "alpha_DCG@5", "ERR_IA@20", "nERR_IA@20", "NRBP", "nNRBP", "AP_IA", "P_IA@10",
             "StRecall@10"]
    path = os.path.join(DIV, "diverse.run")
    with open(path) as fh:
        lines = fh.readlines()
    random.Random(7).shuffle(lines)
    shuffled = tmp_path / "shuffled.run"
    shuffled.write_text("".join(lines))
    first = rm.evaluate(QRELS, path, names, convention="ir_measures", per_query=True)
    for run in [path] * 3 + [str(shuffled)] * 3:
        again = rm.evaluate(QRELS, run, names, convention="ir_measures", per_query=True)
        assert {m: {q: v.hex() for q, v in values.items()} for m, values in again.items()} == \
            {m: {q: v.hex() for q, v in values.items()} for m, values in first.items()}, run
    want = reference("diverse", ["alpha-nDCG@10", "ERR-IA@20", "MAP-IA"])
    for name, nd in (("alpha_nDCG@10", "alpha-nDCG@10"), ("ERR_IA@20", "ERR-IA@20"), ("AP_IA", "MAP-IA")):
        for q in want:  # pyndeval's queries: those the run and the qrels share
            assert first[name][q] == pytest.approx(want[q][nd], abs=1e-9), (name, q)
