"""Bad input, one test per case of issue 6: a one-line message naming what is at fault, a non-zero exit (command
line, no traceback) or a specific exception (Python: InputError / UsageError), and the user's files (sha256) and
tables left exactly as they were. Expected numbers are computed by hand in the comments."""
import hashlib
import json
import os
import re
import warnings

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankmetrics_duckdb as rm
from rankmetrics_duckdb import cli as cli_mod
from rankmetrics_duckdb import render as render_mod
from rankmetrics_duckdb.errors import InputError, UsageError
from conftest import TREC, cli

Q, R = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")

# A small collection used throughout: query 1 judges a, b, c (a and c relevant), the run ranks a, b, c.
QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n"
RUN = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n"


def sha(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def write(folder, name, text, mode="w"):
    path = os.path.join(str(folder), name)
    with open(path, mode) as fh:
        fh.write(text)
    return path


def refused(args, code, *words, files=()):
    """Run the command line; assert the exit code, one line on stderr with every word, no traceback, nothing on
    stdout, and every input file named in the arguments (and the given files) unchanged."""
    files = [f for f in (*files, *args) if os.path.isfile(f) and not f.startswith("/proc/")]
    before = {f: sha(f) for f in files}
    p = cli(*args, check=False)
    assert p.returncode == code, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert p.stdout == ""
    assert {f: sha(f) for f in files} == before
    return lines[0]


def py_refused(exc, match, judgments, run, metrics=("AP",), **kw):
    with pytest.raises(exc, match=match) as info:
        rm.evaluate(judgments, run, list(metrics), **kw)
    assert "\n" not in str(info.value)
    return str(info.value)


def qrels_frame():
    return pd.DataFrame({"query_id": ["1", "1", "1"], "item_id": ["a", "b", "c"], "relevance": [1, 0, 1]})


def run_frame():
    return pd.DataFrame({"query_id": ["1", "1", "1"], "item_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})


# ---- files --------------------------------------------------------------------------------------------------

def test_missing_or_unreadable_file(tmp_path):
    refused(["eval", str(tmp_path / "nope.qrels"), R, "-m", "map"], 1, "nope.qrels: no such file", files=[R])
    # /proc/self/mem exists but reading it at offset 0 fails, even for root (chmod 000 does not stop root)
    refused(["eval", Q, "/proc/self/mem", "-m", "map"], 1, "/proc/self/mem: cannot read the file", files=[Q])
    py_refused(InputError, "nope.run: no such file", Q, str(tmp_path / "nope.run"))


def test_directory(tmp_path):
    refused(["eval", str(tmp_path), R, "-m", "map"], 1, f"{tmp_path}: is a directory, not a judgments file",
            files=[R])
    py_refused(InputError, "is a directory, not a run file", Q, str(tmp_path))


def test_unknown_extension_with_undetectable_content(tmp_path):
    garbage = write(tmp_path, "mystery.xyz", bytes(range(256)) * 8, "wb")
    refused(["eval", Q, garbage, "-m", "map"], 1, "mystery.xyz: cannot detect the format", files=[Q, garbage])
    py_refused(InputError, "mystery.xyz: cannot detect the format", garbage, R)
    assert sha(garbage) == hashlib.sha256(bytes(range(256)) * 8).hexdigest()


def test_trec_run_with_wrong_number_of_columns(tmp_path):
    run = write(tmp_path, "short.run", RUN + "1 Q0 d 4 0.5\n")
    refused(["eval", write(tmp_path, "q", QRELS), run, "-m", "map"], 1,
            "short.run, line 4: 5 columns where a TREC run line has 6", files=[run])


def test_csv_line_with_another_field_count_is_named_even_the_last(tmp_path):
    # DuckDB's sniffer read a last line of 4 fields as the shape of the file (columns q1, d3, 1, 9), and the error
    # blamed the header ("no query_id or item_id column"); a middle line was named already
    q = write(tmp_path, "q", QRELS)
    for body, line in (("1,a,3\n1,b,2\n1,c,1,9\n", 4), ("1,a,3\n1,b,2,9\n1,c,1\n", 3)):
        run = write(tmp_path, f"run{line}.csv", "query_id,item_id,score\n" + body)
        refused(["eval", q, run, "-m", "map"], 1,
                f"run{line}.csv, line {line}: 4 fields where the header has 3 (query_id, item_id, score)", files=[q])
        py_refused(InputError, f"line {line}: 4 fields where the header has 3", q, run)


@pytest.mark.parametrize("sep", [", ", ",\t", " ,"])
def test_csv_ids_with_spaces_around_them_are_refused(tmp_path, sep):
    # a CSV written 'query_id, item_id, score': the header's names are read trimmed, but a field keeps its
    # spaces, so the item ' a' matched no judgment: map 0 (by hand 1: a and c relevant at ranks 1 and 3 of 3
    # with b between: (1 + 2/3) / 2 = 0.8333 when the ids match), with no word; on the named-columns path too
    q = write(tmp_path, "q", QRELS)
    run = write(tmp_path, "run.csv", sep.join(["query_id", "item_id", "score"]) + "\n" + "".join(
        sep.join(row) + "\n" for row in (["1", "a", "3"], ["1", "b", "2"], ["1", "c", "1"])))
    refused(["eval", q, run, "-m", "map"], 1, "run.csv: the ", "begins or ends with a space, which a CSV field keeps",
            files=[q])
    qcsv = write(tmp_path, "q.csv", "query_id,item_id,relevance\n1,a,1\n1,b,0\n1,c,1\n")
    refused(["eval", qcsv, run, "-m", "map", "--item-column", "item_id"], 1, "begins or ends with a space",
            files=[qcsv])
    clean = write(tmp_path, "clean.csv", "query_id,item_id,score\n1,a,3\n1,b,2\n1,c,1\n")
    assert cli("eval", q, clean, "-m", "map").stdout.split()[-1] == "0.8333"


@pytest.mark.parametrize("item_id", [[[["a", "c"]]], [{"id": "a"}]], ids=["list of lists", "struct"])
def test_an_id_that_is_a_list_or_a_structure_is_refused(tmp_path, item_id):
    # a run of lists whose lists hold lists, or ids that are structures: the text of each was taken as one id
    # ('[a, c]'), which matched nothing: num_ret 1 and map 0, with no word
    q = str(tmp_path / "q.parquet")  # (a run of lists reads named columns on both sides: not TREC qrels)
    pq.write_table(pa.Table.from_pandas(qrels_frame()), q)
    run = str(tmp_path / "run.parquet")
    table = pa.table({"query_id": ["1"], "item_id": item_id} | ({"score": [1.0]} if isinstance(item_id[0], dict) else {}))
    pq.write_table(table, run)
    refused(["eval", q, run, "-m", "map"], 1, "the item_id column holds", "an id is text or a whole number", files=[q])
    py_refused(InputError, "the item_id column holds .*an id is text or a whole number", q, table)


def test_qrels_relevance_not_a_number(tmp_path):
    qrels = write(tmp_path, "words.qrels", "1 0 a 1\n1 0 b high\n")
    refused(["eval", qrels, write(tmp_path, "r", RUN), "-m", "map"], 1,
            "words.qrels, line 2: relevance 'high' is not a number (query 1, item b)", files=[qrels])
    frame = qrels_frame().assign(relevance=["1", "high", "0"])
    py_refused(InputError, "relevance 'high' is not a number \\(query 1, item b\\)", frame, run_frame())


def test_score_not_a_number(tmp_path):
    run = write(tmp_path, "words.run", "1 Q0 a 1 3.0 t\n1 Q0 b 2 abc t\n")
    refused(["eval", write(tmp_path, "q", QRELS), run, "-m", "map"], 1,
            "words.run, line 2: score 'abc' is not a number (query 1, item b)", files=[run])
    py_refused(InputError, "score 'abc' is not a number", qrels_frame(), run_frame().assign(score=["3", "abc", "1"]))


def test_nan_and_infinite_scores_are_errors_unless_ranked_last(tmp_path):
    qrels = write(tmp_path, "q", QRELS + "1 0 d 1\n")
    run = write(tmp_path, "nan.run", "1 Q0 a 1 nan t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 inf t\n1 Q0 d 4 1.0 t\n")
    refused(["eval", qrels, run, "-m", "map"], 1, "nan.run, line 1: score nan for query 1, item a",
            "--nan-scores last", files=[qrels, run])
    py_refused(InputError, re.escape("score inf (infinite, or too large for a double) for query 1, item b"),
               qrels_frame(),
               run_frame().assign(score=[1.0, float("inf"), 2.0]))
    # --nan-scores last: b (2.0, not relevant), d (1.0, relevant), then the tied non-finite a and c ordered by
    # item id descending as trec_eval orders ties: c, a. Relevant at ranks 2, 3, 4 of |G| = 3:
    # AP = (1/2 + 2/3 + 3/4) / 3 = 0.638888...; RR = 1/2.
    p = cli("eval", qrels, run, "-m", "map", "-m", "recip_rank", "--nan-scores", "last", "--format", "json")
    got = {r["measure"]: r["value"] for r in json.loads(p.stdout)}
    assert got["map"] == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 3) and got["recip_rank"] == pytest.approx(0.5)
    frame = pd.DataFrame({"query_id": ["1"] * 4, "item_id": list("abcd"),
                          "score": [float("nan"), 2.0, float("-inf"), 1.0]})
    got = rm.evaluate(qrels, frame, ["AP"], nan_scores="last")
    assert got["AP"] == pytest.approx((1 / 2 + 2 / 3 + 3 / 4) / 3)
    py_refused(UsageError, "unknown value 'first' for nan_scores", qrels, frame, nan_scores="first")


def test_same_item_twice_in_a_run(tmp_path):
    run = write(tmp_path, "dup.run", RUN + "1 Q0 a 4 0.5 t\n")
    refused(["eval", write(tmp_path, "q", QRELS), run, "-m", "map"], 1,
            "dup.run: item a appears 2 times for query 1 in the run", files=[run])
    frame = pd.concat([run_frame(), run_frame().iloc[:1]])
    py_refused(InputError, "item a appears 2 times for query 1", qrels_frame(), frame)


def test_conflicting_judgments(tmp_path):
    qrels = write(tmp_path, "conflict.qrels", QRELS + "1 0 b 2\n")
    refused(["eval", qrels, write(tmp_path, "r", RUN), "-m", "map"], 1,
            "conflict.qrels: item b of query 1 is judged twice with different relevance (0 and 2)", files=[qrels])
    frame = pd.concat([qrels_frame(), qrels_frame().iloc[1:2].assign(relevance=2)])
    py_refused(InputError, "item b of query 1 is judged twice", frame, run_frame())


def test_identical_duplicate_judgments_are_collapsed_with_a_warning(tmp_path):
    qrels = write(tmp_path, "twice.qrels", QRELS + "1 0 c 1\n")
    run = write(tmp_path, "r", RUN)
    before = sha(qrels)
    p = cli("eval", qrels, run, "-m", "map", "--format", "json")
    assert p.stderr.strip() == ("rankmetrics: warning: twice.qrels: duplicate identical judgments "
                                "(e.g. query 1, item c) were counted once").replace("twice.qrels", qrels)
    # c counted once: |G| = 2 (a, c), relevant at ranks 1 and 3: AP = (1/1 + 2/3) / 2 = 0.8333...
    assert json.loads(p.stdout)[0]["value"] == pytest.approx((1 + 2 / 3) / 2)
    assert sha(qrels) == before
    frame = pd.concat([qrels_frame(), qrels_frame().iloc[2:3]])
    with pytest.warns(UserWarning, match="duplicate identical judgments \\(e.g. query 1, item c\\) were counted once"):
        got = rm.evaluate(frame, run_frame(), ["AP"])
    assert got["AP"] == pytest.approx((1 + 2 / 3) / 2)


@pytest.mark.parametrize("kind", ["csv", "parquet", "frame"])
def test_missing_columns(tmp_path, kind):
    def make(columns, name):
        data = {c: ["1"] for c in columns}
        if kind == "frame":
            return pd.DataFrame(data)
        path = os.path.join(str(tmp_path), f"{name}.{kind}")
        if kind == "csv":
            pd.DataFrame(data).to_csv(path, index=False)
        else:
            pq.write_table(pa.table(data), path)
        return path
    cases = [  # (judgments columns, run columns, words)
        (["item_id", "relevance"], ["query_id", "item_id", "score"], "no query_id column in the judgments"),
        (["query_id", "relevance"], ["query_id", "item_id", "score"], "no item_id column in the judgments"),
        (["query_id", "item_id"], ["query_id", "item_id", "score"], "no relevance column in the judgments "
         "(columns: query_id, item_id; names read, any case: relevance, rel, label, grade, judgment, rating, qrel; "
         "or name it: --relevance-column)"),
        (["query_id", "item_id", "relevance"], ["item_id", "score"], "no query_id column in the run"),
        (["query_id", "item_id", "relevance"], ["query_id", "item_id", "tag"],
         "the run has neither a score nor a rank column (columns: query_id, item_id, tag; names read, any case: "
         "score, sim, similarity, prediction, pred, rank, position, pos)"),
    ]
    for i, (jcols, rcols, words) in enumerate(cases):
        j, r = make(jcols, f"j{i}"), make(rcols, f"r{i}")
        if kind == "frame":
            jcopy, rcopy = j.copy(), r.copy()
            py_refused(InputError, words.replace("(", "\\(").replace(")", "\\)"), j, r)
            assert j.equals(jcopy) and r.equals(rcopy)
        else:
            at_fault = j if "judgments" in words else r
            refused(["eval", j, r, "-m", "map"], 1, f"{at_fault}: {words}", files=[j, r])


def test_empty_or_null_ids(tmp_path):
    run = write(tmp_path, "ids.csv", "query_id,item_id,score\n1,a,3\n,b,2\n")
    refused(["eval", write(tmp_path, "q", QRELS), run, "-m", "map"], 1,
            "ids.csv: 1 row(s) with an empty or NULL query_id in the run", files=[run])
    py_refused(InputError, "1 row\\(s\\) with an empty or NULL item_id in the judgments",
               qrels_frame().assign(item_id=["a", None, "c"]), run_frame())
    py_refused(InputError, "2 row\\(s\\) with an empty or NULL item_id in the run", qrels_frame(),
               run_frame().assign(item_id=["a", " ", ""]))


def test_empty_run_or_judgments(tmp_path):
    empty = write(tmp_path, "empty.run", "")
    refused(["eval", write(tmp_path, "q", QRELS), empty, "-m", "map"], 1, "empty.run: the file is empty",
            files=[empty])
    header = write(tmp_path, "header.csv", "query_id,item_id,relevance\n")
    refused(["eval", header, write(tmp_path, "r", RUN), "-m", "map"], 1, "header.csv: the judgments have no rows",
            files=[header])
    py_refused(InputError, "the run has no rows", qrels_frame(), run_frame().iloc[:0])
    # frames made without rows, whose columns pandas types as float64 ([]) or leaves untyped (columns=): what is
    # wrong is that they have no rows, not their types (they were refused as DOUBLE ids, or a "NULL" score column)
    for made in (pd.DataFrame({"query_id": [], "item_id": [], "score": []}),
                 pd.DataFrame(columns=["query_id", "item_id", "score"])):
        for one_statement in (True, False):
            py_refused(InputError, "^pandas DataFrame: the run has no rows$", qrels_frame(), made,
                       one_statement=one_statement)
            py_refused(InputError, "^pandas DataFrame: the judgments have no rows$",
                       made.rename(columns={"score": "relevance"}), run_frame(), one_statement=one_statement)
        py_refused(InputError, "^pandas DataFrame: the run has no rows$", qrels_frame(),
                   made.rename(columns={"query_id": "qid"}), columns={"query_id": "qid"})


def test_no_query_in_common(tmp_path):
    qrels = write(tmp_path, "other.qrels", "999 0 doc 1\n")
    refused(["eval", qrels, R, "-m", "map"], 1, "have no query in common (3 run queries, 1 judged queries)",
            files=[qrels, R])
    py_refused(InputError, "no query in common", qrels_frame().assign(query_id="2"), run_frame())


def test_queries_on_one_side_only_are_reported(tmp_path):
    # query 1 on both sides; 2 and 3 judged only; 4 run only
    qrels = write(tmp_path, "q", QRELS + "2 0 x 1\n3 0 y 1\n")
    run = write(tmp_path, "r", RUN + "4 Q0 z 1 1.0 t\n")
    files = [qrels, run]
    before = {f: sha(f) for f in files}
    p = cli("eval", qrels, run, "-m", "map", "--format", "json")
    assert p.stderr == ("rankmetrics: note: 2 judged queries are not in the run (skipped; -c or queries='judged' "
                        "scores them 0), 1 run query has no judgments (skipped)\n")
    # query 1 only: relevant at ranks 1 and 3 of |G| = 2: AP = (1 + 2/3) / 2
    assert json.loads(p.stdout)[0]["value"] == pytest.approx((1 + 2 / 3) / 2)
    p = cli("eval", qrels, run, "-m", "map", "-c", "--format", "json")
    assert "2 judged queries are not in the run (each scored as an empty ranking)" in p.stderr
    # -c: queries 1, 2, 3 averaged, 2 and 3 scoring 0: (0.8333 + 0 + 0) / 3
    assert json.loads(p.stdout)[0]["value"] == pytest.approx((1 + 2 / 3) / 2 / 3)
    assert {f: sha(f) for f in files} == before
    ev = rm.Evaluation(qrels, run, ["AP"], convention="mllib")
    try:
        assert ev.summary == {"run_queries": 2, "judged_queries": 3, "common_queries": 1,
                              "judged_not_in_run": 2, "run_not_judged": 1}
        assert ev.note() == ("2 judged queries are not in the run (each scored as an empty ranking), "
                             "1 run query has no judgments (each scored as having no relevant item)")
    finally:
        ev.close()


# ---- names and options --------------------------------------------------------------------------------------

def test_unknown_metric_name_suggests_the_closest():
    refused(["eval", Q, R, "-m", "nDGC@10"], 2, "unknown metric 'nDGC@10'", "did you mean 'nDCG@10'?")
    py_refused(UsageError, "unknown metric 'recip_rnak'; did you mean 'recip_rank'", Q, R, ["recip_rnak"])


def test_cutoffs_zero_negative_or_not_whole():
    refused(["eval", Q, R, "-m", "P@0"], 2, "metric 'P@0': cutoff must be a positive whole number, not 0")
    refused(["eval", Q, R, "-m", "nDCG@-3"], 2, "metric 'nDCG@-3': cutoff must be a positive whole number, not -3")
    refused(["eval", Q, R, "-m", "P@x"], 2, "metric 'P@x': cutoff 'x' is not a whole number")
    py_refused(UsageError, "metric 'P_0': cutoff must be a positive whole number", Q, R, ["P_0"])
    py_refused(UsageError, "cutoff '2.5' is not a whole number", Q, R, ["nDCG@2.5"])


def test_unknown_parameters_or_values():
    refused(["eval", Q, R, "-m", "nDCG(gain=cubic)@10"], 2,
            "metric 'nDCG(gain=cubic)@10': unknown value 'cubic' for gain; choose one of: linear, exponential, binary")
    py_refused(UsageError, "unknown parameter 'foo' for AP", Q, R, ["AP(foo=1)"])
    py_refused(UsageError, "unknown value 'cubic' for gain", Q, R, ["nDCG"], gain="cubic")
    py_refused(UsageError, "unknown convention parameter 'colour'", Q, R, colour="red")
    refused(["eval", Q, R, "-m", "map", "-l", "high"], 2, "relevance level must be a number, not 'high'")


def test_unknown_conventions():
    refused(["eval", Q, R, "--convention", "nosuch"], 2, "argument --convention: invalid choice: 'nosuch'")
    py_refused(UsageError, "unknown convention 'nosuch'; choose one of: trec_eval, ranx", Q, R, convention="nosuch")


def test_unknown_dialects():
    refused(["macros", "--dialect", "nosuch"], 2, "unknown SQL dialect 'nosuch'; macros exist for: duckdb, postgres")


# ---- ids, tables and connections ----------------------------------------------------------------------------

def test_ids_of_different_types_are_compared_as_text(tmp_path):
    # integer ids in the judgments (Parquet, pandas), text ids in the run file: the same query and items
    qrels = os.path.join(str(tmp_path), "ints.parquet")
    pq.write_table(pa.table({"query_id": [1, 1, 1], "item_id": [10, 20, 30], "relevance": [1, 0, 1]}), qrels)
    run = write(tmp_path, "text.run", "1 Q0 10 1 3.0 t\n1 Q0 20 2 2.0 t\n1 Q0 30 3 1.0 t\n")
    before = {f: sha(f) for f in (qrels, run)}
    # relevant at ranks 1 and 3 of |G| = 2: AP = (1 + 2/3) / 2; P@2 = 1/2
    p = cli("eval", qrels, run, "-m", "map", "-m", "P@2", "--format", "json")
    got = {r["measure"]: r["value"] for r in json.loads(p.stdout)}
    assert got == pytest.approx({"map": (1 + 2 / 3) / 2, "P@2": 0.5}) and p.stderr == ""
    frame = pd.DataFrame({"query_id": [1, 1, 1], "item_id": [10, 20, 30], "relevance": [1, 0, 1]})
    assert rm.evaluate(frame, run, ["AP"])["AP"] == pytest.approx((1 + 2 / 3) / 2)
    assert {f: sha(f) for f in (qrels, run)} == before


def caller_state(con):
    return (con.execute("SELECT database_name, schema_name, table_name, temporary, estimated_size "
                        "FROM duckdb_tables() ORDER BY ALL").fetchall(),
            con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall(),
            con.execute("SELECT name, value FROM duckdb_settings() ORDER BY name").fetchall(),
            con.execute("SELECT * FROM t ORDER BY ALL").fetchall(),
            con.execute("SELECT * FROM my_qrels ORDER BY ALL").fetchall())


def caller_connection():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 42 AS answer")
    con.execute("CREATE TABLE my_qrels AS SELECT * FROM (VALUES ('1', 'a', 1), ('1', 'b', 0), ('1', 'c', 1)) "
                "AS v(query_id, item_id, relevance)")
    con.execute("CREATE TABLE my_run AS SELECT * FROM (VALUES ('1', 'a', 3.0), ('1', 'b', 2.0), ('1', 'c', 1.0)) "
                "AS v(query_id, item_id, score)")
    return con


def test_table_names_with_quotes_semicolons_or_comments_never_execute():
    con = caller_connection()
    before = caller_state(con)
    for name in ["x; DROP TABLE t --", "t; DROP TABLE t; --", 't"; DROP TABLE t; --', "t' ; DROP TABLE t; --",
                 "t /* comment */", "my_run WHERE 1=0 UNION SELECT * FROM t"]:
        py_refused(InputError, "no such file or table", "my_qrels", name, con=con)
        assert caller_state(con) == before, name
    # a table whose name really has a semicolon and a comment in it is found by that name, quoted
    con.execute('CREATE TABLE "run; DROP TABLE t --" AS SELECT * FROM my_run')
    before = caller_state(con)
    got = rm.evaluate("my_qrels", "run; DROP TABLE t --", ["AP"], con=con)
    assert got["AP"] == pytest.approx((1 + 2 / 3) / 2)  # relevant at ranks 1 and 3 of |G| = 2
    assert caller_state(con) == before


def test_caller_connection_left_as_found(tmp_path):
    con = caller_connection()
    before = caller_state(con)
    qrels, run = write(tmp_path, "q", QRELS), write(tmp_path, "r", RUN)
    want = pytest.approx((1 + 2 / 3) / 2)  # relevant at ranks 1 and 3 of |G| = 2
    for j, r in [("my_qrels", "my_run"), (qrels, run), (qrels_frame(), "my_run"), ("my_qrels", run),
                 (con.table("my_qrels"), run_frame())]:
        assert rm.evaluate(j, r, ["AP"], con=con)["AP"] == want
        assert caller_state(con) == before
    # errors leave it as found too
    py_refused(InputError, "is judged twice", pd.concat([qrels_frame(), qrels_frame().assign(relevance=2)]),
               "my_run", con=con)
    assert caller_state(con) == before
    rm.register(con)  # macros only, never tables or views
    tables, views = caller_state(con)[:2]
    assert (tables, views) == before[:2]


# ---- output -------------------------------------------------------------------------------------------------

class Disk:
    """A file object that writes the first half of what it is given, then fails as a full disk does."""

    def __init__(self, fh):
        self.fh = fh

    def write(self, text):
        self.fh.write(text[:len(text) // 2])
        self.fh.flush()
        raise OSError(28, "No space left on device")

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.fh.close()


def test_output_is_atomic(tmp_path, monkeypatch, capsys):
    target = tmp_path / "out.csv"
    target.write_text("previous results\n")
    import builtins
    real_open = builtins.open

    def full_disk_open(file, mode="r", *a, **k):  # the temporary output file fills the disk half-way
        fh = real_open(file, mode, *a, **k)
        return Disk(fh) if "w" in mode and os.path.basename(str(file)).startswith(".rankmetrics-") else fh
    monkeypatch.setattr(builtins, "open", full_disk_open)
    code = cli_mod.main(["eval", Q, R, "-m", "map", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 1 and err == f"rankmetrics: error: cannot write {target}: No space left on device\n"
    assert target.read_text() == "previous results\n"  # untouched
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out.csv"]  # no temporary or half-written file
    # interrupted (Ctrl-C) in the middle of the write: the same
    monkeypatch.setattr(builtins, "open", real_open)
    monkeypatch.setattr(render_mod, "render_rows", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert cli_mod.main(["eval", Q, R, "-m", "map", "-o", str(tmp_path / "new.json")]) == 130
    assert capsys.readouterr().err == "rankmetrics: interrupted\n"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out.csv"]


@pytest.mark.parametrize("column", ["relevance", "score"])
def test_a_nan_among_finite_values_in_a_parquet_file_is_refused(tmp_path, column):
    # DuckDB 2.0 folds isnan(x) to false from a Parquet column's statistics (minimum -0.0, maximum 1.0: NaN left
    # out), so a NaN among finite values passed the checks: nDCG printed nan, or a NaN score was ranked first.
    # Refused as in an Arrow table, on every route (evaluate, the CLI, prepare, the DuckDB macros).
    nan = float("nan")
    values = [1.0, nan, 0.0]
    judged = pa.table({"query_id": ["q1"] * 3, "item_id": ["a", "b", "c"],
                       "relevance": values if column == "relevance" else [1.0, 1.0, 0.0]})
    run = pa.table({"query_id": ["q1"] * 3, "item_id": ["a", "b", "c"],
                    "score": values if column == "score" else [3.0, 2.0, 1.0]})
    q, r = tmp_path / "q.parquet", tmp_path / "r.parquet"
    pq.write_table(judged, q)
    pq.write_table(run, r)
    message = f"{column} nan for query q1, item b; every {column} must be a finite number"
    with pytest.raises(rm.InputError, match=message):
        rm.evaluate(str(q), str(r), ["nDCG", "AP"])
    with pytest.raises(rm.InputError, match=message):
        rm.prepare(str(q), str(r)).evaluate(["nDCG", "AP"])
    p = cli("eval", str(q), str(r), "-m", "ndcg", check=False)
    assert p.returncode == 1 and message in p.stderr and len(p.stderr.strip().splitlines()) == 1
    con = duckdb.connect()
    rm.register(con)
    con.sql(f"CREATE VIEW run AS SELECT * FROM read_parquet('{r}')")
    con.sql(f"CREATE VIEW qrels AS SELECT * FROM read_parquet('{q}')")
    with pytest.raises(duckdb.Error, match="NULL, NaN or infinite"):
        con.sql("SELECT * FROM ndcg('run', 'qrels')").fetchall()


@pytest.mark.parametrize("where", ["run", "qrels", "run.gz", "csv", "arrow", "qrels_jg", "zscores"])
def test_digits_grouped_by_underscores_are_not_a_number(tmp_path, where):
    # DuckDB's cast and Python's float read 1_000 as 1000; trec_eval's atof reads 1 (and 0_1 as 0): a number so
    # written is refused as not a number, on the strict TREC reader (a '_' in the file reads the numbers as text),
    # the general one, CSV, Arrow tables, -R qrels_jg and -Z files. A '_' elsewhere (the run's tag) changes nothing:
    # AP of a (not relevant) then b (relevant) = 1/2.
    import gzip
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 0 a 0\n1 0 b 1\n")
    r.write_text("1 Q0 a 1 2 run_1\n1 Q0 b 2 1 run_1\n")
    assert rm.evaluate(str(q), str(r), ["AP"]) == {"AP": 0.5}
    if where in ("run", "run.gz"):
        text = "1 Q0 a 1 2 run_1\n1 Q0 b 2 1_000 run_1\n"
        if where == "run.gz":
            r = tmp_path / "run.gz"
            with gzip.open(r, "wt") as fh:
                fh.write(text)
        else:
            r.write_text(text)
        p = cli("eval", str(q), str(r), "-m", "map", check=False)
        assert p.returncode == 1 and p.stderr.strip() == (f"rankmetrics: error: {r}, line 2: score '1_000' is not a "
                                                          f"number (query 1, item b)")
    elif where == "qrels":
        q.write_text("1 0 a 0_1\n1 0 b 1\n")
        with pytest.raises(InputError, match="line 1: relevance '0_1' is not a number"):
            rm.evaluate(str(q), str(r), ["AP"])
    elif where == "csv":
        c = tmp_path / "run.csv"
        c.write_text("query_id,item_id,score\n1,a,2\n1,b,1_000\n")
        with pytest.raises(InputError, match="line 3: score '1_000' is not a number"):
            rm.evaluate(str(q), str(c), ["AP"])
    elif where == "arrow":
        run = pa.table({"query_id": ["1", "1"], "item_id": ["a", "b"], "score": ["2", "1_000"]})
        with pytest.raises(InputError, match="score '1_000' is not a number"):
            rm.evaluate(str(q), run, ["AP"])
    elif where == "qrels_jg":
        jg = tmp_path / "jg"
        jg.write_text("1 g a 1_0\n")
        p = cli("eval", "-R", "qrels_jg", str(jg), str(r), check=False)
        assert p.returncode == 1 and "line 1: relevance '1_0' is not a number" in p.stderr
    else:
        z = tmp_path / "z"
        z.write_text("1 map 0_5 1\n")
        p = cli("eval", "-Z", str(z), "-m", "map", str(q), str(r), check=False)
        assert p.returncode == 1 and "line 1: the mean '0_5' is not a finite number" in p.stderr


def test_unicode_spaces_do_not_split_the_fields_of_trec_eval_other_formats(tmp_path):
    # trec_eval splits a qrels_jg, prefs or -Z line on ASCII white space (as our qrels and run readers do): a
    # no-break space between two fields leaves 3 ("Malformed line"), an em space (U+2003) inside an item id is
    # part of it. Here the judged item 'a<em space>x' is not retrieved: every measure 0, as the trec_eval 10
    # binary prints.
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    merged = tmp_path / "jg_merged"
    merged.write_text("1 u1\u00a0a 1\n1 u1 b 0\n", encoding="utf-8")
    p = cli("eval", "-R", "qrels_jg", "-m", "map_avgjg", str(merged), str(r), check=False)
    assert p.returncode == 1 and p.stderr.strip() == (
        f"rankmetrics: error: {merged}, line 1: a qrels_jg line has 4 fields (query, judgment group, item, "
        f"relevance), not 3; a no-break space (U+00A0) does not separate fields (use spaces or tabs): "
        f"'1 u1\\xa0a 1'")
    inside = tmp_path / "jg_id"
    inside.write_text("1 u1 a\u2003x 1\n1 u1 b 0\n", encoding="utf-8")
    out = cli("eval", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.5", str(inside), str(r)).stdout
    assert [ln.split() for ln in out.splitlines()] == [["map_avgjg", "all", "0.0000"], ["P_avgjg_5", "all", "0.0000"]]
    prefs = tmp_path / "prefs"
    prefs.write_text("1 g1 s1\u00a0a 2\n1 g1 s1 b 1\n", encoding="utf-8")
    p = cli("eval", "-R", "prefs", str(prefs), str(r), check=False)
    assert p.returncode == 1 and "not 4; a no-break space (U+00A0) does not separate fields" in p.stderr


def test_a_missing_run_file_beside_an_in_memory_judgments_table_is_named(tmp_path):
    # the one-statement path's look for a table of that name (inputs.Reader.is_table) read its result with
    # fetchone(), which DuckDB 2.0 leaves open: registering the Arrow judgments for the careful path then raised
    # DuckDB's ResourceInUseException instead of naming the file
    judgments = pa.table({"query_id": ["q1"], "item_id": ["a"], "relevance": [1]})
    run = pa.table({"query_id": ["q1"], "item_id": ["a"], "score": [1.0]})
    missing = str(tmp_path / "no_such_run.txt")
    with pytest.raises(InputError, match=f"^{missing}: no such file$"):
        rm.evaluate(judgments, missing, ["AP"])
    with pytest.raises(InputError, match=f"^{missing}: no such file$"):
        rm.compare(judgments, [run, missing], ["AP"])


def test_pyarrow_inputs_of_every_kind_are_read_or_named():
    # q1 judges a relevant, b not; the run ranks b (2.0) above a (1.0): AP = 1/2 (by hand). A RecordBatchReader
    # (read once), a RecordBatch, a dataset, float16 and decimal256 scores (DuckDB scans neither; read exactly as
    # float32 and as doubles) give it; a Schema or a table without columns is named, not a DuckDB or Python error.
    import decimal
    import pyarrow.dataset as ds
    j = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    r = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "score": [1.0, 2.0]})
    runs = {"reader": pa.RecordBatchReader.from_batches(r.schema, r.to_batches()), "batch": r.to_batches()[0],
            "dataset": ds.dataset(r), "float16": r.set_column(2, "score", r.column(2).cast(pa.float16())),
            "decimal256": r.set_column(2, "score", pa.array([decimal.Decimal("1.0"), decimal.Decimal("2.0")],
                                                            pa.decimal256(40, 3)))}
    for name, run in runs.items():
        assert rm.evaluate(j, run, ["AP"]) == {"AP": 0.5}, name
    with pytest.raises(InputError, match="^cannot read the run from a pyarrow Schema: give a pyarrow Table"):
        rm.evaluate(j, r.schema, ["AP"])
    with pytest.raises(InputError, match="^pyarrow Table: the judgments have no columns$"):
        rm.evaluate(pa.table({}), r, ["AP"])


def test_a_number_too_large_for_a_double_is_named_with_its_line(tmp_path):
    # 1e400 reads as inf: the message names the line by its query and item (the text DuckDB gives is 'inf')
    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "run", "1 Q0 a 1 2 t\n1 Q0 b 2 1e400 t\n")
    refused(["eval", q, r, "-m", "map"], 1, f"{r}, line 2: score inf (infinite, or too large for a double) for "
            f"query 1, item b", files=[q, r])


def test_two_names_for_one_value_column_are_refused(tmp_path):
    # pred and prediction are both names of the score: the reader took the first listed, silently. Run of one
    # query: by pred a (grade 1) is first, P@1 = 1; by prediction b (grade 0) is first, P@1 = 0
    q = write(tmp_path, "qrels.csv", "query_id,item_id,relevance\nq1,a,1\nq1,b,0\nq1,c,1\n")
    r = write(tmp_path, "run.csv", "query_id,item_id,prediction,pred\nq1,a,1,3\nq1,b,3,2\nq1,c,2,1\n")
    refused(["eval", q, r, "-m", "P@1"], 1, f"{r}: columns prediction and pred could each be the score column of "
            f"the run; name the one to read (--score-column, or columns={{'score': ...}} in Python)")
    assert cli("eval", q, r, "-m", "P@1", "--score-column", "pred").stdout.split() == ["P@1", "all", "1.0000"]
    assert rm.evaluate(q, r, ["P@1"], columns={"score": "prediction"}) == {"P@1": 0.0}
    labels = pa.table({"query_id": ["q1"] * 2, "item_id": ["a", "b"], "label": [1, 0], "rating": [0, 1]})
    with pytest.raises(InputError, match="^pyarrow Table: columns label and rating could each be the relevance"):
        rm.evaluate(labels, r, ["P@1"], columns={"score": "pred"})
    # by rating b is the relevant one, ranked second by pred: P@1 = 0
    assert rm.evaluate(labels, r, ["P@1"], columns={"score": "pred", "relevance": "rating"}) == {"P@1": 0.0}
    # a column named as ours is that column (score beside pred: by score b first, P@1 = 0); an id column's names
    # have an order, PyTerrier's frame (qid beside the query's text, docno beside the index's docid) reads
    # qid and docno: b, ranked first by score, is not relevant, P@1 = 0; by docid (7, 8, 9) nothing would match
    write(tmp_path, "run.csv", "qid,docid,docno,rank,score,query,pred\nq1,7,a,1,1,hi,3\nq1,8,b,0,3,hi,2\nq1,9,c,2,2,hi,1\n")
    assert rm.evaluate(q, r, ["P@1", "NumRelRet"]) == {"P@1": 0.0, "NumRelRet": 2}


def test_a_side_table_column_named_twice_is_refused(tmp_path):
    # the interactions' item_id twice (a, c by the first; b, a by the second): DuckDB renames the second of a CSV
    # header or of a frame's columns (any case) item_id_1, and the reader took the first, silently
    q = write(tmp_path, "q.csv", "query_id,item_id,relevance\nu1,a,1\n")
    r = write(tmp_path, "r.csv", "query_id,item_id,score\nu1,a,1\nu1,c,0.5\n")
    inter = write(tmp_path, "inter.csv", "user_id,item_id,item_id\nu1,a,b\nu2,c,a\n")
    refused(["eval", q, r, "-m", "MeanInvUserFreq@10", "--interactions", inter], 1,
            f"{inter}: column item_id appears twice; name each column once")
    frame = pa.Table.from_arrays([pa.array(["u1", "u2"]), pa.array(["a", "c"]), pa.array(["b", "a"])],
                                 names=["user_id", "item_id", "Item_Id"])
    for obj in (frame, frame.to_pandas()):
        # (named as written the second time, as a frame's or an Arrow table's run or judgments are)
        with pytest.raises(InputError, match=r"^the interactions \((Table|DataFrame)\): column Item_Id appears twice"):
            rm.evaluate(q, r, ["MeanInvUserFreq@10"], interactions=obj)


def test_a_column_named_twice_is_refused(tmp_path):
    # DuckDB names the second 'relevance' of a CSV header relevance_1 and the reader took the first, silently
    # (map 0.5 where the second column gives 1.0); an Arrow table may hold two columns of one name too
    q = tmp_path / "qrels.csv"
    q.write_text("query_id,item_id,relevance,relevance\n1,a,0,1\n1,b,1,1\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    p = cli("eval", str(q), str(r), "-m", "map", check=False)
    assert p.returncode == 1 and p.stderr.strip() == (f"rankmetrics: error: {q}: column relevance appears twice; "
                                                      f"name each column once")
    run = pa.Table.from_arrays([pa.array(["1", "1"]), pa.array(["a", "b"]), pa.array([2.0, 1.0]),
                                pa.array([1.0, 2.0])], names=["query_id", "item_id", "Score", "score"])
    with pytest.raises(InputError, match="^pyarrow Table: column score appears twice; name each column once$"):
        rm.evaluate(pa.table({"query_id": ["1"], "item_id": ["a"], "relevance": [1]}), run, ["AP"])
    # an id that happens to be a column's name, twice on a TREC line, is no header: AP of a (0), b (1) = 1/2
    t = tmp_path / "qrels"
    t.write_text("doc 0 doc 1\n")
    r.write_text("doc Q0 a 1 2 t\ndoc Q0 doc 2 1 t\n")
    assert rm.evaluate(str(t), str(r), ["AP"]) == {"AP": 0.5}


def test_columns_differing_only_in_case_are_refused_when_read(tmp_path):
    # a run with S (3, 2) and s (1, 5) and columns={'score': 's'}: DuckDB reads names without case and renamed s to
    # s_1, so 's' found S: P@1 of q1 was 1 (a, judged 1, first by S) where s ranks b (judged 0) first, P@1 0. Every
    # form that can hold both names is refused, naming them; a pair that is not read does not matter
    run = pa.table({"Q": ["q1", "q1"], "item_id": ["a", "b"], "S": [3.0, 2.0], "s": [1.0, 5.0]})
    judged = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    pq.write_table(run, tmp_path / "run.parquet")
    csv = write(tmp_path, "run.csv", "Q,item_id,S,s\nq1,a,3,1\nq1,b,2,5\n")
    for obj, label in ((run, "pyarrow Table"), (run.to_pandas(), "pandas DataFrame"),
                       (str(tmp_path / "run.parquet"), str(tmp_path / "run.parquet")), (csv, csv)):
        for score in ("s", "S"):
            with pytest.raises(InputError, match=f"^{re.escape(label)}: columns S and s differ only in case"):
                rm.evaluate(judged, obj, ["P@1"], columns={"query_id": "Q", "score": score})
    refused(["eval", "--query-column", "Q", "--score-column", "s", write(tmp_path, "q.csv", "query_id,item_id,"
             "relevance\nq1,a,1\nq1,b,0\n"), csv], 1, f"{csv}: columns S and s differ only in case")
    # a group column and the judgments' grade likewise
    grouped = run.append_column("G", pa.array(["m", "m"])).append_column("g", pa.array(["x", "y"]))
    with pytest.raises(InputError, match="^pyarrow Table: columns G and g differ only in case"):
        rm.evaluate(judged, grouped.drop_columns(["s"]), ["P@1"], columns={"query_id": "Q", "score": "S"}, by=["g"])
    twins = judged.append_column("Judge", pa.array([0, 1])).append_column("judge", pa.array([1, 0]))
    with pytest.raises(InputError, match="^pyarrow Table: columns Judge and judge differ only in case"):
        rm.evaluate(twins, run.drop_columns(["s"]), ["P@1"], columns={"query_id": "Q", "score": "S",
                                                                      "relevance": "judge"})
    # s and S not read (the score is named x): q1's a (x 1) below b (x 2), b judged 0: P@1 = 0
    other = run.append_column("x", pa.array([1.0, 2.0]))
    assert rm.evaluate(judged, other, ["P@1"], columns={"query_id": "Q", "score": "x"}) == {"P@1": 0.0}


@pytest.mark.parametrize("kind", ["arrow", "parquet"])
@pytest.mark.parametrize("arrow_type,duck_type", [(pa.bool_(), "BOOLEAN"), (pa.binary(), "BLOB")])
def test_a_number_column_of_a_type_without_numbers_is_refused_by_its_type(tmp_path, kind, arrow_type, duck_type):
    # one rule for every input kind (checks.number_column_fault): a bool score was taken from Arrow (true as 1)
    # and refused from Parquet ("'false' is not a number"); a binary one the other way round
    j = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    values = [True, False] if arrow_type == pa.bool_() else [b"1.0", b"2.0"]
    r = pa.table({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "score": pa.array(values, arrow_type)})
    label = "pyarrow Table"
    if kind == "parquet":
        label = str(tmp_path / "run.parquet")
        pq.write_table(r, label)
        r = label
    with pytest.raises(InputError, match=re.escape(f"{label}: the score column is {duck_type}, not numbers (give "
                                                   f"numbers, or numbers as text)")):
        rm.evaluate(j, r, ["AP"])


@pytest.mark.parametrize("value", ["+-1", "\u00a01"])
@pytest.mark.parametrize("where", ["run", "qrels", "run.gz", "csv", "arrow"])
def test_numbers_c_does_not_read_are_not_numbers(tmp_path, where, value):
    # DuckDB's CSV reader and cast read +-1 as -1, and its trim() drops a no-break space, so '\u00a02' was grade 2;
    # trec_eval's atof/atol read 0 for both (bpref 1.0 where trec_eval gives 0.0): a number so written is refused
    # as not a number on the strict TREC reader, the general one (--nan-scores last), gzip, CSV and Arrow tables
    import gzip
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 0 a 0\n1 0 b 1\n")
    r.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    assert rm.evaluate(str(q), str(r), ["AP"]) == {"AP": 0.5}  # a (not relevant), then b (relevant): 1/2
    column, line = ("relevance", 2) if where == "qrels" else ("score", 2 if where != "csv" else 3)
    if where == "qrels":
        q.write_text(f"1 0 a 0\n1 0 b {value}\n", encoding="utf-8")
    elif where == "run":
        r.write_text(f"1 Q0 a 1 2 t\n1 Q0 b 2 {value} t\n", encoding="utf-8")
    elif where == "run.gz":
        r = tmp_path / "run.gz"
        with gzip.open(r, "wt", encoding="utf-8") as fh:
            fh.write(f"1 Q0 a 1 2 t\n1 Q0 b 2 {value} t\n")
    elif where == "csv":
        r = tmp_path / "run.csv"
        r.write_text(f"query_id,item_id,score\n1,a,2\n1,b,{value}\n", encoding="utf-8")
    if where == "arrow":
        run = pa.table({"query_id": ["1", "1"], "item_id": ["a", "b"], "score": ["2", value]})
        with pytest.raises(InputError, match=re.escape(f"score '{value}' is not a number")):
            rm.evaluate(str(q), run, ["AP"])
        return
    for extra in ([], ["--nan-scores", "last"]):
        p = cli("eval", str(q), str(r), "-m", "map", *extra, check=False)
        assert p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
        shown = value.encode("ascii", "backslashreplace").decode()  # a no-break space as \xa0 (cli._one_line)
        assert f", line {line}: {column} '{shown}' is not a number" in p.stderr, p.stderr


@pytest.mark.parametrize("role", ["run", "qrels", "zscores"])
def test_a_gzip_file_whose_data_is_corrupt_is_named(tmp_path, role):
    # gzip's magic number, then bytes that do not inflate: Python's zlib.error is no OSError, and the message was
    # "rankmetrics: error: error: Error -3 while decompressing data", naming no file
    import gzip
    good = gzip.compress(b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n" * 50)
    bad = tmp_path / "bad.gz"
    bad.write_bytes(good[:10] + b"\xff" * 40 + good[50:])
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 0 a 0\n1 0 b 1\n")
    r.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    args = {"run": [str(q), str(bad)], "qrels": [str(bad), str(r)],
            "zscores": ["-Z", str(bad), str(q), str(r)]}[role]
    p = cli("eval", "-m", "map", *args, check=False)
    assert p.returncode == 1 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith(f"rankmetrics: error: {bad}: cannot read the file (") and "decompress" in p.stderr
    with pytest.raises(InputError, match=re.escape(f"{bad}: cannot read the file")):
        rm.evaluate(*([str(q), str(bad)] if role == "run" else [str(bad), str(r)]), ["AP"])


@pytest.mark.parametrize("args,words", [
    (["--query-column", ""], "--query-column takes a value, not an empty one"),
    (["--memory-limit", ""], "--memory-limit takes a value, not an empty one"),
    (["--log-base="], "--log-base takes a value, not an empty one"),
    (["--interactions-user-column", ""], "--interactions-user-column takes a value, not an empty one"),
    (["--threads", "1_0"], "argument --threads: invalid int value: '1_0'"),
    (["--threads", "\uff12"], "argument --threads: invalid int value: '\uff12'"),
    (["--log-base", "1_0"], "log_base must be a number greater than 1 or 'e', not '1_0'"),
])
def test_empty_values_and_numbers_python_alone_reads_are_refused(tmp_path, args, words):
    # an empty value was taken as the option left out (--query-column '' read query_id); int() and float() read
    # '1_0' as 10 and the full-width digit '\uff12' as 2, where C's strtod (trec_eval) reads 1 and nothing
    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "run", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    refused(["eval", q, r, "-m", "nDCG@10", *args], 2, words)


def test_metric_parameters_in_digits_only(tmp_path):
    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "run", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    for name, words in [("P@\uff15", "cutoff '\uff15' is not a whole number"),
                        ("nDCG(log_base=1_0)@3", "log_base must be a number greater than 1 or 'e', not '1_0'"),
                        ("RBP(p=\uff10.8)", "p must be a number, not '\uff10.8'"),
                        ("ndcg_cut.\uff15", "cannot read '\uff15' as the parameters of trec_eval's ndcg_cut")]:
        with pytest.raises(UsageError, match=re.escape(words)):
            rm.evaluate(q, r, [name])
    refused(["macros", "--dialect", ""], 2, "--dialect takes a value, not an empty one")


def test_csv_quotes_that_do_not_pair_up_are_refused(tmp_path):
    # DuckDB reads 'q1,"a,1' as the item '"a' (with the line's three fields), and '"a"x' as '"a"x': the judged
    # item a then matched nothing, P@1 0 where a, ranked first and relevant, gives 1. Python's csv (strict) refuses
    # both; the plain route and the route of named columns say so
    run = write(tmp_path, "run.csv", "query_id,item_id,score\nq1,a,2\nq1,b,1\n")
    for body, why in [('q1,"a,1\nq1,b,0\n', "unexpected end of data"), ('q1,"a"x,1\nq1,b,0\n', "',' expected after")]:
        q = write(tmp_path, "q.csv", "query_id,item_id,relevance\n" + body)
        refused(["eval", q, run, "-m", "P@1"], 1, f"{q}, line 2: the quotes of a field do not pair up ({why}")
        q = write(tmp_path, "q2.csv", "qq,item_id,relevance\n" + body)
        refused(["eval", q, run, "-m", "P@1", "--query-column", "qq"], 1,
                f"{q}, line 2: the quotes of a field do not pair up ({why}")
    # quotes that pair up: the items 'a"b' (grade 1, score 1) and 'b,c' (grade 0, score 2): P@1 0, P@2 1/2
    q = write(tmp_path, "q.csv", 'query_id,item_id,relevance\nq1,"a""b",1\nq1,"b,c",0\n')
    r = write(tmp_path, "r.csv", 'query_id,item_id,score\nq1,"a""b",1\nq1,"b,c",2\n')
    assert rm.evaluate(q, r, ["P@1", "P@2"]) == {"P@1": 0.0, "P@2": 0.5}


def test_closed_standard_streams_are_named(tmp_path):
    # with standard output or input closed (>&-, <&-) Python's sys.stdout / sys.stdin are None: the command line
    # said "AttributeError: 'NoneType' object has no attribute 'isatty'"
    import shlex
    import subprocess
    import sys
    q = write(tmp_path, "q", QRELS)
    r = write(tmp_path, "run", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    me = f"{shlex.quote(sys.executable)} -m rankmetrics_duckdb eval {shlex.quote(q)}"
    for command, words in [(f"{me} {shlex.quote(r)} -m P@1 >&-", "standard output is closed: name a file with -o"),
                           (f"{me} - -m P@1 <&-", "'-' reads standard input, which is closed")]:
        p = subprocess.run(["bash", "-c", command], capture_output=False, stderr=subprocess.PIPE, text=True)
        assert p.returncode == 2 and p.stderr == f"rankmetrics: error: {words}\n", p.stderr
    # with -o the output goes to the file: a relevant, ranked first, P@1 = 1
    out = tmp_path / "out.txt"
    p = subprocess.run(["bash", "-c", f"{me} {shlex.quote(r)} -m P@1 -o {shlex.quote(str(out))} >&-"])
    assert p.returncode == 0 and out.read_text().split() == ["P@1", "all", "1.0000"]


def test_a_side_table_csv_with_both_line_ends_is_read(tmp_path):
    # CRLF and LF lines in one interactions file: DuckDB's sniffer refused it ("Error when sniffing file"), as it
    # did the run's and judgments' CSV before. Training: u1 took a, u2 took c (2 users); u1's run a, c: each item
    # taken by 1 of 2 users, -log2(1/2) = 1 each, mean 1. A ragged row is named as for the judgments
    q = write(tmp_path, "q.csv", "query_id,item_id,relevance\nu1,a,1\n")
    r = write(tmp_path, "r.csv", "query_id,item_id,score\nu1,a,1\nu1,c,0.5\n")
    inter = write(tmp_path, "inter.csv", "user_id,item_id\r\nu1,a\nu2,c\r\n")
    assert rm.evaluate(q, r, ["MeanInvUserFreq@10"], interactions=inter) == {"MeanInvUserFreq@10": 1.0}
    write(tmp_path, "inter.csv", "user_id,item_id\r\nu1,a,x\nu2,c\r\n")
    refused(["eval", q, r, "-m", "MeanInvUserFreq@10", "--interactions", inter], 1,
            f"{inter}, line 2: 3 fields where the header has 2 (user_id, item_id)")


def test_a_line_beyond_duckdbs_longest_is_named(tmp_path):
    # a 3 MB item id: DuckDB's reader stops at 2,000,000 bytes a line, and its message "CSV Error on Line: 1"
    # named the first line of a CSV file whatever line it was; Python's csv module (explaining a CSV fault) raised
    # "field larger than field limit" naming no file
    q = write(tmp_path, "q", QRELS)
    long = "a" * 3_000_000
    for name, text, line in [("run", f"1 Q0 b 1 2 t\n1 Q0 {long} 2 1 t\n", 2),
                             ("run.csv", f"query_id,item_id,score\n1,b,2\n1,c,1\n1,{long},0\n", 4)]:
        r = write(tmp_path, name, text)
        message = refused(["eval", q, r, "-m", "P@1"], 1, f"{r}, line {line}: ")
        assert message.endswith(" bytes long, beyond the longest line DuckDB reads (2,000,000 bytes)"), message


def test_a_missing_number_beside_whole_number_ids_is_named():
    # whole-number ids (int64) and a NaN score: the message row was built as a list of the ids and the text of the
    # value, which DuckDB could not type ("Cannot deduce template type 'T'"), where text ids got the clear line
    qrels = pd.DataFrame({"query_id": [1, 1], "item_id": [10, 11], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": [1, 1], "item_id": [10, 11], "score": [2.0, float("nan")]})
    py_refused(InputError, r"score missing \(NULL or NaN\) for query 1, item 11", qrels, run, ["map"])
    graded = pd.DataFrame({"query_id": [1, 1], "item_id": [10, 11], "relevance": [1.0, float("nan")]})
    py_refused(InputError, r"relevance missing \(NULL or NaN\) for query 1, item 11", graded,
               run.fillna(1.0), ["map"])


@pytest.mark.parametrize("value", [2.0, ("a", "b")], ids=["float", "tuple"])
def test_a_float_or_tuple_among_object_ids_is_refused(value):
    # an object column of ids holding 2.0 was read as the item '2.0', which matched the judged item 2 nowhere:
    # num_rel_ret 0 and map 0 (by hand 1 and 0.5: item 2 relevant at rank 1 of 2 relevant), with no word
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": [2, 3], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": pd.Series([value, "x"], dtype=object),
                        "score": [2.0, 1.0]})
    py_refused(InputError, f"the item_id column holds {re.escape(repr(value))} .* among its ids", qrels, run, ["map"])
    clean = run.assign(item_id=pd.Series([2, "x"], dtype=object))  # a whole number and text: the ids 2 and x
    assert rm.evaluate(qrels, clean, ["map", "num_rel_ret"]) == {"map": 0.5, "num_rel_ret": 1.0}


def test_a_column_named_twice_but_for_case_or_twice_in_a_relation_is_refused():
    # score and Score in a frame, or two score columns of a DuckDB relation: the first was read with no word
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": ["a", "b"], "score": [1.0, 2.0], "Score": [2.0, 1.0]})
    py_refused(InputError, "pandas DataFrame: column Score appears twice; name each column once", qrels, run,
               ["recip_rank"])
    con = duckdb.connect()
    rel = con.sql("SELECT 'q1' AS query_id, 'a' AS item_id, 1.0 AS score, -1.0 AS score "
                  "UNION ALL SELECT 'q1', 'b', 2.0, -2.0")
    py_refused(InputError, "DuckDB relation: column score appears twice; name each column once", qrels, rel,
               ["recip_rank"])
