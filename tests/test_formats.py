"""The same data in every input format gives IDENTICAL numbers (==, per query and mean), and every output format
holds the same rows. Inputs: TREC text, CSV and TSV with a header, Parquet, gzip of the text forms, pandas,
polars, pyarrow, DuckDB relations and table names; rows shuffled too (DuckDB adds floating-point terms in the
order rows arrive; see rankmetrics_duckdb/determinism.py)."""
import csv
import gzip
import io
import json
import math
import os

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import synthetic
from conftest import TREC, cli
from rankmetrics_duckdb import Evaluation, compare

METRICS = ["map", "ndcg_cut_10", "ndcg", "P_10", "recip_rank", "bpref", "Rprec", "ERR@20", "rbp", "recall_100",
           "dcg@10", "num_rel_ret", "Judged@10"]


def read_trec(qrels_path, run_path):
    q = pd.read_csv(qrels_path, sep=r"\s+", header=None, names=["query_id", "iter", "item_id", "relevance"],
                    dtype={"query_id": str, "item_id": str})
    r = pd.read_csv(run_path, sep=r"\s+", header=None, usecols=range(6),
                    names=["query_id", "q0", "item_id", "rank", "score", "tag"], dtype={"query_id": str, "item_id": str})
    return q[["query_id", "item_id", "relevance"]], r[["query_id", "item_id", "rank", "score"]]


def write_all(q: pd.DataFrame, r: pd.DataFrame, folder) -> dict:
    """{kind: (judgments path, run path)} for every file format, rows shuffled differently in each."""
    out = {}
    for n, kind in enumerate(("trec", "trec.gz", "csv", "csv.gz", "tsv", "tsv.gz", "parquet")):
        qs = q.sample(frac=1, random_state=n)
        rs = r.sample(frac=1, random_state=100 + n)
        paths = []
        for name, frame in (("qrels", qs), ("run", rs)):
            path = os.path.join(folder, f"{name}.{kind}")
            base = kind.replace(".gz", "")
            if base == "trec":
                if name == "qrels":
                    text = "".join(f"{a} 0 {b} {c}\n" for a, b, c in frame.itertuples(index=False))
                else:
                    text = "".join(f"{a}\tQ0\t{b}\t{c}\t{d!r}\ttag\n" for a, b, c, d in frame.itertuples(index=False))
            elif base in ("csv", "tsv"):
                buf = io.StringIO()
                frame.to_csv(buf, sep="," if base == "csv" else "\t", index=False, float_format=None)
                text = buf.getvalue()
            if base == "parquet":
                pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
            elif kind.endswith(".gz"):
                with gzip.open(path, "wt") as fh:
                    fh.write(text)
            else:
                with open(path, "w") as fh:
                    fh.write(text)
            paths.append(path)
        out[kind] = tuple(paths)
    return out


def identical(a, b):
    assert a.keys() == b.keys()
    for m in a:
        assert a[m].keys() == b[m].keys(), m
        for q in a[m]:
            x, y = a[m][q], b[m][q]
            assert x == y or (math.isnan(x) and math.isnan(y)), (m, q, x, y)


def rows(judgments, run, con=None, **convention):
    """{measure: {query_id, or None for the mean: value}} from one evaluation (per query and means)."""
    ev = Evaluation(judgments, run, METRICS, con=con, **convention)
    try:
        out = {}
        for m, q, v in ev.rows():
            out.setdefault(m, {})[q] = v
        return out
    finally:
        ev.close()


