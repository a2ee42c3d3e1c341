"""The fast paths give the numbers of the general ones (issue 5): pruning of rows no measure reads, the strict
TREC reader and its fallback, Parquet read in place, the one-pass input checks, the query cache, the CLI's
resource options and the benchmark's generator and agreement check. Numbers come from trec_eval's own output
files and from pytrec_eval run here; no timings are asserted."""
import json
import math
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import pytrec_eval

from rankmetrics_duckdb import (Evaluation, InputError, determinism, evaluate, measures, plancache, sqlgen,
                                textfiles)
from conftest import ROOT
from conftest import TREC, cli, read_trec_output
import synthetic

# pytrec_eval key -> our name. Each is evaluated ALONE below, so each gets its own pruned query.
ALONE = {
    "map": "AP", "ndcg": "nDCG", "ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10", "P_5": "P@5",
    "P_10": "P@10", "recall_10": "R@10", "recip_rank": "RR", "Rprec": "Rprec", "bpref": "bpref",
    "success_1": "Success@1", "map_cut_10": "AP@10", "num_ret": "NumRet", "num_rel_ret": "NumRelRet",
    "num_rel": "NumRel",
}
TREC_MEASURES = {"map", "ndcg", "ndcg_cut.5,10", "P.5,10", "recall.10", "recip_rank", "Rprec", "bpref",
                 "success.1", "map_cut.10", "num_ret", "num_rel_ret", "num_rel"}


@pytest.mark.parametrize("seed", [11, 12])
def test_each_measure_alone_matches_pytrec_eval(seed):
    """One measure per query: the pruned stream (judged rows, the top row, rows within the cutoff) is used."""
    qrels, run = synthetic.make(seed=seed, depth=80)  # many unjudged and tied items
    want = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    jt, rt = synthetic.to_tables(qrels, run)
    for key, ours in ALONE.items():
        got = evaluate(jt, rt, [ours], per_query=True)[ours]
        assert set(got) == set(want), ours
        for q in want:
            assert got[q] == pytest.approx(want[q][key], abs=1e-9), (ours, q)


def test_mixed_requests_prune_to_what_all_of_them_read():
    """Cutoff measures with a whole-list one, and with one that counts unjudged items (no pruning)."""
    qrels, run = synthetic.make(seed=13, depth=80)
    want = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    jt, rt = synthetic.to_tables(qrels, run)
    for names in (["P@5", "nDCG@10"], ["P@5", "AP"], ["nDCG@5", "NumRet"], ["RR", "R@10", "Success@1"]):
        got = evaluate(jt, rt, names, per_query=True)
        for ours in names:
            key = next(k for k, v in ALONE.items() if v == ours)
            for q in want:
                assert got[ours][q] == pytest.approx(want[q][key], abs=1e-9), (names, ours, q)


def _variant(tmp_path, name, lines_of, transform):
    path = tmp_path / name
    with open(os.path.join(TREC, lines_of)) as fh:
        path.write_bytes(transform([ln.rstrip("\n") for ln in fh]).encode())
    return str(path)


@pytest.mark.parametrize("form", ["single spaces", "tabs", "many spaces", "crlf", "comments and blank lines",
                                  "leading and trailing blanks", "crlf and lf mixed"])
def test_trec_text_forms_give_trec_eval_numbers(tmp_path, form):
    """The strict reader takes single-space and tab files; every other form goes to the general reader, trec_eval's
    numbers (out.test) either way."""
    fix = {
        "single spaces": lambda ls: "\n".join(" ".join(ln.split()) for ln in ls) + "\n",
        "tabs": lambda ls: "\n".join("\t".join(ln.split()) for ln in ls) + "\n",
        "many spaces": lambda ls: "\n".join("   ".join(ln.split()) for ln in ls) + "\n",
        "crlf": lambda ls: "\r\n".join(" ".join(ln.split()) for ln in ls) + "\r\n",
        "comments and blank lines": lambda ls: "# a comment\n\n" + "\n".join(" ".join(ln.split()) for ln in ls) + "\n",
        "leading and trailing blanks": lambda ls: "\n".join(" " + " ".join(ln.split()) + " " for ln in ls) + "\n",
        # a file put together from Windows and Unix files (DuckDB's strict CSV reader refused it, where trec_eval
        # reads each line up to its LF and takes the CR as white space)
        "crlf and lf mixed": lambda ls: "".join(" ".join(ln.split()) + ("\r\n" if i % 3 else "\n")
                                                for i, ln in enumerate(ls)),
    }[form]
    qrels = _variant(tmp_path, "qrels.txt", "qrels.test", fix)
    run = _variant(tmp_path, "run.txt", "results.test", fix)
    want = read_trec_output(os.path.join(TREC, "out.test"))
    got = {r["measure"]: r["value"] for r in json.loads(cli("eval", qrels, run, "-m", "map", "-m", "P_10", "-m",
                                                            "num_ret", "--format", "json").stdout)}
    assert got["map"] == pytest.approx(want["map"]["all"], abs=5.1e-5)
    assert got["P_10"] == pytest.approx(want["P_10"]["all"], abs=5.1e-5)
    assert got["num_ret"] == want["num_ret"]["all"]


