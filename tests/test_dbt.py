"""The dbt package (issue 16): `rankmetrics dbt -o DIR` generates it; an integration project (seeds from
datasets/, a model per metric call) installs it with `dbt deps` and runs `dbt build` on dbt-duckdb and on
dbt-postgres (the PostgreSQL server of tests/engines.py). Every value the models produce equals pytrec_eval's
(trec_eval's conventions) or `rankmetrics eval`'s under the same convention, to 1e-9, per query: with the
defaults, another gain, another preset, and other column names.

dbt-core is pinned below 1.12 in the test extra: 1.12's dependency dbt-core-experimental-parser downloads a
wheel while it is built, which fails without network; 1.11 installs offline.
"""
from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import pytrec_eval

import engines
import rankmetrics_duckdb as rm
from conftest import DATA, TREC, cli

# model name -> (the macro call, the measure for `rankmetrics eval`, the convention, the tables as (run, qrels))
MODELS = {
    "ndcg_10": ("rankmetrics.ndcg(ref('run'), ref('qrels'), k=10)", "nDCG@10", "trec_eval", "trec"),
    "ap": ("rankmetrics.ap(ref('run'), ref('qrels'))", "AP", "trec_eval", "trec"),
    "p_5": ("rankmetrics.precision(ref('run'), ref('qrels'), k=5)", "P@5", "trec_eval", "trec"),
    "rr": ("rankmetrics.rr(ref('run'), ref('qrels'))", "RR", "trec_eval", "trec"),
    "ndcg_exp_10": ("rankmetrics.ndcg(ref('run'), ref('qrels'), k=10, gain='exponential')", "nDCG@10",
                    "trec_eval:exponential", "trec"),
    "recall_100_ranx": ("rankmetrics.recall(ref('run'), ref('qrels'), k=100, preset='ranx')", "R@100", "ranx",
                        "trec"),
    "ndcg_10_users": ("rankmetrics.ndcg(ref('recs'), ref('labels'), k=10, query_column='user_id', "
                      "item_column='movie_id', score_column='pred', relevance_column='rating')", "nDCG@10",
                      "trec_eval", "warehouse"),
}
# pytrec_eval's (measure, result key) for the models under trec_eval's conventions
PYTREC = {"ndcg_10": ("ndcg_cut.10", "ndcg_cut_10"), "ap": ("map", "map"), "p_5": ("P.5", "P_5"),
          "rr": ("recip_rank", "recip_rank"), "ndcg_10_users": ("ndcg_cut.10", "ndcg_cut_10")}


def _dbt() -> str:
    path = os.path.join(os.path.dirname(sys.executable), "dbt")
    if not os.path.exists(path):
        path = shutil.which("dbt")
    assert path, "dbt is not installed: pip install -e '.[test]' installs dbt-core, dbt-duckdb and dbt-postgres"
    return path


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _trec_rows(kind):
    rows = []
    with open(os.path.join(TREC, "qrels.test" if kind == "qrels" else "results.test")) as fh:
        for line in fh:
            f = line.split()
            if f:
                rows.append((f[0], f[2], f[3]) if kind == "qrels" else (f[0], f[2], f[4]))
    return rows


