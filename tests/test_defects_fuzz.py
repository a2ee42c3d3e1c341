"""Defects found by session 28's fuzz of bad and odd inputs (every command and the Python surface): each was a
wrong number with no word, a foreign exception, or a caller's transaction lost. Every value asserted is
computed by hand in the test."""
import os

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import TREC, cli

import rankmetrics_duckdb as rm
from rankmetrics_duckdb.errors import InputError, UsageError


def _tables(con):
    # q1: a and b tied at 1.0 (trec_eval orders ties by item id descending: b, a), c at 0.5; a and c relevant.
    # AP by hand: a at rank 2 (1/2), c at rank 3 (2/3): (1/2 + 2/3) / 2 = 7/12
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 1.0), ('q1', 'b', 1.0), ('q1', 'c', 0.5)) "
                "t(query_id, item_id, score)")
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'c', 1)) "
                "t(query_id, item_id, relevance)")
    # 'A' is not 'a' (ids compare byte-wise): P@1 = 0
    con.execute("CREATE TABLE upper_run AS SELECT * FROM (VALUES ('q1', 'A', 2.0), ('q1', 'b', 1.0)) "
                "t(query_id, item_id, score)")


@pytest.mark.parametrize("setting", ["default_order='DESC'", "default_collation='nocase'",
                                     "default_null_order='nulls_first'"])
def test_a_connection_setting_that_changes_the_numbers_is_refused(setting):
    """Under SET default_order='DESC' an ORDER BY without ASC sorted descending: MAP 0.667 instead of 7/12; under
    default_collation='nocase' item 'A' matched the judgment of 'a' (P@1 1 instead of 0). Such a connection is
    refused, naming the setting; after RESET the numbers are the hand-computed ones."""
    con = duckdb.connect()
    _tables(con)
    assert rm.evaluate("qrels", "run", ["map"], con=con)["map"] == pytest.approx(7 / 12, abs=1e-15)
    name = setting.split("=")[0]
    con.execute(f"SET {setting}")
    with pytest.raises(UsageError, match=f"the connection's {name} is"):
        rm.evaluate("qrels", "run", ["map"], con=con)
    with pytest.raises(UsageError, match=f"the connection's {name} is"):
        rm.evaluate("qrels", "upper_run", ["P@1"], con=con)
    with pytest.raises(UsageError, match=f"the connection's {name} is"):
        rm.register(con)
    con.execute(f"RESET {name}")
    assert rm.evaluate("qrels", "run", ["map"], con=con)["map"] == pytest.approx(7 / 12, abs=1e-15)
    assert rm.evaluate("qrels", "upper_run", ["P@1"], con=con)["P@1"] == 0.0


def test_a_view_failing_as_it_runs_is_an_input_error_and_names_the_cause():
    """A view whose cast fails as it runs: DuckDB's ConversionException came out as is (several lines); inside
    the caller's open transaction the real cause was hidden behind 'Current transaction is aborted'."""
    con = duckdb.connect()
    con.execute("CREATE TABLE qrels AS SELECT 'q1' AS query_id, 'a' AS item_id, 1 AS relevance")
    con.execute("CREATE TABLE raw AS SELECT 'q1' AS query_id, 'a' AS item_id, 'x1' AS score")
    con.execute("CREATE VIEW v AS SELECT query_id, item_id, CAST(score AS DOUBLE) AS score FROM raw")
    with pytest.raises(InputError, match="Could not convert string 'x1' to DOUBLE") as e:
        rm.evaluate("qrels", "v", ["P@1"], con=con)
    assert "\n" not in str(e.value)
    with pytest.raises(InputError, match="Could not convert string 'x1' to DOUBLE"):
        rm.compare("qrels", ["v", "v"], ["P@1"], con=con)
    con.execute("BEGIN")
    with pytest.raises(InputError, match="Could not convert string 'x1' to DOUBLE.*aborted: ROLLBACK"):
        rm.evaluate("qrels", "v", ["P@1"], con=con)
    con.execute("ROLLBACK")


