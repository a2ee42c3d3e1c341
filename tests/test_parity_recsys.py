"""Recommender metrics of libraries other than RecTools, against their definitions transcribed here with the
source cited (Elliot's APLT, ACLT and ItemCoverage), on the bundled recommendation data (datasets/recsys) and on
hand-computed cases. RecTools' own metrics are in test_parity_rectools.py."""
import os

import pytest

from test_parity_rectools import RECSYS, ours, read_catalog, read_qrels, read_run, read_train


def elliot_long_tail(train, pop_ratio=0.8):
    """Elliot's long tail (elliot/evaluation/popularity_utils/popularity.py, Popularity, v0.3.1), transcribed:
        get_pop_items: {item: number of users who interacted with it}  (sp_i_train.astype(bool).sum(axis=0))
        get_sorted_pop_items: sorted(pop_items.items(), key=operator.itemgetter(1), reverse=True)
        get_short_head: short_head_limit = self._data.transactions * self._pop_ratio
                        for i, pop in sorted_pop_items: short_head.append(i); short_head_limit -= pop;
                                                        if short_head_limit <= 0: break
        get_long_tail: [i for i in sorted_pop_items if i not in short_head]
    transactions is the non-zero entries of the training matrix (distinct (user, item) pairs). Elliot orders
    items of equal popularity by its internal index; here by item id, as our SQL does."""
    users = {}
    for u, i in train:
        users.setdefault(i, set()).add(u)
    pop = {i: len(us) for i, us in users.items()}
    ordered = sorted(sorted(pop.items()), key=lambda x: x[1], reverse=True)  # stable: ties by item id
    limit = sum(pop.values()) * pop_ratio
    head = []
    for i, p in ordered:
        head.append(i)
        limit -= p
        if limit <= 0:
            break
    return {i for i, _ in ordered if i not in head}


def elliot_aplt_aclt(reco, long_tail, k):
    """Elliot's APLT and ACLT per user (elliot/evaluation/metrics/popularity_bias/APLT/aplt.py and ACLT/aclt.py):
        APLT: len(set([i for i, v in user_recommendations[:cutoff]]) & set(long_tail)) / len(user_recommendations[:cutoff])
        ACLT: len(set([i for i, v in user_recommendations[:cutoff]]) & set(long_tail))
    averaged over the users of the recommendations (np.average)."""
    lists = {}
    for u, i, rank, _ in sorted(reco, key=lambda r: (r[0], r[2])):
        lists.setdefault(u, []).append(i)
    aplt = {u: len(set(items[:k]) & long_tail) / len(items[:k]) for u, items in lists.items()}
    aclt = {u: float(len(set(items[:k]) & long_tail)) for u, items in lists.items()}
    return aplt, aclt


@pytest.mark.parametrize("model", ["popularity", "itemknn", "random"])
def test_aplt_aclt_equal_elliot(model):
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    train = read_train()
    for ratio, k in ((0.8, 10), (0.5, 3)):
        tail = elliot_long_tail(train, ratio)
        assert 0 < len(tail) < len({i for _, i in train})
        aplt, aclt = elliot_aplt_aclt(reco, tail, k)
        names = [f"APLT(head_share={ratio})@{k}", f"ACLT(head_share={ratio})@{k}"]
        means, per_query = ours(reco, test, names, train)
        assert per_query[names[0]] == pytest.approx(aplt, abs=1e-12)
        assert per_query[names[1]] == pytest.approx(aclt, abs=1e-12)
        assert means[names[0]] == pytest.approx(sum(aplt.values()) / len(aplt), abs=1e-12)
        assert means[names[1]] == pytest.approx(sum(aclt.values()) / len(aclt), abs=1e-12)


