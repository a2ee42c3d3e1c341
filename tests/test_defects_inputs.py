"""Input and file defects of issue 13: each test reproduces a case as the issue describes it.

Expected numbers come from trec_eval's own output for its test data: map over qrels.test and results.test is
0.1785 (datasets/trec_eval/out.test, line 'map all 0.1785'); results.trunc, a truncated copy of the same run,
gives a different map, so reading the wrong file shows in the number."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankmetrics_duckdb as rm
from rankmetrics_duckdb.errors import InputError
from conftest import ROOT, TREC, read_trec_output

Q, R, TRUNC = (os.path.join(TREC, f) for f in ("qrels.test", "results.test", "results.trunc"))
MAP = read_trec_output(os.path.join(TREC, "out.test"))["map"]["all"]  # 0.1785, trec_eval's number
TIMEOUT = 60  # a regression that hangs (a FIFO read twice) fails instead of blocking the suite


def run_cli(*args, cwd=None, env=None, stdin=None, input=None):
    """The command line as a user runs it (python -m rankmetrics_duckdb), from cwd, with this worktree's code."""
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = ROOT + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", *args], cwd=cwd, env=full_env, stdin=stdin,
                          input=input, capture_output=True, text=True, timeout=TIMEOUT)


def map_of(stdout: str) -> float:
    """The value of the 'map all' line of trec output."""
    return next(float(line.split()[2]) for line in stdout.splitlines() if line.split()[:2] == ["map", "all"])


def sha(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def one_line(p, code, *words):
    """Exit code, one line on stderr naming every word, no traceback; returns the line."""
    assert p.returncode == code, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def trec_run_to_csv(src, dst):
    with open(src) as fh, open(dst, "w") as out:
        out.write("qid,docno,score\n")
        for line in fh:
            f = line.split()
            out.write(f"{f[0]},{f[2]},{f[4]}\n")


def trec_run_to_parquet(src, dst):
    with open(src) as fh:
        rows = [line.split() for line in fh if line.strip()]
    pq.write_table(pa.table({"query_id": [r[0] for r in rows], "item_id": [r[2] for r in rows],
                             "score": [float(r[4]) for r in rows]}), dst)


# ---- 1. a path names one file, never a glob pattern ----------------------------------------------------------
GLOBS = [("run[1]", "run1"), ("run*", "runX"), ("run?", "runY")]


@pytest.mark.parametrize("fmt", ["trec", "csv", "parquet"])
@pytest.mark.parametrize("name, decoy", GLOBS)
def test_file_path_with_glob_characters_reads_exactly_that_file(tmp_path, fmt, name, decoy):
    # the named file holds results.test (map 0.1785); a decoy the pattern would match holds results.trunc
    make = {"trec": shutil.copy, "csv": trec_run_to_csv, "parquet": trec_run_to_parquet}[fmt]
    make(R, tmp_path / name)
    make(TRUNC, tmp_path / decoy)
    p = run_cli("eval", Q, name, "-m", "map", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)
    # the careful path too (nan_scores last takes it for every format)
    p = run_cli("eval", Q, name, "-m", "map", "--nan-scores", "last", cwd=tmp_path)
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)
    # and the Python API on both paths
    got = rm.evaluate(Q, str(tmp_path / name), ["map"])
    assert got["map"] == pytest.approx(MAP, abs=5e-5)


def test_tilde_is_not_expanded(tmp_path):
    # a folder literally named '~' in the working directory: '~/x' names the file inside it, not $HOME/x
    os.mkdir(tmp_path / "~")
    shutil.copy(R, tmp_path / "~" / "x")
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(TRUNC, home / "x")
    env = dict(os.environ, HOME=str(home))
    p = run_cli("eval", Q, "~/x", "-m", "map", cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)