def test_trec_text_in_rank_order_is_ranked_as_it_comes(tmp_path):
    """trec_eval's results.test written in rank order (score, then docno descending: trec_eval's order) is ranked
    without a sort, after a first look at its head (a small read, textfiles.HEAD_BUFFER), with trec_eval's numbers
    (out.test.aq). A run whose first line is longer than that buffer, where the first look fails, is ranked by
    the sort: the numbers worked out by hand."""
    rows = [ln.split() for ln in open(os.path.join(TREC, "results.test"))]
    rows.sort(key=lambda f: (f[0], -float(f[4]), [-b for b in f[2].encode()] + [1]))  # docno descending, bytewise
    run = tmp_path / "run.txt"
    run.write_text("".join(" ".join(f) + "\n" for f in rows))
    want = read_trec_output(os.path.join(TREC, "out.test.aq"))
    ev = Evaluation(os.path.join(TREC, "qrels.test"), str(run), ["map", "P_10", "ndcg"])
    try:
        assert (ev.path, ev.ranking) == ("one statement", "input order")
        for m, q, v in ev.rows():
            assert v == pytest.approx(want[m][q or "all"], abs=5.1e-5), (m, q)
    finally:
        ev.close()
    long_id = "d" + "x" * (2 * textfiles.HEAD_BUFFER)
    run.write_text(f"q1 Q0 {long_id} 1 3.0 t\nq1 Q0 d2 2 2.0 t\nq1 Q0 d3 3 1.0 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"q1 0 {long_id} 0\nq1 0 d2 1\nq1 0 d3 1\n")
    ev = Evaluation(str(qrels), str(run), ["map", "P_1"])
    try:
        # relevant items at ranks 2 and 3 of 2 relevant: AP (1/2 + 2/3) / 2 = 7/12; the top item is not relevant
        assert ev.path == "one statement" and dict((m, v) for m, q, v in ev.rows() if q is None) == {
            "map": pytest.approx(7 / 12, abs=1e-12), "P_1": 0.0}
    finally:
        ev.close()


def test_strict_reader_falls_back_for_the_line_at_fault(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d3 3 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    p = cli("eval", str(qrels), str(run), "-m", "map", check=False)
    assert p.returncode == 1
    assert "line 3: 5 columns" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    # a tab inside what a single-space reader would take as one field: the general reader splits it, as
    # trec_eval does: item x, rank field 'd2' (not read), score 2; x and d1 tie at 2, x first (item id
    # descending), so d1, the relevant item, is at rank 2: AP 1/2
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0\tx d2 2 1.0 t\n")
    p = cli("eval", str(qrels), str(run), "-m", "map", check=False)
    assert p.returncode == 0 and p.stdout == "map                   \tall\t0.5000\n"


def test_parquet_read_in_place_and_as_text(tmp_path):
    """Numeric Parquet columns are read where they lie; numbers stored as text still convert; files unchanged."""
    qrels, run = synthetic.make(seed=14)
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(run)
    jt, rt = synthetic.to_tables(qrels, run)
    paths = {}
    for name, table in {"q.parquet": jt, "r.parquet": rt,
                        "rtext.parquet": rt.set_column(2, "score", pa.array([repr(v) for v in
                                                                            rt.column("score").to_pylist()]))}.items():
        paths[name] = str(tmp_path / name)
        pq.write_table(table, paths[name])
    before = {p: open(p, "rb").read() for p in paths.values()}
    for run_file in ("r.parquet", "rtext.parquet"):
        got = evaluate(paths["q.parquet"], paths[run_file], ["AP", "nDCG@10"], per_query=True)
        for q in want:
            assert got["AP"][q] == pytest.approx(want[q]["map"], abs=1e-9)
            assert got["nDCG@10"][q] == pytest.approx(want[q]["ndcg_cut_10"], abs=1e-9)
    assert before == {p: open(p, "rb").read() for p in paths.values()}


@pytest.mark.parametrize("rows,message", [
    ({"query_id": ["q1", "q1", "q1"], "item_id": ["a", "b", "a"], "score": [1.0, 2.0, 3.0]},
     "item a appears 2 times for query q1"),
    ({"query_id": ["q1", " ", "q1"], "item_id": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]},
     "1 row(s) with an empty or NULL query_id"),
    ({"query_id": ["q1", "q1", "q1"], "item_id": ["a", "b", "c"], "score": [1.0, math.nan, 3.0]},
     "score nan for query q1, item b"),
])
def test_one_pass_checks_still_name_the_row(rows, message):
    judgments = pa.table({"query_id": ["q1"], "item_id": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate(judgments, pa.table(rows), ["AP"])


def test_cached_query_is_the_generated_one(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(plancache, "_MEMORY", {})  # plans an earlier test of this process built are built again
    for names, kw in ((["AP", "nDCG@10"], {}), (["P@5"], {"convention": "ranx"}), (["nDCG@5"], {"ties": "average"})):
        for _ in range(2):  # built, then read back from the cache
            ev = Evaluation(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), names, **kw)
            try:
                # DuckDB's text is the split_kinds shape of the plan (sqlgen), ev.plan the portable one
                split = sqlgen.plan(ev.measures, ev.conv, sqlgen.Source(ev.run.relation, ev.run.has_score,
                                                                        ev.run.has_rank),
                                    sqlgen.Source(ev.judgments.relation, True, False), split_kinds=True,
                                    # results.test: 500 items per query, so P@5 alone is ranked with a heap
                                    top_n=measures.top_n_pays(ev.measures, ev.conv, 500))
                assert ev.sql() == determinism.ordered(split.query).sql(dialect="duckdb")
            finally:
                ev.close()
    # three plans, each built once (beside them: the presorted ranking's plan and probe, if the run is in order)
    plans = [json.load(open(p)) for p in (tmp_path / "rankmetrics-duckdb" / "plans").iterdir()]
    assert sum(1 for p in plans if len(p) == 2 and "rm_prev_query" not in p[0]) == 3


def test_cli_memory_limit_threads_and_no_progress_in_pipes():
    args = ["eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-m", "map",
            "--format", "json", "--memory-limit", "500MB", "--threads", "1"]
    p = cli(*args)
    assert json.loads(p.stdout)[0]["value"] == pytest.approx(0.1785, abs=5e-5)  # trec_eval's out.test
    assert p.stderr == ""
    # DuckDB's Python client would draw its progress bar on stdout even into a pipe; ours is off unless asked
    ev = Evaluation(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), ["map"])
    try:
        assert ev.con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0] is False
    finally:
        ev.close()
    bad = cli(*args[:-4], "--memory-limit", "lots", check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("rankmetrics: error: invalid memory limit")


def test_benchmark_generator_and_agreement(tmp_path):
    """The benchmark's workload, tiny: our CLI and in-process means agree with pytrec_eval on it."""
    import sys
    sys.path.insert(0, ROOT)  # the repository's benchmarks/ package
    from benchmarks import gen, run as bench
    files = gen.workload(str(tmp_path), queries=20, depth=100, judged=20)
    assert sum(1 for _ in open(files["run_trec"])) == 2000
    assert sum(1 for _ in open(files["qrels_trec"])) == 400
    results = {"pytrec_eval": bench.task_pytrec_eval(files, 1), "inprocess": bench.task_inprocess(files, 1),
               "cli": bench.cli(files["qrels_trec"], files["run_trec"])}
    assert any(v > 0 for v in results["pytrec_eval"]["means"].values())
    bench.agree(results)
    assert set(results["inprocess"]["cut_means"]) == set(bench.CUT)  # the cutoff-only request, checked too
    results["inprocess"]["cut_means"]["P@10"] += 1e-6
    with pytest.raises(SystemExit, match="alone"):
        bench.agree(results)
    results["inprocess"]["cut_means"]["P@10"] -= 1e-6
    results["cli"]["means"]["AP"] += 1e-6
    with pytest.raises(SystemExit, match="means disagree"):
        bench.agree(results)


def test_benchmark_spark_table():
    """The benchmark's Spark table (--spark): ours against MLlib at each size, the goal of the size, whether the means
    agree, and the three floors measured in the same session, the checked evaluation's with its ratio to MLlib (no
    Spark started here: the rows are given; a row of an older JSON without that floor leaves its cell empty)."""
    import sys
    sys.path.insert(0, ROOT)
    from benchmarks import run as bench
    row = {"seconds": 1.0, "mllib_seconds": 4.0, "agree": True, "floor_count_seconds": 0.25, "floor_rank_seconds": 0.5,
           "floor_checked_seconds": 1.5}
    old = {k: v for k, v in row.items() if k != "floor_checked_seconds"}
    table = bench.spark_report([(200_000, row), (10_000_000, {**row, "seconds": 2.0, "agree": False}),
                                (2_000_000, old)])
    lines = table.strip().splitlines()
    assert "floor: COUNT(*)" in lines[0] and "checked" in lines[0] and len(lines) == 5
    assert lines[1].count("|") == lines[0].count("|") == lines[2].count("|") == lines[4].count("|")
    assert lines[2] == "| 200k | 1.00 | 4.00 | 0.250x | <= 0.5x: holds | yes | 0.25 | 0.50 | 1.50 (0.375x) |"
    assert lines[3] == "| 10M | 2.00 | 4.00 | 0.500x | <= 0.25x: missed | NO | 0.25 | 0.50 | 1.50 (0.375x) |"
    assert lines[4] == "| 2M | 1.00 | 4.00 | 0.250x |  | yes | 0.25 | 0.50 |  |"
    assert bench.spark_report([]) == ""


def test_benchmark_in_order_floor_numbers_and_checks():
    """The benchmark's floor of ranking a run in rank order numbers each query's rows from 1 and checks the order:
    a run out of order fails it (before round 9 of issue 19 the check was a column nothing read, which DuckDB
    dropped, and the floor timed the numbering alone)."""
    import sys
    import duckdb
    sys.path.insert(0, ROOT)
    from benchmarks import run as bench
    con = duckdb.connect()
    ordered = pa.table({"query_id": ["a", "a", "a", "b", "b"], "item_id": ["x", "w", "v", "x", "y"],
                        "score": [3.0, 2.0, 2.0, 5.0, 1.0]})  # ties by item id descending, as trec_eval
    # ranks 1, 2, 3 and 1, 2: five rows whose ranks sum to 9
    assert con.execute(bench.rank_in_order_sql("ordered")).fetchall() == [(5, 9)]
    for rows in ([0, 2, 1, 3, 4], [1, 0, 2, 3, 4], [0, 1, 2, 4, 3]):  # a tie, a score, a query's last rows swapped
        out_of_order = ordered.take(rows)  # noqa: F841 (read by name in the SQL)
        with pytest.raises(duckdb.Error, match="order"):
            con.execute(bench.rank_in_order_sql("out_of_order")).fetchall()


def test_judged_only_ranks_judged_items_like_trec_eval_J():
    """-J: unjudged items leave the ranking before it is computed (pytrec_eval's judged_docs_only_flag)."""
    qrels, run = synthetic.make(seed=15, depth=60)
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.5", "ndcg_cut.10", "recip_rank"},
                                          judged_docs_only_flag=True).evaluate(run)
    jt, rt = synthetic.to_tables(qrels, run)
    for key, ours in {"map": "AP", "P_5": "P@5", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR"}.items():
        got = evaluate(jt, rt, [ours], per_query=True, judged_only=True)[ours]
        for q in want:
            assert got[q] == pytest.approx(want[q][key], abs=1e-9), (ours, q)


def _single_spaced(tmp_path):
    fix = lambda ls: "\n".join(" ".join(ln.split()) for ln in ls) + "\n"  # noqa: E731
    return _variant(tmp_path, "qrels.txt", "qrels.test", fix), _variant(tmp_path, "run.txt", "results.test", fix)


def _trec_eval_means(ev):
    try:
        got = {m: v for m, q, v in ev.rows() if q is None}
        # the fused query's text, as evaluated again from the inputs as loaded (whichever path loaded them)
        again = {m: v for m, q, v in ev.relation().fetchall() if q is None}
        assert again == pytest.approx(got, abs=1e-12)
    finally:
        ev.close()
    want = read_trec_output(os.path.join(TREC, "out.test"))
    assert got["map"] == pytest.approx(want["map"]["all"], abs=5.1e-5)
    assert got["P_10"] == pytest.approx(want["P_10"]["all"], abs=5.1e-5)
    assert got["num_ret"] == want["num_ret"]["all"]


def test_clean_inputs_are_read_checked_and_evaluated_in_one_statement(tmp_path):
    """Strict TREC text, Parquet, Arrow, pandas and a caller's tables go through one statement (onepass.py) and
    give trec_eval's numbers; the caller's connection is left as found."""
    import duckdb
    import pandas as pd
    qrels, run = _single_spaced(tmp_path)
    q = pd.read_csv(qrels, sep=" ", header=None, names=["query_id", "iter", "item_id", "relevance"],
                    dtype={"query_id": str})[["query_id", "item_id", "relevance"]]
    r = pd.read_csv(run, sep=" ", header=None, names=["query_id", "q0", "item_id", "rank", "score", "tag"],
                    dtype={"query_id": str})[["query_id", "item_id", "score"]]
    pq.write_table(pa.Table.from_pandas(q), str(tmp_path / "q.parquet"))
    pq.write_table(pa.Table.from_pandas(r), str(tmp_path / "r.parquet"))
    given = {"TREC text": (qrels, run), "Parquet": (str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet")),
             "Arrow": (pa.Table.from_pandas(q), pa.Table.from_pandas(r)), "pandas": (q, r)}
    for kind, (j, rr) in given.items():
        ev = Evaluation(j, rr, ["map", "P_10", "num_ret"])
        assert ev.path == "one statement", kind
        _trec_eval_means(ev)
    con = duckdb.connect()
    con.execute("CREATE TABLE my_qrels AS SELECT * FROM q")
    con.execute("CREATE TABLE my_run AS SELECT query_id AS qid, item_id AS docno, score AS sim FROM r")
    state = "SELECT (SELECT list(table_name ORDER BY table_name) FROM duckdb_tables()), " \
            "(SELECT count(*) FROM duckdb_views() WHERE NOT internal)"
    before = con.execute(state).fetchall()
    ev = Evaluation("my_qrels", "my_run", ["map", "P_10", "num_ret"], con=con)
    assert ev.path == "one statement"
    _trec_eval_means(ev)
    assert con.execute(state).fetchall() == before
    ev = Evaluation(pa.Table.from_pandas(q), pa.Table.from_pandas(r), ["map", "P_10", "num_ret"], con=con)
    assert ev.path == "one statement" and con.execute(state).fetchall() != before  # the frames, registered
    _trec_eval_means(ev)
    assert con.execute(state).fetchall() == before


def test_id_checks_hold_at_their_bounds(tmp_path):
    """The missing-id check looks at the trim of an id only when it sorts before '!' (an empty or all-space id
    does), and the strict TREC reader finds a comment line by a query id from '#' up to '$': ids on either side
    of those bounds are ids like any other (pytrec_eval's numbers, in one statement), and the blank ones and the
    comment line take the careful path, as before."""
    odd = [" a", "!", "\x1fb", "\t", "a ", "\"1", "$1", "#"]  # valid ids beside the bounds (trim() trims spaces only)
    qrels = {q: {d: (i + k) % 3 for k, d in enumerate(odd)} for i, q in enumerate(odd)}
    run = {q: {d: float(len(odd) - k + i) for k, d in enumerate(odd)} for i, q in enumerate(odd)}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(run)
    jt = pa.table({"query_id": [q for q in qrels for d in qrels[q]], "item_id": [d for q in qrels for d in qrels[q]],
                   "relevance": [qrels[q][d] for q in qrels for d in qrels[q]]})
    rt = pa.table({"query_id": [q for q in run for d in run[q]], "item_id": [d for q in run for d in run[q]],
                   "score": [run[q][d] for q in run for d in run[q]]})
    ev = Evaluation(jt, rt, ["map", "P_5"])
    assert ev.path == "one statement"
    got = {(m, q): v for m, q, v in ev.rows() if q is not None}
    ev.close()
    assert got == pytest.approx({(m, q): want[q][m] for q in want for m in ("map", "P_5")}, abs=1e-12)
    for blank in ("", " ", "   "):  # empty or all spaces: refused, by the careful path, with the count
        with pytest.raises(InputError, match="1 row\\(s\\) with an empty or NULL item_id in the run"):
            evaluate(jt, rt.set_column(1, "item_id", pa.array([blank] + rt["item_id"].to_pylist()[1:])), ["map"])
    # TREC text: query ids '"1' and '$1' (either side of '#') are read in one statement; a line whose query id
    # starts with '#' is a comment, which the careful path skips
    text = "".join(f"{q} Q0 d{k} {k + 1} {10 - k} t\n" for q in ('"1', "$1") for k in range(4))
    qtext = "".join(f"{q} 0 d{k} {k % 2}\n" for q in ('"1', "$1") for k in range(4))
    (tmp_path / "q.txt").write_text(qtext)
    (tmp_path / "r.txt").write_text(text)
    (tmp_path / "c.txt").write_text(text + "#1 Q0 d9 1 10 t\n")
    want = pytrec_eval.RelevanceEvaluator({q: {f"d{k}": k % 2 for k in range(4)} for q in ('"1', "$1")},
                                          {"map"}).evaluate({q: {f"d{k}": 10.0 - k for k in range(4)}
                                                             for q in ('"1', "$1")})
    for name, path in (("one statement", "r.txt"), ("careful", "c.txt")):
        ev = Evaluation(str(tmp_path / "q.txt"), str(tmp_path / path), ["map"])
        assert ev.path == name
        got = {q: v for m, q, v in ev.rows() if q is not None}
        ev.close()
        assert got == pytest.approx({q: want[q]["map"] for q in want}, abs=1e-12)


def test_other_inputs_take_the_careful_path(tmp_path):
    """What the one statement does not read as the careful path would (gzip text outside the strict form,
    comments, a header, numbers as text, NaN scores ranked last) is read by the careful path: trec_eval's
    numbers still."""
    import gzip
    qrels, run = _single_spaced(tmp_path)
    text = open(run).read()
    with gzip.open(tmp_path / "run.gz", "wt") as fh:
        fh.write(text.replace(" ", "  "))
    (tmp_path / "commented.txt").write_text("# a run\n" + text)
    rows = [ln.split() for ln in text.splitlines()]
    (tmp_path / "run.csv").write_text("qid,docno,score\n" + "".join(f"{a[0]},{a[2]},{a[4]}\n" for a in rows))
    as_text = pa.table({"query_id": [a[0] for a in rows], "item_id": [a[2] for a in rows],
                        "score": [a[4] for a in rows]})
    for name, given, kw in (("gzip", str(tmp_path / "run.gz"), {}), ("comment", str(tmp_path / "commented.txt"), {}),
                            ("header", str(tmp_path / "run.csv"), {}), ("text scores", as_text, {}),
                            ("nan scores last", run, {"nan_scores": "last"})):
        ev = Evaluation(qrels, given, ["map", "P_10", "num_ret"], **kw)
        assert ev.path == "careful", name
        _trec_eval_means(ev)
    # a clean file whose duplicates make the one statement decline: the careful path names the item
    (tmp_path / "dup.txt").write_text(text + text.splitlines()[0] + "\n")
    with pytest.raises(InputError, match="appears 2 times for query"):
        Evaluation(qrels, str(tmp_path / "dup.txt"), ["map"])


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_gzip_trec_text_in_the_strict_form_takes_the_one_statement(tmp_path, sep):
    """gzip TREC files in the strict form (one space or one tab between fields) are read by DuckDB's CSV reader
    as the plain files are: the one statement, the plain files' rows bit for bit, trec_eval's numbers. The other
    whitespace the general reader splits on (the other separator, CR, FF) or a NUL byte inside a field, which
    strict_form cannot look for in a compressed file, sends the file to the careful path, as for plain text."""
    import gzip
    fix = lambda ls: "\n".join(sep.join(ln.split()) for ln in ls) + "\n"  # noqa: E731
    plain = {kind: _variant(tmp_path, f"{kind}.txt", source, fix)
             for kind, source in (("qrels", "qrels.test"), ("run", "results.test"))}
    zipped = {}
    for kind, path in plain.items():
        zipped[kind] = str(tmp_path / f"{kind}.gz.bin")  # no .gz suffix: the magic bytes decide, not the name
        with open(path, "rb") as src, gzip.open(zipped[kind], "wb") as dst:
            dst.write(src.read())
    ev = Evaluation(zipped["qrels"], zipped["run"], ["map", "P_10", "num_ret", "ndcg"])
    assert ev.path == "one statement"
    got = [(m, q, repr(v)) for m, q, v in ev.rows()]
    ev.close()
    want, _, path = _rows_and_ranking(plain["qrels"], plain["run"], ["map", "P_10", "num_ret", "ndcg"])
    assert path == "one statement" and got == want
    _trec_eval_means(Evaluation(zipped["qrels"], zipped["run"], ["map", "P_10", "num_ret"]))
    lines = open(plain["run"]).read().splitlines()
    other = "\t" if sep == " " else " "
    for char in (other, "\r", "\f", "\x00"):
        odd = list(lines)
        fields = odd[3].split(sep)
        fields[2] = fields[2][:1] + char + fields[2][1:]  # inside the fourth line's item id
        odd[3] = sep.join(fields)
        bad = tmp_path / "odd.gz.bin"
        with gzip.open(bad, "wt", newline="") as fh:
            fh.write("\n".join(odd) + "\n")
        with open(tmp_path / "odd.txt", "w", newline="") as fh:
            fh.write("\n".join(odd) + "\n")
        outcomes = []
        for given in (str(bad), str(tmp_path / "odd.txt")):
            try:
                e = Evaluation(zipped["qrels"], given, ["map"])
                outcomes.append((e.path, [(m, q, repr(v)) for m, q, v in e.rows()]))
                e.close()
            except InputError as err:
                outcomes.append(("refused", str(err).replace(str(bad), "F").replace(str(tmp_path / "odd.txt"), "F")))
        assert outcomes[0][0] in ("careful", "refused"), repr(char)
        assert outcomes[0] == outcomes[1], repr(char)  # as the plain file with the same lines


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("kind,field", [("run", 1), ("run", 3), ("run", 5), ("qrels", 1)])
def test_an_empty_unused_field_in_the_strict_form_is_refused(tmp_path, sep, kind, field):
    """A file split on one delimiter where one line's unused field (iter or Q0, a run's rank, its tag) is empty:
    the delimiter twice in a row, or last on the line. Read on whitespace, as trec_eval reads it, that line has a
    field too few, and the file is refused naming the line, plain or gzip. The strict reader reads the unused
    fields for this alone (textfiles.strict_trec_select's rm_bad; benchmarks/README.md, round 20)."""
    import gzip
    source, want = ("results.test", "5 columns where a TREC run line has 6") if kind == "run" else \
        ("qrels.test", "3 columns where a TREC qrels line has 4")

    def fix(lines):
        out = [sep.join(ln.split()) for ln in lines]
        fields = out[3].split(sep)
        fields[field] = ""  # the fourth line: between two delimiters, or after the last
        out[3] = sep.join(fields)
        return "\n".join(out) + "\n"
    odd = _variant(tmp_path, f"odd-{kind}.txt", source, fix)
    with open(odd, "rb") as src, gzip.open(tmp_path / f"odd-{kind}.gz", "wb") as dst:
        dst.write(src.read())
    clean = _single_spaced(tmp_path)
    for given in (odd, str(tmp_path / f"odd-{kind}.gz")):
        qrels, run = (clean[0], given) if kind == "run" else (given, clean[1])
        with pytest.raises(InputError, match=f"line 4: {want}"):
            evaluate(qrels, run, ["map"])


def test_gzip_run_tag_is_the_last_lines_like_the_plain_files(tmp_path):
    """trec_eval's runid is the tag of the run's last line (comments and blank lines after it skipped): a gzip
    file read in blocks (about 2 MB here, so the last line is found across a block boundary) gives the plain
    file's."""
    import gzip
    from rankmetrics_duckdb import textfiles
    body = "".join(f"q{i // 1000} Q0 d{i} {i % 1000 + 1} {1.0 / (i + 1):.6f} tag{i % 7}\n" for i in range(50_000))
    for tail in ("q9 Q0 dx 1 0.5 last\n", "q9 Q0 dx 1 0.5 last", "q9 Q0 dx 1 0.5 last\n# done\n\n   \n"):
        (tmp_path / "run.txt").write_text(body + tail)
        with gzip.open(tmp_path / "run.gz", "wt") as fh:
            fh.write(body + tail)
        assert textfiles.trec_run_tag(str(tmp_path / "run.gz")) == textfiles.trec_run_tag(str(tmp_path / "run.txt")) \
            == "last"


def test_gzip_files_are_known_by_their_bytes_not_their_name(tmp_path):
    """A gzip CSV named run.csv and a plain TREC file named run.gz read as what they are (DuckDB's own 'auto'
    goes by the extension: the first was read as text and refused, the second as gzip)."""
    import gzip
    qrels, run = _single_spaced(tmp_path)
    rows = [ln.split() for ln in open(run).read().splitlines()]
    with gzip.open(tmp_path / "run.csv", "wt") as fh:
        fh.write("qid,docno,score\n" + "".join(f"{a[0]},{a[2]},{a[4]}\n" for a in rows))
    (tmp_path / "run.gz").write_text(open(run).read())
    for given in (tmp_path / "run.csv", tmp_path / "run.gz"):
        _trec_eval_means(Evaluation(qrels, str(given), ["map", "P_10", "num_ret"]))


# ---- presorted runs (issue 19): a run already in rank order is ranked without a sort ----------------------------

PRESORTED_MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@50", "bpref"]


def _in_rank_order(qrels_run, ties="item_desc", seed=0):
    """synthetic's run as rows in rank order under the convention (each query's rows together, the queries in a
    shuffled order), with a rank column of its own order (distinct ranks, as a model writes them)."""
    import random
    _, run = qrels_run
    queries = list(run)
    random.Random(seed).shuffle(queries)
    rows = []
    for q in queries:
        items = sorted(run[q].items(), key=lambda x: x[0].encode(), reverse=ties != "item_asc")
        items.sort(key=lambda x: -x[1])  # stable: ties keep the item order above
        rows += [(q, d, s, i + 1) for i, (d, s) in enumerate(items)]
    return rows


def _table(rows, columns=("query_id", "item_id", "score", "rank")):
    picked = {"query_id": 0, "item_id": 1, "score": 2, "rank": 3}
    return pa.table({c: [r[picked[c]] for r in rows] for c in columns})


def _rows_and_ranking(jt, run, names, **kw):
    ev = Evaluation(jt, run, names, **kw)
    try:
        rows = [(m, q, repr(v)) for m, q, v in ev.rows()]  # repr: bit for bit, NaN included
        return rows, ev.ranking, ev.path
    finally:
        ev.close()


def _ranking_kept(monkeypatch, kept: bool) -> list:
    """Whether the presorted statements keep their numbered rows (sqlgen.plan's keep_ranking): as onepass decides
    (the run fits the memory limit, as these small runs do) or, with kept False, not (the statement asked for
    without it; test_presorted_run_too_large_for_the_limit_is_streamed has onepass decide so). Returns the list
    that collects, for each one-statement run, whether its SQL had the kept CTE."""
    from rankmetrics_duckdb import onepass, sqlgen
    seen = []
    real = onepass._statement

    def statement(specs, conv, j, r, top_n, presorted, keep_ranking=False):
        sql = real(specs, conv, j, r, top_n, presorted, keep_ranking and kept)
        seen.append(f"{sqlgen.RANKED_RUN} AS MATERIALIZED" in sql)
        return sql
    monkeypatch.setattr(onepass, "_statement", statement)
    return seen


def test_presorted_run_too_large_for_the_limit_is_streamed(monkeypatch):
    """A run in rank order whose rows would not fit the memory limit (a row taken as larger than the whole limit:
    onepass.ROW_BYTES) and that is not cheap to read again (a pandas DataFrame, converted on each scan: no parts)
    is numbered as it streams, not kept: the same rows as kept, bit for bit."""
    from rankmetrics_duckdb import onepass
    seen = _ranking_kept(monkeypatch, True)
    data = synthetic.make(seed=24, depth=30)
    jt, _ = synthetic.to_tables(*data)
    run = _table(_in_rank_order(data), ("query_id", "item_id", "score")).to_pandas()
    kept_rows, ranking, _ = _rows_and_ranking(jt, run, PRESORTED_MEASURES)
    assert ranking == "input order" and seen[-1] is True
    monkeypatch.setattr(onepass, "ROW_BYTES", 10 ** 15)
    ev = Evaluation(jt, run, PRESORTED_MEASURES)
    try:
        streamed_rows = [(m, q, repr(v)) for m, q, v in ev.rows()]
        assert (ev.ranking, ev.parts) == ("input order", 1) and seen[-1] is False
    finally:
        ev.close()
    assert streamed_rows == kept_rows


@pytest.mark.parametrize("columns,kw", [(("query_id", "item_id", "score"), {}),
                                        (("query_id", "item_id", "score", "rank"), {"ties": "input"})])
@pytest.mark.parametrize("fault", [None, "scores rising in a later part"])
def test_presorted_run_too_large_for_the_limit_is_ranked_in_parts(tmp_path, monkeypatch, fault, columns, kw):
    """A run in rank order too large for the memory limit and cheap to read again (Arrow, Parquet) is evaluated
    in parts of its queries as a shuffled one is (onepass._in_parts), each part numbered as it comes, its
    numbered rows kept: the rows of the one statement, bit for bit (its one part ranked in input order), and of
    the same run shuffled, ranked by the sort; a row out of order in a later part (the probe looks at 3 rows
    only) sends the whole run to the sort, in parts, with the same rows; the same with ties in the input's order
    (a rank column, checked first). Under trec_eval's conventions, pytrec_eval's numbers (the ranks follow
    trec_eval's order of ties here)."""
    import random
    from rankmetrics_duckdb import onepass, plancache
    data = synthetic.make(seed=25, depth=60)
    jt, _ = synthetic.to_tables(*data)
    rows = _in_rank_order(data)
    rows.sort(key=lambda r: r[0].encode())  # the queries in id order: a model's output sorted by query, as parts read
    if fault:
        monkeypatch.setattr(plancache, "PROBE_ROWS", 3)
        i = next(i for i in range(len(rows) - 1, 0, -1) if rows[i][0] == rows[i - 1][0] and rows[i][2] < rows[i - 1][2])
        rows[i - 1], rows[i] = rows[i], rows[i - 1]  # the last query's: in the last part
    ordered = _table(rows, columns)
    shuffled = list(rows)
    random.Random(9).shuffle(shuffled)
    want, ranking, _ = _rows_and_ranking(jt, _table(shuffled, columns), PRESORTED_MEASURES, **kw)
    assert ranking == "sort"
    one, parts = _in_parts(monkeypatch, jt, ordered, ordered.num_rows, PRESORTED_MEASURES, 0, **kw)
    assert parts == 1 and one == want
    pq.write_table(ordered, str(tmp_path / "r.parquet"))
    for run in (ordered, str(tmp_path / "r.parquet")):
        monkeypatch.setattr(onepass, "ROW_BYTES", int(2.5 * onepass.PART_SHARE * 1e9 / ordered.num_rows))
        ev = Evaluation(jt, run, PRESORTED_MEASURES, memory_limit="1GB", **kw)
        try:
            got = [(m, q, repr(v)) for m, q, v in ev.rows()]
            assert (ev.path, ev.parts) == ("one statement", 3)
            assert ev.ranking == ("sort" if fault else "input order")
        finally:
            ev.close()
        assert got == want
    qrels, run = data  # (the fault moves a row, not its score: the same run to pytrec_eval, which sorts it)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(run)
    values = {(m, q): float(v) for m, q, v in got if q is not None}
    for q in ref:
        assert values[("AP", q)] == pytest.approx(ref[q]["map"], abs=1e-9), q
        assert values[("nDCG@10", q)] == pytest.approx(ref[q]["ndcg_cut_10"], abs=1e-9), q


@pytest.mark.parametrize("kept", [True, False])
@pytest.mark.parametrize("ties,columns,kw", [
    ("item_desc", ("query_id", "item_id", "score"), {}),                           # trec_eval
    ("item_asc", ("query_id", "item_id", "score"), {"ties": "item_asc"}),
    ("item_desc", ("query_id", "item_id", "score"), {"ties": "average"}),
    ("item_desc", ("query_id", "item_id", "score", "rank"), {"ties": "input"}),
    ("item_desc", ("query_id", "item_id", "rank"), {}),                            # ranks only: score is -rank
    ("item_desc", ("query_id", "item_id", "score"), {"nan_scores": "last"}),        # the careful path
])
def test_presorted_and_shuffled_runs_give_bit_identical_rows(monkeypatch, ties, columns, kw, kept):
    """The same run in rank order (ranked as it comes) and shuffled (sorted): the same rows, bit for bit, on the
    one-statement path (its numbered rows kept in a CTE of their own or not) and the careful path; under
    trec_eval's conventions, pytrec_eval's numbers."""
    import random
    seen = _ranking_kept(monkeypatch, kept)
    data = synthetic.make(seed=21, depth=60)
    jt, _ = synthetic.to_tables(*data)
    ordered = _in_rank_order(data, ties)
    shuffled = list(ordered)
    random.Random(5).shuffle(shuffled)
    full = None
    for names in (PRESORTED_MEASURES, ["nDCG@10", "P@5"]):  # the second: a cutoff-only request (top 10 kept)
        got, ranking, path = _rows_and_ranking(jt, _table(ordered, columns), names, **kw)
        assert ranking == "input order" and path == ("careful" if kw.get("nan_scores") else "one statement")
        if path == "one statement":
            assert seen[-1] == kept  # the presorted statement, with its ranking kept or not as asked
        want, ranking, _ = _rows_and_ranking(jt, _table(shuffled, columns), names, **kw)
        assert ranking == "sort"
        assert got == want, names
        full = full if names != PRESORTED_MEASURES else got
    if not kw or kw.get("nan_scores"):
        qrels, run = data
        ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.5", "recip_rank", "recall.50", "bpref"}
                                             ).evaluate(run if "score" in columns else
                                                        {q: {d: -float(r) for qq, d, s, r in ordered if qq == q}
                                                         for q in run})
        keys = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank", "R@50": "recall_50",
                "bpref": "bpref"}
        values = {(m, q): float(v) for m, q, v in full}
        for q in ref:
            for m, key in keys.items():
                assert values[(m, q)] == pytest.approx(ref[q][key], abs=1e-9), (m, q)


@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_presorted_dataframes_keep_their_ranking(monkeypatch, frame):
    """A DataFrame run in rank order (its row count known: len) keeps its numbered rows like an Arrow table and
    gives the Arrow run's rows, bit for bit, and the shuffled run's."""
    import random
    seen = _ranking_kept(monkeypatch, True)
    data = synthetic.make(seed=23, depth=40)
    jt, _ = synthetic.to_tables(*data)
    ordered = _in_rank_order(data)
    table = _table(ordered, ("query_id", "item_id", "score"))
    import polars as pl
    frame_run = table.to_pandas() if frame == "pandas" else pl.from_arrow(table)
    got, ranking, path = _rows_and_ranking(jt, frame_run, PRESORTED_MEASURES)
    assert (ranking, path) == ("input order", "one statement") and seen[-1] is True
    want, _, _ = _rows_and_ranking(jt, table, PRESORTED_MEASURES)
    assert got == want
    shuffled = list(ordered)
    random.Random(7).shuffle(shuffled)
    want, ranking, _ = _rows_and_ranking(jt, _table(shuffled, ("query_id", "item_id", "score")), PRESORTED_MEASURES)
    assert ranking == "sort" and got == want


@pytest.mark.parametrize("fault", ["tied items swapped", "a query in two blocks", "scores rising"])
@pytest.mark.parametrize("kw,kept", [({}, True), ({}, False), ({"nan_scores": "last"}, False)])
def test_presorted_ranking_checks_every_row(monkeypatch, fault, kw, kept):
    """The first rows look ranked (the probe looks at 3 only here), a later one is not: the query finds it (its
    numbered rows kept in a CTE of their own or not) and the run is ranked by the sort, with the numbers of the
    shuffled run."""
    import random
    from rankmetrics_duckdb import plancache
    monkeypatch.setattr(plancache, "PROBE_ROWS", 3)
    seen = _ranking_kept(monkeypatch, kept)
    data = synthetic.make(seed=22, depth=60)
    jt, _ = synthetic.to_tables(*data)
    rows = _in_rank_order(data)
    if fault == "tied items swapped":  # two items of equal score, in ascending item order: trec_eval's is desc
        i = next(i for i in range(len(rows) - 1, 0, -1) if rows[i][0] == rows[i - 1][0] and rows[i][2] == rows[i - 1][2])
        rows[i - 1], rows[i] = rows[i], rows[i - 1]
    elif fault == "a query in two blocks":  # a query's top row moved to the end of the run
        i = next(i for i in range(10, len(rows)) if rows[i][0] != rows[i - 1][0])
        rows.append(rows.pop(i))
    else:  # the last query's two last rows with scores rising
        i = next(i for i in range(len(rows) - 1, 0, -1) if rows[i][0] == rows[i - 1][0] and rows[i][2] < rows[i - 1][2])
        rows[i - 1], rows[i] = rows[i], rows[i - 1]
    got, ranking, _ = _rows_and_ranking(jt, _table(rows, ("query_id", "item_id", "score")), PRESORTED_MEASURES, **kw)
    assert ranking == "sort"
    if not kw:  # the presorted statement ran (and failed on the row out of order), then the sorted one
        assert seen[0] == kept and seen[-1] is False
    random.Random(3).shuffle(rows)
    want, _, _ = _rows_and_ranking(jt, _table(rows, ("query_id", "item_id", "score")), PRESORTED_MEASURES, **kw)
    assert got == want


def test_callers_transaction_is_never_aborted_by_the_order_check(monkeypatch):
    """On the caller's connection (con=), inside their open transaction, a run that looks ranked at first and is
    not later is evaluated with the sort from the start: the presorted query, which fails on a row out of order,
    never runs there (DuckDB aborts a transaction on an error), and the transaction goes on."""
    import duckdb
    from rankmetrics_duckdb import plancache
    monkeypatch.setattr(plancache, "PROBE_ROWS", 3)
    data = synthetic.make(seed=22, depth=60)
    jt, _ = synthetic.to_tables(*data)
    rows = _in_rank_order(data)
    i = next(i for i in range(len(rows) - 1, 0, -1) if rows[i][0] == rows[i - 1][0] and rows[i][2] < rows[i - 1][2])
    rows[i - 1], rows[i] = rows[i], rows[i - 1]  # scores rising in the last query
    con = duckdb.connect()
    con.execute("BEGIN TRANSACTION")
    con.execute("CREATE TABLE mine AS SELECT 42 AS x")
    for kw in ({}, {"nan_scores": "last"}):
        got, ranking, _ = _rows_and_ranking(jt, _table(rows, ("query_id", "item_id", "score")), PRESORTED_MEASURES,
                                            con=con, **kw)
        assert ranking == "sort"
    assert con.execute("SELECT x FROM mine").fetchall() == [(42,)]
    con.execute("COMMIT")
    qrels, run = data
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)  # the order of the rows changes nothing
    values = {q: float(v) for m, q, v in got if m == "AP" and q is not None}
    assert values == pytest.approx({q: ref[q]["map"] for q in ref}, abs=1e-9)


