"""--convention rectools against RecTools itself (rectools.metrics, run in its own environment: see
tests/recsys/rectools_env.py): per user and mean, to 1e-9, on the bundled recommendation data
(datasets/recsys: three models) and on a case built to differ in which users each metric counts (users
recommended to but not in the test set, test users without recommendations, short lists)."""
import math
import os

import duckdb
import pyarrow as pa
import pytest

from rankmetrics_duckdb import evaluate, prepare, to_sql
from rankmetrics_duckdb.errors import InputError
from conftest import cli
from recsys import rectools_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECSYS = os.path.join(ROOT, "datasets", "recsys")

# (our name, RecTools class, its arguments)
ACCURACY = [
    ("PartialAUC@3", "PartialAUC", {"k": 3}), ("PartialAUC@10", "PartialAUC", {"k": 10}),
    ("PAP@3", "PAP", {"k": 3}), ("PAP@10", "PAP", {"k": 10}),
    ("HitRate@5", "HitRate", {"k": 5}), ("MRR@10", "MRR", {"k": 10}), ("Precision@10", "Precision", {"k": 10}),
    ("Recall@10", "Recall", {"k": 10}), ("MAP@10", "MAP", {"k": 10}),
    ("NDCG@10", "NDCG", {"k": 10}), ("NDCG@3", "NDCG", {"k": 3}),
    ("nDCG(ideal=judgments)@10", "NDCG", {"k": 10, "divide_by_achievable": True}),
    ("CoveredUsers@10", "CoveredUsers", {"k": 10}), ("CoveredUsers@2", "CoveredUsers", {"k": 2}),
    ("SufficientReco@10", "SufficientReco", {"k": 10}), ("SufficientReco@4", "SufficientReco", {"k": 4}),
    ("SufficientReco(deep=true)@12", "SufficientReco", {"k": 12, "deep": True}),
]


# the metrics computed from the training interactions (and the catalog): (our name, RecTools class, arguments)
POPULARITY = [
    ("MeanInvUserFreq@10", "MeanInvUserFreq", {"k": 10}), ("MeanInvUserFreq@3", "MeanInvUserFreq", {"k": 3}),
    ("AvgRecPopularity@10", "AvgRecPopularity", {"k": 10}),
    ("AvgRecPopularity(normalize=true)@5", "AvgRecPopularity", {"k": 5, "normalize": True}),
    ("Serendipity@10", "Serendipity", {"k": 10}), ("Serendipity@4", "Serendipity", {"k": 4}),
    ("CatalogCoverage@10", "CatalogCoverage", {"k": 10}),
    ("CatalogCoverage(normalize=true)@3", "CatalogCoverage", {"k": 3, "normalize": True}),
]


def read_run(path):
    rows = []
    with open(path) as f:
        for line in f:
            q, _, item, rank, score, _ = line.split()
            rows.append((q, item, int(rank), float(score)))
    return rows


def read_qrels(path):
    with open(path) as f:
        return [(q, item) for q, _, item, _ in (line.split() for line in f)]


def read_train():
    import pyarrow.parquet as pq
    t = pq.read_table(os.path.join(RECSYS, "train.parquet"))
    return list(zip(t.column("user_id").to_pylist(), t.column("item_id").to_pylist()))


def read_catalog():
    import pyarrow.parquet as pq
    return pq.read_table(os.path.join(RECSYS, "items.parquet")).column("item_id").to_pylist()


def run_table(reco):
    return pa.table({"query_id": [r[0] for r in reco], "item_id": [r[1] for r in reco],
                     "rank": [r[2] for r in reco], "score": [r[3] for r in reco]})


def ours(reco, test, names, train=None, catalog=None, vectors=None, ref=None):
    sides = {} if train is None else {"interactions": pa.table({"user_id": [u for u, _ in train],
                                                                "item_id": [i for _, i in train]})}
    if ref is not None:  # Intersection's reference run (RecTools' ref_reco)
        sides["reference"] = run_table(ref)
    if vectors is not None:  # the catalog with its items' vectors
        sides["items"] = pa.table({"item_id": list(vectors), "embedding": list(vectors.values())})
    elif catalog is not None:
        sides["items"] = pa.table({"item_id": catalog})
    run = run_table(reco)
    qrels = pa.table({"query_id": [t[0] for t in test], "item_id": [t[1] for t in test],
                      "relevance": [1] * len(test)})
    # RecTools' NDCG divides by the DCG of k relevant items (the preset's ideal 'cutoff'); with
    # divide_by_achievable=True it is nDCG over the judged ideal (nDCG(ideal=judgments)@k)
    return (evaluate(qrels, run, names, convention="rectools", **sides),
            evaluate(qrels, run, names, convention="rectools", per_query=True, **sides))


def check(reco, test, specs, train=None, catalog=None, vectors=None, ref=None):
    expected = rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in reco], "interactions": [list(t) for t in test],
                                 "ref_reco": [[u, i, r] for u, i, r, _ in ref or []],
                                 "prev_interactions": [list(t) for t in train or []], "catalog": catalog or [],
                                 "vectors": vectors or {}, "metrics": {name: [cls, kw] for name, cls, kw in specs}})
    means, per_query = ours(reco, test, [name for name, _, _ in specs], train, catalog, vectors, ref)
    checked = 0
    for name, _, _ in specs:
        got, mean = per_query[name], means[name]
        want = expected[name]
        assert mean == pytest.approx(want["mean"], abs=1e-9), name
        if "per_user" not in want:  # catalog-wide: one value, no per-query rows
            assert got == {}, name
            checked += 1
            continue
        want_users = {u: v for u, v in want["per_user"].items() if v is not None}
        got_users = {u: v for u, v in got.items() if v is not None and not math.isnan(v)}
        assert set(got_users) == set(want_users), (name, set(got_users) ^ set(want_users))
        for u, v in want_users.items():
            assert got_users[u] == pytest.approx(v, abs=1e-9), (name, u)
            checked += 1
    return checked


# popularity (tied scores, ranked by the run's rank column) and item-kNN; the random model adds nothing new
@pytest.mark.parametrize("model", ["popularity", "itemknn"])
def test_bundled_models_equal_rectools(model):
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    assert check(reco, test, ACCURACY) > 1500
    assert check(reco, test, POPULARITY, read_train(), read_catalog()) > 800