def test_compare_and_report_read_literal_paths(tmp_path):
    shutil.copy(R, tmp_path / "run[1]")
    shutil.copy(TRUNC, tmp_path / "run1")
    p = run_cli("compare", Q, "run[1]", "run[1]", "-m", "map", "--format", "json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["mean"] for r in rows] == pytest.approx([MAP, MAP], abs=5e-5)
    p = run_cli("report", Q, "run[1]", "run[1]", "-m", "map", "-o", "r.html", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    html = (tmp_path / "r.html").read_text()
    assert f"{MAP:.4f}" in html
    trunc = map_of(run_cli("eval", Q, TRUNC, "-m", "map").stdout)
    assert f"{trunc:.4f}" not in html  # the decoy's map (its own file read directly) is nowhere


# ---- 8. a failed table lookup leaves the caller's transaction alone -----------------------------------------
def test_missing_table_does_not_abort_the_callers_transaction():
    con = duckdb.connect()
    con.execute("CREATE TABLE x (v INTEGER)")
    con.execute("CREATE TABLE judgments AS SELECT * FROM (VALUES ('1', 'a', 1)) AS t(query_id, item_id, relevance)")
    con.execute("BEGIN")
    con.execute("INSERT INTO x VALUES (42)")
    with pytest.raises(InputError) as info:
        rm.evaluate("judgments", "runn", ["P@1"], con=con)
    assert str(info.value).startswith("runn:"), str(info.value)
    con.execute("COMMIT")
    assert con.execute("SELECT * FROM x").fetchall() == [(42,)]


def test_tables_are_found_by_the_names_duckdb_resolves():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA s")
    con.execute("CREATE TABLE s.j AS SELECT * FROM (VALUES ('1', 'a', 1), ('1', 'b', 0)) AS t(query_id, item_id, "
                "relevance)")
    con.execute("CREATE TEMP VIEW r AS SELECT * FROM (VALUES ('1', 'b', 2.0), ('1', 'a', 1.0)) AS t(query_id, "
                "item_id, score)")
    # P@1: the top item b is not relevant -> 0; AP: a relevant at rank 2 of 1 relevant -> 1/2
    assert rm.evaluate("s.j", "R", ["P@1", "AP"], con=con) == {"P@1": 0.0, "AP": 0.5}
    assert rm.evaluate("memory.s.j", "temp.r", ["AP"], con=con) == {"AP": 0.5}
    with pytest.raises(InputError, match="^j: no such file or table"):
        rm.evaluate("j", "r", ["AP"], con=con)  # s is not on the search path


# ---- 7. -o never names an input -------------------------------------------------------------------------------
def _copies(tmp_path):
    q, r = tmp_path / "myq", tmp_path / "myrun"
    shutil.copy(Q, q)
    shutil.copy(R, r)
    return str(q), str(r)


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "other-spelling"])
def test_output_naming_an_input_is_refused(tmp_path, how):
    q, r = _copies(tmp_path)
    target = {"same": r, "other-spelling": os.path.join(str(tmp_path), ".", "myrun")}.get(how)
    if how == "symlink":
        target = str(tmp_path / "link")
        os.symlink(r, target)
    elif how == "hardlink":
        target = str(tmp_path / "hard")
        os.link(r, target)
    before = sha(r)
    p = run_cli("eval", q, r, "-m", "map", "-o", target)
    one_line(p, 2, target, "input")
    assert sha(r) == before


def test_compare_and_report_output_naming_an_input_is_refused(tmp_path):
    q, r = _copies(tmp_path)
    before = (sha(q), sha(r))
    one_line(run_cli("compare", q, r, r, "-m", "map", "-o", q), 2, q, "input")
    one_line(run_cli("report", q, r, r, "-m", "map", "-o", r), 2, r, "input")
    assert (sha(q), sha(r)) == before


def test_output_in_a_missing_folder_says_so(tmp_path):
    target = str(tmp_path / "missingdir" / "x.json")
    line = one_line(run_cli("eval", Q, R, "-m", "map", "-o", target), 2, "missingdir", "does not exist")
    assert ".rankmetrics-" not in line  # not the internal temporary file
    one_line(run_cli("compare", Q, R, R, "-m", "map", "-o", target), 2, "missingdir", "does not exist")
    one_line(run_cli("report", Q, R, R, "-m", "map", "-o", target), 2, "missingdir", "does not exist")