def test_run_wide_measures_keep_the_sort():
    """A request with a run-wide measure (GAUC, Personalization: one value over every query, the one-stream
    shape) on a run in rank order is ranked by the sort, with the rows of the same run shuffled, bit for bit;
    its per-query AP is pytrec_eval's."""
    import random
    data = synthetic.make(seed=21, depth=60)
    jt, _ = synthetic.to_tables(*data)
    ordered = _in_rank_order(data)
    shuffled = list(ordered)
    random.Random(5).shuffle(shuffled)
    names = ["AP", "GAUC", "Personalization@5"]
    got, ranking, _ = _rows_and_ranking(jt, _table(ordered, ("query_id", "item_id", "score")), names)
    want, _, _ = _rows_and_ranking(jt, _table(shuffled, ("query_id", "item_id", "score")), names)
    assert ranking == "sort" and got == want
    qrels, run = data
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    values = {q: float(v) for m, q, v in got if m == "AP" and q is not None}
    assert values == pytest.approx({q: ref[q]["map"] for q in ref}, abs=1e-9)


# ---- runs too large for the memory limit: evaluated in parts of the queries (issue 19) --------------------------

PART_MEASURES = ["AP", "nDCG@10", "nDCG", "P@5", "RR", "R@50", "bpref", "Rprec", "GMAP", "NumRet", "NumRelRet"]


