"""`compare`: the statistics are checked against scipy (run here, on the same per-query values), against an
exact enumeration written out in the test, and the per-query values against trec_eval's own outputs."""
import itertools
import json
import math
import os
import random

import numpy as np
import pytest
import scipy.stats

import synthetic
from conftest import SEEDS, TREC, cli, read_trec_output
from rankmetrics_duckdb import compare, evaluate, sqlgen, stats
from rankmetrics_duckdb.comparison import run_comparison

Q, A, B = (os.path.join(TREC, f) for f in ("qrels.test", "results.test", "results.trunc"))
METRICS = ["map", "ndcg_cut_10", "P_10", "recip_rank", "bpref"]


def per_query(c, measure, i):
    return c.per_query[(measure, i)]


def paired_values(c, measure, i):
    base, other = per_query(c, measure, 0), per_query(c, measure, i)
    qs = sorted(set(base) & set(other))
    return [other[q] for q in qs], [base[q] for q in qs]


@pytest.fixture(scope="module")
def trec_c():
    """results.test vs results.trunc with -c (every judged query evaluated for both: 3 pairs)."""
    return run_comparison(Q, [A, B], METRICS, queries="judged")


@pytest.fixture(scope="module")
def synth(tmp_path_factory):
    """A synthetic collection with three runs: the generated one, a noisy copy and a degraded copy."""
    qrels, run = synthetic.make(seed=11, queries=30, depth=60, missing=False)
    rnd = random.Random(5)
    noisy = {q: {d: s + rnd.gauss(0, 1.5) for d, s in docs.items()} for q, docs in run.items()}
    rels = {q: {d for d, g in qrels[q].items() if g > 0} for q in qrels}
    better = {q: {d: s + (3.0 if d in rels[q] and rnd.random() < 0.5 else 0.0) for d, s in docs.items()}
              for q, docs in run.items()}
    folder = tmp_path_factory.mktemp("synth")
    qp, rp = synthetic.write_trec(qrels, run, str(folder))
    paths = [rp]
    for name, r in (("noisy", noisy), ("better", better)):
        sub = folder / name
        sub.mkdir()
        paths.append(synthetic.write_trec(qrels, r, str(sub))[1])
    return qp, paths


def test_per_query_values_are_trec_evals(trec_c):
    """The values the tests run on are trec_eval's: out.test.aq (results.test), out.test.aqc (-c, results.trunc)."""
    aq, aqc = read_trec_output(os.path.join(TREC, "out.test.aq")), read_trec_output(os.path.join(TREC, "out.test.aqc"))
    for m in METRICS:
        for i, ref in ((0, aq), (1, aqc)):
            got = per_query(trec_c, m, i)
            want = {q: v for q, v in ref[m].items() if q != "all"}
            assert got.keys() == want.keys(), (m, i)
            for q in want:
                assert abs(got[q] - want[q]) < 5e-5, (m, i, q)
            mean = next(r for r in trec_c.rows if r["measure"] == m and r["run"] == (A, B)[i])["mean"]
            assert abs(mean - ref[m]["all"]) < 5e-5


def test_t_test_equals_scipy_on_trec_runs(trec_c):
    for m in METRICS:
        x, y = paired_values(trec_c, m, 1)
        want = scipy.stats.ttest_rel(x, y)
        row = next(r for r in trec_c.rows if r["measure"] == m and r["run"] == B)
        assert row["queries"] == 3
        assert row["p_value"] == pytest.approx(float(want.pvalue), abs=1e-9), m
        assert row["delta"] == pytest.approx(float(np.mean(np.subtract(x, y))), abs=1e-12)
        base = next(r for r in trec_c.rows if r["measure"] == m and r["run"] == A)
        assert base["p_value"] is None and base["delta"] is None and base["significant"] is None


