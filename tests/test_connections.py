"""rankmetrics' own connections (connections.py): each evaluation a cursor of one in-memory database kept for the
process. What one evaluation loads is never seen by another, evaluations in threads and in a forked child give
trec_eval's numbers, and a global setting changed for a while is set back. Numbers: trec_eval's own output."""
import os
import threading

import pytest

from rankmetrics_duckdb import Evaluation, connections, evaluate
from conftest import TREC, read_trec_output

QRELS, RUN = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")


def _want():
    out = read_trec_output(os.path.join(TREC, "out.test"))
    return {"map": out["map"]["all"], "P_10": out["P_10"]["all"]}


def _means():
    return evaluate(QRELS, RUN, ["map", "P_10"])


def test_each_connection_is_its_own():
    a, b = connections.private(), connections.private()
    try:
        a.execute("CREATE TEMP TABLE rm_mine AS SELECT 1 AS x")
        a.execute("SET enable_progress_bar = true")
        with pytest.raises(Exception, match="rm_mine"):
            b.execute("SELECT * FROM rm_mine")
        assert b.execute("SELECT current_setting('enable_progress_bar')").fetchall() == [(False,)]
    finally:
        a.close()
    assert connections.private().execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'rm_mine'"
                                         ).fetchall() == [(0,)]
    # the careful path's temporary tables (a file with a comment line) live on the evaluation's own cursor
    ev = Evaluation(QRELS, RUN, ["map"], one_statement=False)
    try:
        assert ev.path == "careful"
        mine = ev.con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall()[0][0]
        assert mine >= 2
        assert connections.private().execute("SELECT count(*) FROM duckdb_tables() WHERE temporary"
                                             ).fetchall() == [(0,)]
    finally:
        ev.close()


def test_evaluations_in_threads_give_trec_evals_numbers():
    want, got, errors = _want(), [], []

    def work():
        try:
            for _ in range(3):
                got.append(_means())
        except Exception as e:  # pragma: no cover - shown by the assertion
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors and len(got) == 12
    for means in got:
        assert means == pytest.approx(want, abs=5.1e-5)


FORK = """
import json, os, sys
from rankmetrics_duckdb import evaluate
means = lambda: evaluate(sys.argv[1], sys.argv[2], ["map", "P_10"])
parent = means()  # the parent's database exists, with its threads, before the fork
read, write = os.pipe()
pid = os.fork()
if pid == 0:  # the child evaluates, writes its means and exits as any script does (not os._exit)
    os.close(read)
    os.write(write, json.dumps(means()).encode())
    sys.exit(0)
os.close(write)
child = json.loads(os.read(read, 10000).decode())
_, status = os.waitpid(pid, 0)
print(json.dumps({"parent": parent, "child": child, "status": status}))
"""


def test_a_forked_child_evaluates_on_a_database_of_its_own_and_exits():
    """A child forked after an evaluation evaluates on a database of its own and exits normally: had it used, or
    closed at its exit, its parent's database, it would wait for the parent's threads, which it does not have."""
    import json
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", FORK, QRELS, RUN], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == 0
    assert out["parent"] == pytest.approx(_want(), abs=5.1e-5)
    assert out["child"] == pytest.approx(_want(), abs=5.1e-5)


def test_a_global_setting_is_set_back_under_threads(monkeypatch):
    """onepass._unsplit_windows turns an optimizer off (a setting of the database, seen by every cursor) for the
    parts of a large run; evaluations in parts in several threads leave it as found."""
    from rankmetrics_duckdb import onepass
    monkeypatch.setattr(onepass, "_parts", lambda *a, **k: 3)
    monkeypatch.setattr(onepass, "_parts_needed", lambda *a, **k: 3)
    import pyarrow as pa
    rows = [ln.split() for ln in open(RUN)][::-1]  # not in rank order: ranked by the sort, in parts
    run = pa.table({"query_id": [r[0] for r in rows], "item_id": [r[2] for r in rows],
                    "score": [float(r[4]) for r in rows]})
    qrows = [ln.split() for ln in open(QRELS)]
    qrels = pa.table({"query_id": [r[0] for r in qrows], "item_id": [r[2] for r in qrows],
                      "relevance": [float(r[3]) for r in qrows]})
    before = connections.private().execute("SELECT current_setting('disabled_optimizers')").fetchall()
    got, parts = [], []

    def work():
        ev = Evaluation(qrels, run, ["map"])
        got.append({m: v for m, q, v in ev.rows() if q is None})
        parts.append(ev.parts)
        ev.close()
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert parts == [3] * 4
    for means in got:
        assert means["map"] == pytest.approx(_want()["map"], abs=5.1e-5)
    assert connections.private().execute("SELECT current_setting('disabled_optimizers')").fetchall() == before


ENGINE_ONLY = """
import json, sys
import pyarrow as pa
from rankmetrics_duckdb import evaluate, relation
files = evaluate(sys.argv[1], sys.argv[2], ["map", "P_10"])
before = "duckdb" in sys.modules
# the run as an Arrow table: DuckDB scans one only once its Python module has set the scan up
rows = [line.split() for line in open(sys.argv[2])]
run = pa.table({"query_id": [r[0] for r in rows], "item_id": [r[2] for r in rows],
                "score": [float(r[4]) for r in rows]})
arrow = evaluate(sys.argv[1], run, ["map", "P_10"])
after = "duckdb" in sys.modules
lazy = {m: v for m, q, v in relation(sys.argv[1], sys.argv[2], ["map", "P_10"]).fetchall() if q is None}
print(json.dumps({"files": files, "before": before, "arrow": arrow, "after": after, "lazy": lazy}))
"""


def test_files_need_only_the_engine_and_the_rest_imports_duckdb_when_needed():
    """engine.py: a process that has not imported duckdb evaluates files on the engine alone (`_duckdb`; the
    duckdb module costs about 0.05 s to import), and what needs the module (an Arrow table's scan, a relation)
    imports it then and gives the same numbers. The tests' own process imports duckdb, so only a child can show
    it. Numbers: trec_eval's out.test."""
    import json
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-c", ENGINE_ONLY, QRELS, RUN], capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(TREC))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["before"] is False and out["after"] is True
    for key in ("files", "arrow", "lazy"):
        assert out[key] == pytest.approx(_want(), abs=5.1e-5), key