def test_bootstrap_on_one_query_gives_no_p_value(tmp_path):
    """One paired query: a resample of one difference never varies, and p was 1 / (trials + 1), marked
    significant. No test on fewer than two queries, as the t-test."""
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "r1").write_text("q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n")
    (tmp_path / "r2").write_text("q1 Q0 d2 1 1 t\n")
    rows = rm.compare(str(tmp_path / "q"), [str(tmp_path / "r1"), str(tmp_path / "r2")], ["P@1"], test="bootstrap")
    pair = [r for r in rows if r["versus"] is not None][0]
    assert pair["queries"] == 1 and pair["delta"] == -1.0  # q1: 0 - 1
    assert pair["p_value"] is None and pair["significant"] is None
    assert pair["ci_low"] is None and pair["ci_high"] is None


@pytest.mark.parametrize("flag,value", [("-l", "1_0"), ("-l", "1e3"), ("-M", "1_0"), ("-M", "1e3"),
                                        ("-N", "1_0")])
def test_numbers_trec_eval_reads_otherwise_are_refused(tmp_path, flag, value):
    """trec_eval reads -l, -M and -N with atol: '1_0' and '1e3' are 1 there, 10 and 1000 in Python. -l 1_0 gave
    P.1 0 where trec_eval -l 1 gives 1 (d1, judged 1, ranked first). Refused, naming the value."""
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    args = ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P.1", flag, value]
    if flag == "-N":
        args[4] = "utility.1,-1,0,1"
    p = cli(*args, check=False)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert f"written in digits, not '{value}'" in p.stderr
    ok = cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P.1", "-l", "1")
    assert ok.stdout.split()[-1] == "1.0000"


def test_intra_list_diversity_of_all_zero_vectors_is_one(tmp_path):
    """An all-zero vector's cosine similarity is 0 (docs/conventions.md: distance 1, its pairs counted); two of
    them gave NaN, and the query dropped out of the mean. By hand: q1's pairs (d1, d2), (d1, d3), (d2, d3) all
    involve a zero vector: ILD@3 = 1; q2's d3 = (1, 0), d4 = (1, 0): distance 0; the mean (1 + 0) / 2."""
    pq.write_table(pa.table({"item_id": ["d1", "d2", "d3", "d4"],
                             "embedding": [[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [1.0, 0.0]]}), tmp_path / "items.parquet")
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d3 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\nq2 Q0 d3 1 2 t\nq2 Q0 d4 2 1 t\n")
    got = rm.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["IntraListDiversity@3"], per_query=True,
                      items=str(tmp_path / "items.parquet"))["IntraListDiversity@3"]
    assert got["q1"] == pytest.approx(1.0, abs=1e-12) and got["q2"] == pytest.approx(0.0, abs=1e-12)
    two = rm.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["IntraListDiversity@2"],
                      items=str(tmp_path / "items.parquet"))["IntraListDiversity@2"]
    assert two == pytest.approx(0.5, abs=1e-12)


def test_output_to_dev_stdout_in_a_pipe(tmp_path):
    """-o /dev/stdout with stdout a pipe: the link resolves to 'pipe:[...]', which names nothing, and the temporary
    file was made beside it ('No such file or directory: /proc/.../fd/.rankmetrics-...'). Written into now."""
    import subprocess
    import sys
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    p = subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", "eval", str(tmp_path / "q"), str(tmp_path / "r"),
                        "-m", "P.1", "-o", "/dev/stdout"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["P_1", "all", "1.0000"]  # d1, relevant, ranked first