def trec_eval_collection():
    return read_trec(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"))


def synthetic_collection():
    """Tied scores, unjudged items, judged queries missing from the run and run queries missing from the
    judgments (tests/synthetic.py)."""
    qrels, run = synthetic.make(seed=21, queries=40, depth=80)
    qt, rt = synthetic.to_tables(qrels, run)
    r = rt.to_pandas()
    r.insert(2, "rank", r.groupby("query_id")["score"].rank(method="first", ascending=False).astype(int))
    return qt.to_pandas(), r[["query_id", "item_id", "rank", "score"]]


@pytest.mark.parametrize("collection, conventions", [
    (trec_eval_collection, [{}]),
    # the default, scikit-learn's tie-averaged DCG (a window sum over tied items), and every query kept with
    # the run's own order and NaN for queries without relevant items
    (synthetic_collection, [{}, {"convention": "sklearn"},
                            {"ties": "input", "empty": "nan", "queries": "all", "rel": 2}]),
])
def test_every_input_kind_gives_identical_numbers(tmp_path, collection, conventions):
    q, r = collection()
    files = write_all(q, r, str(tmp_path))
    inputs = dict(files)
    inputs["pandas"] = (q.sample(frac=1, random_state=1), r.sample(frac=1, random_state=2))
    inputs["polars"] = (pl.from_pandas(q), pl.from_pandas(r.iloc[::-1]))
    inputs["pyarrow"] = (pa.Table.from_pandas(q, preserve_index=False),
                         pa.Table.from_pandas(r.sample(frac=1, random_state=3), preserve_index=False))
    con = duckdb.connect()
    con.register("q_frame", q)
    con.register("r_frame", r)
    con.execute("CREATE TABLE my_qrels AS SELECT * FROM q_frame ORDER BY item_id DESC")
    con.execute("CREATE TABLE my_run AS SELECT query_id AS qid, item_id AS docno, rank, score FROM r_frame "
                "ORDER BY score")
    inputs["relation"] = (con.sql("SELECT * FROM my_qrels"), con.sql("SELECT * FROM my_run ORDER BY docno"))
    for convention in conventions:
        want = rows(*files["trec"], **convention)
        assert all(None in v for v in want.values())
        for kind, (jq, jr) in inputs.items():
            identical(rows(jq, jr, **convention), want)
        identical(rows("my_qrels", "my_run", con=con, **convention), want)


def test_cli_file_kinds_give_identical_output(tmp_path):
    q, r = read_trec(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"))
    files = write_all(q, r, str(tmp_path))
    outs = {kind: json.loads(cli("eval", jq, jr, "-m", "map", "-m", "bpref", "-m", "ndcg", "-q", "--format",
                                 "json").stdout) for kind, (jq, jr) in files.items()}
    assert all(v == outs["trec"] for v in outs.values())
    # and compare, with each run in another format
    rows = {kind: json.loads(cli("compare", files["trec"][0], files["trec"][1], jr, "-m", "map", "-m", "bpref",
                                 "--format", "json").stdout) for kind, (_, jr) in files.items()}
    for kind, rs in rows.items():
        assert [x["mean"] for x in rs] == [x["mean"] for x in rows["trec"]], kind
        assert all(x["delta"] in (None, 0.0) for x in rs)  # the same run in another format: no difference


def test_compare_mixed_input_kinds(tmp_path):
    q, r = read_trec(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.trunc"))
    base = os.path.join(TREC, "results.test")
    want = compare(os.path.join(TREC, "qrels.test"), [base, os.path.join(TREC, "results.trunc")], ["map", "P@10"],
                   queries="judged")
    got = compare(pl.from_pandas(q), {os.path.join(TREC, "results.test"): base,
                                      os.path.join(TREC, "results.trunc"): pa.Table.from_pandas(r)},
                  ["map", "P@10"], queries="judged")
    assert got == want


def test_eval_output_formats(tmp_path):
    Q, R = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    args = ["eval", Q, R, "-m", "map", "-m", "ndcg_cut_10", "-m", "num_ret", "-q"]
    rows = json.loads(cli(*args, "--format", "json").stdout)
    assert rows[0] == {"measure": "map", "query_id": "301", "value": rows[0]["value"], "aggregate": False}
    # the command line keeps trec_eval's 'all' for the mean rows, marked aggregate (out.test: map 0.1785)
    assert {"measure": "map", "query_id": "all", "value": pytest.approx(0.1785, abs=5e-5), "aggregate": True} in rows
    assert all(x["aggregate"] == (x["query_id"] == "all") for x in rows)  # no query of this run is named 'all'
    parsed = list(csv.reader(io.StringIO(cli(*args, "--format", "csv").stdout)))
    assert parsed[0] == ["measure", "query_id", "value", "aggregate"]
    assert [(m, qid, float(v), a == "true") for m, qid, v, a in parsed[1:]] == \
        [(x["measure"], x["query_id"], x["value"], x["aggregate"]) for x in rows]
    table = cli(*args, "--format", "table").stdout.splitlines()
    assert len({len(line) for line in table}) == 1  # aligned columns, right-aligned values
    assert [line.split() for line in table[2:]] == [[x["measure"], x["query_id"], f"{x['value']:.4f}"] for x in rows]
    # trec_eval's own output for this run: map 0.1785, num_ret 1500 (out.test)
    trec = cli(*args).stdout
    assert "map                   \tall\t0.1785" in trec and "num_ret               \tall\t1500" in trec
    for ext in ("json", "csv", "parquet"):
        target = tmp_path / f"out.{ext}"
        cli(*args, "-o", str(target))
        if ext == "json":
            got = json.loads(target.read_text())
        elif ext == "csv":
            got = [{"measure": m, "query_id": qid, "value": float(v), "aggregate": a == "true"} for m, qid, v, a in
                   list(csv.reader(io.StringIO(target.read_text())))[1:]]
        else:
            got = pq.read_table(target).to_pylist()
        assert got == rows, ext
    # in Python the mean's query_id is missing (None; pandas: NaN or None, isna() either way)
    python_rows = [{"measure": x["measure"], "query_id": None if x["aggregate"] else x["query_id"], "value": x["value"]}
                   for x in rows]
    ev = Evaluation(Q, R, ["map", "ndcg_cut_10", "num_ret"])
    try:
        table = ev.to_arrow()
        assert table.column_names == ["measure", "query_id", "value"] and table.to_pylist() == python_rows
        df = ev.to_pandas()
        assert df.query_id.isna().tolist() == [x["query_id"] is None for x in python_rows]
        assert df.assign(query_id=df.query_id.astype(object).where(df.query_id.notna(), None)).to_dict("records") \
            == python_rows
    finally:
        ev.close()


def test_ordered_sum_skips_zeros_with_the_same_bits():
    """determinism.ordered sorts only the non-zero terms of a grouped SUM; the result must be the value-ordered sum
    of all terms, computed here in plain Python (sum of the sorted values), whatever the row order, and exactly 0
    or NULL when no term is non-zero."""
    import random
    import sqlglot
    from rankmetrics_duckdb import determinism
    rng = random.Random(7)
    terms = {"a": [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(300)] + [0.0] * 200 + [None] * 5,
             "b": [0.0, 0.0, None], "c": [None, None], "d": [1e16, 1.0, -1e16, 0.0, 3.0]}
    query = determinism.ordered(sqlglot.parse_one("SELECT t.g, SUM(t.x * 1.0) AS s FROM t GROUP BY t.g",
                                                  read="duckdb")).sql(dialect="duckdb")
    assert "FILTER" in query and "ORDER BY" in query
    rows = [(g, x) for g, xs in terms.items() for x in xs]
    for seed in range(3):
        random.Random(seed).shuffle(rows)
        con = duckdb.connect()
        con.execute("CREATE TABLE t (g VARCHAR, x DOUBLE)")
        con.executemany("INSERT INTO t VALUES (?, ?)", rows)
        got = dict(con.execute(query).fetchall())
        for g, xs in terms.items():
            values = sorted(x for x in xs if x is not None)
            expected = None if not values else sum(values)  # left to right, in value order
            assert got[g] == expected and (expected is None or math.copysign(1, got[g]) == math.copysign(1, expected))