def test_users_on_one_side_only_and_short_lists_equal_rectools():
    # u1: 3 positives, a long list; u2: 1 positive, a short list (fewer negatives than k); u3: recommended to but
    # not in the test set (accuracy metrics leave it out; SufficientReco counts it); u4: in the test set with no
    # recommendations (0 for accuracy metrics and CoveredUsers; SufficientReco leaves it out); u5: every
    # recommended item a positive
    reco = [("u1", f"i{n}", n, 20.0 - n) for n in range(1, 13)]
    reco += [("u2", "i3", 1, 3.0), ("u2", "i9", 2, 2.0), ("u2", "i1", 3, 1.0)]
    reco += [("u3", f"i{n}", n, 10.0 - n) for n in range(1, 6)]
    reco += [("u5", "i1", 1, 2.0), ("u5", "i2", 2, 1.0)]
    test = [("u1", "i2"), ("u1", "i5"), ("u1", "i40"), ("u2", "i1"), ("u4", "i1"), ("u5", "i1"), ("u5", "i2")]
    assert check(reco, test, ACCURACY) > 40
    # training interactions: i1 by 3 users, i2 by 2 (one of them twice: 3 interactions), i3 and i5 by 1; the
    # other recommended items by nobody (MeanInvUserFreq counts them as 1 user, AvgRecPopularity as 0,
    # Serendipity as popularity rank n + 1); a catalog of 60 items
    train = [("a", "i1"), ("b", "i1"), ("c", "i1"), ("a", "i2"), ("b", "i2"), ("b", "i2"), ("c", "i3"), ("d", "i5")]
    assert check(reco, test, POPULARITY, train, [f"i{n}" for n in range(60)]) > 15


def test_hand_computed_partial_auc_and_pap():
    # one user, positives a (rank 2), b (rank 5), c (not recommended); negatives x (1), y (3), z (4), w (6).
    # pAUC@2: the 2 top negatives x, y. a beats y only (1 negative above it: 2 - 1 = 1); b has 3 negatives
    # above it (not fewer than 2: 0); c none. (1 + 0 + 0) / (2 x 3) = 1/6.
    # pAp@2: the top min(2, 3) = 2 positives a and b against x, y: the same pairs, / (2 x 2) = 1/4.
    # AUC: every negative: a beats y, z, w (3), b beats w (1), c none: 4 / (4 x 3) = 1/3.
    reco = [("q", i, n, 10.0 - n) for n, i in enumerate("xayzbw", 1)]
    _, per_query = ours(reco, [("q", "a"), ("q", "b"), ("q", "c")], ["PartialAUC@2", "PAP@2", "AUC"])
    got = {name: values["q"] for name, values in per_query.items()}
    assert got == pytest.approx({"PartialAUC@2": 1 / 6, "PAP@2": 1 / 4, "AUC": 1 / 3}, abs=1e-12)


def test_rectools_default_ndcg_is_the_dcg_of_k_relevant_items():
    # RecTools' NDCG (divide_by_achievable=False) divides DCG@k by the DCG of k relevant items, whatever the user's
    # judgments: one relevant item at rank 2 of a user with one judgment gives 1/log2(3) / (1 + 1/log2(3) + 1/2)
    # at k = 3; without a cutoff (or above 1000) the ideal is refused with one line
    import math as m
    reco = [("q", i, n, 10.0 - n) for n, i in enumerate("xab", 1)]
    _, per_query = ours(reco, [("q", "a")], ["NDCG@3", "nDCG(ideal=judgments)@3"])
    assert per_query["NDCG@3"]["q"] == pytest.approx((1 / m.log2(3)) / (1 + 1 / m.log2(3) + 1 / m.log2(4)), abs=1e-12)
    assert per_query["nDCG(ideal=judgments)@3"]["q"] == pytest.approx(1 / m.log2(3), abs=1e-12)
    for name in ("NDCG", "NDCG@1001"):
        p = cli("eval", os.path.join(RECSYS, "test.qrels"), os.path.join(RECSYS, "itemknn.run"), "--convention",
                "rectools", "-m", name, check=False)
        assert p.returncode == 2 and "needs a cutoff from 1 to 1000" in p.stderr and p.stderr.count("\n") == 1


def test_hand_computed_novelty_popularity_and_serendipity():
    # training: 4 users, 5 interactions; item a by u1 (twice) and u2: 2 users, 3 interactions; b by u3: 1 user,
    # 1 interaction; x by u4: 1 and 1; c by nobody. Popularity ranks (dense, by interactions): a 1, b 2, x 2.
    # One user is recommended a, b, c in that order; b is relevant; the catalog has 5 items (n = 5).
    # MeanInvUserFreq@3 = mean(-log2(2/4), -log2(1/4), -log2(1/4)) (c counts as 1 user) = (1 + 2 + 2)/3
    # AvgRecPopularity@3 = (3 + 1 + 0)/3; normalized by the 5 interactions: (3 + 1 + 0)/3/5
    # Serendipity@3: only b counts, at rank 2: (n+1-2)/n - (n+1-2)/n = 0. Recommended b, a, c instead, b is at
    # rank 1: (5+1-1)/5 - (5+1-2)/5 = 1/5, a mean over 3 items of 1/15.
    train = [("u1", "a"), ("u1", "a"), ("u2", "a"), ("u3", "b"), ("u4", "x")]
    catalog = ["a", "b", "c", "x", "y"]
    names = ["MeanInvUserFreq@3", "AvgRecPopularity@3", "AvgRecPopularity(normalize=true)@3", "Serendipity@3"]
    _, first = ours([("q", "a", 1, 3.0), ("q", "b", 2, 2.0), ("q", "c", 3, 1.0)], [("q", "b")], names, train,
                    catalog)
    assert first["MeanInvUserFreq@3"]["q"] == pytest.approx((1 + 2 + 2) / 3, abs=1e-12)
    assert first["AvgRecPopularity@3"]["q"] == pytest.approx((3 + 1 + 0) / 3, abs=1e-12)
    assert first["AvgRecPopularity(normalize=true)@3"]["q"] == pytest.approx((3 + 1 + 0) / 3 / 5, abs=1e-12)
    assert first["Serendipity@3"]["q"] == pytest.approx(0.0, abs=1e-12)
    _, second = ours([("q", "b", 1, 3.0), ("q", "a", 2, 2.0), ("q", "c", 3, 1.0)], [("q", "b")], names, train,
                     catalog)
    assert second["Serendipity@3"]["q"] == pytest.approx(((5 + 1 - 1) / 5 - (5 + 1 - 2) / 5) / 3, abs=1e-12)


def test_side_tables_missing_or_malformed_are_one_line_errors(tmp_path):
    qrels, run = os.path.join(RECSYS, "test.qrels"), os.path.join(RECSYS, "itemknn.run")
    p = cli("eval", qrels, run, "-m", "MeanInvUserFreq@10", check=False)
    assert p.returncode == 2 and "--interactions" in p.stderr and p.stderr.count("\n") == 1
    bad = tmp_path / "train.csv"
    bad.write_text("user,item\nu1,i1\n")
    p = cli("eval", qrels, run, "-m", "MeanInvUserFreq@10", "--interactions", str(bad), check=False)
    assert p.returncode == 1 and str(bad) in p.stderr and "user_id, item_id" in p.stderr
    assert p.stderr.count("\n") == 1
    empty = tmp_path / "empty.csv"
    empty.write_text("user_id,item_id\n")
    p = cli("eval", qrels, run, "-m", "Serendipity@10", "--interactions", str(empty), check=False)
    assert p.returncode == 1 and "no rows" in p.stderr
    p = cli("eval", qrels, run, "-m", "Serendipity@10", "--interactions", str(tmp_path / "missing.parquet"),
            check=False)
    assert p.returncode == 1 and "missing.parquet" in p.stderr and "no such file" in p.stderr


