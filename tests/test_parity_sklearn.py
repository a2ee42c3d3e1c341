"""sklearn preset against scikit-learn's ndcg_score / dcg_score, run here: tie-averaged DCG, linear gain, the
ideal from the scored candidates, one sample per query of the run."""
import math

import numpy as np
import pyarrow as pa
import pytest
from sklearn.metrics import dcg_score, ndcg_score

from rankmetrics_duckdb import evaluate
import synthetic


def tables(y_true, y_score):
    """One query per row; item j of row i is 'i-j'; unjudged items are left out of the judgments when 0."""
    q, i, r, s = [], [], [], []
    for row, (truth, score) in enumerate(zip(y_true, y_score)):
        for col, (t, sc) in enumerate(zip(truth, score)):
            q.append(f"q{row}")
            i.append(f"{row}-{col}")
            r.append(t)
            s.append(sc)
    judg = pa.table({"query_id": q, "item_id": i, "relevance": r})
    run = pa.table({"query_id": q, "item_id": i, "score": s})
    return judg, run


def test_docstring_examples():
    """scikit-learn's documented values: 0.695... and, with tied scores, 0.75 (ties averaged) vs 0.5."""
    y_true, y_score = [[10, 0, 0, 1, 5]], [[.1, .2, .3, 4, 70]]
    j, r = tables(y_true, y_score)
    assert evaluate(j, r, ["nDCG"], convention="sklearn")["nDCG"] == pytest.approx(ndcg_score(y_true, y_score))
    assert ndcg_score(y_true, y_score) == pytest.approx(0.6956940443813076)
    y_true, y_score = [[10, 0, 0, 1, 5]], [[1, 0, 0, 0, 1]]  # items 0 and 4 tie at the top
    j, r = tables(y_true, y_score)
    got = evaluate(j, r, ["nDCG@1"], convention="sklearn")["nDCG@1"]
    # ties averaged: (10 / 10 + 5 / 10) / 2 = 0.75, as the docstring works it out
    assert got == pytest.approx(0.75) and got == pytest.approx(ndcg_score(y_true, y_score, k=1))
    # without averaging, the tie-break decides: item id descending puts item '0-4' (grade 5) first: 5 / 10,
    # which is also what ignore_ties=True gives (its reversed argsort puts the later index first)
    plain = evaluate(j, r, ["nDCG@1"], convention="sklearn", ties="item_desc")["nDCG@1"]
    assert plain == pytest.approx(0.5) and plain == pytest.approx(ndcg_score(y_true, y_score, k=1, ignore_ties=True))


@pytest.mark.parametrize("k", [None, 1, 3, 5, 10])
def test_random_matrices_with_ties(k):
    rng = np.random.default_rng(42)
    y_true = rng.integers(0, 4, size=(30, 12))
    y_true[3] = 0  # an all-irrelevant row: sklearn scores it 0
    y_score = rng.integers(0, 5, size=(30, 12)).astype(float)  # heavy ties
    j, r = tables(y_true.tolist(), y_score.tolist())
    name = "nDCG" if k is None else f"nDCG@{k}"
    dname = "DCG" if k is None else f"DCG@{k}"
    got = evaluate(j, r, [name, dname], convention="sklearn", per_query=True)
    for row in range(len(y_true)):
        want = ndcg_score(y_true[row:row + 1], y_score[row:row + 1], k=k)
        assert got[name][f"q{row}"] == pytest.approx(want, abs=1e-9), row
        want_dcg = dcg_score(y_true[row:row + 1], y_score[row:row + 1], k=k)
        assert got[dname][f"q{row}"] == pytest.approx(want_dcg, abs=1e-9), row
    means = evaluate(j, r, [name], convention="sklearn")
    assert means[name] == pytest.approx(ndcg_score(y_true, y_score, k=k), abs=1e-9)