def _in_parts(monkeypatch, judgments, run, rows, names, parts, **kw):
    """The rows (bit for bit, as repr) and the parts of the evaluation of judgments and run (`rows` run rows),
    with the one-statement path's estimate of a run row's memory raised so that the run needs `parts` parts under
    a 1 GB limit (0: the estimate as it is, one part; the ids are short, so a row is ROW_BYTES)."""
    from rankmetrics_duckdb import onepass
    if parts:  # half a part less than parts: DuckDB shows the limit rounded (953.6 MiB)
        monkeypatch.setattr(onepass, "ROW_BYTES", int((parts - 0.5) * onepass.PART_SHARE * 1e9 / rows))
    ev = Evaluation(judgments, run, names, memory_limit="1GB", **kw)
    try:
        assert ev.path == "one statement"
        return [(m, q, repr(v)) for m, q, v in ev.rows()], ev.parts
    finally:
        ev.close()


@pytest.mark.parametrize("convention,kw", [("trec_eval", {}), ("ranx", {}), ("trec_eval", {"queries": "all"}),
                                           ("trec_eval", {"empty": "nan"}), ("trec_eval", {"judged_only": True}),
                                           ("trec_eval", {"ties": "average"})])
def test_large_runs_in_parts_give_bit_identical_rows(tmp_path, monkeypatch, convention, kw):
    """A run whose rows need more than the memory limit is evaluated in parts of its queries (each query's run
    rows and judgments in one part, one statement each) and the means over all of them: the rows of the one
    statement, bit for bit, under conventions that change which queries count (ranx's judged queries, every
    query, NaN for queries without a relevant item) and how (geometric and summed aggregates); Parquet files
    are read again for each part in place. Under trec_eval's conventions, pytrec_eval's numbers."""
    qrels, run = synthetic.make(seed=31, depth=60)
    del run[next(iter(run))]  # a judged query the run lacks: counted by ranx and queries='all'
    jt, rt = synthetic.to_tables(qrels, run)
    pq.write_table(jt, str(tmp_path / "q.parquet"))
    pq.write_table(rt, str(tmp_path / "r.parquet"))
    names = PART_MEASURES if convention == "trec_eval" and not kw else ["AP", "nDCG@10", "P@5", "RR", "GMAP"]
    want, parts = _in_parts(monkeypatch, jt, rt, rt.num_rows, names, 0, convention=convention, **kw)
    assert parts == 1
    for j, r in ((jt, rt), (str(tmp_path / "q.parquet"), str(tmp_path / "r.parquet"))):
        got, parts = _in_parts(monkeypatch, j, r, rt.num_rows, names, 3, convention=convention, **kw)
        assert parts == 3 and got == want
    if convention == "trec_eval" and not kw:
        keys = {"AP": "map", "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg", "P@5": "P_5", "RR": "recip_rank",
                "R@50": "recall_50", "bpref": "bpref", "Rprec": "Rprec", "NumRet": "num_ret",
                "NumRelRet": "num_rel_ret"}
        ref = pytrec_eval.RelevanceEvaluator(qrels, set(keys.values()) | {"gm_map"}).evaluate(run)
        values = {(m, q): float(v) for m, q, v in got}
        for q in ref:
            for m, key in keys.items():
                assert values[(m, q)] == pytest.approx(ref[q][key], abs=1e-9), (m, q)
        assert values[("GMAP", None)] == pytest.approx(
            math.exp(sum(math.log(max(ref[q]["map"], 1e-5)) for q in ref) / len(ref)), abs=1e-9)
        assert values[("NumRet", None)] == sum(ref[q]["num_ret"] for q in ref)  # trec_eval sums the counts