def test_hand_computed_aplt_aclt():
    # training: a by u1, u2, u3 (3 users; u1 twice: still 3), b by u1, u2 (2), c by u4 (1): 6 (user, item) pairs.
    # head_share 0.8: limit 4.8; a (4.8 - 3 = 1.8 > 0, go on), b (1.8 - 2 <= 0: in the head, stop): the long tail
    # is {c}. The list a, b, c, z (z never interacted with: in neither): APLT@3 = 1/3, APLT@4 = 1/4, ACLT@4 = 1.
    # head_share 0.4: limit 2.4: a (2.4 - 3 <= 0, stop): tail {b, c}: APLT@4 = 2/4, ACLT@2 = 1.
    train = [("u1", "a"), ("u1", "a"), ("u2", "a"), ("u3", "a"), ("u1", "b"), ("u2", "b"), ("u4", "c")]
    reco = [("q", "a", 1, 4.0), ("q", "b", 2, 3.0), ("q", "c", 3, 2.0), ("q", "z", 4, 1.0)]
    names = ["APLT@3", "APLT@4", "ACLT@4", "APLT(head_share=0.4)@4", "ACLT(head_share=0.4)@2"]
    _, per_query = ours(reco, [("q", "a")], names, train)
    got = {name: values["q"] for name, values in per_query.items()}
    assert got == pytest.approx({"APLT@3": 1 / 3, "APLT@4": 1 / 4, "ACLT@4": 1.0, "APLT(head_share=0.4)@4": 0.5,
                                 "ACLT(head_share=0.4)@2": 1.0}, abs=1e-12)


@pytest.mark.parametrize("model", ["popularity", "random"])
def test_item_coverage_equals_elliot(model):
    # Elliot's ItemCoverage (elliot/evaluation/metrics/coverage/item_coverage/item_coverage.py), transcribed:
    #     len({i for u_r in self._recommendations.values() for i, _ in u_r[:self._cutoff]})
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    for k in (1, 10):
        want = len({i for _, i, rank, _ in reco if rank <= k})
        means, _ = ours(reco, read_qrels(os.path.join(RECSYS, "test.qrels")), [f"ItemCoverage@{k}"],
                        catalog=read_catalog())
        assert means[f"ItemCoverage@{k}"] == want


def impressions_data(seed):
    """Users with judged impressions (labels 0/1) scored by the run, with tied scores, unjudged scored items (not
    impressions), users with one class only (no AUC) and one judged item the run does not score."""
    import random
    rng = random.Random(seed)
    run, judgments = [], []
    for u in range(40):
        n = rng.randint(1, 12)
        for i in range(n):
            item = f"i{i}"
            run.append((f"u{u}", item, float(rng.randint(0, 5))))  # few values: ties
            if rng.random() < 0.8:
                judgments.append((f"u{u}", item, int(rng.random() < (0.5 if u % 7 else 1.0))))
        judgments.append((f"u{u}", "never_scored", 1))
    return run, judgments


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gauc_equals_scikit_learn_per_user(seed):
    # GAUC (Zhou et al. 2018, DIN, section 6.2): sum_u w_u AUC_u / sum_u w_u over the users whose impressions hold
    # both classes, w_u the user's impressions (or 1); AUC_u is scikit-learn's roc_auc_score over them
    import pyarrow as pa
    from sklearn.metrics import roc_auc_score
    from rankmetrics_duckdb import evaluate
    run, judgments = impressions_data(seed)
    scores = {(u, i): s for u, i, s in run}
    per_user = {}
    for u, i, label in judgments:
        if (u, i) in scores:
            per_user.setdefault(u, ([], []))
            per_user[u][0].append(label), per_user[u][1].append(scores[(u, i)])
    aucs = {u: (roc_auc_score(y, s), len(y)) for u, (y, s) in per_user.items() if len(set(y)) == 2}
    assert 10 < len(aucs) < len(per_user)
    weighted = sum(a * w for a, w in aucs.values()) / sum(w for _, w in aucs.values())
    plain = sum(a for a, _ in aucs.values()) / len(aucs)
    got = evaluate(pa.table({"query_id": [j[0] for j in judgments], "item_id": [j[1] for j in judgments],
                             "relevance": [j[2] for j in judgments]}),
                   pa.table({"query_id": [r[0] for r in run], "item_id": [r[1] for r in run],
                             "score": [r[2] for r in run]}), ["GAUC", "GAUC(weighted=false)"])
    assert got["GAUC"] == pytest.approx(weighted, abs=1e-12)
    assert got["GAUC(weighted=false)"] == pytest.approx(plain, abs=1e-12)