def test_t_test_equals_scipy_with_holm_and_bonferroni(synth):
    qp, runs = synth
    metrics = ["map", "ndcg@10", "P@10", "RR", "bpref", "Rprec"]
    for correction in ("holm", "bonferroni", "none"):
        c = run_comparison(qp, runs, metrics, correction=correction)
        for m in metrics:
            ps = []
            for i in (1, 2):
                x, y = paired_values(c, m, i)
                assert len(x) == 30
                ps.append(float(scipy.stats.ttest_rel(x, y).pvalue))
            # the corrections written out: Bonferroni p*m; Holm: ascending, p_(k) * (m - k + 1), running maximum
            if correction == "bonferroni":
                adj = [min(1.0, 2 * p) for p in ps]
            elif correction == "holm":
                lo, hi = sorted(range(2), key=lambda k: ps[k])
                a_lo = min(1.0, 2 * ps[lo])
                adj = [0.0, 0.0]
                adj[lo], adj[hi] = a_lo, max(a_lo, min(1.0, ps[hi]))
            else:
                adj = ps
            rows = [r for r in c.rows if r["measure"] == m]
            for i in (1, 2):
                assert rows[i]["p_value"] == pytest.approx(ps[i - 1], abs=1e-9), (m, i)
                assert rows[i]["p_adjusted"] == pytest.approx(adj[i - 1], abs=1e-9), (m, i, correction)
                assert rows[i]["significant"] == (adj[i - 1] < 0.05)
    # the 'better' run (relevant items boosted) is significantly better on AP
    c = run_comparison(qp, runs, ["map"])
    assert c.rows[2]["significant"] is True and c.rows[2]["delta"] > 0


def test_a_pair_with_no_p_value_counts_in_the_family(tmp_path):
    # B equals the baseline A on every query: the t-test has no p-value (scipy's ttest_rel: NaN). The family is
    # still the 2 comparisons the footnote names, so C's p (scipy's, on the per-query RR written out below) is
    # doubled by Bonferroni and by Holm (C first of 2, the NaN last); before, B was left out of the count and C
    # kept p 0.030 < 0.05, marked significant under a "correction over 2 comparisons"
    qrels = "".join(f"{q} 0 a 1\n{q} 0 b 0\n" for q in range(1, 8))
    base = "".join(f"{q} Q0 {'b' if q <= 4 else 'a'} 1 2 A\n{q} Q0 {'a' if q <= 4 else 'b'} 2 1 A\n" for q in range(1, 8))
    better = "".join(f"{q} Q0 a 1 2 C\n{q} Q0 b 2 1 C\n" for q in range(1, 8))
    paths = []
    for name, text in (("q", qrels), ("A.run", base), ("B.run", base), ("C.run", better)):
        paths.append(str(tmp_path / name))
        with open(paths[-1], "w") as fh:
            fh.write(text)
    rr_a = [0.5] * 4 + [1.0] * 3  # a (relevant) at rank 2 in queries 1-4, at rank 1 in 5-7
    p = float(scipy.stats.ttest_rel([1.0] * 7, rr_a).pvalue)
    assert math.isnan(float(scipy.stats.ttest_rel(rr_a, rr_a).pvalue)) and 0.025 < p < 0.05
    for correction in ("bonferroni", "holm"):
        rows = compare(paths[0], paths[1:], ["recip_rank"], correction=correction)
        assert rows[1]["p_value"] is None and rows[1]["p_adjusted"] is None
        assert rows[2]["p_value"] == pytest.approx(p, abs=1e-12)
        assert rows[2]["p_adjusted"] == pytest.approx(2 * p, abs=1e-12) and rows[2]["significant"] is False


def test_t_distribution_against_scipy():
    rnd = random.Random(3)
    for _ in range(300):
        t, df = rnd.uniform(-40, 40), rnd.choice([1, 2, 3, 5, 10, 29, 100, 1000])
        assert stats.t_two_sided(t, df) == pytest.approx(2 * scipy.stats.t.sf(abs(t), df), abs=1e-12, rel=1e-9)
    # degenerate cases as scipy: one pair, or all differences 0 -> NaN; equal non-zero differences -> p = 0
    assert math.isnan(stats.paired_t([0.5])[1]) and math.isnan(stats.paired_t([0.0, 0.0, 0.0])[1])
    assert math.isnan(float(scipy.stats.ttest_rel([1.0, 2.0], [1.0, 2.0]).pvalue))


def exact_randomization(diffs):
    """Every sign pattern, written out: the exact two-sided p of the sign-flip test."""
    observed = abs(math.fsum(diffs))
    hits = sum(abs(math.fsum(s * d for s, d in zip(signs, diffs))) >= observed
               for signs in itertools.product((1, -1), repeat=len(diffs)))
    return hits / 2 ** len(diffs)


