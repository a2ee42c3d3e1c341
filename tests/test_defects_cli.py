"""Issue 13: defects of the command line and the Python surface, and the documents a new user trips over."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, TREC, cli, read_trec_output

import rankmetrics_duckdb as rm
from rankmetrics_duckdb.errors import UsageError

Q, R = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
AQ = read_trec_output(os.path.join(TREC, "out.test.aq"))  # trec_eval -q on qrels.test / results.test


def test_relation_cutoff_only_request_fetches():
    # the cutoff-only path scanned the run for its list length and left that result open on the connection
    rows = rm.relation(Q, R, ["nDCG@10"]).fetchall()
    per = {q: v for m, q, v in rows if q in ("301", "302", "303")}
    for q in ("301", "302", "303"):
        assert per[q] == pytest.approx(AQ["ndcg_cut_10"][q], abs=5e-5)  # out.test.aq: 0.1518, 0.7530, 0.0000
    means = [v for m, q, v in rows if q not in per]
    assert len(means) == 1 and means[0] == pytest.approx(AQ["ndcg_cut_10"]["all"], abs=5e-5)  # 0.3016


def quick_cli(*args):
    """The command line with a short time limit: a refusal must come at once (a hang fails the test)."""
    return subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", *args], capture_output=True, text=True,
                          timeout=30)


def _one_line_usage_error(p, *words):
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in p.stderr, p.stderr


def test_threads_capped_fast():
    # 100,000 threads took 18.7 s to start before anything was refused or read
    p = quick_cli("eval", Q, R, "-m", "map", "--threads", "100000")
    _one_line_usage_error(p, "threads", "1024", "100000")
    for bad in (100_000, 0, -1, "many"):
        with pytest.raises(UsageError, match="threads"):
            rm.evaluate(Q, R, ["map"], threads=bad)
    # within the cap it still runs: trec_eval's out.test, map 0.1785
    assert rm.evaluate(Q, R, ["map"], threads=2)["map"] == pytest.approx(0.1785, abs=5e-5)


def test_trials_capped_fast(tmp_path):
    # 10^11 randomization trials ran for ever (a Python loop per trial)
    R2 = os.path.join(TREC, "results.trunc")
    for cmd in ("compare", "report"):
        extra = ["-o", str(tmp_path / "r.html")] if cmd == "report" else []
        p = quick_cli(cmd, Q, R, R2, "-m", "map", "--test", "randomization", "--trials", "100000000000", *extra)
        _one_line_usage_error(p, "trials", "1,000,000")
    for bad in (10**12, 0, 2.5, True):
        with pytest.raises(UsageError, match="trials"):
            rm.compare(Q, [R, R2], ["map"], test="bootstrap", trials=bad)


def test_settings_the_test_does_not_read_refused(tmp_path):
    # --trials and --seed with the t-test (and Tukey's), --correction holm with Tukey's: ignored without a word
    R2 = os.path.join(TREC, "results.trunc")
    cases = [(["--trials", "100"], "trials"), (["--test", "t", "--seed", "7"], "seed"),
             (["--test", "tukey", "--trials", "100", "--seed", "7"], "trials and seed"),
             (["--test", "tukey", "--correction", "holm"], "correction 'holm'")]
    for cmd in ("compare", "report"):
        extra = ["-o", str(tmp_path / "r.html")] if cmd == "report" else []
        for args, words in cases:
            _one_line_usage_error(quick_cli(cmd, Q, R, R2, "-m", "map", *args, *extra), words)
    with pytest.raises(UsageError, match="seed applies to the randomization and bootstrap tests only"):
        rm.compare(Q, [R, R2], ["map"], seed=1)
    with pytest.raises(UsageError, match="correction 'bonferroni' does not apply to test='tukey'"):
        rm.compare(Q, [R, R2], ["map"], test="tukey", correction="bonferroni")
    # what the test reads is still taken: Tukey's with correction 'none' said out loud, randomization with a seed
    assert rm.compare(Q, [R, R2], ["map"], test="tukey", correction="none") == rm.compare(Q, [R, R2], ["map"],
                                                                                          test="tukey")
    rows = rm.compare(Q, [R, R2], ["map"], test="randomization", trials=50, seed=3)
    # out.test: map 0.1785 for results.test; out.test.aqc's run, results.trunc, without -c: 2 queries judged
    assert rows[0]["mean"] == pytest.approx(0.1785, abs=5e-5) and rows[1]["queries"] == 2


def test_complete_contradicting_queries_refused():
    # -c set queries='judged' and silently won over --queries run
    _one_line_usage_error(cli("eval", Q, R, "-m", "map", "-c", "--queries", "run", check=False), "-c", "--queries run")
    _one_line_usage_error(cli("compare", Q, R, R, "-m", "map", "-c", "--queries", "all", check=False), "-c")
    # the same thing said twice is no conflict: out.test.aqc (trec_eval -c on results.trunc), map 0.1016
    out = cli("eval", Q, os.path.join(TREC, "results.trunc"), "-m", "map", "-c", "--queries", "judged").stdout
    aqc = read_trec_output(os.path.join(TREC, "out.test.aqc"))
    assert float(out.split()[-1]) == pytest.approx(aqc["map"]["all"], abs=5e-5)


def test_macros_options_that_duckdb_ignores_refused():
    # `macros --schema X` printed DuckDB's script, silently without any schema
    _one_line_usage_error(cli("macros", "--schema", "X", check=False), "schema", "DuckDB")
    _one_line_usage_error(cli("macros", "--run", "my_run", check=False), "run", "DuckDB")
    with pytest.raises(UsageError, match="schema"):
        rm.macros_sql(schema="X")
    assert "CREATE" in cli("macros").stdout.upper()  # the plain DuckDB script still prints


@pytest.fixture
def query_named_all(tmp_path):
    """Two queries, one named 'all': P@1 is 1/1 = 1.0 for 'all' (d1, relevant, ranked first) and 0/1 = 0.0 for
    q2 (d1, not relevant, ranked first); their mean is (1.0 + 0.0) / 2 = 0.5."""
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("all 0 d1 1\nall 0 d2 0\nq2 0 d1 0\nq2 0 d3 1\n")
    r.write_text("all Q0 d1 1 3.0 x\nall Q0 d2 2 2.0 x\nq2 Q0 d1 1 3.0 x\nq2 Q0 d3 2 2.0 x\n")
    return str(q), str(r)


def test_query_named_all_kept_apart_from_the_mean_in_structured_outputs(query_named_all, tmp_path):
    import csv
    import io
    import json
    import pyarrow.parquet as pq
    q, r = query_named_all
    want = [("P_1", "all", 1.0), ("P_1", "q2", 0.0), ("P_1", None, 0.5)]  # the fixture's hand computation
    # the command line's files keep trec_eval's 'all' for the mean and say which row it is: aggregate true
    flagged = [(m, "all" if qid is None else qid, v, qid is None) for m, qid, v in want]
    rows = json.loads(cli("eval", q, r, "-m", "P_1", "-q", "--format", "json").stdout)
    assert [(x["measure"], x["query_id"], x["value"], x["aggregate"]) for x in rows] == flagged
    text = cli("eval", q, r, "-m", "P_1", "-q", "--format", "csv").stdout
    assert [(x["measure"], x["query_id"], float(x["value"]), x["aggregate"] == "true")
            for x in csv.DictReader(io.StringIO(text))] == flagged
    cli("eval", q, r, "-m", "P_1", "-q", "-o", str(tmp_path / "out.parquet"))
    t = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert [(x["measure"], x["query_id"], x["value"], x["aggregate"]) for x in t] == flagged
    # Python: the per-query dict keeps the query 'all'; the mean is the mean, not that query's value
    assert rm.evaluate(q, r, ["P@1"], per_query=True) == {"P@1": {"all": 1.0, "q2": 0.0}}
    assert rm.evaluate(q, r, ["P@1"]) == {"P@1": 0.5}
    ev = rm.Evaluation(q, r, ["P@1"])
    assert [tuple(x.values()) for x in ev.to_arrow().to_pylist()] == [("P@1", q_, v) for _, q_, v in want]
    df = rm.Evaluation(q, r, ["P@1"]).to_pandas()
    assert df.loc[df.query_id.isna(), "value"].tolist() == [0.5] and df.loc[df.query_id == "all", "value"].tolist() == [1.0]
    assert sorted(rm.relation(q, r, ["P@1"]).fetchall(), key=str) == sorted([("P@1",) + w[1:] for w in want], key=str)


def test_query_named_all_refused_by_the_text_formats(query_named_all):
    q, r = query_named_all
    for fmt in ("trec", "table"):
        p = cli("eval", q, r, "-m", "P_1", "-q", "--format", fmt, check=False)
        assert p.returncode == 1 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert "named 'all'" in p.stderr and "--format json" in p.stderr
    # without -q only the mean is printed: nothing to confuse it with
    out = cli("eval", q, r, "-m", "P_1").stdout
    assert out.split() == ["P_1", "all", "0.5000"]


def _documents():
    docs = os.path.join(ROOT, "docs")
    return [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(docs, f) for f in (os.listdir(docs) if os.path.isdir(docs) else []) if f.endswith(".md"))


def test_every_relative_link_of_the_docs_resolves_inside_the_repository():
    import re
    # the README pointed at ../shared/CONVENTIONS.md, outside the repository: users never have it
    assert os.path.isfile(os.path.join(ROOT, "docs", "conventions.md"))
    checked = 0
    for doc in _documents():
        text = open(doc, encoding="utf-8").read()
        targets = re.findall(r"\]\(([^)\s]+)\)", text)                      # [text](target)
        targets += re.findall(r"`((?:\.\./|[\w-])[\w./-]*\.md)`", text)     # a document named in code: `x/y.md`
        for target in targets:
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address or an anchor in the same page
            path = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
            assert os.path.commonpath([path, ROOT]) == ROOT, f"{doc}: {target} points outside the repository"
            assert os.path.exists(path), f"{doc}: {target} does not exist"
            checked += 1
    assert checked >= 3


@pytest.fixture
def macros_con():
    import duckdb
    con = duckdb.connect()
    con.execute(cli("macros").stdout)  # the script a SQL-only user gets from `rankmetrics macros`
    yield con
    con.close()


def test_trec_files_evaluated_from_sql_alone(macros_con, tmp_path):
    # read_csv's detection read qrels.test as one column: nothing in SQL read TREC files
    con = macros_con
    con.execute(f"CREATE VIEW run AS FROM trec_run('{R}')")
    con.execute(f"CREATE VIEW judgments AS FROM trec_qrels('{Q}')")
    out_test = read_trec_output(os.path.join(TREC, "out.test"))  # trec_eval qrels.test results.test
    for call, name in (("ap('run', 'judgments')", "map"), ("\"precision\"('run', 'judgments', 10)", "P_10"),
                       ("rr('run', 'judgments')", "recip_rank")):
        got = con.execute(f"SELECT avg(value) FROM {call}").fetchall()[0][0]
        assert got == pytest.approx(out_test[name]["all"], abs=5e-5), name  # 0.1785, 0.3000, 0.4064
    per = dict(con.execute("SELECT query_id, value FROM ndcg('run', 'judgments', 10)").fetchall())
    assert per == pytest.approx({q: AQ["ndcg_cut_10"][q] for q in ("301", "302", "303")}, abs=5e-5)
    # any run of spaces and tabs separates fields, as in trec_eval; comment and blank lines are skipped
    messy = tmp_path / "messy.qrels"
    messy.write_text("# judged by hand\n\n" + "".join(
        ("  " if i % 2 else "\t") + "  \t ".join(line.split()) + " \n" for i, line in enumerate(open(Q))))
    assert con.execute(f"SELECT count(*) FROM trec_qrels('{messy}')").fetchall() == [(3681,)]  # wc -l qrels.test
    assert (con.execute(f"SELECT * FROM trec_qrels('{messy}') ORDER BY ALL").fetchall()
            == con.execute("SELECT * FROM judgments ORDER BY ALL").fetchall())


def test_trec_macros_read_exactly_the_named_file_strictly(macros_con):
    import duckdb
    con = macros_con
    with pytest.raises(duckdb.Error, match="exactly one file"):  # qrels.tes* would match qrels.test*
        con.execute(f"SELECT count(*) FROM trec_qrels('{Q[:-1]}*')").fetchall()
    with pytest.raises(duckdb.Error, match="6 fields where a qrels line has 4"):  # a run is not qrels
        con.execute(f"SELECT count(*) FROM trec_qrels('{R}')").fetchall()
    with pytest.raises(duckdb.Error, match="4 fields where a run line has 6"):
        con.execute(f"SELECT count(*) FROM trec_run('{Q}')").fetchall()


def test_trec_macros_are_not_rendered_for_other_engines():
    from rankmetrics_duckdb import native
    assert not {"trec_run", "trec_qrels", "rm_trec_fields"} & set(native.metric_macros())
    assert "trec_run" not in rm.macros_sql(dialect="postgres", run="r", judgments="j")


def test_to_pandas_without_pandas_names_the_install(monkeypatch):
    # pandas is optional; without it to_pandas() failed with pyarrow's AttributeError on a missing module
    ev = rm.Evaluation(Q, R, ["map"])
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError, as if not installed
    with pytest.raises(UsageError, match="pip install pandas") as info:
        ev.to_pandas()
    assert "\n" not in str(info.value)
    with pytest.raises(UsageError, match="pip install pandas"):
        rm.compare(Q, [R, R], ["map"], output="pandas")


def test_readme_python_examples_run_as_written(tmp_path):
    """Every ```python block of the README, run as a script from the repository's root (they used placeholder
    files and undefined names: qrels.txt, qrels_df, con)."""
    import re
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for i, block in enumerate(blocks):
        script = tmp_path / f"readme_{i}.py"
        script.write_text(block)
        p = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
        assert p.returncode == 0, f"README python block {i + 1} fails:\n{block}\n{p.stderr}"


def test_dbt_refuses_a_folder_of_other_files(tmp_path):
    """`rankmetrics dbt -o DIR` wrote dbt_project.yml, README.md and macros/*.sql over a user's own (exit 0): a
    folder that is neither new, empty, nor a package it wrote is refused, untouched; a folder it cannot make is
    named."""
    mine = tmp_path / "my_project"
    (mine / "macros").mkdir(parents=True)
    (mine / "dbt_project.yml").write_text("name: 'my_project'\n")
    (mine / "macros" / "ndcg.sql").write_text("-- mine\n")
    p = cli("dbt", "-o", str(mine), check=False)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert "not a rankmetrics dbt package" in p.stderr and str(mine) in p.stderr
    assert (mine / "dbt_project.yml").read_text() == "name: 'my_project'\n"
    assert (mine / "macros" / "ndcg.sql").read_text() == "-- mine\n"
    assert sorted(os.listdir(mine)) == ["dbt_project.yml", "macros"] and os.listdir(mine / "macros") == ["ndcg.sql"]
    (tmp_path / "f").write_text("")
    p = cli("dbt", "-o", str(tmp_path / "f" / "pkg"), check=False)
    assert p.returncode == 2 and "cannot create the folder (Not a directory)" in p.stderr, p.stderr


def test_a_byte_order_mark_is_not_part_of_the_first_query_id(tmp_path):
    """A UTF-8 byte order mark before the first line was read as part of the first query id by the readers of
    trec_eval's other formats (qrels_jg, prefs, -Z) and of subtopic qrels, so that query matched no run query and
    its value was silently 0 (DuckDB's reader of plain qrels and runs drops the mark). By hand: q1 retrieves its
    relevant d1 first and q2 its relevant d1 first, so P@1 is 1 for both; -Z with mean 0.5 and stddev 0.5 makes
    each (1 - 0.5) / 0.5 = 1."""
    bom = "\ufeff"
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 2.0 t\nq2 Q0 d3 2 1.0 t\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text(bom + "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d3 0\n", encoding="utf-8")
    prefs = tmp_path / "p.prefs"  # q1: d1 preferred to d2 (levels 2 and 1); q2: d1 to d3; the run orders both right
    prefs.write_text(bom + "q1 g s d1 2\nq1 g s d2 1\nq2 g s d1 2\nq2 g s d3 1\n", encoding="utf-8")
    div = tmp_path / "div.qrels"  # one subtopic each, met by the first item: alpha-nDCG@1 = 1
    div.write_text(bom + "q1 1 d1 1\nq2 1 d1 1\n", encoding="utf-8")
    z = tmp_path / "z"
    z.write_text(bom + "q1 P_1 0.5 0.5\nq2 P_1 0.5 0.5\n", encoding="utf-8")
    for args, measure in ((["-R", "qrels_jg", "-m", "P_avgjg.1", str(qrels)], "P_avgjg_1"),
                          (["-R", "prefs", "-m", "prefs_simp", str(prefs)], "prefs_simp"),
                          (["-m", "alpha_nDCG@1", str(div)], "alpha_nDCG@1"),
                          (["-m", "P.1", "-Z", str(z), str(qrels)], "ZP_1")):
        p = cli("eval", "-q", *args, str(run), check=False)
        assert p.returncode == 0, p.stderr
        values = {f[1]: float(f[2]) for f in (ln.split() for ln in p.stdout.splitlines()) if f[0] == measure}
        assert values == {"q1": 1.0, "q2": 1.0, "all": 1.0}, (args, p.stdout)


@pytest.mark.parametrize("command", ["eval", "fuse"])
def test_an_output_that_cannot_be_written_is_named(tmp_path, command):
    """-o on a full device or with a name longer than the file system allows said 'OSError: [Errno 28] ...' or
    '[Errno 36] ...' (or named the temporary file): one line naming the output, exit 1, no half-written file."""
    qrels, run = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    args = {"eval": ["eval", qrels, run, "-m", "map"], "fuse": ["fuse", run, run]}[command]
    outputs = [str(tmp_path / ("x" * 300 + ".txt"))] + (["/dev/full"] if os.path.exists("/dev/full") else [])
    for out in outputs:
        p = cli(*args, "-o", out, check=False)
        assert p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
        assert p.stderr.startswith(f"rankmetrics: error: cannot write {out}: "), p.stderr
    assert os.listdir(tmp_path) == []


def test_no_query_in_common_is_refused_on_the_preference_and_diversity_routes(tmp_path):
    """A run sharing no query with the judgments stops with one line on every route: -R prefs printed num_q 0 and
    zeros, the diversity measures a mean of nan, both with exit 0 (the plain route refused it already)."""
    run = tmp_path / "r.run"
    run.write_text("zz Q0 d1 1 3 t\n")
    prefs = tmp_path / "p.prefs"
    prefs.write_text("q1 g s d1 2\nq1 g s d2 1\n")
    div = tmp_path / "div.qrels"
    div.write_text("q1 1 d1 1\nq2 1 d1 1\n")
    for args in (["-R", "prefs", str(prefs)], ["-R", "qrels_prefs", os.path.join(TREC, "qrels.test")],
                 ["-m", "alpha_nDCG@10", str(div)]):
        p = cli("eval", *args, str(run), check=False)
        assert p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1, (args, p.stdout, p.stderr)
        assert f"the run ({run})" in p.stderr and "have no query in common (1 run queries, " in p.stderr


@pytest.mark.parametrize("command", ["compare", "sql"])
@pytest.mark.parametrize("measure", ["runid", "relstring"])
def test_text_lines_alone_are_refused_where_no_text_is_written(command, measure):
    """`compare -m relstring` and `sql -m runid` said 'ValueError: sqlgen.plan: no rows asked for (catalog-wide
    measures have no per-query rows)': trec_eval's text lines have no value to compare or to compute in SQL."""
    qrels, run = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    args = {"compare": ["compare", qrels, run, os.path.join(TREC, "results.trunc")],
            "sql": ["sql", "--run", "r", "--judgments", "j"]}[command]
    p = cli(*args, "-m", measure, check=False)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert "runid and relstring are trec_eval's text lines" in p.stderr and "ValueError" not in p.stderr
    with pytest.raises(rm.UsageError, match="text lines"):
        rm.to_sql([measure], run="r", judgments="j")


def test_a_value_with_a_line_break_or_an_escape_is_quoted_in_one_line():
    """A value the message quotes was written as it came: a newline in it made the message two lines, a terminal
    escape reached the terminal. Every error is one line of printable text (cli._one_line)."""
    qrels, run = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    for args, shown in ((["eval", "-l", "1\n2", qrels, run], "'1\\n2'"),
                        (["eval", qrels, "/tmp/no\nsuch"], "/tmp/no\\nsuch: no such file"),
                        (["eval", "-m", "nDCG(gain=a\x1b[2Jb)@10", qrels, run], "'a\\x1b[2Jb'"),
                        (["sql", "--dialect", "x\ry", "--run", "r", "--judgments", "j"], "'x\\ry'")):
        p = cli(*args, check=False)
        assert p.returncode in (1, 2) and p.stderr.count("\n") == 1 and shown in p.stderr, (args, p.stderr)
        assert "\x1b" not in p.stderr and "\r" not in p.stderr