def test_a_catalog_that_repeats_an_item_is_refused():
    """RecTools' catalog size is len(catalog): a catalog a, b, c, d, d is 5 items there (RecTools, run here: 3
    recommended items cover 3/5), where the catalog's distinct items are 4 (3/4 here before, with no word). A
    catalog that repeats an item is refused, naming it, as the items' vectors are; one row per item agrees."""
    reco = [("u1", i, n, 0.0) for n, i in enumerate("abc", 1)] + [("u2", "b", 1, 0.0)]
    test = [("u1", "a"), ("u2", "b")]
    theirs = rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in reco], "interactions": [list(t) for t in test],
                               "ref_reco": [], "prev_interactions": [], "catalog": ["a", "b", "c", "d", "d"],
                               "vectors": {}, "metrics": {"C": ["CatalogCoverage", {"k": 3, "normalize": True}]}})
    assert theirs["C"]["mean"] == pytest.approx(3 / 5)
    with pytest.raises(InputError, match=r"the catalog table has 1 repeated item_id\(s\) \(give one row per item\)"):
        ours(reco, test, ["CatalogCoverage(normalize=true)@3"], catalog=["a", "b", "c", "d", "d"])
    assert check(reco, test, [("CatalogCoverage(normalize=true)@3", "CatalogCoverage", {"k": 3, "normalize": True})],
                 catalog=["a", "b", "c", "d"]) == 1


def gini_recbole(counts, n_items):
    """RecBole's GiniIndex (recbole/evaluator/metrics.py, GiniIndex.get_gini), transcribed: the recommendation
    counts sorted ascending, the items never recommended first with count 0:
        idx = np.arange(total_num - num_recommended_items + 1, total_num + 1)
        gini_index = np.sum((2 * idx - total_num - 1) * sorted_count) / total_num
        gini_index /= np.sum(sorted_count)"""
    ordered = sorted(counts)
    first = n_items - len(ordered) + 1
    total = sum((2 * (first + i) - n_items - 1) * c for i, c in enumerate(ordered)) / n_items
    return total / sum(ordered)


def entropy_recommenders(counts):
    """Microsoft Recommenders' distributional_coverage (recommenders/evaluation/python_evaluation.py),
    transcribed: p(i) = count / rows of reco_df; d_coverage = -sum(p(i) * np.log2(p(i)))."""
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts)