def test_randomization_against_exact_enumeration_on_trec_runs():
    c = run_comparison(Q, [A, B], METRICS, queries="judged", test="randomization", seed=7)
    for m in METRICS:
        x, y = paired_values(c, m, 1)
        exact = exact_randomization([a - b for a, b in zip(x, y)])
        row = c.rows[METRICS.index(m) * 2 + 1]
        se = math.sqrt(max(exact * (1 - exact), 1e-4) / 10_000)
        assert abs(row["p_value"] - exact) < 5 * se + 1 / 10_001, (m, row["p_value"], exact)


def test_randomization_against_scipy_permutation_test(tmp_path):
    """12 queries: scipy enumerates all 4096 sign patterns (permutation_type='samples' swaps the pair members)."""
    qrels, run = synthetic.make(seed=4, queries=12, depth=40, missing=False)
    rnd = random.Random(9)
    other = {q: {d: s + rnd.gauss(0, 2) for d, s in docs.items()} for q, docs in run.items()}
    qp, rp = synthetic.write_trec(qrels, run, str(tmp_path))
    (tmp_path / "b").mkdir()
    rp2 = synthetic.write_trec(qrels, other, str(tmp_path / "b"))[1]
    metrics = ["map", "ndcg@10", "P@5"]
    c = run_comparison(qp, [rp, rp2], metrics, test="randomization", seed=123, trials=20_000)
    for j, m in enumerate(metrics):
        x, y = paired_values(c, m, 1)
        ref = scipy.stats.permutation_test((np.array(x), np.array(y)), lambda a, b: np.mean(a - b),
                                           permutation_type="samples", n_resamples=np.inf,
                                           alternative="two-sided").pvalue
        assert ref == pytest.approx(exact_randomization([a - b for a, b in zip(x, y)]), abs=1e-12)
        got = c.rows[j * 2 + 1]["p_value"]
        se = math.sqrt(max(ref * (1 - ref), 1e-4) / 20_000)
        assert abs(got - ref) < 5 * se + 1 / 20_001, (m, got, ref)


def test_randomization_is_seeded():
    diffs = [0.1, -0.05, 0.2, 0.0, 0.03, -0.01]
    assert stats.randomization(diffs, 2000, seed=1) == stats.randomization(diffs, 2000, seed=1)
    hits = round(stats.randomization(diffs, 2000, seed=1) * 2001) - 1
    assert 0 <= hits <= 2000  # p = (hits + 1) / (trials + 1)


def test_bootstrap_interval(synth):
    qp, runs = synth
    metrics = ["map", "ndcg@10", "P@10"]
    c = run_comparison(qp, runs, metrics, test="bootstrap", seed=3)
    for j, m in enumerate(metrics):
        for i in (1, 2):
            x, y = paired_values(c, m, i)
            d = np.subtract(x, y)
            row = c.rows[j * 3 + i]
            t_ci = scipy.stats.ttest_rel(x, y).confidence_interval(0.95)
            centre = (t_ci.low + t_ci.high) / 2
            assert row["ci_low"] <= centre <= row["ci_high"], (m, i)
            ref = scipy.stats.bootstrap((d,), np.mean, n_resamples=10_000, method="percentile",
                                        confidence_level=0.95, random_state=1).confidence_interval
            half = (t_ci.high - t_ci.low) / 2
            assert abs(row["ci_low"] - ref.low) < 0.1 * half and abs(row["ci_high"] - ref.high) < 0.1 * half
            # the shifted-null bootstrap p-value, written out with numpy's generator
            rng = np.random.default_rng(0)
            centred = d - d.mean()
            means = centred[rng.integers(0, len(d), size=(20_000, len(d)))].mean(axis=1)
            p_ref = (np.sum(np.abs(means) >= abs(d.mean())) + 1) / 20_001
            assert abs(row["p_value"] - p_ref) < 5 * math.sqrt(max(p_ref * (1 - p_ref), 1e-4) / 10_000) + 2e-4


def test_one_duckdb_pass_and_the_same_numbers_as_eval(monkeypatch, synth):
    qp, runs = synth
    calls = []
    real = sqlgen.plan
    monkeypatch.setattr(sqlgen, "plan", lambda *a, **k: calls.append(1) or real(*a, **k))
    c = run_comparison(qp, runs, ["map", "ndcg@10", "num_ret"])
    assert len(calls) == 1
    monkeypatch.setattr(sqlgen, "plan", real)
    for i, r in enumerate(runs):
        alone = evaluate(qp, r, ["map", "ndcg@10", "num_ret"], per_query=True)
        means = evaluate(qp, r, ["map", "ndcg@10", "num_ret"])
        for m in alone:
            assert per_query(c, m, i) == alone[m]
            assert c.means[(m, i)] == means[m]