# ---- 9. the spill folder of --memory-limit is removed when an evaluation fails --------------------------------
@pytest.mark.parametrize("bad", ["missing", "qrels-as-run"])
def test_memory_limit_spill_folder_removed_on_failure(tmp_path, bad):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    run = str(tmp_path / "nope") if bad == "missing" else Q
    p = run_cli("eval", Q, run, "-m", "map", "--memory-limit", "1GB", env=dict(os.environ, TMPDIR=str(tmp)))
    assert p.returncode == 1, p.stderr
    assert os.listdir(tmp) == []


def test_memory_limit_spill_folder_removed_on_success(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = run_cli("eval", Q, R, "-m", "map", "--memory-limit", "1GB", env=dict(os.environ, TMPDIR=str(tmp)))
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)
    assert os.listdir(tmp) == []


def test_an_evaluation_in_a_with_block_is_closed_at_its_end(tmp_path, monkeypatch):
    """`with Evaluation(...) as ev:` as `with prepare(...)`: its values inside (trec_eval's MAP for the suite's
    data), its spill folder gone after, and rows() then says it is closed rather than reading freed tables."""
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with rm.Evaluation(Q, R, ["AP"], memory_limit="1GB") as ev:
        assert len([n for n in os.listdir(tmp_path) if n.startswith("rankmetrics-spill-")]) == 1
        assert ev.rows()[-1][2] == pytest.approx(MAP, abs=5e-5)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("rankmetrics-spill-")]
    for read in (ev.rows, ev.relation, ev.to_arrow):
        with pytest.raises(rm.UsageError, match="this Evaluation is closed"):
            read()