def test_side_tables_under_other_column_names(tmp_path):
    # the training interactions as (uid, iid) and the catalog as (movie, vec): every route reads them through the
    # column options. Hand computations: the training and the list a, b, c of test_hand_computed_novelty_...
    # (MeanInvUserFreq@3 5/3, AvgRecPopularity@3 4/3); the catalog a, b, c, x, y with vectors a (1, 0), b (0, 1),
    # c (1, 1) as in test_hand_computed_intra_list_diversity: cosine ILD@3 (1 + 2 (1 - 1/sqrt(2))) / 3; Gini@3
    # over the 5 items, counts 0, 0, 1, 1, 1 at i = 1..5: ((2*3-6) + (2*4-6) + (2*5-6)) / (5*3) = 6/15;
    # CatalogCoverage(normalize=true)@3 3/5
    import duckdb
    import json
    import pyarrow.parquet as pq
    import rankmetrics_duckdb as rm
    want = {"MeanInvUserFreq@3": 5 / 3, "AvgRecPopularity@3": 4 / 3, "IntraListDiversity(distance=cosine)@3":
            (1 + 2 * (1 - 2 ** -0.5)) / 3, "Gini@3": 6 / 15, "CatalogCoverage(normalize=true)@3": 3 / 5}
    train = pa.table({"uid": ["u1", "u1", "u2", "u3", "u4"], "iid": ["a", "a", "a", "b", "x"]})
    items = pa.table({"movie": ["a", "b", "c", "x", "y"],
                      "vec": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0], [0.0, 1.0]]})
    run = pa.table({"query_id": ["q"] * 3, "item_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pa.table({"query_id": ["q"], "item_id": ["b"], "relevance": [1]})
    mapping = dict(interactions_columns={"user_id": "uid", "item_id": "iid"},
                   items_columns={"item_id": "movie", "embedding": "vec"})
    names = list(want)
    assert evaluate(qrels, run, names, interactions=train, items=items, **mapping) == pytest.approx(want, abs=1e-12)
    options = ["--interactions-user-column", "uid", "--interactions-item-column", "iid", "--items-item-column",
               "movie", "--items-embedding-column", "vec"]
    for name, table in (("train", train), ("items", items), ("run", run), ("qrels", qrels)):
        pq.write_table(table, tmp_path / f"{name}.parquet")
    files = [str(tmp_path / "qrels.parquet"), str(tmp_path / "run.parquet")]
    sides = ["--interactions", str(tmp_path / "train.parquet"), "--items", str(tmp_path / "items.parquet")]
    p = cli("eval", *files, *[a for n in names for a in ("-m", n)], *sides, *options, "--format", "json")
    assert {r["measure"]: r["value"] for r in json.loads(p.stdout)} == pytest.approx(want, abs=1e-12)
    # compare (per-query metrics): the run against itself, each mean the hand value
    p = cli("compare", files[0], files[1], files[1], "-m", "MeanInvUserFreq@3", "-m",
            "IntraListDiversity(distance=cosine)@3", *sides, *options, "--format", "json")
    means = {(r["measure"], r["run"]): r["mean"] for r in json.loads(p.stdout) if r["versus"] is None}
    assert means and all(v == pytest.approx(want[m], abs=1e-12) for (m, _), v in means.items())
    # the SQL of to_sql (and of `rankmetrics sql`, the same text) over the tables as they are, run in DuckDB
    sql = rm.to_sql(names, dialect="duckdb", run="run", judgments="qrels", interactions="train", items="items",
                    **mapping)
    assert cli("sql", *[a for n in names for a in ("-m", n)], "--run", "run", "--judgments", "qrels",
               "--interactions", "train", "--items", "items", *options).stdout == sql
    con = duckdb.connect()
    for name, table in (("train", train), ("items", items), ("run", run), ("qrels", qrels)):
        con.register(name, table)
    assert {m: v for m, q, v in con.execute(sql).fetchall()} == pytest.approx(want, abs=1e-12)
    # a column not found: one line naming it and its option; a mapping key we do not have: a usage error
    p = cli("eval", *files, "-m", "MeanInvUserFreq@3", "--interactions", str(tmp_path / "train.parquet"),
            "--interactions-user-column", "uid", check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "item_id" in p.stderr
    assert "--interactions-item-column" in p.stderr and "found: uid, iid" in p.stderr
    p = cli("eval", *files, "-m", "Gini@3", "--items", str(tmp_path / "items.parquet"), "--items-item-column",
            "film", check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "film (the item_id)" in p.stderr
    with pytest.raises(rm.UsageError, match="interactions_columns: unknown key"):
        evaluate(qrels, run, names, interactions=train, items=items, interactions_columns={"user": "uid"})


@pytest.mark.parametrize("model", ["popularity", "itemknn", "random"])
def test_gini_and_entropy_equal_recbole_and_recommenders(model):
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    catalog = read_catalog()
    for k in (3, 10):
        counts = {}
        for _, item, rank, _ in reco:
            if rank <= k:
                counts[item] = counts.get(item, 0) + 1
        means, per_query = ours(reco, test, [f"Gini@{k}", f"Entropy@{k}"], catalog=catalog)
        assert means[f"Gini@{k}"] == pytest.approx(gini_recbole(list(counts.values()), len(catalog)), abs=1e-12)
        assert means[f"Entropy@{k}"] == pytest.approx(entropy_recommenders(list(counts.values())), abs=1e-12)
        assert per_query[f"Gini@{k}"] == {} and per_query[f"Entropy@{k}"] == {}


def test_hand_computed_gini_and_entropy():
    # a catalog of 4 items; top 2 of three users: (a, b), (a, c), (a, b): a 3 times, b 2, c 1, d never, T = 6.
    # Gini (counts ascending 0, 1, 2, 3 at i = 1..4, n = 4): ((2-5)*0 + (4-5)*1 + (6-5)*2 + (8-5)*3) / (4*6)
    #   = (0 - 1 + 2 + 9) / 24 = 10/24
    # Entropy: p = 3/6, 2/6, 1/6: -(1/2 log2 1/2 + 1/3 log2 1/3 + 1/6 log2 1/6)
    # CatalogCoverage@2: 3 items; normalized: 3/4
    reco = [("u1", "a", 1, 2.0), ("u1", "b", 2, 1.0), ("u2", "a", 1, 2.0), ("u2", "c", 2, 1.0),
            ("u3", "a", 1, 2.0), ("u3", "b", 2, 1.0), ("u3", "c", 3, 0.5)]
    names = ["Gini@2", "Entropy@2", "CatalogCoverage@2", "CatalogCoverage(normalize=true)@2"]
    means, _ = ours(reco, [("u1", "a")], names, catalog=["a", "b", "c", "d"])
    assert means["Gini@2"] == pytest.approx(10 / 24, abs=1e-12)
    want = -(0.5 * math.log2(0.5) + 1 / 3 * math.log2(1 / 3) + 1 / 6 * math.log2(1 / 6))
    assert means["Entropy@2"] == pytest.approx(want, abs=1e-12)
    assert means["CatalogCoverage@2"] == 3 and means["CatalogCoverage(normalize=true)@2"] == pytest.approx(0.75)


def test_catalog_wide_metrics_are_refused_where_they_have_no_meaning():
    qrels, run = os.path.join(RECSYS, "test.qrels"), os.path.join(RECSYS, "itemknn.run")
    items = os.path.join(RECSYS, "items.csv")
    p = cli("compare", qrels, run, os.path.join(RECSYS, "random.run"), "-m", "Gini@10", "--items", items,
            check=False)
    assert p.returncode == 2 and "catalog-wide" in p.stderr and p.stderr.count("\n") == 1
    p = cli("eval", qrels, run, "-m", "Gini@10", check=False)
    assert p.returncode == 2 and "--items" in p.stderr


# --- catalog-wide metrics per group (by): one value per group of one recommendation table ------------------------

MODELS = ("popularity", "itemknn", "random")
GROUPED = ["CatalogCoverage@10", "CatalogCoverage(normalize=true)@3", "Gini@10", "Entropy@5", "Gini@3", "P@10"]


def stacked_models():
    """The three bundled models in one warehouse-shaped table: model, user, movie, pos, pred (column mapping; the
    popularity model's tied scores are ranked by the rank column, as RecTools does, under --convention rectools)."""
    rows = [(model, *r) for model in MODELS for r in read_run(os.path.join(RECSYS, f"{model}.run"))]
    return pa.table({"model": [r[0] for r in rows], "user": [r[1] for r in rows], "movie": [r[2] for r in rows],
                     "pos": [r[3] for r in rows], "pred": [r[4] for r in rows]})


def test_catalog_wide_metrics_per_group_equal_each_group_alone_and_the_references(tmp_path):
    import pyarrow.parquet as pq
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    qrels = pa.table({"user": [q for q, _ in test], "movie": [i for _, i in test], "relevance": [1] * len(test)})
    catalog = read_catalog()
    items = pa.table({"item_id": catalog})
    columns = {"query_id": "user", "item_id": "movie", "score": "pred", "rank": "pos"}
    grouped = evaluate(qrels, stacked_models(), GROUPED, convention="rectools", columns=columns, by=["model"],
                       items=items)
    assert set(grouped) == {(m,) for m in MODELS}
    # RecTools' CatalogCoverage on each model's own recommendations
    rectools = {m: rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in read_run(os.path.join(RECSYS, f"{m}.run"))],
                                     "catalog": catalog, "metrics": {name: [cls, kw] for name, cls, kw in POPULARITY
                                                                     if cls == "CatalogCoverage"}})
                for m in MODELS}
    for model in MODELS:
        reco = read_run(os.path.join(RECSYS, f"{model}.run"))
        alone, _ = ours(reco, test, GROUPED, catalog=catalog)
        got = grouped[(model,)]
        assert got == pytest.approx(alone, abs=1e-12), model
        for name in ("CatalogCoverage@10", "CatalogCoverage(normalize=true)@3"):
            assert got[name] == pytest.approx(rectools[model][name]["mean"], abs=1e-9), (model, name)
        for name, k in (("Gini@10", 10), ("Gini@3", 3), ("Entropy@5", 5)):
            counts = {}
            for _, item, rank, _ in reco:
                if rank <= k:
                    counts[item] = counts.get(item, 0) + 1
            want = (gini_recbole(list(counts.values()), len(catalog)) if name.startswith("Gini")
                    else entropy_recommenders(list(counts.values())))
            assert got[name] == pytest.approx(want, abs=1e-12), (model, name)
    # the command line: the same table as Parquet, --by and the column options; one row per model and measure
    pq.write_table(stacked_models(), tmp_path / "recs.parquet")
    pq.write_table(qrels, tmp_path / "test.parquet")
    pq.write_table(items, tmp_path / "items.parquet")
    p = cli("eval", str(tmp_path / "test.parquet"), str(tmp_path / "recs.parquet"), "-m", "Gini@10", "-m",
            "Entropy@5", "--by", "model", "--query-column", "user", "--item-column", "movie", "--score-column",
            "pred", "--rank-column", "pos", "--convention", "rectools", "--items", str(tmp_path / "items.parquet"), "--format", "json")
    import json
    rows = json.loads(p.stdout)
    assert len(rows) == 2 * len(MODELS)
    for row in rows:
        assert row["value"] == pytest.approx(grouped[(row["model"],)][row["measure"]], abs=1e-12), row


def test_hand_computed_catalog_wide_metrics_per_group():
    # group A: users u1 (a, b) and u2 (a, c) in their top 2: a twice, b and c once, d never, T = 4, n = 4.
    #   Gini (0, 1, 1, 2 at i = 1..4): ((2-5)*0 + (4-5)*1 + (6-5)*1 + (8-5)*2) / (4*4) = 6/16
    #   Entropy: p = 2/4, 1/4, 1/4: -(1/2 log2 1/2 + 2 * 1/4 log2 1/4) = 1/2 + 1 = 1.5; CatalogCoverage 3
    # group B: u1 (d, b), u2 (d, b): d twice, b twice, T = 4: Gini (0, 0, 2, 2): ((2-5)*0 + (4-5)*0 + (6-5)*2
    #   + (8-5)*2) / 16 = 8/16; Entropy 1; CatalogCoverage 2 (normalized 2/4)
    # A's item d and B's item a are in the other group only: a group alone must not see them.
    rows = [("A", "u1", "a", 2.0), ("A", "u1", "b", 1.0), ("A", "u2", "a", 2.0), ("A", "u2", "c", 1.0),
            ("B", "u1", "d", 2.0), ("B", "u1", "b", 1.0), ("B", "u2", "d", 2.0), ("B", "u2", "b", 1.0),
            ("B", "u2", "a", 0.5)]
    run = pa.table({"m": [r[0] for r in rows], "query_id": [r[1] for r in rows], "item_id": [r[2] for r in rows],
                    "score": [r[3] for r in rows]})
    names = ["Gini@2", "Entropy@2", "CatalogCoverage@2", "CatalogCoverage(normalize=true)@2"]
    got = evaluate(pa.table({"query_id": ["u1"], "item_id": ["a"], "relevance": [1]}), run, names, by=["m"],
                   items=pa.table({"item_id": ["a", "b", "c", "d"]}))
    assert got[("A",)] == pytest.approx({"Gini@2": 6 / 16, "Entropy@2": 1.5, "CatalogCoverage@2": 3,
                                         "CatalogCoverage(normalize=true)@2": 3 / 4}, abs=1e-12)
    assert got[("B",)] == pytest.approx({"Gini@2": 8 / 16, "Entropy@2": 1.0, "CatalogCoverage@2": 2,
                                         "CatalogCoverage(normalize=true)@2": 2 / 4}, abs=1e-12)


def rm_usage_error():
    from rankmetrics_duckdb import UsageError
    return UsageError


# IntraListDiversity: RecTools' own (its pairs, its mean, its users) with its Hamming calculator over item
# features, and with a cosine calculator (1 - u.v / (|u| |v|), rectools_runner.CosineDistanceCalculator) over
# the embeddings; under the rectools preset the distance is Hamming
DIVERSITY = [
    ("IntraListDiversity@10", "IntraListDiversity", {"k": 10, "distance": "hamming"}),
    ("IntraListDiversity@3", "IntraListDiversity", {"k": 3, "distance": "hamming"}),
    ("IntraListDiversity(distance=cosine)@10", "IntraListDiversity", {"k": 10, "distance": "cosine"}),
    ("ild(distance=cosine)@2", "IntraListDiversity", {"k": 2, "distance": "cosine"}),
]


def read_vectors():
    """The bundled catalog's embeddings (items.parquet), and features made from them for the Hamming distance:
    the genre's number and, per embedding dimension, whether it exceeds 0.5 (few distinct values, many ties)."""
    import pyarrow.parquet as pq
    t = pq.read_table(os.path.join(RECSYS, "items.parquet"))
    genres = sorted(set(t.column("genre").to_pylist()))
    embeddings, features = {}, {}
    for item, genre, vector in zip(t.column("item_id").to_pylist(), t.column("genre").to_pylist(),
                                   t.column("embedding").to_pylist()):
        embeddings[item] = vector
        features[item] = [float(genres.index(genre))] + [float(x > 0.5) for x in vector]
    return embeddings, features


@pytest.mark.parametrize("model", ["popularity", "itemknn", "random"])
def test_intra_list_diversity_equals_rectools(model):
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    embeddings, features = read_vectors()
    hamming = [s for s in DIVERSITY if s[2]["distance"] == "hamming"]
    cosine = [s for s in DIVERSITY if s[2]["distance"] == "cosine"]
    assert check(reco, test, hamming, vectors=features) == 2 * 150
    assert check(reco, test, cosine, vectors=embeddings) == 2 * 150


def test_intra_list_diversity_short_lists_and_missing_vectors_equal_rectools():
    # u1: a list of 5 (one item, x, without a vector: left out of the pairs); u2: one item (0); u3: two items,
    # one without a vector (no pair left: NaN in RecTools, left out of the mean); u4: in the test set only
    reco = [("u1", i, n, 6.0 - n) for n, i in enumerate(["a", "b", "x", "c", "d"], 1)]
    reco += [("u2", "a", 1, 1.0), ("u3", "b", 1, 2.0), ("u3", "y", 2, 1.0)]
    test = [("u1", "a"), ("u4", "b")]
    vectors = {"a": [1.0, 0.0, 2.0], "b": [0.0, 1.0, 2.0], "c": [1.0, 1.0, 0.0], "d": [1.0, 0.0, 2.0]}
    assert check(reco, test, DIVERSITY, vectors=vectors) >= 6


def test_hand_computed_intra_list_diversity():
    # vectors a (1, 0), b (0, 1), c (1, 1). Cosine distances: a-b 1, a-c and b-c 1 - 1/sqrt(2); mean over the 3
    # pairs (1 + 2 (1 - 1/sqrt(2))) / 3. Hamming: a-b 2, a-c 1, b-c 1: 4/3. At k = 2 only a-b: 1 and 2.
    vectors = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]}
    reco = [("q", "a", 1, 3.0), ("q", "b", 2, 2.0), ("q", "c", 3, 1.0)]
    names = ["IntraListDiversity(distance=cosine)@3", "IntraListDiversity(distance=hamming)@3",
             "IntraListDiversity(distance=cosine)@2", "IntraListDiversity@2"]
    _, per_query = ours(reco, [("q", "a")], names, vectors=vectors)
    got = {name: values["q"] for name, values in per_query.items()}
    assert got == pytest.approx({names[0]: (1 + 2 * (1 - 2 ** -0.5)) / 3, names[1]: 4 / 3, names[2]: 1.0,
                                 names[3]: 2.0}, abs=1e-12)