def test_default_convention_pairs_the_common_queries():
    """trec_eval's default: results.trunc has no query 302, so it is not evaluated there and the pairs are
    301 and 303 (with a warning pointing to -c)."""
    with pytest.warns(UserWarning, match="2 common queries of 3"):
        c = run_comparison(Q, [A, B], ["map"])
    assert sorted(per_query(c, "map", 1)) == ["301", "303"] and c.rows[1]["queries"] == 2
    aq = read_trec_output(os.path.join(TREC, "out.test.aq"))["map"]
    assert c.rows[0]["mean"] == pytest.approx(aq["all"], abs=5e-5)


def test_python_outputs_and_run_names(synth):
    qp, runs = synth
    rows = compare(qp, {"base": runs[0], "noisy": runs[1]}, ["map"])
    assert [r["run"] for r in rows] == ["base", "noisy"]
    assert set(rows[0]) == {"measure", "run", "versus", "mean", "delta", "p_value", "p_adjusted", "ci_low",
                            "ci_high", "significant", "queries", "wins", "ties", "losses"}
    assert rows[0]["versus"] is None and rows[1]["versus"] == "base"
    df = compare(qp, runs, ["map"], output="pandas")
    assert list(df["run"]) == runs and df["p_value"].isna().tolist() == [True, False, False]
    table = compare(qp, runs, ["map"], output="arrow")
    assert table.column("mean").to_pylist() == df["mean"].tolist()


def test_cli_json_and_table(synth):
    qp, runs = synth
    rows = json.loads(cli("compare", qp, *runs, "-m", "map", "-m", "P@10", "--format", "json").stdout)
    assert [(r["measure"], r["run"]) for r in rows] == [(m, r) for m in ("map", "P@10") for r in runs]
    assert rows[0]["p_value"] is None and isinstance(rows[1]["p_value"], float)
    x = [r for r in rows if r["measure"] == "map"]
    table = cli("compare", qp, *runs, "-m", "map", "-m", "P@10").stdout
    line = next(ln for ln in table.splitlines() if ln.startswith("map") and runs[2] in ln)
    assert x[2]["significant"] and line.rstrip().endswith("†")
    assert "† adjusted p < 0.05" in table and "Holm" in table
    md = cli("compare", qp, *runs, "-m", "map", "--format", "markdown").stdout
    assert md.startswith("| run | map |") and "†" in md
    tex = cli("compare", qp, *runs, "-m", "map", "--format", "latex").stdout
    assert "\\begin{tabular}" in tex and "$^\\dagger$" in tex
    text = cli("compare", qp, *runs, "-m", "map", "--format", "csv").stdout
    assert text.splitlines()[0] == ("measure,run,versus,mean,delta,p_value,p_adjusted,ci_low,ci_high,significant,"
                                    "queries,wins,ties,losses")


def test_cli_errors_are_one_line(tmp_path):
    p = cli("compare", Q, A, check=False)
    assert p.returncode == 2 and "at least two runs" in p.stderr and "Traceback" not in p.stderr
    other = tmp_path / "elsewhere.run"
    other.write_text("999 Q0 doc 1 1.0 x\n")
    p = cli("compare", Q, A, str(other), check=False)
    assert p.returncode == 1 and "elsewhere.run" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = cli("compare", Q, A, B, "--test", "wilcoxon", check=False)
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_playlist_example_one_query(seeds):
    """The recommendation example: one playlist, two systems (seed note 004): nDCG@5 0.8233 and 0.8794; a single
    pair gives no t-test p-value (NaN in scipy too)."""
    q = os.path.join(SEEDS, "004_playlist.qrels")
    r1, r2 = (os.path.join(SEEDS, f"004_playlist_system{i}.run") for i in (1, 2))
    rows = json.loads(cli("compare", q, r1, r2, "-m", "ndcg@5", "--format", "json").stdout)
    assert [round(r["mean"], 4) for r in rows] == [0.8233, 0.8794]
    assert rows[1]["delta"] == pytest.approx(0.8794 - 0.8233, abs=1e-4)
    assert rows[1]["p_value"] is None and rows[1]["queries"] == 1