def test_parts_check_the_whole_inputs_first(tmp_path, monkeypatch):
    """In parts, the checks run once over the whole inputs before any part: a duplicate sends the inputs to the
    careful path, which names it; a request with a run-wide measure (GAUC: one value over every query) stays one
    statement, whatever the size, with its AP still pytrec_eval's."""
    from rankmetrics_duckdb import onepass
    qrels, run = synthetic.make(seed=32, depth=40)
    jt, rt = synthetic.to_tables(qrels, run)
    monkeypatch.setattr(onepass, "ROW_BYTES", int(2.5 * onepass.PART_SHARE * 1e9 / rt.num_rows))
    dup = pa.concat_tables([rt, rt.slice(7, 1)])
    with pytest.raises(InputError, match="appears 2 times for query"):
        Evaluation(jt, dup, ["AP"], memory_limit="1GB")
    ev = Evaluation(jt, rt, ["AP", "GAUC"], memory_limit="1GB")
    assert ev.path == "one statement" and ev.parts == 1
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    got = {q: v for m, q, v in ev.rows() if m == "AP" and q is not None}
    assert got == pytest.approx({q: ref[q]["map"] for q in ref}, abs=1e-9)
    ev.close()
    ev = Evaluation(jt, rt, ["AP"], memory_limit="1GB")
    assert ev.parts == 3
    ev.close()


