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


def test_run_wide_macros_by_group_equal_each_group_alone_and_the_references():
    """The DuckDB macros of the metrics of the whole run, with "by": one row per group (its columns, query_id NULL,
    the value), each the group's own value (the macro over that group's rows alone) and the references': Gini
    RecBole's, Entropy Recommenders', CatalogCoverage the distinct items of the top 3 lists (counted here),
    Personalization recmetrics', GAUC scikit-learn's roc_auc_score per user (weighted by the impressions)."""
    from sklearn.metrics import roc_auc_score
    from test_parity_recsys import impressions_data, personalization_recmetrics
    from test_parity_rectools import entropy_recommenders, gini_recbole
    from rankmetrics_duckdb import register
    c = duckdb.connect()
    register(c)
    runs, judged = [], []
    for seed in (1, 2):
        run, judgments = impressions_data(seed)
        runs += [(f"m{seed}", *r) for r in run]
        judged += [(f"m{seed}", *j) for j in judgments]
    c.execute("CREATE TABLE run (model VARCHAR, query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    c.executemany("INSERT INTO run VALUES (?, ?, ?, ?)", runs)
    c.execute("CREATE TABLE qrels (model VARCHAR, query_id VARCHAR, item_id VARCHAR, relevance INTEGER)")
    c.executemany("INSERT INTO qrels VALUES (?, ?, ?, ?)", judged)
    catalog = sorted({r[2] for r in runs} | {"never_scored", "unseen"})
    c.execute("CREATE TABLE items AS SELECT unnest(?) AS item_id", [catalog])
    calls = {"CatalogCoverage": "catalog_coverage('{run}', '{qrels}', 3{by})",
             "CatalogCoverage(normalize)": "catalog_coverage('{run}', '{qrels}', 3, normalize := 'true'{by})",
             "Gini": "gini('{run}', '{qrels}', 3{by})", "Entropy": "entropy('{run}', '{qrels}', 3{by})",
             "Personalization": "personalization('{run}', '{qrels}', 3{by})", "GAUC": "gauc('{run}', '{qrels}'{by})",
             "GAUC(weighted=false)": "gauc('{run}', '{qrels}', weighted := 'false'{by})"}
    grouped = {}
    for name, call in calls.items():
        rel = c.execute("SELECT * FROM " + call.format(run="run", qrels="qrels", by=', "by" := [\'model\']'))
        assert [d[0] for d in rel.description] == ["model", "query_id", "value"], name
        rows = rel.fetchall()
        assert sorted(r[0] for r in rows) == ["m1", "m2"] and {r[1] for r in rows} == {None}, (name, rows)
        grouped.update({(name, r[0]): r[2] for r in rows})
    for model in ("m1", "m2"):
        c.execute(f"CREATE VIEW run_{model} AS SELECT query_id, item_id, score FROM run WHERE model = '{model}'")
        c.execute(f"CREATE VIEW qrels_{model} AS SELECT query_id, item_id, relevance FROM qrels WHERE model = '{model}'")
        # the references over the group's rows: top 3 by score, then item id descending (trec_eval's ties)
        mine = sorted((r for r in runs if r[0] == model), key=lambda r: r[2], reverse=True)
        lists = {}
        for _, u, i, _ in sorted(mine, key=lambda r: (r[1], -r[3])):  # stable: tied scores keep the item order
            if len(lists.setdefault(u, [])) < 3:
                lists[u].append(i)
        counts = {}
        for items in lists.values():
            for i in items:
                counts[i] = counts.get(i, 0) + 1
        scores = {(u, i): s for _, u, i, s in mine}
        per_user = {}
        for m, u, i, label in judged:
            if m == model and (u, i) in scores:
                per_user.setdefault(u, ([], []))
                per_user[u][0].append(label), per_user[u][1].append(scores[(u, i)])
        aucs = [(roc_auc_score(y, s), len(y)) for y, s in per_user.values() if len(set(y)) == 2]
        want = {"CatalogCoverage": len(counts), "CatalogCoverage(normalize)": len(counts) / len(catalog),
                "Gini": gini_recbole(list(counts.values()), len(catalog)),
                "Entropy": entropy_recommenders(list(counts.values())),
                "Personalization": personalization_recmetrics(list(lists.values())),
                "GAUC": sum(a * w for a, w in aucs) / sum(w for _, w in aucs),
                "GAUC(weighted=false)": sum(a for a, _ in aucs) / len(aucs)}
        for name, call in calls.items():
            (query_id, value), = c.execute("SELECT query_id, value FROM " + call.format(
                run=f"run_{model}", qrels=f"qrels_{model}", by="")).fetchall()
            assert query_id is None
            assert grouped[(name, model)] == pytest.approx(value, abs=1e-12), (name, model)
            assert grouped[(name, model)] == pytest.approx(want[name], abs=1e-12), (name, model)


def test_judged_only_keeps_a_query_whose_retrieved_items_are_all_unjudged():
    """trec_eval -J drops the run's unjudged items before ranking, yet still evaluates a query of the run whose
    retrieved items were all unjudged (num_ret 0, every measure 0). The macros used to drop that query (its result
    row had no 'R' row left): pytrec_eval's judged_docs_only_flag, run here, keeps q2."""
    import pytrec_eval
    from rankmetrics_duckdb import register
    qrels = {"q1": {"a": 1, "c": 1}, "q2": {"z": 1}, "q3": {"m": 2}, "q4": {"n": 1}}
    run = {"q1": {"a": 3.0, "b": 2.0, "d": 1.0}, "q2": {"x": 1.0, "y": 0.5}, "q3": {"m": 1.0, "w": 2.0},
           "q5": {"n": 1.0}}  # q4: judged, not in the run; q5: in the run, not judged (neither is reported)
    want = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg", "map", "P_10", "recall_10", "recip_rank", "Rprec", "bpref"},
        judged_docs_only_flag=True).evaluate(run)
    assert set(want) == {"q1", "q2", "q3"} and want["q2"]["ndcg"] == 0  # the reference keeps q2
    c = duckdb.connect()
    register(c)
    c.execute("CREATE TABLE run (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    c.executemany("INSERT INTO run VALUES (?, ?, ?)", [(q, i, s) for q, items in run.items() for i, s in items.items()])
    c.execute("CREATE TABLE qrels (query_id VARCHAR, item_id VARCHAR, relevance INTEGER)")
    c.executemany("INSERT INTO qrels VALUES (?, ?, ?)",
                  [(q, i, g) for q, items in qrels.items() for i, g in items.items()])
    for call, name in (("ndcg('run', 'qrels'", "ndcg"), ("ap('run', 'qrels'", "map"),
                       ("\"precision\"('run', 'qrels', 10", "P_10"), ("recall('run', 'qrels', 10", "recall_10"),
                       ("rr('run', 'qrels'", "recip_rank"), ("r_precision('run', 'qrels'", "Rprec"),
                       ("bpref('run', 'qrels'", "bpref")):
        got = dict(c.execute(f"SELECT query_id, value FROM {call}, judged_only := TRUE)").fetchall())
        assert got == pytest.approx({q: v[name] for q, v in want.items()}, abs=1e-12), name


def test_an_empty_run_scores_each_judged_query_0_under_judged():
    # found by a differential run of the routes: the macros took the judgments' groups from the run's rows, so an
    # empty run had no judgments either and returned nothing under queries 'judged', where the SQL of to_sql
    # scores every judged query 0 (a query missing from the run is an empty ranking: trec_eval -c)
    import rankmetrics_duckdb as rm
    con = duckdb.connect()
    con.execute(rm.macros_sql())
    con.execute("CREATE TABLE r (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    con.execute("CREATE TABLE j AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q2', 'b', 2)) AS t(query_id, item_id, "
                "relevance)")
    for macro in ("ap('r', 'j', queries := 'judged')", "ndcg('r', 'j', 10, queries := 'judged')",
                  "\"precision\"('r', 'j', 5, queries := 'judged')"):
        assert sorted(con.execute(f"SELECT * FROM {macro}").fetchall()) == [("q1", 0.0), ("q2", 0.0)], macro
    sql = rm.to_sql(["AP", "nDCG@10", "P@5"], run="r", judgments="j", queries="judged", per_query=True)
    assert sorted(con.execute(sql).fetchall(), key=str) == sorted(
        [(m, q, 0.0) for m in ("AP", "nDCG@10", "P@5") for q in ("q1", "q2", None)], key=str)
    assert con.execute("SELECT * FROM ap('r', 'j')").fetchall() == []  # queries 'both': none in common


def test_a_gain_map_gives_each_level_once_without_leading_zeros(con, tmp_path):
    """A gain map on the DuckDB macros is refused unless each level is written once and without leading zeros:
    the macros find a grade's gain by the level's text, so '01=10' matched no grade and kept the default gain
    without a word (nDCG 1.0 here), and '1=3,1=10' took the first gain where the command line refuses the map.
    Run a, b; a graded 2, b graded 1; the map 1=10 (by hand): DCG = 2/log2(2) + 10/log2(3), the ideal ranking b
    then a: 10/log2(2) + 2/log2(3). trec_eval reads the level 01 as 1 (`-m ndcg.01=10`): so does eval."""
    import math
    con.execute("CREATE OR REPLACE TABLE gm_run AS SELECT * FROM (VALUES ('q1', 'a', 3.0), ('q1', 'b', 2.0)) "
                "AS t(query_id, item_id, score)")
    con.execute("CREATE OR REPLACE TABLE gm_qrels AS SELECT * FROM (VALUES ('q1', 'a', 2), ('q1', 'b', 1)) "
                "AS t(query_id, item_id, relevance)")
    want = (2 + 10 / math.log2(3)) / (10 + 2 / math.log2(3))
    for gains in ("1=10", "0=0,1=10", "10=4,1=10"):
        got = con.execute(f"SELECT value FROM ndcg('gm_run', 'gm_qrels', gains := '{gains}')").fetchall()
        assert got == [(pytest.approx(want, abs=1e-12),)], gains
    for gains, rule in (("01=10", "levels without leading zeros"), ("1=3,2=0,00=1", "levels without leading zeros"),
                        ("1=3,1=10", "each level once"), ("1=3,2=9,1=3", "each level once")):
        for macro in ("ndcg", "dcg", "g"):
            with pytest.raises(duckdb.Error, match=f"{macro}: gains must be level=gain pairs.*{rule}.*not '{gains}'"):
                con.execute(f"SELECT * FROM {macro}('gm_run', 'gm_qrels', gains := '{gains}')").fetchall()
    (tmp_path / "q").write_text("q1 0 a 2\nq1 0 b 1\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\n")
    out = cli("eval", "-m", "ndcg.01=10", str(tmp_path / "q"), str(tmp_path / "r")).stdout
    assert out == f"ndcg_01=10            \tall\t{want:.4f}\n"


def test_macros_find_columns_by_name_in_any_case_and_never_by_pattern():
    """DuckDB names are read without case, and the macros found columns by exact text (relevance_column :=
    'relevance' missed a column Relevance: every judged item grade 1; a Score column beside rank was missed and the
    run ranked by rank) and the query column by a regular expression (a column prev_query_id was read as the query
    id). By hand: run q1 = a (2.0, rank 2), b (1.0, rank 1); a judged 0, b judged 1: RR 1/2 by score (a then b)."""
    con = duckdb.connect()
    import rankmetrics_duckdb as rm
    rm.register(con)
    con.execute("CREATE TABLE rt AS SELECT * FROM (VALUES ('q1', 'a', 2.0, 2), ('q1', 'b', 1.0, 1)) "
                "AS t(Query_Id, ITEM_ID, Score, rank)")
    con.execute("CREATE TABLE jt AS SELECT * FROM (VALUES ('q2', 'q1', 'a', 0), ('q1', 'q1', 'b', 1)) "
                "AS t(prev_query_id, QUERY_ID, Item_Id, Relevance)")
    assert rm.evaluate("jt", "rt", ["RR"], con=con, per_query=True) == {"RR": {"q1": 0.5}}
    for call in ("rr('rt', 'jt')", "rr('rt', 'jt', query_column := 'QUERY_ID', item_column := 'item_id', "
                                   "score_column := 'SCORE', relevance_column := 'relevance')"):
        assert con.execute(f"SELECT * FROM {call}").fetchall() == [("q1", 0.5)], call
    # a name that is no column fails, where the pattern user.id found user_id
    con.execute("CREATE TABLE ut AS SELECT 'q1' AS user_id, 'a' AS item_id, 1.0 AS score")
    with pytest.raises(duckdb.BinderException, match="empty set of columns"):
        con.execute("SELECT * FROM rr('ut', 'jt', query_column := 'user.id')").fetchall()