def test_query_ids_with_the_separator_and_rank_only_runs():
    """Query ids holding ':' (the run prefix's separator) survive the split; a run with ranks only (no score) is
    stacked with runs that have scores and gives the numbers it gives alone."""
    import pyarrow as pa
    qrels = pa.table({"query_id": ["a:1", "a:1", "a:1", "b:2:x", "b:2:x"], "item_id": ["d1", "d2", "d3", "d1", "d4"],
                      "relevance": [1, 0, 2, 1, 1]})
    scored = pa.table({"query_id": ["a:1"] * 3 + ["b:2:x"] * 3, "item_id": ["d1", "d2", "d3", "d1", "d4", "d5"],
                       "score": [3.0, 2.0, 1.0, 1.0, 2.0, 3.0]})
    ranked = pa.table({"query_id": ["a:1"] * 3 + ["b:2:x"] * 2, "item_id": ["d3", "d1", "d2", "d4", "d1"],
                       "rank": [1, 2, 3, 1, 2]})
    c = run_comparison(qrels, {"scored": scored, "ranked": ranked}, ["AP", "RR"])
    # hand computation. scored: a:1 -> d1 (rel), d2, d3 (rel): AP = (1/1 + 2/3) / 2; b:2:x -> d5, d4 (rel), d1
    # (rel): AP = (1/2 + 2/3) / 2. ranked: a:1 -> d3 (rel), d1 (rel): AP = 1; b:2:x -> d4, d1: AP = 1.
    assert per_query(c, "AP", 0) == pytest.approx({"a:1": (1 + 2 / 3) / 2, "b:2:x": (1 / 2 + 2 / 3) / 2})
    assert per_query(c, "AP", 1) == pytest.approx({"a:1": 1.0, "b:2:x": 1.0})
    assert per_query(c, "RR", 0) == pytest.approx({"a:1": 1.0, "b:2:x": 0.5})
    assert c.rows[1]["run"] == "ranked" and c.rows[1]["delta"] == pytest.approx(
        ((1 - (1 + 2 / 3) / 2) + (1 - (1 / 2 + 2 / 3) / 2)) / 2)


def test_cli_output_files(tmp_path):
    import pyarrow.parquet as pq
    rows = json.loads(cli("compare", Q, A, B, "-c", "-m", "map", "--format", "json").stdout)
    # trec_eval's means: out.test map 0.1785, out.test.aqc (-c, results.trunc) map 0.1016
    assert [round(r["mean"], 4) for r in rows] == [0.1785, 0.1016]
    for ext in ("json", "csv", "parquet", "tex", "md"):
        target = tmp_path / f"cmp.{ext}"
        cli("compare", Q, A, B, "-c", "-m", "map", "-o", str(target))
        if ext == "json":
            assert json.loads(target.read_text()) == rows
        elif ext == "parquet":
            assert pq.read_table(target).to_pylist() == rows
        elif ext == "csv":
            lines = target.read_text().splitlines()
            assert lines[0].startswith("measure,run,versus,mean,delta,p_value") and len(lines) == 3
            assert float(lines[2].split(",")[5]) == rows[1]["p_value"]
        else:
            assert ("\\begin{tabular}" if ext == "tex" else "| run | map |") in target.read_text()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["cmp.csv", "cmp.json", "cmp.md", "cmp.parquet", "cmp.tex"]


def test_nan_scores_last_reaches_compare_and_report(tmp_path):
    """--nan-scores works for compare and report as for eval. Query 1: run A scores its relevant item 'a' NaN, so
    with NaN last it ranks 'b' (1.0) first and 'a' second: RR 1/2; query 2: RR 1. Run B ranks 'a' first in both.
    Means 0.75 and 1.0; differences (0.5, 0): mean 0.25, sd 0.5/sqrt(2), t = 0.25 / (0.5/sqrt(2)/sqrt(2)) = 1,
    1 degree of freedom: two-sided p = 0.5."""
    q, a, b = tmp_path / "q.txt", tmp_path / "a.run", tmp_path / "b.run"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    a.write_text("1 Q0 a 1 nan x\n1 Q0 b 2 1.0 x\n2 Q0 a 1 1 x\n")
    b.write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1.0 x\n2 Q0 a 1 1 x\n")
    refused = cli("compare", str(q), str(a), str(b), "-m", "RR", check=False)
    assert refused.returncode == 1 and "score nan for query 1, item a" in refused.stderr
    rows = json.loads(cli("compare", str(q), str(a), str(b), "-m", "RR", "--nan-scores", "last",
                          "--format", "json").stdout)
    assert [r["mean"] for r in rows] == [0.75, 1.0] and rows[1]["p_value"] == pytest.approx(0.5, abs=1e-12)
    cli("report", str(q), str(a), str(b), "-m", "RR", "--nan-scores", "last", "-o", str(tmp_path / "r.html"))
    assert (tmp_path / "r.html").stat().st_size > 0