def test_unjudged_candidates_count_as_zero():
    """Items of the run with no judgment are candidates with y_true 0."""
    qrels, run = synthetic.make(seed=5, missing=False)
    jt, rt = synthetic.to_tables(qrels, run)
    got = evaluate(jt, rt, ["nDCG@10"], convention="sklearn", per_query=True)["nDCG@10"]
    for q, docs in run.items():
        items = list(docs)
        truth = [[qrels.get(q, {}).get(d, 0) for d in items]]
        score = [[docs[d] for d in items]]
        want = ndcg_score(truth, score, k=10) if len(items) > 1 else None
        if want is not None:
            assert got[q] == pytest.approx(want, abs=1e-9), q


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_fractional_and_negative_grades_are_the_gain(k):
    """scikit-learn takes y_true itself as the gain: a grade of 0.5 or 0.25 counts (the linear gain of trec_eval's
    conventions gives no gain below 1), and dcg_score takes a negative grade as a negative gain. The preset's gain
    'raw' does the same; scikit-learn's ndcg_score refuses negative y_true, and so does nDCG here (one line)."""
    rng = np.random.default_rng(7)
    y_true = rng.choice([0.0, 0.25, 0.5, 0.999, 1.0, 1.5, 3.0], size=(25, 9))
    y_true[4] = [0.5, 0, 0, 0, 0, 0, 0, 0, 0]  # a row whose only gain is below 1
    y_score = rng.integers(0, 4, size=(25, 9)).astype(float)  # ties
    j, r = tables(y_true.tolist(), y_score.tolist())
    name, dname = ("nDCG", "DCG") if k is None else (f"nDCG@{k}", f"DCG@{k}")
    got = evaluate(j, r, [name, dname], convention="sklearn", per_query=True)
    for row in range(len(y_true)):
        assert got[name][f"q{row}"] == pytest.approx(ndcg_score(y_true[row:row + 1], y_score[row:row + 1], k=k),
                                                     abs=1e-9), row
        assert got[dname][f"q{row}"] == pytest.approx(dcg_score(y_true[row:row + 1], y_score[row:row + 1], k=k),
                                                      abs=1e-9), row
    assert got[name]["q4"] > 0  # 0.5 is a gain
    signed = y_true - 1.0  # negative grades: DCG as dcg_score; nDCG refused, as ndcg_score refuses them
    j, r = tables(signed.tolist(), y_score.tolist())
    got = evaluate(j, r, [dname], convention="sklearn", per_query=True)[dname]
    for row in range(len(signed)):
        assert got[f"q{row}"] == pytest.approx(dcg_score(signed[row:row + 1], y_score[row:row + 1], k=k),
                                               abs=1e-9), row
    with pytest.raises(ValueError, match="negative"):
        ndcg_score(signed, y_score, k=k)
    from rankmetrics_duckdb.errors import InputError
    with pytest.raises(InputError, match=r"grade -1 \(query q\d+, item \d+-\d+\) is negative: " + name):
        evaluate(j, r, [name], convention="sklearn")


def test_negative_grade_with_raw_gain_on_the_command_line(tmp_path):
    """The command line: one line naming the file, the grade, its query and item, and the measure; exit 1."""
    from conftest import cli
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 -1\n")
    (tmp_path / "run").write_text("q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 2.0 t\n")
    p = cli("eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "ndcg", "--convention", "sklearn",
            check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [
        f"rankmetrics: error: {tmp_path / 'qrels'}: grade -1 (query q1, item d2) is negative: ndcg with raw gain "
        "(scikit-learn's ndcg_score) is not defined for negative grades, as scikit-learn refuses them; DCG takes "
        "them, or choose another gain"]
    # DCG: 1 / log2(2) * -1 + 1 / log2(3) * 1 (d2 first), as dcg_score([[-1, 1]], [[3, 2]])
    p = cli("eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "dcg", "--convention", "sklearn",
            "--format", "json", "-q")
    value = [row["value"] for row in __import__("json").loads(p.stdout) if row["query_id"] == "q1"]
    assert value == [pytest.approx(-1 + 1 / math.log2(3))]
    assert value[0] == pytest.approx(dcg_score([[-1, 1]], [[3, 2]]))


def test_raw_gain_refuses_the_grade_the_measure_reads(tmp_path):
    """Under grades 'truncate' (the trec_eval preset with --gain raw) a grade of -0.5 is read as 0 (toward zero), a
    grade raw gain takes: eval refused the -0.5 as written, where the SQL (which checks the truncated grade) gave
    the number. Now both give it; -1.5 (read as -1) and, with grades as given, -0.5 are refused by both. By hand:
    a (grade 0) then b (grade 2): DCG@2 = 2 / log2(3), ideal 2, nDCG@2 = 1 / log2(3); scikit-learn agrees on the
    truncated grades."""
    import duckdb
    from rankmetrics_duckdb import to_sql
    from rankmetrics_duckdb.errors import InputError
    run = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "score": [2.0, 1.0]})
    want = 1 / math.log2(3)
    assert want == pytest.approx(ndcg_score([[0, 2]], [[2.0, 1.0]], k=2))
    con = duckdb.connect()
    con.register("run", run)
    for grade, overrides, ok in ((-0.5, {}, True), (-1.5, {}, False), (-0.5, {"grades": "as_given"}, False)):
        judged = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [grade, 2.0]})
        con.register("judgments", judged)
        sql = to_sql(["nDCG@2"], run="run", judgments="judgments", gain="raw", **overrides)
        if ok:
            assert evaluate(judged, run, ["nDCG@2"], gain="raw", **overrides) == {"nDCG@2": pytest.approx(want)}
            assert con.execute(sql).fetchall() == [("nDCG@2", None, pytest.approx(want))]
        else:
            with pytest.raises(InputError, match=f"grade {grade:g} \\(query q1, item a\\) is negative"):
                evaluate(judged, run, ["nDCG@2"], gain="raw", **overrides)
            with pytest.raises(duckdb.Error, match="item a of query q1 has a negative grade"):
                con.execute(sql).fetchall()