@pytest.mark.parametrize("where", ["leading", "inside", "gzip"])
def test_a_vertical_tab_in_a_trec_line_is_refused(tmp_path, where):
    """trec_eval splits fields at a vertical tab (isspace); we do not, so a line starting with one made the query
    '\\vq1' of its own, unjudged (num_ret of q1 1 where trec_eval counts 2). Refused, naming the line."""
    import gzip
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    second = "\x0bq1 Q0 d2 2 1 t\n" if where != "inside" else "q1 Q0 d2\x0b2 1 t\n"
    text = "q1 Q0 d1 1 2 t\n" + second
    run = tmp_path / ("r.gz" if where == "gzip" else "r")
    if where == "gzip":
        run.write_bytes(gzip.compress(text.encode()))
    else:
        run.write_text(text)
    p = cli("eval", str(tmp_path / "q"), str(run), "-m", "num_ret", check=False)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert f"{run}, line 2: " in p.stderr and "a vertical tab (U+000B)" in p.stderr  # inside: 5 columns, it says
    with pytest.raises(InputError, match="line 2: .*a vertical tab"):
        rm.evaluate(str(tmp_path / "q"), str(run), ["num_ret"])


def test_group_columns_on_a_trec_file_name_the_file(tmp_path):
    """--by on TREC text blamed the judgments and showed their first line as the columns ('no query_id column in
    the judgments ...; columns: q1 0 d1 1'). A TREC file has no named columns: said of the file."""
    (tmp_path / "q").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    for extra in (["--by", "model"], ["--rank-column", "rk"]):
        p = cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P.1", *extra, check=False)
        assert p.returncode != 0 and "Traceback" not in p.stderr
        assert "a TREC qrels file has no named columns" in p.stderr, p.stderr


def test_python_inputs_of_the_wrong_kind_say_so(tmp_path):
    """A Series, a frame with a column twice, a LazyFrame, a path given to fuse() as its list of runs, a seed that
    is not a whole number: AttributeError, TypeError or ValueError came out, or fuse() read the path's characters
    as runs ('/: is a directory'). By hand: a (2.0) above b (1.0), a relevant: P@1 = 1."""
    import pandas as pd
    import polars as pl
    judged = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "score": [2.0, 1.0], "x": [1, 2]})
    with pytest.raises(InputError, match="cannot read the run from a pandas Series"):
        rm.evaluate(judged, run["score"], ["P@1"])
    with pytest.raises(InputError, match="cannot read the run from a polars Series"):
        rm.evaluate(judged, pl.from_pandas(run)["score"], ["P@1"])
    with pytest.raises(InputError, match="pandas DataFrame: column x appears twice"):
        rm.evaluate(judged, pd.concat([run, run[["x"]]], axis=1), ["P@1"])
    assert rm.evaluate(pl.from_pandas(judged).lazy(), pl.from_pandas(run).lazy(), ["P@1"]) == {"P@1": 1.0}
    path = tmp_path / "r"
    path.write_text("q1 Q0 a 1 2 t\n")
    with pytest.raises(UsageError, match="give a list of two or more runs"):
        rm.fuse(str(path))
    for seed in ("abc", 1.5, True):  # (None is the default seed, 42, as compare's signature says)
        with pytest.raises(UsageError, match="seed must be a whole number"):
            rm.compare(judged, [run, run], ["P@1"], test="randomization", seed=seed)


@pytest.mark.parametrize("kind", ["bzip2", "xz", "gzip twice"])
def test_other_compression_is_named(tmp_path, kind):
    """bzip2, xz or doubly gzipped files were 'not UTF-8 text (byte 0x..) ... iconv -f latin1': the file is
    compressed, not Latin-1. A query id that merely starts with bzip2's 'BZh' is text."""
    import bz2
    import gzip
    import lzma
    text = b"q1 Q0 d1 1 2 t\n"
    data = {"bzip2": bz2.compress, "xz": lzma.compress, "gzip twice": lambda b: gzip.compress(gzip.compress(b))}[kind](text)
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_bytes(data)
    p = cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P.1", check=False)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert f"{kind.replace(' twice', '')}-compressed" in p.stderr and "decompress it first" in p.stderr
    (tmp_path / "qb").write_text("BZh1 0 d1 1\n")
    (tmp_path / "rb").write_text("BZh1 Q0 d1 1 2 t\n")
    assert cli("eval", str(tmp_path / "qb"), str(tmp_path / "rb"), "-m", "P.1").stdout.split()[-1] == "1.0000"