def test_parts_are_ranges_of_query_ids_with_about_as_many_rows(monkeypatch):
    """The parts are ranges of query ids (onepass._part_bounds), each holding whole queries and about as many run
    rows, counted here from the run itself: every query in exactly one range, each range within one query's rows
    of a third of the run. A query holding most of the rows makes fewer parts (it cannot be split). Either way the
    rows are the one statement's, bit for bit, and AP pytrec_eval's."""
    import duckdb
    from rankmetrics_duckdb import onepass
    qrels, run = synthetic.make(seed=33, queries=40, depth=50)
    jt, rt = synthetic.to_tables(qrels, run)
    con = duckdb.connect()
    con.register("rm_src_run", rt)
    lows = con.execute(f"WITH rm_run_queries AS (SELECT t.query_id AS q, count(*) AS n FROM rm_src_run AS t "
                       f"GROUP BY t.query_id) {onepass._part_bounds(3)}").fetchall()[0][0]
    sizes = {q: len(items) for q, items in run.items()}
    ranges = list(zip(lows, lows[1:] + [None]))
    assert len(ranges) == 3
    for q in sizes:  # ASCII ids: Python's order of str is DuckDB's byte-wise order
        assert sum(1 for low, high in ranges if q >= low and (high is None or q < high)) == 1
    rows = [sum(n for q, n in sizes.items() if q >= low and (high is None or q < high)) for low, high in ranges]
    assert sum(rows) == rt.num_rows and all(abs(r - rt.num_rows / 3) <= max(sizes.values()) for r in rows), rows

    big = dict(run)
    big["q05"] = {f"x{i:05d}": float(i % 50) for i in range(20 * rt.num_rows)}  # most of the rows, unjudged
    qrels["q05"]["x00007"] = 2
    jt, rt = synthetic.to_tables(qrels, big)
    want, parts = _in_parts(monkeypatch, jt, rt, rt.num_rows, ["AP", "nDCG@10", "P@5"], 0)
    assert parts == 1
    got, parts = _in_parts(monkeypatch, jt, rt, rt.num_rows, ["AP", "nDCG@10", "P@5"], 3)
    assert parts == 2 and got == want  # q05 with the queries before it (less than a third), then the others
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(big)
    assert {q: float(v) for m, q, v in got if m == "AP" and q is not None} == pytest.approx(
        {q: ref[q]["map"] for q in ref}, abs=1e-9)