def test_intra_list_diversity_needs_the_vectors(tmp_path):
    qrels, run = os.path.join(RECSYS, "test.qrels"), os.path.join(RECSYS, "itemknn.run")
    p = cli("eval", qrels, run, "-m", "IntraListDiversity@10", check=False)
    assert p.returncode == 2 and "--items" in p.stderr and p.stderr.count("\n") == 1
    p = cli("eval", qrels, run, "-m", "IntraListDiversity@10", "--items", os.path.join(RECSYS, "items.csv"),
            check=False)
    assert p.returncode == 1 and "embedding" in p.stderr and p.stderr.count("\n") == 1
    ragged = tmp_path / "items.parquet"
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"item_id": ["a", "b"], "embedding": [[1.0, 2.0], [1.0]]}), ragged)
    p = cli("eval", qrels, run, "-m", "IntraListDiversity@10", "--items", str(ragged), check=False)
    assert p.returncode == 1 and "different lengths" in p.stderr and p.stderr.count("\n") == 1
    # a NULL element in a vector (a NaN one was refused; list_bool_and skips NULLs, and a distance was computed)
    holed = tmp_path / "holed.parquet"
    pq.write_table(pa.table({"item_id": ["a", "b"], "embedding": [[1.0, 2.0], [None, 1.0]]}), holed)
    p = cli("eval", qrels, run, "-m", "IntraListDiversity@10", "--items", str(holed), check=False)
    assert p.returncode == 1 and "1 row(s) without a list of finite numbers" in p.stderr, p.stderr
    p = cli("eval", qrels, run, "-m", "IntraListDiversity@10", "--items", os.path.join(RECSYS, "items.parquet"),
            "--convention", "rectools", "--distance", "cosine")
    assert p.returncode == 0 and "IntraListDiversity@10" in p.stdout