def test_a_side_file_that_is_not_there_is_an_error(tmp_path):
    """--interactions, --items or --reference naming no file was ignored when no metric requested reads it (exit
    0): an error now, whatever the metrics."""
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\n")
    for flag in ("--interactions", "--items", "--reference"):
        p = cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P.1", flag, str(tmp_path / "none"),
                check=False)
        assert p.returncode == 1 and f"{flag} {tmp_path / 'none'}: no such file" in p.stderr, p.stderr
    p = cli("compare", str(tmp_path / "q"), str(tmp_path / "r"), str(tmp_path / "r"), "-m", "P.1", "--items",
            str(tmp_path / "none"), check=False)
    assert p.returncode == 1 and "no such file" in p.stderr
    # a folder given as the training interactions said "no such file"
    (tmp_path / "folder").mkdir()
    p = cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "Serendipity@2", "--interactions",
            str(tmp_path / "folder"), check=False)
    assert p.returncode == 1 and f"{tmp_path / 'folder'}: is a directory, not a file of the interactions" in p.stderr


def test_randomization_counts_sign_patterns_equal_up_to_rounding():
    """P@3 of three queries, 0, 1, 1 against 1/3, 2/3, 2/3: the differences 1/3, -1/3, -1/3 are one ulp apart as
    doubles (1/3 - 0 and 2/3 - 1), and half the sign patterns whose sums tie the observed one fell below it: p
    0.498. By hand every one of the 8 patterns reaches |sum| >= 1/3, so p = 1 exactly; scipy's exact
    permutation test says so too."""
    import numpy as np
    from scipy import stats as sps

    from rankmetrics_duckdb import stats
    diffs = [1 / 3 - 0, 2 / 3 - 1, 2 / 3 - 1]
    assert stats.randomization(diffs, 10_000, 42) == 1.0
    ref = sps.permutation_test((np.array(diffs),), lambda x: np.mean(x), permutation_type="samples",
                               n_resamples=np.inf, alternative="two-sided").pvalue
    assert ref == pytest.approx(1.0)


def test_bootstrap_p_is_not_below_what_its_resamples_resolve():
    """Two queries whose differences share a sign (RR 1/2, 1/3 -> 1, 1): the shifted null's resample means never
    exceed |a - b| / 2 < |a + b| / 2, and p was 1 / (trials + 1), significant. Two queries have C(3, 2) = 3
    distinct resamples: p is at least 1/3 (the t-test gives 0.09 here, the exact randomization test 0.5)."""
    from rankmetrics_duckdb import stats
    p, low, high = stats.bootstrap([1 - 1 / 2, 1 - 1 / 3], 10_000, 42)
    assert p == pytest.approx(1 / 3, abs=1e-15)
    assert low == pytest.approx(1 / 2) and high == pytest.approx(2 / 3)  # the resample means' range: 1/2 .. 2/3


@pytest.mark.parametrize("groups", [[[0, 0.05], [1, 0.95]], [[0, 0.01], [1, 0.99]], [[0, 0.2, 0.1], [1, 0.5, 0.9]]])
def test_tukey_with_few_degrees_of_freedom(groups):
    """Two runs over two queries (2 degrees of freedom): the studentized range's integral missed where its
    integrand lives (s below a few / q), 6.99e-5 for 5.10e-5. For two groups P(Q > q) = 2 P(T > q / sqrt 2), T
    Student's t with the same degrees of freedom (scipy's t, an independent formula)."""
    import math

    from scipy import stats as sps

    from rankmetrics_duckdb import stats
    n = len(groups[0])
    df = 2 * n - 2
    means = [sum(g) / n for g in groups]
    mse = sum((x - m) ** 2 for g, m in zip(groups, means) for x in g) / df
    q = abs(means[0] - means[1]) / math.sqrt(mse / n)
    want = 2 * sps.t.sf(q / math.sqrt(2), df)
    assert stats.tukey_hsd(groups)[0][1] == pytest.approx(want, rel=1e-9, abs=1e-13)