# --- every pair, win/tie/loss, Tukey's HSD, LaTeX: ranx's compare, run in the test ---------------------------------
def _ranx_compare(stat_test):
    import ranx
    from synthetic import make, to_tables
    qrels, first = make(seed=21, queries=30, depth=40, ties=False, missing=False)
    runs = [first] + [make(seed=s, queries=30, depth=40, ties=False, missing=False)[1] for s in (22, 23)]
    names = ["a_run", "b_run", "c_run"]
    report = ranx.compare(ranx.Qrels(qrels), [ranx.Run(r, name=n) for r, n in zip(runs, names)],
                          metrics=["ndcg@10", "map@100"], stat_test=stat_test, max_p=0.05)
    tables = [to_tables(qrels, r) for r in runs]
    import rankmetrics_duckdb as rm
    ours = rm.compare(tables[0][0], {n: t[1] for n, t in zip(names, tables)}, ["ndcg@10", "map@100"],
                      convention="ranx", test={"student": "t", "tukey": "tukey"}[stat_test], correction="none",
                      pairs="all")
    return report, ours, names


@pytest.mark.parametrize("stat_test", ["student", "tukey"])
def test_every_pair_equals_ranx_compare(stat_test):
    """rankmetrics compare --pairs all: each pair's p-value (ranx: scipy's ttest_rel or tukey_hsd), its
    win/tie/loss counts and each run's mean, as ranx's compare reports them (no correction, as ranx)."""
    report, ours, names = _ranx_compare(stat_test)
    means = {(r["measure"], r["run"]): r["mean"] for r in ours if r["versus"] is None}
    pairs = [r for r in ours if r["versus"] is not None]
    assert len(pairs) == 2 * 3
    for m in ("ndcg@10", "map@100"):
        for n in names:
            assert means[(m, n)] == pytest.approx(report.results[n][m], abs=1e-9)
    for r in pairs:
        m, run, versus = r["measure"], r["run"], r["versus"]
        assert r["p_value"] == pytest.approx(report.comparisons[run, versus][m]["p_value"], abs=1e-9), (m, run, versus)
        wtl = report.win_tie_loss[(run, versus)][m]
        assert (r["wins"], r["ties"], r["losses"]) == (wtl["W"], wtl["T"], wtl["L"])
        assert r["significant"] == bool(report.comparisons[run, versus][m]["significant"]) or \
            abs(r["p_value"] - 0.05) < 1e-12  # ranx marks p <= max_p, we p < alpha


def test_latex_of_every_pair_marks_what_ranx_marks():
    """The LaTeX table of --pairs all: ranx's layout (a letter per run, the best in bold), each run's superscripts
    the letters of the runs it is significantly better than, as in ranx's Report.to_latex."""
    from rankmetrics_duckdb import comparison, render
    report, _, names = _ranx_compare("student")
    ranx_latex = report.to_latex()
    from synthetic import make, to_tables
    qrels, first = make(seed=21, queries=30, depth=40, ties=False, missing=False)
    runs = [first] + [make(seed=s, queries=30, depth=40, ties=False, missing=False)[1] for s in (22, 23)]
    tables = [to_tables(qrels, r) for r in runs]
    c = comparison.run_comparison(tables[0][0], {n: t[1] for n, t in zip(names, tables)}, ["ndcg@10", "map@100"],
                                  convention="ranx", correction="none", pairs="all")
    latex = render.render_latex(c)
    for i, n in enumerate(names):
        for m in ("ndcg@10", "map@100"):
            theirs = report.get_superscript_for_latex(n, m)
            assert "".join("abc"[j] for j in c.better_than(m, i)) == theirs, (n, m)
    assert "\\begin{tabular}{c|l|c|c}" in latex and "\\begin{tabular}{c|l|c|c}" in ranx_latex
    assert latex.count("\\textbf{0.") == ranx_latex.count("\\textbf{0.")