def personalization_recmetrics(predicted):
    """recmetrics' personalization (recmetrics/metrics.py, personalization), transcribed:
        rec_matrix: one row per user, one column per item, 1 where the user's list holds the item
        similarity = cosine_similarity(X=rec_matrix_sparse, dense_output=False)
        dim = similarity.shape[0]
        personalization = (similarity.sum() - dim) / (dim * (dim - 1))
        return 1 - personalization"""
    import numpy as np
    from sklearn.metrics.pairwise import cosine_similarity
    items = sorted({i for lst in predicted for i in lst})
    matrix = np.array([[1.0 if i in set(lst) else 0.0 for i in items] for lst in predicted])
    similarity = cosine_similarity(matrix)
    dim = similarity.shape[0]
    return 1 - (similarity.sum() - dim) / (dim * (dim - 1))


@pytest.mark.parametrize("model", ["popularity", "itemknn", "random"])
def test_personalization_equals_recmetrics(model):
    reco = read_run(os.path.join(RECSYS, f"{model}.run"))
    test = read_qrels(os.path.join(RECSYS, "test.qrels"))
    for k in (3, 10):
        lists = {}
        for u, i, rank, _ in reco:
            if rank <= k:
                lists.setdefault(u, []).append(i)
        means, per_query = ours(reco, test, [f"Personalization@{k}"])
        assert means[f"Personalization@{k}"] == pytest.approx(personalization_recmetrics(list(lists.values())),
                                                              abs=1e-12)
        assert per_query[f"Personalization@{k}"] == {}


def test_hand_computed_gauc_and_personalization():
    # GAUC: q's impressions a (relevant, score 4), b (not, 3), c (relevant, 3): a beats b, c ties b (1/2): AUC
    # 1.5/2 = 0.75 over 3 impressions; p's a (not, 3), c (relevant, 1): 0 over 2; d is scored but not judged (no
    # impression). Weighted (3 x 0.75 + 2 x 0)/5 = 0.45; plain (0.75 + 0)/2 = 0.375.
    # Personalization@2: q's top 2 is a, then c before b (tied scores, item id descending): {a, c}; p's {a, b}:
    # cosine 1/sqrt(2 x 2) = 1/2, personalization 1 - 1/2.
    reco = [("q", "a", 1, 4.0), ("q", "c", 2, 3.0), ("q", "b", 3, 3.0), ("q", "d", 4, 1.0),
            ("p", "a", 1, 3.0), ("p", "b", 2, 2.0), ("p", "c", 3, 1.0)]
    import pyarrow as pa
    from rankmetrics_duckdb import evaluate
    run = pa.table({"query_id": [r[0] for r in reco], "item_id": [r[1] for r in reco],
                    "score": [r[3] for r in reco]})
    judged = [("q", "a", 1), ("q", "b", 0), ("q", "c", 1), ("p", "a", 0), ("p", "c", 1)]
    qrels = pa.table({"query_id": [j[0] for j in judged], "item_id": [j[1] for j in judged],
                      "relevance": [j[2] for j in judged]})
    got = evaluate(qrels, run, ["GAUC", "GAUC(weighted=false)", "Personalization@2"])
    assert got == pytest.approx({"GAUC": 0.45, "GAUC(weighted=false)": 0.375, "Personalization@2": 0.5}, abs=1e-12)