# Intersection: RecTools' own (rectools/metrics/intersection.py: the share of reco's top k in ref_reco's top ref_k,
# ref_k None meaning k; per user of reco, a user ref_reco lacks scoring 0), one model's run against another's
INTERSECTION = [
    ("Intersection@10", "Intersection", {"k": 10}), ("Intersection@3", "Intersection", {"k": 3}),
    ("Intersection(ref_k=5)@10", "Intersection", {"k": 10, "ref_k": 5}),
    ("intersection(ref_k=20)@4", "Intersection", {"k": 4, "ref_k": 20}),
    ("Intersection(ref_k=1)@2", "Intersection", {"k": 2, "ref_k": 1}),
]


@pytest.mark.parametrize("model, reference", [("itemknn", "popularity"), ("random", "itemknn")])
def test_intersection_equals_rectools(model, reference):
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    ref = read_run(os.path.join(RECSYS, f"{reference}.run"))
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    assert check(reco, test, INTERSECTION, ref=ref) == len(INTERSECTION) * 150


def test_intersection_users_on_one_side_only_equal_rectools():
    # u1: in both, lists of 6 and 4; u2: recommended to, absent from the reference (0); u3: in the reference only
    # (no value: RecTools averages over the users of reco); u4: a list of 1 whose item is the reference's third
    reco = [("u1", i, n, 10.0 - n) for n, i in enumerate("abcdef", 1)]
    reco += [("u2", "a", 1, 2.0), ("u2", "b", 2, 1.0), ("u4", "z", 1, 1.0)]
    ref = [("u1", i, n, 10.0 - n) for n, i in enumerate("dbxa", 1)]
    ref += [("u3", "a", 1, 1.0)] + [("u4", i, n, 5.0 - n) for n, i in enumerate("xyz", 1)]
    test = [("u1", "a"), ("u3", "b"), ("u5", "c")]
    assert check(reco, test, INTERSECTION, ref=ref) == len(INTERSECTION) * 3


def test_reference_ranks_other_than_one_to_n_are_refused_as_the_run_s(tmp_path):
    """RecTools' Intersection reads the reference run's ranks as positions too (its top ref_k: rank at most ref_k),
    and those ranks were taken unchecked: reference a and b tied at rank 1 put both in RecTools' top 1, so run a's
    Intersection@1 is 1 there (RecTools, run here) and was 0 here, with no word. Under the rectools preset the
    reference's ranks are refused as the run's are, naming it: evaluate(), eval --reference and to_sql's SQL."""
    reco, ref = [("u1", "a", 1, 0.0)], [("u1", "a", 1, 0.0), ("u1", "b", 1, 0.0), ("u1", "c", 2, 0.0)]
    test = [("u1", "a")]
    theirs = rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in reco], "interactions": [list(t) for t in test],
                               "ref_reco": [[u, i, r] for u, i, r, _ in ref], "prev_interactions": [],
                               "catalog": [], "vectors": {}, "metrics": {"I": ["Intersection", {"k": 1}]}})
    assert theirs["I"]["mean"] == 1.0
    with pytest.raises(InputError, match=r"^the reference run: .*query u1: ranks 1 to 2 over 3 items \(2 distinct\)"):
        ours(reco, test, ["Intersection@1"], ref=ref)
    qrels, run, reference = tmp_path / "test.qrels", tmp_path / "reco.run", tmp_path / "ref.run"
    qrels.write_text("u1 0 a 1\n")
    run.write_text("u1 Q0 a 1 0 m\n")
    reference.write_text("u1 Q0 a 1 0 m\nu1 Q0 b 1 0 m\nu1 Q0 c 2 0 m\n")
    p = cli("eval", str(qrels), str(run), "--reference", str(reference), "--convention", "rectools", "-m",
            "Intersection@1", check=False)
    assert p.returncode == 1 and "the reference run: " in p.stderr and "query u1: ranks 1 to 2" in p.stderr, p.stderr
    con = duckdb.connect()
    con.register("r", run_table(reco))
    con.register("f", run_table(ref))
    con.register("j", pa.table({"query_id": ["u1"], "item_id": ["a"], "relevance": [1]}))
    sql = to_sql(["Intersection@1"], run="r", judgments="j", reference="f", run_columns="score,rank",
                 convention="rectools", per_query=True)
    with pytest.raises(duckdb.Error, match="query u1 of the reference run: its ranks are not 1..n"):
        con.execute(sql).fetchall()
    # ranks 1..n in the reference: taken, and RecTools' number (a within the top 1 of a, b, c)
    assert check(reco, test, [("Intersection@1", "Intersection", {"k": 1})],
                 ref=[("u1", i, n, 0.0) for n, i in enumerate("abc", 1)]) == 1