def test_diversity_measures_on_routes_that_do_not_take_them_are_named(tmp_path):
    """compare and sql said "unknown metric 'alpha_nDCG@5'; did you mean 'nDCG@10'?": the measure is known, those
    routes do not take it yet."""
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\n")
    for args in (["compare", str(tmp_path / "q"), str(tmp_path / "r"), str(tmp_path / "r")],
                 ["sql", "--run", "r", "--judgments", "j"]):
        p = cli(*args, "-m", "alpha_nDCG@5", check=False)
        assert p.returncode == 2 and "alpha_nDCG@5: diversity measures read subtopic judgments" in p.stderr, p.stderr


def test_an_empty_output_name_is_refused(tmp_path):
    """-o '' printed to standard output as if -o were not given."""
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 t\n")
    p = cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "P.1", "-o", "", check=False)
    assert p.returncode == 2 and p.stdout == "" and "-o names no file" in p.stderr


@pytest.mark.parametrize("value", ["1_0", "1e3"])
def test_sql_prefs_cut_is_written_in_digits(value):
    """`rankmetrics sql -R prefs -M 1_0` cut at 10 (argparse's int), where trec_eval's atol reads 1."""
    p = cli("sql", "-R", "prefs", "--run", "r", "--judgments", "p", "-M", value, check=False)
    assert p.returncode == 2 and f"written in digits, not '{value}'" in p.stderr and p.stdout == ""


@pytest.mark.parametrize("value, message", [("1_0", "written in digits, not '1_0'"),
                                            ("0", "whole number >= 1, not '0'"),
                                            ("abc", "whole number >= 1, not 'abc'")])
def test_eval_prefs_cut_is_checked_as_on_every_route(value, message):
    """`rankmetrics eval -R prefs -M` took Python's int(): 1_0 cut at 10 (trec_eval's atol reads 1), 0 gave zeros,
    abc said 'ValueError: invalid literal for int()'. It is refused as the plain route refuses it."""
    p = cli("eval", "-R", "prefs", os.path.join(TREC, "prefs.test"), os.path.join(TREC, "prefs.results.test"),
            "-M", value, check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and message in p.stderr and p.stdout == "", p.stderr


def test_a_carriage_return_inside_a_line_names_the_line(tmp_path):
    """A lone carriage return between lines that end in \\n (a run pasted together from two systems) stopped
    DuckDB's CSV reader with "The CSV Parser state machine reached an invalid state", naming no line; trec_eval reads
    lines to \\n, so the line holds two lines' fields. The message names the file and the line; a file of CRLF line
    ends reads as before (AP 1: d1, the one relevant item, first)."""
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 d1 1\n")
    for name, text, line in (("mixed.run", "q1 Q0 d1 1 1.0 r\rq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.2 r\n", 1),
                             ("later.run", "q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 0.5 r\rq1 Q0 d3 3 0.2 r\n", 2)):
        run = tmp_path / name
        run.write_bytes(text.encode())
        p = cli("eval", str(qrels), str(run), "-m", "map", check=False)
        assert p.returncode == 1 and f"{name}, line {line}: a carriage return (\\r) that does not end the line" \
            in p.stderr and "Traceback" not in p.stderr, p.stderr
    crlf = tmp_path / "crlf.run"
    crlf.write_bytes(b"q1 Q0 d1 1 1.0 r\r\nq1 Q0 d2 2 0.5 r\r\n")
    assert cli("eval", str(qrels), str(crlf), "-m", "map").stdout.split() == ["map", "all", "1.0000"]


def test_an_empty_side_file_is_named_as_empty(tmp_path):
    """A zero-byte --interactions or --items file was reported as missing its columns ("found: column0", DuckDB's
    name for the one column it makes of nothing); it is named as empty."""
    empty = tmp_path / "empty.tsv"
    empty.write_bytes(b"")
    for option, metric in (("--interactions", "MeanInvUserFreq@10"), ("--items", "CatalogCoverage@10")):
        p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-m", metric, option,
                str(empty), check=False)
        assert p.returncode == 1 and "empty.tsv: the file is empty" in p.stderr and "column0" not in p.stderr, p.stderr