def test_memory_limit_spill_folder_removed_when_never_closed(tmp_path):
    """An Evaluation or a prepare()d evaluation that is never closed removes its spill folder when it is collected,
    and when Python exits with it still alive (each suite run used to leave two empty folders in /tmp). Its numbers
    are pytrec_eval's on trec_eval's test data, as the run that closes gives them."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    script = (f"import gc, os, tempfile, rankmetrics_duckdb as rm\n"
              f"tempfile.tempdir = {str(tmp)!r}\n"
              f"ev = rm.Evaluation({Q!r}, {R!r}, ['AP'], memory_limit='1GB')\n"
              f"print(ev.rows()[-1][2], len(os.listdir({str(tmp)!r})))\n"
              f"del ev\n"
              f"gc.collect()\n"
              f"print(len(os.listdir({str(tmp)!r})))\n"
              f"kept = rm.prepare({Q!r}, {R!r}, memory_limit='1GB')\n"
              f"print(kept.evaluate(['AP'])['AP'], len(os.listdir({str(tmp)!r})))\n")  # kept alive to the exit
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [line.split() for line in p.stdout.splitlines()]
    assert [lines[0][1], lines[1][0], lines[2][1]] == ["1", "0", "1"]  # one folder while each lives, none after
    assert [float(lines[0][0]), float(lines[2][0])] == pytest.approx([MAP, MAP], abs=5e-5)  # 4 decimals
    assert os.listdir(tmp) == []  # the one alive at the exit removed too

# ---- 10. standard input and FIFOs are read once, fully; never a hang -------------------------------------------
def test_dash_reads_the_run_from_standard_input(tmp_path):
    with open(R) as fh:
        p = run_cli("eval", Q, "-", "-m", "map", stdin=fh)
    assert p.returncode == 0, p.stderr
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)
    with open(R) as fh:  # through a pipe, not a file
        p = run_cli("eval", Q, "-", "-m", "map", input=fh.read())
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)
    with open(Q) as fh:  # the judgments too
        p = run_cli("eval", "-", R, "-m", "map", input=fh.read())
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)


def test_dash_for_both_inputs_is_a_usage_error():
    one_line(run_cli("eval", "-", "-", "-m", "map", input=""), 2, "standard input")
    one_line(run_cli("compare", Q, "-", "-", "-m", "map", input=""), 2, "standard input")


def _fifo_with_writer(tmp_path, source):
    fifo = str(tmp_path / "f")
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", 'cat "$1" > "$2"', "sh", source, fifo])
    return fifo, writer


def test_fifo_input_is_read_once(tmp_path):
    fifo, writer = _fifo_with_writer(tmp_path, R)
    try:
        p = run_cli("eval", Q, fifo, "-m", "map")
    finally:
        writer.kill()
        writer.wait()
    assert p.returncode == 0, p.stderr
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)


def test_dev_stdin_on_a_pipe_and_fifo_in_python(tmp_path):
    with open(R) as fh:
        p = run_cli("eval", Q, "/dev/stdin", "-m", "map", input=fh.read())
    assert p.returncode == 0, p.stderr
    assert map_of(p.stdout) == pytest.approx(MAP, abs=5e-5)
    # the Python API on a FIFO, in a subprocess so that a hang fails by the timeout
    fifo, writer = _fifo_with_writer(tmp_path, Q)
    code = f"import rankmetrics_duckdb as rm; print(rm.evaluate({fifo!r}, {R!r}, ['map'])['map'])"
    try:
        p = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                           text=True, timeout=TIMEOUT)
    finally:
        writer.kill()
        writer.wait()
    assert p.returncode == 0, p.stderr
    assert float(p.stdout) == pytest.approx(MAP, abs=5e-5)


def test_bad_standard_input_is_named():
    one_line(run_cli("eval", Q, "-", "-m", "map", input=""), 1, "<stdin>", "empty")
    line = one_line(run_cli("eval", Q, "-", "-m", "map", input="1 Q0 a 1 x t\n"), 1, "<stdin>", "line 1",
                    "score 'x'")
    assert "rankmetrics-input-" not in line  # not the private copy


# ---- unclear messages: one line naming the real fault ----------------------------------------------------------
RUN3 = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n"


def put(folder, name, data):
    path = os.path.join(str(folder), name)
    with open(path, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize("char, named", [("\x0b", "vertical tab (U+000B)"), ("\xa0", "no-break space (U+00A0)")])
def test_odd_space_separator_is_named(tmp_path, char, named):
    # '1 0<char>b 0' splits on spaces into 3 fields: '1', '0<char>b', '0'
    q = put(tmp_path, "q", f"1 0 a 1\n1 0{char}b 0\n")
    r = put(tmp_path, "r", RUN3)
    line = one_line(run_cli("eval", q, r, "-m", "P@1"), 1, "line 2", "3 columns", "has 4", named)
    assert "4 columns where" not in line


@pytest.mark.parametrize("where", ["start", "beyond 64 KiB"])
def test_latin1_text_is_called_not_utf8(tmp_path, where):
    pad = "".join(f"1 0 pad{i} 0\n" for i in range(6000)) if where != "start" else ""  # 6000 lines > 64 KiB
    q = put(tmp_path, "q", pad.encode() + "1 0 caf\xe9 1\n1 0 b 0\n".encode("latin-1"))
    r = put(tmp_path, "r", RUN3)
    line = one_line(run_cli("eval", q, r, "-m", "P@1"), 1, f"line {pad.count(chr(10)) + 1}", "not UTF-8",
                    "0xE9")
    assert "binary" not in line


def test_ragged_csv_names_the_line(tmp_path):
    q = put(tmp_path, "q.csv", "query_id,item_id,relevance\n1,a,1\n1,b\n1,c,0\n")
    r = put(tmp_path, "r", RUN3)
    line = one_line(run_cli("eval", q, r, "-m", "P@1"), 1, "q.csv", "line 3", "2 fields", "header has 3")
    assert "sniffing" not in line


def test_csv_without_known_header_lists_the_columns_it_needs(tmp_path):
    q = put(tmp_path, "q.csv", "a,b,c\n1,a,1\n")
    r = put(tmp_path, "r", RUN3)
    line = one_line(run_cli("eval", q, r, "-m", "P@1"), 1, "q.csv", "header", "query_id", "item_id", "relevance",
                    "qid", "docno", "rel")
    assert "1 columns" not in line


def test_csv_with_crlf_and_lf_lines_is_read(tmp_path):
    """DuckDB's strict CSV reader refused a file with both line ends ("Error when sniffing file"), as concatenated
    exports have them; every row has the header's fields, so it is read, plain or gzip, judgments and run alike."""
    import gzip
    q = put(tmp_path, "q.csv", "query_id,item_id,relevance\r\n1,a,1\n1,b,0\r\n1,c,1\n2,a,1\r\n")
    r = put(tmp_path, "r.csv", "query_id,item_id,score\n1,a,3.0\r\n1,b,2.0\n1,c,1.0\r\n2,b,1.0\n")
    with open(q, "rb") as fh:
        gz = put(tmp_path, "q.csv.gz", gzip.compress(fh.read()))
    before = {p: open(p, "rb").read() for p in (q, r, gz)}
    # AP, query 1: a (1/1) and c (2/3) over 2 relevant = 0.8333; query 2 retrieves only b, not its relevant a: 0
    for judgments in (q, gz):
        p = run_cli("eval", judgments, r, "-m", "map", "-q")
        assert p.returncode == 0, p.stderr
        values = {f[1]: float(f[2]) for f in (ln.split() for ln in p.stdout.splitlines())}
        assert values == pytest.approx({"1": (1 + 2 / 3) / 2, "2": 0.0, "all": (1 + 2 / 3) / 4}, abs=5e-5)
    assert {p: open(p, "rb").read() for p in (q, r, gz)} == before
    # a row with a field too many is still named, not read past
    bad = put(tmp_path, "bad.csv", "query_id,item_id,relevance\r\n1,a,1\n1,b,0,7\r\n")
    one_line(run_cli("eval", bad, r, "-m", "P@1"), 1, "bad.csv", "line 3", "4 fields", "header has 3")


