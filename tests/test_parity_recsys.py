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
