"""mllib preset against Spark MLlib's RankingMetrics definitions, transcribed below from
mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala (precisionAt, recallAt,
meanAveragePrecision, meanAveragePrecisionAt, ndcgAt with binary relevance). MLlib takes each query's
predictions in the given order and its label set; an empty label set scores 0 (MLlib logs a warning)."""
import math
import random

import pyarrow as pa
import pytest

from rankmetrics_duckdb import evaluate


def precision_at(pred, lab, k):
    return sum(1 for p in pred[:k] if p in lab) / k if lab else 0.0


def recall_at(pred, lab, k):
    return sum(1 for p in pred[:k] if p in lab) / len(lab) if lab else 0.0


def average_precision(pred, lab, k=None):
    if not lab:
        return 0.0
    n = len(pred) if k is None else min(k, len(pred))
    cnt, prec_sum = 0, 0.0
    for i in range(n):
        if pred[i] in lab:
            cnt += 1
            prec_sum += cnt / (i + 1)
    return prec_sum / (len(lab) if k is None else min(len(lab), k))


def ndcg_at(pred, lab, k):
    if not lab:
        return 0.0
    n = min(max(len(pred), len(lab)), k)
    dcg = max_dcg = 0.0
    for i in range(n):
        gain = 1.0 / math.log(i + 2)
        if i < len(pred) and pred[i] in lab:
            dcg += gain
        if i < len(lab):
            max_dcg += gain
    return dcg / max_dcg


def data(seed=3):
    rnd = random.Random(seed)
    preds, labels = {}, {}
    for u in range(40):
        items = [f"i{j}" for j in rnd.sample(range(60), 25)]
        if u % 7 != 3:  # some users have no predictions
            preds[f"u{u}"] = items[: rnd.randrange(1, 25)]
        if u % 11 != 5:  # some have no labels
            labels[f"u{u}"] = set(rnd.sample(items, rnd.randrange(0, 8)) + [f"x{u}"])  # x: never predicted
    return preds, labels


def tables(preds, labels):
    # all scores tied: only the rank column (the input order) can order the predictions
    run = pa.table({"query_id": [u for u, p in preds.items() for _ in p],
                    "item_id": [i for p in preds.values() for i in p],
                    "rank": [r + 1 for p in preds.values() for r in range(len(p))],
                    "score": [0.0 for p in preds.values() for _ in p]})
    judg = pa.table({"query_id": [u for u, l in labels.items() for _ in l],
                     "item_id": [i for l in labels.values() for i in l],
                     "relevance": [1 for l in labels.values() for _ in l]})
    return judg, run


REFERENCE = {
    "P@5": lambda p, l: precision_at(p, l, 5), "P@10": lambda p, l: precision_at(p, l, 10),
    "R@10": lambda p, l: recall_at(p, l, 10), "AP": lambda p, l: average_precision(p, l),
    "AP@5": lambda p, l: average_precision(p, l, 5), "AP@10": lambda p, l: average_precision(p, l, 10),
    "nDCG@5": lambda p, l: ndcg_at(p, l, 5), "nDCG@10": lambda p, l: ndcg_at(p, l, 10),
}


def test_mllib_definitions_per_query_and_means():
    preds, labels = data()
    judg, run = tables(preds, labels)
    got = evaluate(judg, run, list(REFERENCE), convention="mllib", per_query=True)
    users = sorted(set(preds) | set(labels))
    for name, fn in REFERENCE.items():
        want = {u: fn(preds.get(u, []), labels.get(u, set())) for u in users}
        assert set(got[name]) == set(users), name
        for u in users:
            assert got[name][u] == pytest.approx(want[u], abs=1e-12), (name, u)
    means = evaluate(judg, run, list(REFERENCE), convention="mllib")
    for name, fn in REFERENCE.items():
        want = sum(fn(preds.get(u, []), labels.get(u, set())) for u in users) / len(users)
        assert means[name] == pytest.approx(want, abs=1e-12), name


def test_graded_labels_are_binary_and_the_level_applies():
    """MLlib's labels are a set: under -l 2 only grades >= 2 are labels, for nDCG too."""
    run = pa.table({"query_id": ["q"] * 4, "item_id": ["a", "b", "c", "d"], "rank": [1, 2, 3, 4]})
    judg = pa.table({"query_id": ["q"] * 3, "item_id": ["a", "c", "d"], "relevance": [1, 3, 2]})
    got = evaluate(judg, run, ["nDCG@3", "P@3"], convention="mllib", rel=2)
    assert got["nDCG@3"] == pytest.approx(ndcg_at(["a", "b", "c", "d"], {"c", "d"}, 3))
    assert got["P@3"] == pytest.approx(1 / 3)