def test_crlf_and_lf_runs_with_a_comma_in_the_tag_are_read_alike(tmp_path):
    q = put(tmp_path, "q", "1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    # AP: relevant a at rank 1 (1/1) and c at rank 3 (2/3), over 2 relevant -> (1 + 2/3) / 2 = 0.8333
    lines = ["1 Q0 a 1 3.0 run,rank", "1 Q0 b 2 2.0 run,rank", "1 Q0 c 3 1.0 run,rank"]
    for end in ("\n", "\r\n"):
        r = put(tmp_path, "r", end.join(lines) + end)
        for extra in ([], ["--nan-scores", "last"]):  # both read paths
            p = run_cli("eval", q, r, "-m", "map", *extra)
            assert p.returncode == 0, (end, extra, p.stderr)
            assert map_of(p.stdout) == pytest.approx((1 + 2 / 3) / 2, abs=5e-5)


@pytest.mark.parametrize("where", ["start", "beyond 64 KiB"])
def test_nul_byte_is_refused_by_both_read_paths(tmp_path, where):
    q = put(tmp_path, "q", "1 0 a 1\n1 0 b 0\n")
    pad = "".join(f"1 Q0 pad{i} {i + 3} 0.5 t\n" for i in range(3000)) if where != "start" else ""
    r = put(tmp_path, "r", "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n" + pad + "1 Q0 c\x00x 3 0.1 t\n")
    line_no = 3 + pad.count("\n")
    for extra in ([], ["--nan-scores", "last"]):  # the one-statement path, then the careful path
        one_line(run_cli("eval", q, r, "-m", "P@1", *extra), 1, "r:", f"line {line_no}", "NUL")


@pytest.mark.parametrize("kind, column, value", [("run", "score", float("nan")), ("run", "score", float("inf")),
                                                  ("rank_run", "rank", float("nan")),
                                                  ("judgments", "relevance", float("nan"))])
def test_parquet_nan_is_refused_on_every_path(tmp_path, kind, column, value):
    """A NaN in a Parquet file: DuckDB 2.0 prunes Parquet row groups by their statistics, which leave NaN out, so
    a WHERE that looked for the row at fault found none, and the input passed with its NaN ranked first (P@1 1
    here, the NaN item d2 being the judged one). The count and the row named must both see it: refused, by
    evaluate() on both paths and by the CLI, naming the query and item."""
    run = {"query_id": ["q1", "q1"], "item_id": ["d1", "d2"]}
    run.update({"rank": [2.0, value]} if kind == "rank_run" else
               {"score": [1.0, value if kind == "run" else 0.5]})
    grades = [1.0, value] if kind == "judgments" else [1.0]
    qrels = {"query_id": ["q1"] * len(grades), "item_id": ["d2", "d1"][:len(grades)], "relevance": grades}
    pq.write_table(pa.table(run), tmp_path / "run.parquet")
    pq.write_table(pa.table(qrels), tmp_path / "qrels.parquet")
    where = "run.parquet" if kind != "judgments" else "qrels.parquet"
    message = (rf"{where}: {column} (nan|inf \(infinite, or too large for a double\)) for query q1, item d\d; every "
               rf"{column} must be a finite number")
    for one_statement in (True, False):
        with pytest.raises(InputError, match=message):
            rm.evaluate(str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), ["P@1"],
                        one_statement=one_statement)
    p = run_cli("eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet"), "-m", "P@1")
    assert p.returncode == 1 and re.search(message, p.stderr) and len(p.stderr.strip().splitlines()) == 1


