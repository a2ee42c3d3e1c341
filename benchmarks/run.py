"""Benchmark: rankmetrics against pytrec_eval and ranx on the same synthetic workload, in one run.

    python3 -m benchmarks.run                       # W2M (2,000 queries x 1,000 items) + 10M Parquet rows
    python3 -m benchmarks.run --scale 10M 100M      # add the 100M-row run (100,000 queries; a few minutes)
    python3 -m benchmarks.run --queries 20 --scale  # a tiny smoke run

Every measured engine runs in its own child process; wall time and peak RSS are those of that process
(os.wait4), so nothing one engine allocates counts against another. The peers are optional
(`pip install -e .[bench]`); missing ones are reported as such. Means are compared: rankmetrics (CLI and
in-process) and pytrec_eval must agree to 1e-9 on every metric; ranx orders tied scores in no fixed way, so it
must agree on R@1000 (tie-free: the whole list) and its differences on the others are printed.
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

try:  # `python3 benchmarks/run.py` as well as `python3 -m benchmarks.run`
    from . import gen
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import gen

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = ["nDCG@10", "AP", "P@10", "R@1000", "RR"]
TREC = {"nDCG@10": "ndcg_cut_10", "AP": "map", "P@10": "P_10", "R@1000": "recall_1000", "RR": "recip_rank"}
RANX = {"nDCG@10": "ndcg@10", "AP": "map", "P@10": "precision@10", "R@1000": "recall@1000", "RR": "mrr"}
TIE_FREE = {"R@1000"}
CUT = ["nDCG@10", "P@10"]  # a cutoff-only request: each query's top 10 only (a heap per query, not a sort)  # with 1,000 items per query, R@1000 counts the whole list: no tie order matters


def rank_in_order_sql(source: str) -> str:
    """The floor of ranking a run in rank order: its rows numbered as they come and that order checked (streaming
    windows, no sort), a rank being a row's number minus its query's first row's. The check is in the number the
    rank is made of: as a column of its own, which nothing read, DuckDB dropped it and a run out of order passed
    (the floor before round 9 of issue 19 timed the numbering alone)."""
    return ("SELECT count(*), sum(r.pos) FROM (SELECT s.rn - last_value(CASE WHEN s.first THEN s.rn END IGNORE NULLS) "
            "OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) + 1 AS pos FROM (SELECT CASE WHEN t.pq = "
            "t.query_id AND NOT (t.score < t.ps OR (t.score = t.ps AND t.item_id < t.pi)) THEN error('order') ELSE "
            "t.rn END AS rn, t.pq IS DISTINCT FROM t.query_id AS first FROM (SELECT query_id, item_id, score, "
            "row_number() OVER () AS rn, lag(query_id) OVER () AS pq, lag(score) OVER () AS ps, lag(item_id) OVER () "
            f"AS pi FROM {source}) AS t) AS s) AS r")


# ---- the measured tasks, each run in a child process: `python3 -m benchmarks.run --task NAME ...` -------------

def best_of(f, repeat: int, warm: bool = False):
    """(the least time of `repeat` calls of f, the time of an untimed first call when warm (else None), f's last
    answer)."""
    first = None
    if warm:
        t = time.perf_counter()
        out = f()
        first = time.perf_counter() - t
    times = []
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), first, out


def task_inprocess(files, repeat):
    """rankmetrics.evaluate() on pyarrow Tables already in memory; the best of `repeat` calls. The run as a model
    writes it, in rank order (each query's rows together, best first, ties by item id descending: sorted here,
    before any timing), and as generated (queries interleaved: ranked by the sort); then the floors."""
    import duckdb
    import pyarrow.parquet as pq
    from rankmetrics_duckdb import Evaluation, evaluate, prepare
    from rankmetrics_duckdb.checks import duplicate_count
    qrels, generated = pq.read_table(files["qrels_parquet"]), pq.read_table(files["run_parquet"])
    con = duckdb.connect()
    con.register("generated", generated)
    run = con.sql("SELECT query_id, item_id, score FROM generated ORDER BY query_id, score DESC, item_id DESC"
                  ).to_arrow_table()
    con.unregister("generated")

    def best(f):  # one call untimed (kept as `first`), as ranx's warm evaluate runs once before its timed calls
        # (numba's code loaded): the query's text built or read from the plan cache, DuckDB's database started
        return best_of(f, repeat, warm=True)
    seconds, first, means = best(lambda: evaluate(qrels, run, OURS))
    # prepare() once (read, checked, ranked and joined: as ranx's Qrels/Run are built once), then evaluate() again
    t = time.perf_counter()
    prepared = prepare(qrels, run)
    prepare_seconds = time.perf_counter() - t
    prepared_seconds, _, prepared_means = best(lambda: prepared.evaluate(OURS))
    prepared.close()
    cut_seconds, _, cut_means = best(lambda: evaluate(qrels, run, CUT))
    unsorted_seconds, _, unsorted_means = best(lambda: evaluate(qrels, generated, OURS))
    rankings = []
    for table in (run, generated):  # which ranking each took (Evaluation.ranking), outside the timings
        ev = Evaluation(qrels, table, OURS)
        ev.rows()
        rankings.append(ev.ranking)
        ev.close()
    # the floors: each one operation the evaluation cannot skip, alone, on the same tables
    con.register("run_table", run)
    con.register("generated_table", generated)
    con.register("judgments", qrels)
    floors = {
        # ranking a run in rank order: numbering its rows as they come and checking that order (streaming)
        "rank_in_order": rank_in_order_sql("run_table"),
        # (the check is in the number the rank is made of: as a column of its own, nothing read it, DuckDB dropped
        # it and a run out of order passed: the floor before round 9 of issue 19 timed the numbering alone)
        # ranking a run that is not in rank order: one window sort
        "rank_sort": "SELECT count(*), sum(r.pos) FROM (SELECT row_number() OVER (PARTITION BY t.query_id ORDER BY "
                     "t.score DESC, t.item_id DESC) AS pos FROM generated_table AS t) AS r",
        # the exact duplicate check (an item twice in a query would count twice): the package's own, the hash of
        # every (query, item), sorted, each compared with the one before
        "duplicates": f"SELECT {duplicate_count('run_table')}",
        # the join of the run's rows with the judgments (each retrieved item's grade)
        "join": "SELECT count(*), sum(j.relevance) FROM run_table AS r LEFT JOIN judgments AS j ON "
                "j.query_id = r.query_id AND j.item_id = r.item_id",
    }
    floor = {}
    for name, sql in floors.items():
        floor[name] = best(lambda sql=sql: con.execute(sql).fetchall())[0]
    return {"seconds": seconds, "first": first, "means": means, "cut_seconds": cut_seconds, "cut_means": cut_means,
            "prepare_seconds": prepare_seconds, "prepared_seconds": prepared_seconds, "prepared_means": prepared_means,
            "unsorted_seconds": unsorted_seconds, "unsorted_means": unsorted_means, "rankings": rankings,
            "floors": floor, "floor_rank_seconds": floor["rank_sort"]}


def task_warehouse(files, repeat):
    """Warehouse shapes (issue 15): 5 models x the W2M run in one Parquet table, evaluated with by=model_version,
    against the sum of the 5 single-model evaluations; and the run as lists (one row per query and model) against
    the long form. The best of `repeat` for each."""
    import duckdb
    from rankmetrics_duckdb import evaluate
    base = os.path.splitext(os.path.basename(files["run_parquet"]))[0]
    folder = os.path.join(os.path.dirname(files["run_parquet"]), f"warehouse-{base}")
    os.makedirs(folder, exist_ok=True)
    con = duckdb.connect()
    src = files["run_parquet"].replace("'", "''")
    long, lists = os.path.join(folder, "models.parquet"), os.path.join(folder, "models_lists.parquet")
    singles = [os.path.join(folder, f"model{m}.parquet") for m in range(5)]
    if not os.path.exists(lists):
        # model m's scores: the run's, shifted by a hash of (m, item): 5 different rankings of the same items
        con.execute(f"COPY (SELECT 'm' || m AS model_version, r.query_id, r.item_id, r.score + "
                    f"(hash(m, r.item_id) % 1000) / 1e4 AS score FROM read_parquet('{src}') AS r, range(5) AS t(m)) "
                    f"TO '{long}'")
        for m, path in enumerate(singles):
            con.execute(f"COPY (SELECT query_id, item_id, score FROM '{long}' WHERE model_version = 'm{m}') TO '{path}'")
        con.execute(f"COPY (SELECT model_version, query_id, list(item_id ORDER BY score DESC, item_id DESC) AS "
                    f"item_id FROM '{long}' GROUP BY ALL) TO '{lists}'")

    def best(f):  # no untimed call: the single-model and the grouped sides are timed alike
        seconds, _, out = best_of(f, repeat)
        return seconds, out
    qrels = files["qrels_parquet"]
    single = [best(lambda p=p: evaluate(qrels, p, OURS)) for p in singles]
    grouped, g_means = best(lambda: evaluate(qrels, long, OURS, by=["model_version"]))
    listed, l_means = best(lambda: evaluate(qrels, lists, OURS, by=["model_version"]))
    agree_ = all(abs(g_means[(f"m{m}",)][k] - single[m][1][k]) <= 1e-9 and
                 abs(l_means[(f"m{m}",)][k] - single[m][1][k]) <= 1e-9 for m in range(5) for k in OURS)
    return {"singles_seconds": sum(t for t, _ in single), "by_seconds": grouped, "lists_seconds": listed,
            "agree": agree_}


def task_floor_read(files, repeat):
    """A floor of the CLI: Python starting, importing DuckDB's engine and DuckDB reading the TREC run file alone
    (its CSV reader, every column, nothing checked or computed); the parent times the whole process, as for the
    CLI. The engine alone (`_duckdb`, DuckDB 2+), as the CLI imports it since round 18 (rankmetrics_duckdb/engine.py:
    the duckdb module is 0.05 s more)."""
    try:
        import _duckdb as duckdb
    except ImportError:  # an older DuckDB: the module
        import duckdb
    n = duckdb.connect().execute("SELECT count(*), sum(length(t.column2)) FROM read_csv(?, delim=' ', header=false, "
                                 "columns={'column0': 'VARCHAR', 'column1': 'VARCHAR', 'column2': 'VARCHAR', "
                                 "'column3': 'BIGINT', 'column4': 'DOUBLE', 'column5': 'VARCHAR'}) AS t",
                                 [files["run_trec"]]).fetchone()[0]
    return {"rows": n}


def task_floor_scale(files, repeat):
    """A floor of the Parquet runs: DuckDB (same memory limit) reading the run and ranking it, nothing else: the
    run as generated by one window sort per query; the run in rank order (files["inorder"]) by numbering its rows
    as they come and checking that order (streaming, no sort)."""
    import duckdb
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{files['memory_limit']}'")
    t = time.perf_counter()
    if files.get("inorder"):
        con.execute(rank_in_order_sql("read_parquet(?)"), [files["run_inorder_parquet"]]).fetchall()
    else:
        con.execute("SELECT count(*), sum(r.pos) FROM (SELECT row_number() OVER (PARTITION BY t.query_id ORDER BY "
                    "t.score DESC, t.item_id DESC) AS pos FROM read_parquet(?) AS t) AS r", [files["run_parquet"]]).fetchall()
    return {"seconds": time.perf_counter() - t}


def task_pytrec_eval(files, repeat):
    """pytrec_eval end to end: parse the TREC files, evaluate, average."""
    import pytrec_eval
    with open(files["qrels_trec"]) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(files["run_trec"]) as fh:
        run = pytrec_eval.parse_run(fh)
    per = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "P.10", "recall.1000", "recip_rank"}
                                         ).evaluate(run)
    return {"means": {m: sum(q[TREC[m]] for q in per.values()) / len(per) for m in OURS}}


def task_ranx(files, repeat):
    """ranx end to end: Qrels.from_file, Run.from_file, evaluate (numba's cache as NUMBA_CACHE_DIR says)."""
    from ranx import Qrels, Run, evaluate
    qrels = Qrels.from_file(files["qrels_trec"], kind="trec")
    run = Run.from_file(files["run_trec"], kind="trec")
    got = evaluate(qrels, run, [RANX[m] for m in OURS])
    return {"means": {m: float(got[RANX[m]]) for m in OURS}}


def task_ranx_warm(files, repeat):
    """ranx's evaluate on Qrels/Run objects already built (from_df not timed), numba compiled; best of repeat."""
    import pandas as pd
    from ranx import Qrels, Run, evaluate
    qdf = pd.read_parquet(files["qrels_parquet"])
    rdf = pd.read_parquet(files["run_parquet"])
    qdf["relevance"] = qdf["relevance"].astype("int64")
    for df in (qdf, rdf):  # ranx wants object (str) id columns, not pandas' Arrow-backed strings
        for col in ("query_id", "item_id"):
            df[col] = df[col].astype(object)
    qrels = Qrels.from_df(qdf, q_id_col="query_id", doc_id_col="item_id", score_col="relevance")
    run = Run.from_df(rdf, q_id_col="query_id", doc_id_col="item_id", score_col="score")
    names = [RANX[m] for m in OURS]
    evaluate(qrels, run, names)  # compile / load numba's cache
    times, got = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        got = evaluate(qrels, run, names)
        times.append(time.perf_counter() - t)
    cut_names = [RANX[m] for m in CUT]
    evaluate(qrels, run, cut_names)
    cut_times = []
    for _ in range(repeat):
        t = time.perf_counter()
        evaluate(qrels, run, cut_names)
        cut_times.append(time.perf_counter() - t)
    return {"seconds": min(times), "means": {m: float(got[RANX[m]]) for m in OURS}, "cut_seconds": min(cut_times)}


SPARK = ["P@10", "nDCG@10", "AP"]  # MLlib RankingMetrics' precisionAt(10), ndcgAt(10), meanAveragePrecision


def task_spark(files, repeat):
    """Spark local mode, the same run and judgments (Parquet; the run ranked, as a model writes it): our SQL
    (`rankmetrics sql --dialect spark --convention mllib`) against MLlib's RankingMetrics, including building
    MLlib's arrays from the same tables. Spark's start and the reading of the files are outside both times;
    each side run once untimed, then the two alternating, each the best of `repeat`."""
    import duckdb
    from pyspark.sql import SparkSession
    import rankmetrics_duckdb as rm
    ranked = files["run_parquet"].replace(".run.parquet", ".ranked.parquet")
    if not os.path.exists(ranked):
        duckdb.sql(f"COPY (SELECT query_id, item_id, score, row_number() OVER (PARTITION BY query_id ORDER BY "
                   f"score DESC, item_id DESC) AS rank FROM read_parquet('{files['run_parquet']}')) "
                   f"TO '{ranked}' (FORMAT parquet)")
    spark = (SparkSession.builder.master("local[*]").appName("rankmetrics-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.memory", "6g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.read.parquet(ranked).cache().createOrReplaceTempView("run")
    spark.read.parquet(files["qrels_parquet"]).cache().createOrReplaceTempView("judgments")
    # the counts read both tables into Spark's cache, outside the times; the run's also sets the rounds below
    rows = spark.sql("SELECT COUNT(*) FROM run").collect()[0][0]
    spark.sql("SELECT COUNT(*) FROM judgments").collect()
    sql = rm.to_sql(SPARK, dialect="spark", convention="mllib", run="run", judgments="judgments",
                    run_columns="score,rank")
    from pyspark.mllib.evaluation import RankingMetrics
    arrays = ("SELECT p.pred, COALESCE(l.labels, array()) AS labels FROM (SELECT query_id, "
              "transform(array_sort(collect_list(struct(rank, item_id))), x -> x.item_id) AS pred FROM run "
              "GROUP BY query_id) AS p LEFT JOIN (SELECT query_id, collect_list(item_id) AS labels FROM judgments "
              "WHERE relevance >= 1 GROUP BY query_id) AS l ON l.query_id = p.query_id")

    def ours_run():
        rows = spark.sql(sql).collect()
        return {r[0]: float(r[2]) for r in rows if r[1] is None}

    def mllib_run():
        metrics = RankingMetrics(spark.sql(arrays).rdd.map(lambda r: (r.pred, r.labels)))
        return {"P@10": metrics.precisionAt(10), "nDCG@10": metrics.ndcgAt(10), "AP": metrics.meanAveragePrecision}
    # One untimed run of each first: the JVM compiles Spark's code paths as they first run, and whichever side ran
    # first in a fresh session paid for it (at 200k rows our first query took 1.0-1.7 s, the same query warm 0.7 s,
    # and MLlib, timed second, ran warm). Then the two sides alternate, each the best of `repeat`; of 10 at least
    # below 1M rows, where a run takes about a second and both sides kept getting faster over the first 5-10 runs
    # (the JVM still compiling; round 5 of benchmarks/README.md), so that both are timed warm, as ranx is.
    ours_run(), mllib_run()
    ours, mllib = [], []
    for _ in range(max(repeat, 10) if rows < 1_000_000 else repeat):
        t = time.perf_counter()
        ours_means = ours_run()
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        mllib_means = mllib_run()
        mllib.append(time.perf_counter() - t)
    # the floors, in the same session: Spark's fixed cost of a job over the cached run (a count); ranking the run
    # alone (one shuffle by query, one sort, one window: what any evaluation of these metrics does at least); and
    # what an exact evaluation that checks its inputs does at least: the run's and the judgments' rows shuffled by
    # query together, grouped by (query, item) (an item twice in the run or judged twice found, each item's grade
    # beside its run row: the join), and the run's items ranked. Grouping by a window sort instead of the hash
    # aggregate took longer (7.1 s against 4.9 s at 10M rows, shuffle included).
    rows_by_item = ("(SELECT /*+ REPARTITION(u.query_id) */ u.* FROM (SELECT query_id, item_id, score, rank, "
                    "CAST(NULL AS INT) AS relevance, 1 AS run_row FROM run UNION ALL SELECT query_id, item_id, "
                    "CAST(NULL AS DOUBLE), CAST(NULL AS BIGINT), relevance, 0 FROM judgments) AS u) AS u")
    grouped = (f"SELECT u.query_id, u.item_id, MAX(u.score) AS score, MAX(u.rank) AS rank, MAX(u.relevance) AS grade, "
               f"SUM(u.run_row) AS run_rows, COUNT(*) AS item_rows FROM {rows_by_item} GROUP BY u.query_id, u.item_id")
    floors = {}
    for name, query in (("count", "SELECT COUNT(*) FROM run"),
                        ("rank", "SELECT COUNT(*), SUM(r.pos) FROM (SELECT ROW_NUMBER() OVER (PARTITION BY query_id "
                                 "ORDER BY rank, score DESC, item_id DESC) AS pos FROM run) AS r"),
                        ("checked", "SELECT COUNT(*), SUM(r.pos), MAX(r.item_rows), SUM(r.grade) FROM (SELECT "
                                    "g.item_rows, g.grade, ROW_NUMBER() OVER (PARTITION BY g.query_id ORDER BY g.rank, "
                                    f"g.score DESC, g.item_id DESC) AS pos FROM ({grouped}) AS g WHERE g.run_rows > 0) "
                                    "AS r")):
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            spark.sql(query).collect()
            times.append(time.perf_counter() - t)
        floors[name] = min(times)
    spark.stop()
    return {"seconds": min(ours), "mllib_seconds": min(mllib), "means": ours_means, "mllib_means": mllib_means,
            "rounds": [[round(a, 3), round(b, 3)] for a, b in zip(ours, mllib)],
            "floor_count_seconds": floors["count"], "floor_rank_seconds": floors["rank"],
            "floor_checked_seconds": floors["checked"],
            "agree": all(abs(ours_means[m] - mllib_means[m]) <= 1e-9 for m in SPARK)}


TASKS = {"warehouse": task_warehouse, "floor_read": task_floor_read, "floor_scale": task_floor_scale, "inprocess": task_inprocess, "pytrec_eval": task_pytrec_eval, "ranx": task_ranx, "ranx_warm": task_ranx_warm,
         "spark": task_spark}


# ---- the parent: children, timing, the table -----------------------------------------------------------------

def run_measured(cmd, env=None):
    """Run cmd under a tiny wrapper that reports the child's own peak RSS (wait4), plus the wall time."""
    wrapper = ("import os, sys, time, json\n"
               "t = time.perf_counter(); pid = os.fork()\n"
               "if pid == 0:\n    os.execvp(sys.argv[1], sys.argv[1:])\n"
               "_, status, ru = os.wait4(pid, 0)\n"
               "sys.stderr.write('\\n@@bench ' + json.dumps({'wall': time.perf_counter() - t, "
               "'rss_mb': ru.ru_maxrss / 1024, 'rc': os.waitstatus_to_exitcode(status)}) + '\\n')\n")
    p = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, env=env, cwd=ROOT)
    info = json.loads(re.findall(r"^@@bench (.*)$", p.stderr, re.M)[-1])
    err = re.sub(r"\n?@@bench .*\n?", "", p.stderr)
    if info["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... failed ({info['rc']}): {err.strip()[-500:]}")
    return info["wall"], info["rss_mb"], p.stdout, err


def child(task, files, repeat, env=None):
    cmd = [sys.executable, "-m", "benchmarks.run", "--task", task, "--files", json.dumps(files),
           "--repeat", str(repeat)]
    wall, rss, out, _ = run_measured(cmd, env)
    result = json.loads(out.strip().splitlines()[-1])
    result.update(wall=wall, rss_mb=rss)
    return result


def cli(qrels, run, memory_limit=None, threads=None):
    cmd = [sys.executable, "-m", "rankmetrics_duckdb", "eval", qrels, run, "--format", "json"]
    for m in OURS:
        cmd += ["-m", m]
    if memory_limit:
        cmd += ["--memory-limit", memory_limit]
    if threads:
        cmd += ["--threads", str(threads)]
    wall, rss, out, _ = run_measured(cmd)
    means = {r["measure"]: r["value"] for r in json.loads(out) if r["aggregate"]}
    return {"wall": wall, "rss_mb": rss, "means": means}


def have(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def agree(results, tol=1e-9):
    """Lines saying where the means agree; raises when an exact source disagrees."""
    lines, failures = [], []
    ref = results.get("pytrec_eval")
    exact = [k for k in ("cli", "inprocess") if k in results]
    for name in exact:
        other = results[name]["means"]
        if ref:
            worst = max(abs(other[m] - ref["means"][m]) for m in OURS)
            lines.append(f"{name} vs pytrec_eval: max |diff| {worst:.1e} over {', '.join(OURS)}")
            if worst > tol:
                failures.append(f"{name} differs from pytrec_eval by {worst}")
            if "unsorted_means" in results[name]:  # the same run not in rank order (ranked by the sort)
                worst = max(abs(results[name]["unsorted_means"][m] - ref["means"][m]) for m in OURS)
                lines.append(f"{name} (the run not in rank order) vs pytrec_eval: max |diff| {worst:.1e}")
                if worst > tol:
                    failures.append(f"{name} (the run not in rank order) differs from pytrec_eval by {worst}")
            if "prepared_means" in results[name]:  # prepare() once, evaluate() again
                worst = max(abs(results[name]["prepared_means"][m] - ref["means"][m]) for m in OURS)
                lines.append(f"{name} (prepare(), then evaluate()) vs pytrec_eval: max |diff| {worst:.1e}")
                if worst > tol:
                    failures.append(f"{name} (prepare(), then evaluate()) differs from pytrec_eval by {worst}")
            if "cut_means" in results[name]:
                worst = max(abs(results[name]["cut_means"][m] - ref["means"][m]) for m in CUT)
                lines.append(f"{name} ({', '.join(CUT)} alone) vs pytrec_eval: max |diff| {worst:.1e}")
                if worst > tol:
                    failures.append(f"{name} ({', '.join(CUT)} alone) differs from pytrec_eval by {worst}")
    for name in ("ranx", "ranx_warm"):
        if name in results and exact:
            base = results[exact[0]]["means"]
            diffs = {m: abs(results[name]["means"][m] - base[m]) for m in OURS}
            lines.append(f"{name} vs rankmetrics: " + ", ".join(f"{m} {d:.1e}" for m, d in diffs.items())
                         + " (ranx breaks score ties in no fixed order; R@1000 is tie-free)")
            if any(diffs[m] > tol for m in TIE_FREE):
                failures.append(f"{name} differs on a tie-free metric: {diffs}")
    if failures:
        raise SystemExit("means disagree: " + "; ".join(failures))
    return lines


def machine() -> str:
    model = platform.processor() or ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = re.search(r"Model name:\s*(.*)", out).group(1).strip()
    except Exception:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    load = os.getloadavg()
    return (f"{model}, {os.cpu_count()} cores, {mem:.0f} GiB; load average {load[0]:.2f} {load[1]:.2f} "
            f"{load[2]:.2f} at start; Python {platform.python_version()}")


def rows_arg(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmM]?)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a row count: {text} (e.g. 10M, 500k, 2000000)")
    return int(float(m.group(1)) * {"": 1, "k": 10 ** 3, "m": 10 ** 6}[m.group(2).lower()])


def fmt_rows(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 10 ** 6 else f"{n / 1e3:g}k" if n >= 1000 else str(n)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m benchmarks.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=2000, help="queries of the main workload (default 2000: W2M)")
    p.add_argument("--depth", type=int, default=1000, help="ranked items per query (default 1000)")
    p.add_argument("--judged", type=int, default=200, help="judgments per query (default 200)")
    p.add_argument("--scale", type=rows_arg, nargs="*", default=[10 ** 7],
                   help="run sizes in rows for the Parquet scale runs (default 10M; e.g. --scale 10M 100M; "
                        "none: --scale)")
    p.add_argument("--memory-limit", default="4GB", help="DuckDB memory limit of the scale runs (default 4GB)")
    p.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: DuckDB's choice)")
    p.add_argument("--data", default=os.path.join(ROOT, "benchmarks", "data"),
                   help="where the generated files are kept and reused (default benchmarks/data)")
    p.add_argument("--repeat", type=int, default=3, help="in-process calls timed; the best is reported")
    p.add_argument("--no-peers", action="store_true", help="skip pytrec_eval and ranx")
    p.add_argument("--no-warehouse", action="store_true", help="skip the 5-model --by and list-column runs")
    p.add_argument("--ranx-cold", action="store_true",
                   help="also time ranx with an empty numba cache (its first-use compile, about a minute)")
    p.add_argument("--spark", type=rows_arg, nargs="*", metavar="ROWS",
                   help="also run Spark local mode against MLlib's RankingMetrics at these run sizes (e.g. --spark "
                        "200k 10M; goals: <= 0.5x MLlib at 200k rows, <= 0.25x at 10M)")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--task", help=argparse.SUPPRESS)
    p.add_argument("--files", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.task:  # child mode
        print(json.dumps(TASKS[args.task](json.loads(args.files), args.repeat)))
        return 0

    print(f"machine: {machine()}", flush=True)
    # the package's bytecode written first, as installing it (pip) does: an editable install in an environment
    # with PYTHONDONTWRITEBYTECODE compiled every changed module again in each CLI process (30-70 ms)
    compileall.compile_dir(os.path.join(ROOT, "rankmetrics_duckdb"), quiet=1)
    rows = args.queries * args.depth
    name = f"W{fmt_rows(rows)}"
    t = time.perf_counter()
    files = gen.workload(args.data, args.queries, args.depth, args.judged)
    print(f"{name}: {args.queries} queries x {args.depth} items, {args.judged} judgments per query "
          f"(files ready in {time.perf_counter() - t:.1f} s, in {args.data})", flush=True)

    results = {}
    peers = [] if args.no_peers else [m for m in ("pytrec_eval", "ranx") if have(m)]
    missing = [] if args.no_peers else [m for m in ("pytrec_eval", "ranx") if not have(m)]
    # the processes timed end to end against each other (the CLI, its floor, pytrec_eval) run in turn, `repeat`
    # rounds, each the best of its rounds: one process each, minutes apart, moved with this machine's drift
    processes = {"cli": lambda: cli(files["qrels_trec"], files["run_trec"], threads=args.threads),
                 "floor_read": lambda: child("floor_read", files, 1)}
    if "pytrec_eval" in peers:
        processes["pytrec_eval"] = lambda: child("pytrec_eval", files, 1)
    rounds = {process: [] for process in processes}
    for _ in range(max(1, args.repeat)):
        for process, run_process in processes.items():
            rounds[process].append(run_process())
    for process, done in rounds.items():
        results[process] = dict(min(done, key=lambda r: r["wall"]), rounds=[r["wall"] for r in done])
    results["inprocess"] = child("inprocess", files, args.repeat)
    if not args.no_warehouse:
        results["warehouse"] = child("warehouse", files, args.repeat)
    if "ranx" in peers:
        cache = os.path.join(args.data, "numba-cache")
        # ranx compiled by numba, as its users run it, whatever this shell says (the tests turn the JIT off)
        compiled = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
        if args.ranx_cold:
            fresh = tempfile.mkdtemp(prefix="numba-cold-")
            results["ranx_cold"] = child("ranx", files, 1, env={**compiled, "NUMBA_CACHE_DIR": fresh})
            shutil.rmtree(fresh, ignore_errors=True)
        env = {**compiled, "NUMBA_CACHE_DIR": cache}
        if not os.path.isdir(cache):
            child("ranx", files, 1, env=env)  # fills numba's cache: the next run is a warm one
        results["ranx"] = child("ranx", files, 1, env=env)
        results["ranx_warm"] = child("ranx_warm", files, args.repeat, env=env)

    scale = []
    for n in [rows] + list(args.scale):
        q = max(1, n // args.depth)
        sf = gen.workload(args.data, q, args.depth, args.judged, trec=False, memory_limit=args.memory_limit,
                          inorder=True)
        r = cli(sf["qrels_parquet"], sf["run_parquet"], memory_limit=args.memory_limit, threads=args.threads)
        r["floor"] = child("floor_scale", {**sf, "memory_limit": args.memory_limit}, 1)["seconds"]
        o = cli(sf["qrels_parquet"], sf["run_inorder_parquet"], memory_limit=args.memory_limit, threads=args.threads)
        o["floor"] = child("floor_scale", {**sf, "memory_limit": args.memory_limit, "inorder": True}, 1)["seconds"]
        if o["means"] != r["means"]:
            raise SystemExit(f"means disagree: the run in rank order {o['means']} and as generated {r['means']}")
        r["inorder"] = o
        scale.append((q * args.depth, r))
        print(f"  scale {fmt_rows(q * args.depth)} rows: as generated {r['wall']:.2f} s, {r['rss_mb']:.0f} MB "
              f"(floor, reading and ranking alone: {r['floor']:.2f} s); in rank order {o['wall']:.2f} s, "
              f"{o['rss_mb']:.0f} MB (floor {o['floor']:.2f} s)", flush=True)

    spark = []
    for n in args.spark or []:
        q = max(1, n // args.depth)
        sf = gen.workload(args.data, q, args.depth, args.judged, trec=False)
        r = child("spark", sf, args.repeat)
        spark.append((q * args.depth, r))
        print(f"  spark {fmt_rows(q * args.depth)} rows: ours {r['seconds']:.2f} s, MLlib {r['mllib_seconds']:.2f} s "
              f"(floors: a count {r['floor_count_seconds']:.2f} s, the ranking alone {r['floor_rank_seconds']:.2f} s, "
              f"shuffled, grouped by item and ranked {r['floor_checked_seconds']:.2f} s)"
              + ("" if r["agree"] else f" (MEANS DIFFER: {r['means']} vs {r['mllib_means']})"), flush=True)

    lines = agree(results)
    table = report(name, results, scale, args) + spark_report(spark)
    print()
    print(table)
    for line in lines:
        print(line)
    if missing:
        print(f"not installed, not measured: {', '.join(missing)} (pip install -e .[bench])")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "results": results,
                       "scale": [{"rows": n, **r} for n, r in scale],
                       "spark": [{"rows": n, **r} for n, r in spark]}, fh, indent=1)
    return 0


def spark_report(spark) -> str:
    """The Spark table: ours against MLlib at each size, the goal of each size (issue 19) and whether it holds."""
    if not spark:
        return ""
    goals = lambda n: 0.5 if n <= 200_000 else 0.25 if n >= 10_000_000 else None  # noqa: E731
    rows = []
    for n, r in spark:
        ratio = r["seconds"] / r["mllib_seconds"]
        goal = goals(n)
        verdict = "" if goal is None else f"<= {goal}x: {'holds' if ratio <= goal else 'missed'}"
        checked = r.get("floor_checked_seconds")
        rows.append(f"| {fmt_rows(n)} | {r['seconds']:.2f} | {r['mllib_seconds']:.2f} | {ratio:.3f}x | {verdict} | "
                    f"{'yes' if r['agree'] else 'NO'} | {r['floor_count_seconds']:.2f} | {r['floor_rank_seconds']:.2f} | "
                    + ("" if checked is None else f"{checked:.2f} ({checked / r['mllib_seconds']:.3f}x)") + " |")
    return ("\n\n| Spark local mode, " + ", ".join(SPARK) + " | ours, seconds | MLlib RankingMetrics (arrays built "
            "from the same tables), seconds | ratio | goal | equal means | floor: COUNT(*) of the cached run, seconds "
            "| floor: ranking the run alone (one shuffle, sort and window), seconds | floor: an exact, checked "
            "evaluation's least work (run and judgments shuffled by query together, grouped by (query, item), the "
            "run's items ranked), seconds (ratio to MLlib) |\n"
            "|---:|---:|---:|---:|---|---|---:|---:|---:|\n" + "\n".join(rows))


def report(name, results, scale, args) -> str:
    def ratio(secs, peer):
        if peer not in results:
            return ""
        base = results[peer].get("seconds") if peer == "ranx_warm" else results[peer]["wall"]
        return f"{secs / base:.3f}x"

    rows = []
    add = lambda what, secs, rss: rows.append(  # noqa: E731
        (what, f"{secs:.3f}", *[ratio(secs, pe) for pe in ("pytrec_eval", "ranx", "ranx_warm")], rss))
    add(f"rankmetrics CLI, TREC files, end to end", results["cli"]["wall"], f"{results['cli']['rss_mb']:.0f} MB")
    ip = results["inprocess"]
    rankings = ip.get("rankings", ["?", "?"])
    add(f"rankmetrics evaluate() on Arrow tables (in process), the run in rank order (ranked: {rankings[0]})",
        ip["seconds"], f"{ip['rss_mb']:.0f} MB (process)")
    if "prepared_seconds" in ip:
        add(f"rankmetrics prepare() once ({ip['prepare_seconds']:.3f} s: read, checked, ranked, joined; as ranx's "
            f"Qrels/Run are built once), then evaluate() again (in process)", ip["prepared_seconds"], "")
    if "unsorted_seconds" in ip:
        add(f"rankmetrics evaluate() on Arrow tables (in process), the run as generated, queries interleaved "
            f"(ranked: {rankings[1]})", ip["unsorted_seconds"], "")
    for key, what in (("rank_in_order", "floor: DuckDB numbering the run in rank order and checking that order "
                                        "(streaming, no sort)"),
                      ("rank_sort", "floor: DuckDB ranking the run as generated (one window sort)"),
                      ("duplicates", "floor: DuckDB's exact duplicate check of the run (the hashes of every (query, item), sorted)"),
                      ("join", "floor: DuckDB joining the run's rows with the judgments")):
        if key in ip.get("floors", {}):
            add(what, ip["floors"][key], "")
    if "floor_read" in results:
        add("floor: Python, DuckDB's engine imported, DuckDB reading the TREC run alone (end to end)",
            results["floor_read"]["wall"], f"{results['floor_read']['rss_mb']:.0f} MB")
    if "pytrec_eval" in results:
        add("pytrec_eval, TREC files, end to end", results["pytrec_eval"]["wall"],
            f"{results['pytrec_eval']['rss_mb']:.0f} MB")
    if "ranx_cold" in results:
        add("ranx, TREC files, end to end, first use (numba compile)", results["ranx_cold"]["wall"],
            f"{results['ranx_cold']['rss_mb']:.0f} MB")
    if "ranx" in results:
        add("ranx, TREC files, end to end (numba cached)", results["ranx"]["wall"],
            f"{results['ranx']['rss_mb']:.0f} MB")
    if "ranx_warm" in results:
        add("ranx evaluate() on built Qrels/Run (in process)", results["ranx_warm"]["seconds"],
            f"{results['ranx_warm']['rss_mb']:.0f} MB (process)")
    head = ("| " + name + " | seconds | vs pytrec_eval end to end | vs ranx end to end | vs ranx warm evaluate "
            "| peak memory |\n|---|---:|---:|---:|---:|---:|\n")
    body = "\n".join("| " + " | ".join(r) + " |" for r in rows)
    sc = ("\n\n| Parquet run rows (CLI, memory limit " + args.memory_limit + ") | order of the rows | seconds | "
          "seconds per M rows | peak memory | floor: DuckDB reading and ranking the run alone, seconds |\n"
          "|---:|---|---:|---:|---:|---:|\n"
          + "\n".join(f"| {fmt_rows(n)} | {label} | {x['wall']:.2f} | {x['wall'] / (n / 1e6):.3f} | "
                      f"{x['rss_mb']:.0f} MB | {x['floor']:.2f} |"
                      for n, r in scale for label, x in (("as generated (queries interleaved): sorted", r),
                                                         ("in rank order: numbered as it comes", r["inorder"]))
                      if x is not None))
    cut = ""
    if "cut_seconds" in results["inprocess"]:
        ours = results["inprocess"]["cut_seconds"]
        peer = results.get("ranx_warm", {}).get("cut_seconds")
        cut = ("\n\n| " + name + ", " + " + ".join(CUT) + " alone (a cutoff-only request) | seconds | vs ranx warm "
               "evaluate, same request |\n|---|---:|---:|\n"
               f"| rankmetrics evaluate() on Arrow tables (in process) | {ours:.3f} | "
               + (f"{ours / peer:.3f}x |" if peer else " |")
               + (f"\n| ranx evaluate() on built Qrels/Run (in process) | {peer:.3f} | 1.000x |" if peer else ""))
    wh = ""
    if "warehouse" in results:
        w = results["warehouse"]
        wh = ("\n\n| warehouse shapes, " + name + " x 5 models, " + ", ".join(OURS) + " (evaluate() on Parquet) | "
              "seconds | ratio | goal |\n|---|---:|---:|---:|\n"
              f"| the 5 single-model evaluations, summed | {w['singles_seconds']:.2f} | 1.000x | |\n"
              f"| one evaluation with by=model_version | {w['by_seconds']:.2f} | "
              f"{w['by_seconds'] / w['singles_seconds']:.3f}x | <= 1.2x: "
              f"{'holds' if w['by_seconds'] <= 1.2 * w['singles_seconds'] else 'missed'} |\n"
              f"| the same run as lists (one row per model and query), by=model_version | {w['lists_seconds']:.2f} | "
              f"{w['lists_seconds'] / w['by_seconds']:.3f}x of the long form | <= 1.2x: "
              f"{'holds' if w['lists_seconds'] <= 1.2 * w['by_seconds'] else 'missed'} |"
              + ("" if w["agree"] else "\n\nWARNING: the grouped means differ from the single-model means"))
    return head + body + cut + sc + wh + goals_report(results, scale, args)


def goals_report(results, scale, args) -> str:
    """Issue 19's goals: each measured ratio (or time), whether it holds, and the floors measured in this run
    that bound it (the sum of the operations the evaluation cannot skip)."""
    rows = []

    def goal(what, value, limit, unit, floor=None, floor_what=""):
        verdict = "holds" if value <= limit else "missed"
        fl = f"{floor:.3f}{unit} ({floor_what})" if floor is not None else ""
        rows.append(f"| {what} | {value:.3f}{unit} | <= {limit}{unit} | {verdict} | {fl} |")
    ip = results["inprocess"]
    floors = ip.get("floors", {})
    if "ranx_warm" in results:
        base = results["ranx_warm"]["seconds"]
        need = [floors[k] for k in ("rank_in_order", "duplicates", "join") if k in floors]
        goal("evaluate() on Arrow, the run in rank order, vs ranx's warm evaluate", ip["seconds"] / base, 1.0, "x",
             sum(need) / base if len(need) == 3 else None, "ranking in order + duplicate check + join, summed")
        if "prepared_seconds" in ip:
            goal("evaluate() again on prepare()d inputs vs ranx's warm evaluate (each on inputs built once)",
                 ip["prepared_seconds"] / base, 1.0, "x")
    if "pytrec_eval" in results:
        base = results["pytrec_eval"]["wall"]
        need = [floors[k] for k in ("rank_in_order", "duplicates", "join") if k in floors]
        if "floor_read" in results and len(need) == 3:
            fl = (results["floor_read"]["wall"] + sum(need)) / base
        else:
            fl = None
        goal("CLI end to end, TREC files, vs pytrec_eval", results["cli"]["wall"] / base, 0.35, "x", fl,
             "Python + DuckDB's engine + reading the TREC run, + ranking in order + duplicate check + join")
    for n, r in scale:
        if n >= 100_000_000:
            for label, x in (("in rank order", r["inorder"]), ("as generated", r)):
                goal(f"{fmt_rows(n)} Parquet rows ({label}) under {args.memory_limit}, seconds", x["wall"], 50, " s",
                     x["floor"], "reading and ranking the run alone")
    if "warehouse" in results:
        w = results["warehouse"]
        goal("by=model_version vs the 5 single-model evaluations", w["by_seconds"] / w["singles_seconds"], 1.2, "x")
        goal("the run as lists vs the long form (by)", w["lists_seconds"] / w["by_seconds"], 1.2, "x")
    if not rows:
        return ""
    return ("\n\n| goal (issue 19) | measured | goal | verdict | floor in this run: the same ratio for the work "
            "that cannot be skipped |\n|---|---:|---:|---|---|\n" + "\n".join(rows)
            + "\n\n(Spark's goals are in the Spark table, with --spark.)")


if __name__ == "__main__":
    sys.exit(main())