def test_ranks_given_as_text_are_read_as_numbers_under_the_rectools_preset():
    """A rank column of text ('1', '2', '3'), which the ranking reads as numbers (and the mllib preset took), failed
    the rectools preset's check of the ranks with DuckDB's binder error (trunc(VARCHAR)): an InputError from
    evaluate(), DuckDB's exception itself from prepare(). By hand: a, the one relevant item, at rank 1 of 3:
    Precision@2 1/2; ranks '1', '1', '2' are refused as the same numbers are."""
    qrels = pa.table({"query_id": ["u1"], "item_id": ["a"], "relevance": [1]})
    run = pa.table({"query_id": ["u1"] * 3, "item_id": ["a", "b", "c"], "rank": ["1", "2", "3"]})
    assert evaluate(qrels, run, ["Precision@2"], convention="rectools") == {"Precision@2": 0.5}
    assert prepare(qrels, run, convention="rectools").evaluate(["Precision@2"]) == {"Precision@2": 0.5}
    tied = pa.table({"query_id": ["u1"] * 3, "item_id": ["a", "b", "c"], "rank": ["1", "1", "2"]})
    for route in (lambda: evaluate(qrels, tied, ["Precision@2"], convention="rectools"),
                  lambda: prepare(qrels, tied, convention="rectools")):
        with pytest.raises(InputError, match="query u1: ranks 1 to 2 over 3 items"):
            route()


def test_hand_computed_intersection():
    # run a, b, c, d against the reference c, a, x: @2 {a, b} holds a of {c, a}: 1/2; (ref_k=1)@3 {a, b, c}
    # holds c of {c}: 1/3; (ref_k=3)@4: a and c of 4: 1/2; the run against itself @3: 1
    reco = [("q", i, n, 10.0 - n) for n, i in enumerate("abcd", 1)]
    ref = [("q", i, n, 10.0 - n) for n, i in enumerate("cax", 1)]
    names = ["Intersection@2", "Intersection(ref_k=1)@3", "Intersection(ref_k=3)@4"]
    _, per_query = ours(reco, [("q", "a")], names, ref=ref)
    assert {n: v["q"] for n, v in per_query.items()} == pytest.approx(
        {names[0]: 1 / 2, names[1]: 1 / 3, names[2]: 1 / 2}, abs=1e-12)
    _, itself = ours(reco, [("q", "a")], ["Intersection@3"], ref=reco)
    assert itself["Intersection@3"]["q"] == 1.0


def test_hand_computed_intersection_of_lists():
    # the run and the reference as lists (a recommender's output: one row per user), either or both: the reference
    # was refused ("neither a score nor a rank column"). Run a, b, c, d against the reference c, a, x, as in
    # test_hand_computed_intersection: @2 1/2, (ref_k=1)@3 1/3, (ref_k=3)@4 1/2
    names = ["Intersection@2", "Intersection(ref_k=1)@3", "Intersection(ref_k=3)@4"]
    lists = pa.schema([("query_id", pa.string()), ("item_id", pa.list_(pa.string()))])
    run_lists = pa.table({"query_id": ["q"], "item_id": [list("abcd")]}, schema=lists)
    ref_lists = pa.table({"query_id": ["q"], "item_id": [list("cax")]}, schema=lists)
    qrels = pa.table({"query_id": ["q"], "item_id": ["a"], "relevance": [1]})
    for run, ref in ((run_lists, ref_lists), (run_table([("q", i, n, 10.0 - n) for n, i in enumerate("abcd", 1)]),
                                              ref_lists),
                     (run_lists, run_table([("q", i, n, 10.0 - n) for n, i in enumerate("cax", 1)]))):
        got = evaluate(qrels, run, names, convention="rectools", reference=ref, per_query=True)
        assert {n: v["q"] for n, v in got.items()} == pytest.approx(
            {names[0]: 1 / 2, names[1]: 1 / 3, names[2]: 1 / 2}, abs=1e-12)


def test_intersection_duckdb_macro_equals_rectools():
    # sql/intersection.sql called as a DuckDB macro (the run's rank column ranks it: ties := 'input', as RecTools
    # reads ranks), on item-kNN against the popularity model, per user and mean
    import duckdb
    from rankmetrics_duckdb import register
    reco = read_run(os.path.join(RECSYS, "itemknn.run"))
    ref = read_run(os.path.join(RECSYS, "popularity.run"))
    specs = {"@10": {"k": 10}, "(ref_k=5)@3": {"k": 3, "ref_k": 5}}
    want = rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in reco], "ref_reco": [[u, i, r] for u, i, r, _ in ref],
                             "metrics": {name: ["Intersection", kw] for name, kw in specs.items()}})
    con = duckdb.connect()
    register(con)
    con.register("recs", run_table(reco))
    con.register("baseline", run_table(ref))
    con.register("test", pa.table({"query_id": ["u000"], "item_id": ["i000"], "relevance": [1]}))
    for name, kw in specs.items():
        rows = con.execute(f"SELECT query_id, value FROM intersection('recs', 'test', {kw['k']}, "
                           f"{kw.get('ref_k', 'NULL')}, reference := 'baseline', ties := 'input', queries := 'all')"
                           ).fetchall()
        got = dict(rows)
        assert got == pytest.approx(want[name]["per_user"], abs=1e-9), name
        assert math.fsum(got.values()) / len(got) == pytest.approx(want[name]["mean"], abs=1e-9), name