def _warehouse_rows():
    recs = pq.read_table(os.path.join(DATA, "warehouse", "recs.parquet")).to_pylist()
    labels = pq.read_table(os.path.join(DATA, "warehouse", "labels.parquet")).to_pylist()
    model = sorted({(r["model_version"], r["segment"]) for r in recs})[0]
    recs = [(r["user_id"], r["movie_id"], r["pred"]) for r in recs if (r["model_version"], r["segment"]) == model]
    return recs, [(r["user_id"], r["movie_id"], r["rating"]) for r in labels]


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The package, generated once by the command line."""
    root = tmp_path_factory.mktemp("dbt")
    cli("dbt", "-o", str(root / "rankmetrics"))
    return root


@pytest.fixture(scope="module")
def project(package):
    """The integration project beside the package, its seeds written, `dbt deps` run."""
    root = package
    proj = root / "integration_tests"
    (proj / "seeds").mkdir(parents=True)
    (proj / "models").mkdir()
    _write_csv(proj / "seeds" / "run.csv", ["query_id", "item_id", "score"], _trec_rows("run"))
    _write_csv(proj / "seeds" / "qrels.csv", ["query_id", "item_id", "relevance"], _trec_rows("qrels"))
    recs, labels = _warehouse_rows()
    _write_csv(proj / "seeds" / "recs.csv", ["user_id", "movie_id", "pred"], recs)
    _write_csv(proj / "seeds" / "labels.csv", ["user_id", "movie_id", "rating"], labels)
    (proj / "dbt_project.yml").write_text(
        "name: 'integration_tests'\nversion: '1.0'\nconfig-version: 2\nprofile: 'integration_tests'\n"
        "seeds:\n  integration_tests:\n"
        "    run:\n      +column_types: {query_id: varchar(64), item_id: varchar(64)}\n"
        "    qrels:\n      +column_types: {query_id: varchar(64), item_id: varchar(64)}\n"
        "models:\n  integration_tests:\n    +materialized: table\n")
    (proj / "packages.yml").write_text("packages:\n  - local: ../rankmetrics\n")
    for name, (call, *_rest) in MODELS.items():
        (proj / "models" / f"{name}.sql").write_text("{{ " + call + " }}\n")
    pg = engines.Postgres()
    (proj / "profiles.yml").write_text(
        "integration_tests:\n  target: duckdb\n  outputs:\n"
        f"    duckdb:\n      type: duckdb\n      path: '{root / 'warehouse.duckdb'}'\n      threads: 1\n"
        f"    postgres:\n      type: postgres\n      host: '{pg.tmp}'\n      port: {pg.port}\n      user: postgres\n"
        "      password: ''\n      dbname: postgres\n      schema: rm_dbt\n      threads: 1\n")
    env = {**os.environ, "DBT_PROFILES_DIR": str(proj), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "DBT_USE_COLORS": "false"}
    _run([_dbt(), "deps"], proj, env)
    yield proj, env, root, pg
    pg.close()


def _run(args, cwd, env, check=True):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(args[1:])} exited {p.returncode}:\n{p.stdout[-4000:]}{p.stderr[-2000:]}")
    return p


def _expected(name):
    """{query_id: value} of a model, from pytrec_eval (trec_eval's conventions) and from `rankmetrics eval`."""
    _call, measure, convention, tables = MODELS[name]
    if tables == "trec":
        run = {}
        for q, d, s in _trec_rows("run"):
            run.setdefault(q, {})[d] = float(s)
        qrels = {}
        for q, d, r in _trec_rows("qrels"):
            qrels.setdefault(q, {})[d] = int(r)
    else:
        recs, labels = _warehouse_rows()
        run, qrels = {}, {}
        for q, d, s in recs:
            run.setdefault(str(q), {})[str(d)] = float(s)
        for q, d, r in labels:
            qrels.setdefault(str(q), {})[str(d)] = int(r)
    import pyarrow as pa
    jt = pa.table({"query_id": [q for q in qrels for _ in qrels[q]], "item_id": [d for q in qrels for d in qrels[q]],
                   "relevance": [r for q in qrels for r in qrels[q].values()]})
    rt = pa.table({"query_id": [q for q in run for _ in run[q]], "item_id": [d for q in run for d in run[q]],
                   "score": [s for q in run for s in run[q].values()]})
    preset, _, gain = convention.partition(":")
    ours = rm.evaluate(jt, rt, [measure], per_query=True, convention=preset,
                       **({"gain": gain} if gain else {}))[measure]
    ours = {q: v for q, v in ours.items() if q is not None}
    if name in PYTREC:
        measure_set, key = PYTREC[name]
        ref = pytrec_eval.RelevanceEvaluator(qrels, {measure_set}).evaluate(run)
        assert {q: v[key] for q, v in ref.items()} == pytest.approx(ours, abs=1e-9), name
    return ours


@pytest.mark.parametrize("target", ["duckdb", "postgres"])
def test_dbt_build_gives_evals_numbers(project, target):
    proj, env, root, pg = project
    _run([_dbt(), "build", "--target", target], proj, env)
    for name in MODELS:
        if target == "duckdb":
            import duckdb
            con = duckdb.connect(str(root / "warehouse.duckdb"), read_only=True)
            try:
                rows = con.execute(f"SELECT query_id, value FROM main.{name}").fetchall()
            finally:
                con.close()
        else:
            rows = pg.rows(f"SELECT query_id, value FROM rm_dbt.{name}")
        got = {str(q): float(v) for q, v in rows}
        want = _expected(name)
        assert len(want) >= 3 and any(v > 0 for v in want.values()), name  # a real comparison, not of nothing
        assert got == pytest.approx(want, abs=1e-9), (target, name)


# --- every adapter's SQL on a real engine, or read back into DuckDB --------------------------------------------

def _literal(adapter):
    """rankmetrics.literal of the package (macros/_rankmetrics.sql), for rendering an implementation here."""
    def lit(v):
        if v is None:
            return "NULL"
        if v is True or v is False:
            return ("1" if v else "0") if adapter == "sqlserver" else ("TRUE" if v else "FALSE")
        if isinstance(v, str):
            v = v.replace("\\", "\\\\") if adapter == "mysql" else v
            return ("N" if adapter == "sqlserver" else "") + "'" + v.replace("'", "''") + "'"
        return repr(v)
    return lit


def _implementation(package, adapter, macro):
    """The macro's implementation for adapter as a Jinja macro (following a pointer to another adapter's)."""
    import jinja2
    text = (package / "rankmetrics" / "macros" / f"{macro}.sql").read_text()
    env = jinja2.Environment()
    pointer = re.search(r"{%% macro %s__%s\(.*?%%}\s*{{ return\(rankmetrics\.(\w+)__%s\(" % (adapter, macro, macro),
                        text)
    if pointer:
        adapter = pointer.group(1)
    module = env.from_string(text, globals={"rankmetrics": type("R", (), {"literal": staticmethod(_literal(adapter))}),
                                            "exceptions": None, "adapter": None}).module
    return getattr(module, f"{adapter}__{macro}")


ARGS = dict(k=10, gain="linear", rel=1, log_base=2, ideal="judgments", ties="item_desc", judged_only=False,
            queries="both", empty="zero", grades="truncate", query_column="user_id", item_column="movie_id",
            score_column="pred", rank_column=None, relevance_column="rating")


@pytest.mark.parametrize("adapter", [a for a, _ in __import__("rankmetrics_duckdb.dbt").dbt.adapters()])
def test_every_adapter_sql_gives_evals_numbers(package, adapter):
    """Each adapter's nDCG@10, filled in as dbt would, on warehouse-named tables of the adapter's engine (a real
    one where tests/engines.py has it, else read back into DuckDB): the numbers of `rankmetrics eval`."""
    import pyarrow as pa
    from rankmetrics_duckdb import dbt
    dialect = dict(dbt.adapters())[adapter].name
    recs, labels = _warehouse_rows()
    e = engines.start(dialect)
    try:
        run = e.load("d_recs", pa.table({"user_id": [str(r[0]) for r in recs], "movie_id": [str(r[1]) for r in recs],
                                         "pred": [float(r[2]) for r in recs]}))
        qrels = e.load("d_labels", pa.table({"user_id": [str(r[0]) for r in labels],
                                             "movie_id": [str(r[1]) for r in labels],
                                             "rating": [int(r[2]) for r in labels]}))
        if dialect in engines.READ_BACK:  # the names as the dialect writes them (BigQuery: a quoted project)
            import sqlglot
            run, qrels = (sqlglot.exp.to_table(t, dialect="duckdb").sql(dialect=dialect) for t in (run, qrels))
        sql = str(_implementation(package, adapter, "ndcg")(run=run, judgments=qrels, **ARGS))
        got = {str(q): float(v) for q, v in e.rows(sql)}
    finally:
        e.close()
    assert got == pytest.approx(_expected("ndcg_10_users"), abs=1e-9), adapter


def test_generated_macro_matches_its_golden_file(package):
    """The generated nDCG macro file, byte for byte (tests/golden/dbt_ndcg.sql; RANKMETRICS_REGEN_GOLDEN=1
    rewrites it: review the diff). Its adapters without an engine here are checked above by reading back."""
    golden = os.path.join(os.path.dirname(__file__), "golden", "dbt_ndcg.sql")
    text = (package / "rankmetrics" / "macros" / "ndcg.sql").read_text()
    if os.environ.get("RANKMETRICS_REGEN_GOLDEN"):
        with open(golden, "w") as fh:
            fh.write(text)
    with open(golden) as fh:
        assert text == fh.read()
    assert "{{ run }}" in text and "k=none" in text and "10" not in text.split("%}", 1)[0]  # nothing baked in


def test_unknown_preset_fails_the_compile(project):
    proj, env, root, pg = project
    bad = proj / "models" / "bad_preset.sql"
    bad.write_text("{{ rankmetrics.ndcg(ref('run'), ref('qrels'), preset='ranks') }}\n")
    try:
        p = _run([_dbt(), "compile", "--select", "bad_preset"], proj, env, check=False)
    finally:
        bad.unlink()
    assert p.returncode != 0 and "rankmetrics.ndcg: unknown preset 'ranks'" in p.stdout