def test_floating_point_id_columns_are_refused_by_their_type(tmp_path):
    """Ids are compared as text, and a float's text (2.0) is not the integer's (2): a run whose item ids became
    float64 (pandas, an integer column with a missing value) beside integer judgments matched nothing and gave
    P@2 0 for 0.5 (by hand: one of the two items, 2, is relevant), with no word. A FLOAT or DOUBLE id column is
    refused on every input kind, naming it; the same ids as integers give 0.5."""
    import pandas as pd
    judgments = pa.table({"query_id": ["u1"], "item_id": [2], "relevance": [1]})
    floats = pa.table({"query_id": ["u1", "u1"], "item_id": [1.0, 2.0], "score": [2.0, 1.0]})
    parquet = str(tmp_path / "run.parquet")
    pq.write_table(floats, parquet)
    message = r"the item_id column is DOUBLE: ids are compared as text, where 1.0 is not 1"
    for run in (floats, floats.to_pandas(), parquet):
        with pytest.raises(InputError, match=message):
            rm.evaluate(judgments, run, ["P@2"])
    with pytest.raises(InputError, match=r"the query_id column is FLOAT"):
        rm.evaluate(pa.table({"query_id": pa.array([1.0], pa.float32()), "item_id": ["a"], "relevance": [1]}),
                    pa.table({"query_id": ["1"], "item_id": ["a"], "score": [1.0]}), ["P@2"])
    assert rm.evaluate(judgments, pd.DataFrame({"query_id": ["u1", "u1"], "item_id": [1, 2], "score": [2.0, 1.0]}),
                       ["P@2"]) == {"P@2": 0.5}
    qrels = tmp_path / "qrels"
    qrels.write_text("u1 0 2 1\n")
    p = subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", "eval", str(qrels), parquet, "-m", "P@2"],
                       capture_output=True, text=True)
    assert p.returncode == 1 and p.stdout == "" and len(p.stderr.strip().splitlines()) == 1
    assert "run.parquet: the item_id column is DOUBLE" in p.stderr
    # the warehouse shapes too: other column names, group columns, lists of items
    for run, kw in ((pa.table({"user": ["u1", "u1"], "item_id": [1.0, 2.0], "score": [2.0, 1.0]}),
                     {"columns": {"query_id": "user"}}),
                    (floats.append_column("model", pa.array(["m", "m"])), {"by": ["model"]}),
                    (pa.table({"query_id": ["u1"], "item_id": [[1.0, 2.0]]}), {})):
        with pytest.raises(InputError, match=message):
            rm.evaluate(judgments, run, ["P@2"], **kw)
    assert rm.evaluate(judgments, pa.table({"query_id": ["u1"], "item_id": [[1, 2]]}), ["P@2"]) == {"P@2": 0.5}
    # a side table's ids too (RecTools' MeanInvUserFreq reads the training interactions' items)
    with pytest.raises(InputError, match=r"the interactions .*the item_id column is DOUBLE"):
        rm.evaluate(judgments, pa.table({"query_id": ["u1", "u1"], "item_id": [1, 2], "score": [2.0, 1.0]}),
                    ["MeanInvUserFreq@2"], interactions=pa.table({"user_id": ["a"], "item_id": [1.0]}),
                    convention="rectools")