def test_intersection_on_the_command_line(tmp_path):
    # eval --reference FILE, compare (against the baseline) and sql --reference TABLE give RecTools' numbers; a
    # missing or faulty reference is one line naming it
    import json
    qrels, run, base = (os.path.join(RECSYS, f) for f in ("test.qrels", "itemknn.run", "popularity.run"))
    want = rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in read_run(run)],
                             "ref_reco": [[u, i, r] for u, i, r, _ in read_run(base)],
                             "metrics": {"Intersection@10": ["Intersection", {"k": 10}],
                                         "Intersection(ref_k=5)@3": ["Intersection", {"k": 3, "ref_k": 5}]}})
    p = cli("eval", qrels, run, "-m", "Intersection@10", "-m", "Intersection(ref_k=5)@3", "--reference", base,
            "--convention", "rectools", "--format", "json")
    got = {r["measure"]: r["value"] for r in json.loads(p.stdout)}
    assert got == pytest.approx({name: v["mean"] for name, v in want.items()}, abs=1e-9)
    p = cli("compare", qrels, base, run, "-m", "Intersection@10", "-m", "Intersection(ref_k=5)@3", "--convention",
            "rectools", "--format", "json")
    rows = json.loads(p.stdout)
    assert {(r["measure"], r["versus"] is None): r["mean"] for r in rows} == pytest.approx({
        ("Intersection@10", True): 1.0, ("Intersection(ref_k=5)@3", True): 1.0,  # the baseline against itself
        ("Intersection@10", False): want["Intersection@10"]["mean"],
        ("Intersection(ref_k=5)@3", False): want["Intersection(ref_k=5)@3"]["mean"]}, abs=1e-9)
    p = cli("sql", "--dialect", "postgres", "-m", "Intersection@10", "--run", "recs", "--judgments", "test",
            "--reference", "base", "--run-columns", "score,rank", "--convention", "rectools")
    from rankmetrics_duckdb import to_sql
    assert p.stdout == to_sql(["Intersection@10"], dialect="postgres", run="recs", judgments="test", reference="base",
                              run_columns="score,rank", convention="rectools")
    p = cli("eval", qrels, run, "-m", "Intersection@10", check=False)
    assert p.returncode == 2 and "--reference" in p.stderr and p.stderr.count("\n") == 1
    bad = tmp_path / "bad.run"
    bad.write_text("u1 Q0 i1 1 2.5 x\nu1 Q0 i2 2 1.5 x\nu1 Q0 i1 3 0.5 x\n")
    p = cli("eval", qrels, run, "-m", "Intersection@10", "--reference", str(bad), check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1
    assert "reference run" in p.stderr and str(bad) in p.stderr and "item i1 appears 2 times for query u1" in p.stderr
    bad.write_text("u1 Q0 i1 1 high x\n")
    p = cli("eval", qrels, run, "-m", "Intersection@10", "--reference", str(bad), check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "'high' is not a number" in p.stderr
    p = cli("compare", qrels, base, run, "-m", "Intersection@10", "--reference", base, check=False)
    assert p.returncode == 2  # compare's reference is its baseline: no such option


def test_hand_computed_intersection_per_group():
    # groups (by seg) of a warehouse table against a reference in the same shape, each group against the
    # reference's same group. A: run a, b, c against c, x: @2 {a, b} holds none: 0; @3 c: 1/3. B: run a, b
    # against b, y: @2 b: 1/2; @3 the same two items: 1/2. The same from evaluate, the DuckDB macro and to_sql.
    import duckdb
    from rankmetrics_duckdb import register, to_sql
    run = pa.table({"seg": ["A", "A", "A", "B", "B"], "user": ["u"] * 5, "item": ["a", "b", "c", "a", "b"],
                    "pred": [3.0, 2.0, 1.0, 2.0, 1.0]})
    ref = pa.table({"seg": ["A", "A", "B", "B"], "user": ["u"] * 4, "item": ["c", "x", "b", "y"],
                    "pred": [2.0, 1.0, 2.0, 1.0]})
    qrels = pa.table({"user": ["u"], "item": ["a"], "rel": [1]})
    columns = {"query_id": "user", "item_id": "item", "score": "pred", "relevance": "rel"}
    want = {("A",): {"Intersection@2": 0.0, "Intersection@3": 1 / 3},
            ("B",): {"Intersection@2": 1 / 2, "Intersection@3": 1 / 2}}
    got = evaluate(qrels, run, ["Intersection@2", "Intersection@3"], columns=columns, by=["seg"], reference=ref)
    assert set(got) == set(want) and all(got[g] == pytest.approx(want[g], abs=1e-12) for g in want)
    con = duckdb.connect()
    register(con)
    con.register("r", run), con.register("f", ref), con.register("j", qrels)
    rows = con.execute("SELECT seg, value FROM intersection('r', 'j', 2, reference := 'f', query_column := 'user', "
                       "item_column := 'item', score_column := 'pred', relevance_column := 'rel', \"by\" := ['seg'])"
                       ).fetchall()
    assert dict(rows) == pytest.approx({"A": 0.0, "B": 1 / 2}, abs=1e-12)
    rows = con.execute(to_sql(["Intersection@3"], run="r", judgments="j", reference="f", columns=columns,
                              by=["seg"], judgments_by=[])).fetchall()
    assert {r[1]: r[-1] for r in rows} == pytest.approx({"A": 1 / 3, "B": 1 / 2}, abs=1e-12)


def test_ranks_other_than_one_to_n_are_refused_where_rectools_reads_them_as_positions(tmp_path):
    """RecTools reads rank values as positions: two items tied at rank 1 are both in the top 1 (CatalogCoverage@1
    counts 2 items), ranks 0, 1, 2 put two items within k = 1, ranks 1, 2, 4 one relevant item within k = 3 (its
    Precision@3 1/3, where the same items ranked 1, 2, 3 give 2/3). rankmetrics ranks a user's items 1, 2, ... in rank
    order, so those numbers differed with no word (RecTools itself, run here, gives another value than the same
    ranks made 1..n). Under the rectools preset such ranks are refused, naming the user; ranks 1..n agree."""
    test = [("u1", "y"), ("u1", "z")]
    catalog = ["x", "y", "z", "w"]
    for ranks in ([1, 1, 2], [0, 1, 2], [1, 2, 4]):
        reco = [("u1", i, r, 0.0) for i, r in zip("xyz", ranks)]
        theirs = rectools_env.run({"reco": [[u, i, r] for u, i, r, _ in reco], "interactions": [list(t) for t in test],
                                   "catalog": catalog,
                                   "metrics": {"P": ["Precision", {"k": 3}], "C": ["CatalogCoverage", {"k": 1}]}})
        renumbered = [("u1", i, n, 0.0) for n, (_, i, _, _) in enumerate(reco, 1)]
        mine, _ = ours(renumbered, test, ["Precision@3", "CatalogCoverage@1"], catalog=catalog)
        assert (theirs["P"]["mean"], theirs["C"]["mean"]) != (mine["Precision@3"], mine["CatalogCoverage@1"]), ranks
        with pytest.raises(InputError, match=rf"query u1: ranks {ranks[0]} to {ranks[-1]} over 3 items .*RecTools "
                                             r"reads rank values as positions"):
            ours(reco, test, ["Precision@1"])
    run = tmp_path / "tied.run"
    run.write_text("u1 Q0 x 1 0 m\nu1 Q0 y 1 0 m\nu1 Q0 z 2 0 m\n")
    qrels = tmp_path / "test.qrels"
    qrels.write_text("u1 0 y 1\n")
    for command in ("eval", "compare"):
        runs = [str(run)] if command == "eval" else [str(run), str(run)]
        p = cli(command, str(qrels), *runs, "--convention", "rectools", "-m", "Precision@1", check=False)
        assert p.returncode == 1 and "tied.run: query u1: ranks 1 to 2 over 3 items" in p.stderr, p.stderr
    # ranks 1..n: taken, and equal to RecTools (the parity tests above); under other presets the ranks only order
    check([("u1", i, n, 0.0) for n, i in enumerate("xyz", 1)], test, [("Precision@1", "Precision", {"k": 1})])
    assert evaluate(str(qrels), str(run), ["P@1"], convention="mllib") == {"P@1": 1.0}  # y before x (ties: item id)