def test_gauc_and_personalization_per_group_equal_each_group_alone_and_the_references():
    # two groups of one table (the impressions of seeds 1 and 2, each a model): per group, GAUC equals
    # scikit-learn's roc_auc_score per user (weighted by the impressions, and plain) and Personalization@3
    # recmetrics' formula over the group's top 3 lists; each equals the group evaluated alone
    import pyarrow as pa
    from sklearn.metrics import roc_auc_score
    from rankmetrics_duckdb import evaluate
    names = ["GAUC", "GAUC(weighted=false)", "Personalization@3"]
    runs, judged, alone = [], [], {}
    for seed in (1, 2):
        run, judgments = impressions_data(seed)
        model = f"m{seed}"
        runs += [(model, *r) for r in run]
        judged += [(model, *j) for j in judgments]
        alone[model] = evaluate(pa.table({"query_id": [j[0] for j in judgments], "item_id": [j[1] for j in judgments],
                                          "relevance": [j[2] for j in judgments]}),
                                pa.table({"query_id": [r[0] for r in run], "item_id": [r[1] for r in run],
                                          "score": [r[2] for r in run]}), names)
    got = evaluate(pa.table({"model": [j[0] for j in judged], "uid": [j[1] for j in judged],
                             "iid": [j[2] for j in judged], "label": [j[3] for j in judged]}),
                   pa.table({"model": [r[0] for r in runs], "uid": [r[1] for r in runs], "iid": [r[2] for r in runs],
                             "pred": [r[3] for r in runs]}), names, by=["model"],
                   columns={"query_id": "uid", "item_id": "iid", "score": "pred", "relevance": "label"})
    assert set(got) == {("m1",), ("m2",)}
    for model in ("m1", "m2"):
        scores = {(u, i): s for m, u, i, s in runs if m == model}
        per_user = {}
        for m, u, i, label in judged:
            if m == model and (u, i) in scores:
                per_user.setdefault(u, ([], []))
                per_user[u][0].append(label), per_user[u][1].append(scores[(u, i)])
        aucs = [(roc_auc_score(y, s), len(y)) for y, s in per_user.values() if len(set(y)) == 2]
        # the top 3 of each user: score descending, then item id descending (the trec_eval convention's ties)
        lists = {}
        ranked = sorted((r for r in runs if r[0] == model), key=lambda r: r[2], reverse=True)
        for m, u, i, s in sorted(ranked, key=lambda r: (r[1], -r[3])):  # stable: ties keep the item order
            if len(lists.setdefault(u, [])) < 3:
                lists[u].append(i)
        want = {"GAUC": sum(a * w for a, w in aucs) / sum(w for _, w in aucs),
                "GAUC(weighted=false)": sum(a for a, _ in aucs) / len(aucs),
                "Personalization@3": personalization_recmetrics(list(lists.values()))}
        assert got[(model,)] == pytest.approx(want, abs=1e-12), model
        assert got[(model,)] == pytest.approx(alone[model], abs=1e-12), model


def test_gauc_of_a_group_with_no_impression_is_nan_not_left_out():
    # model a: q1's impressions x (relevant, score 3) and y (not, 2): AUC 1 over 2 impressions; z is unjudged.
    # Model b retrieves only unjudged items: no impression, so no AUC, NaN (as GAUC of a whole run with none).
    # Before, the group was left out: evaluate(), the DuckDB macro and to_sql's SQL gave model a alone (and a run
    # with no impression at all no row on the SQL routes), so a mean over the groups silently lacked it.
    import math
    import duckdb
    import pyarrow as pa
    import rankmetrics_duckdb as rm
    run = pa.table({"model": ["a", "a", "a", "b", "b"], "query_id": ["q1"] * 5, "item_id": ["x", "y", "z", "u", "v"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    judgments = pa.table({"query_id": ["q1", "q1"], "item_id": ["x", "y"], "relevance": [1, 0]})
    got = rm.evaluate(judgments, run, ["GAUC"], by=["model"])
    assert set(got) == {("a",), ("b",)} and got[("a",)]["GAUC"] == 1.0 and math.isnan(got[("b",)]["GAUC"])
    con = duckdb.connect()
    con.register("run", run)
    con.register("judgments", judgments)
    sql = rm.to_sql(["GAUC"], dialect="duckdb", run="run", judgments="judgments", by=["model"], judgments_by=[])
    assert sorted(con.execute(sql).fetchall()) == [("GAUC", "a", None, 1.0), ("GAUC", "b", None, None)]
    con.execute(rm.macros_sql())
    assert sorted(con.execute("SELECT * FROM gauc('run', 'judgments', \"by\" := ['model'])").fetchall()) == [
        ("a", None, 1.0), ("b", None, None)]
    con.execute("CREATE TEMP TABLE run_b AS SELECT query_id, item_id, score FROM run WHERE model = 'b'")
    assert con.execute("SELECT * FROM gauc('run_b', 'judgments')").fetchall() == [(None, None)]