def test_parts_leave_the_connections_settings_as_they_were(monkeypatch):
    """The parts' statements turn off DuckDB's splitting of a large window into two ranges (onepass._WINDOW_SPLIT:
    a part is a range already, and the split read the input again) on rankmetrics' own connection only, and put
    the setting back; on the caller's connection nothing is set. The rows are the same either way."""
    import duckdb
    from rankmetrics_duckdb import onepass
    qrels, run = synthetic.make(seed=34, depth=40)
    jt, rt = synthetic.to_tables(qrels, run)
    monkeypatch.setattr(onepass, "ROW_BYTES", int(2.5 * onepass.PART_SHARE * 1e9 / rt.num_rows))
    seen = []
    real = onepass.inputs.arrow_table

    def arrow_table(rel):  # the setting while each part's statement runs
        seen.append(rel.query("v", "SELECT current_setting('disabled_optimizers') FROM v LIMIT 1").fetchall()[0][0])
        return real(rel)
    monkeypatch.setattr(onepass.inputs, "arrow_table", arrow_table)
    ev = Evaluation(jt, rt, ["AP"], memory_limit="1GB")
    assert ev.path == "one statement" and ev.parts == 3
    rows = ev.rows()
    has_split = duckdb.connect().execute("SELECT count(*) FROM duckdb_optimizers() WHERE name = ?",
                                         [onepass._WINDOW_SPLIT]).fetchall()[0][0]  # DuckDB 2.0's optimizer
    assert seen == [onepass._WINDOW_SPLIT if has_split else ""] * 3
    assert ev.con.execute("SELECT current_setting('disabled_optimizers')").fetchall()[0][0] == ""
    ev.close()
    con = duckdb.connect()
    con.execute("SET memory_limit = '1GB'")
    con.execute("SET disabled_optimizers = 'top_n'")
    seen.clear()
    theirs = Evaluation(jt, rt, ["AP"], con=con)
    assert theirs.parts == 3 and theirs.rows() == rows and seen == ["top_n"] * 3
    assert con.execute("SELECT current_setting('disabled_optimizers')").fetchall()[0][0] == "top_n"
