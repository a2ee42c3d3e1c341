"""`rankmetrics macros` run in a fresh DuckDB (no Python package involved in the SQL) gives the same per-query
values as `rankmetrics eval -q` for every metric macro and several conventions."""
import json
import os

import duckdb
import pytest

from conftest import TREC, cli

QRELS, RUN = os.path.join(TREC, "qrels.rel_level"), os.path.join(TREC, "results.test")

# (macro call, eval metric name, eval options)
CASES = [
    ("ndcg('run', 'qrels', 10)", "nDCG@10", []),
    ("ndcg('run', 'qrels')", "nDCG", []),
    ("ndcg('run', 'qrels', 10, gain := 'exponential')", "nDCG(gain=exponential)@10", []),
    ("ndcg('run', 'qrels', 5, ideal := 'retrieved', gain := 'exponential', empty := 'nan', queries := 'all')",
     "nDCG@5", ["--convention", "retrieved"]),
    ("dcg('run', 'qrels', 10, log_base := 10)", "DCG(log_base=10)@10", []),
    ("ap('run', 'qrels')", "AP", []),
    ("ap('run', 'qrels', 100, rel := 2)", "AP@100", ["-l", "2"]),
    ("ap('run', 'qrels', 10, denominator := 'capped')", "AP(denominator=capped)@10", []),
    ("\"precision\"('run', 'qrels', 10)", "P@10", []),
    ("recall('run', 'qrels', 100)", "R@100", []),
    ("f1('run', 'qrels', 20)", "F1@20", []),
    ("rr('run', 'qrels')", "RR", []),
    ("r_precision('run', 'qrels')", "Rprec", []),
    ("success('run', 'qrels', 5)", "Success@5", []),
    ("bpref('run', 'qrels', rel := 2)", "bpref", ["-l", "2"]),
    ("err('run', 'qrels', 20)", "ERR@20", []),
    ("rbp('run', 'qrels', p := 0.9)", "RBP(p=0.9)", []),
    ("judged('run', 'qrels', 10)", "Judged@10", []),
    ("num_rel_ret('run', 'qrels')", "NumRelRet", []),
    ("ap('run', 'qrels', judged_only := TRUE)", "AP", ["-J"]),
]


@pytest.fixture(scope="module")
def con():
    script = cli("macros").stdout
    c = duckdb.connect()
    c.execute(script)
    c.execute(f"CREATE TABLE qrels AS SELECT column0 AS query_id, column2 AS item_id, column3 AS relevance "
              f"FROM read_csv('{QRELS}', delim=' ', header=false)")
    c.execute(f"CREATE TABLE run AS SELECT column0 AS query_id, column2 AS item_id, column4 AS score "
              f"FROM read_csv('{RUN}', delim='\\t', header=false)")
    return c


@pytest.mark.parametrize("call,name,options", CASES, ids=[c[1] + " ".join(c[2]) for c in CASES])
def test_macro_equals_eval(con, call, name, options):
    rows = con.execute(f"SELECT CAST(query_id AS VARCHAR), value FROM {call}").fetchall()
    macro = {q: v for q, v in rows}
    out = json.loads(cli("eval", QRELS, RUN, "-m", name, "-q", "--format", "json", *options).stdout)
    evald = {r["query_id"]: r["value"] for r in out if not r["aggregate"]}
    assert set(macro) == set(evald)
    for q in evald:
        if evald[q] is None:
            assert macro[q] is None
        else:
            assert macro[q] == pytest.approx(evald[q], abs=1e-12), q


def test_register_creates_no_tables_or_views():
    from rankmetrics_duckdb import register
    c = duckdb.connect()
    register(c)
    assert c.execute("SELECT count(*) FROM duckdb_tables() WHERE NOT internal").fetchone()[0] == 0
    assert c.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0] == 0
    assert c.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'ndcg'").fetchone()[0] >= 1
