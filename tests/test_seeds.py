"""The worked examples of the seed notes (datasets/seeds), against values computed by hand here.

Slips in the notes are corrected (see ../shared/CONVENTIONS.md section 7): 000 prints 0.94 for 7.024/7.393;
001 prints 0.333 for mean MRR@3 and MRR@5, which are (1 + 1/2 + 0) / 3 = 0.5; 003 prints 16.047 for the
exponential DCG@6, but its rank-5 term is (2^1 - 1) / log2(6) = 0.387, not 2.585, giving 13.849."""
import math
import os

import pytest

from rankmetrics_duckdb import evaluate
from conftest import SEEDS


def seed(name):
    return os.path.join(SEEDS, name)


def log2(x):
    return math.log(x, 2)


def test_000_ndcg_explainer():
    dcg = 3 / log2(2) + 4 / log2(3) + 3 / log2(4)      # 7.024
    idcg = 4 / log2(2) + 3 / log2(3) + 3 / log2(4)     # 7.393
    got = evaluate(seed("000_ndcg_explainer.qrels"), seed("000_ndcg_explainer.run"), ["nDCG@3", "DCG@3"])
    assert got["nDCG@3"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert got["nDCG@3"] == pytest.approx(0.950, abs=5e-4)
    assert got["DCG@3"] == pytest.approx(dcg, abs=1e-12)


def test_003_phones_dcg_and_ndcg():
    rels = [3, 2, 3, 0, 1, 2]
    linear = sum(r / log2(i + 2) for i, r in enumerate(rels))
    expo = sum((2 ** r - 1) / log2(i + 2) for i, r in enumerate(rels))
    ideal = sum(r / log2(i + 2) for i, r in enumerate(sorted(rels, reverse=True)))
    ideal_extra = sum(r / log2(i + 2) for i, r in enumerate([3, 3, 3, 2, 2, 2]))  # 3,3,3,2,2,2,1,0 cut at 6
    assert linear == pytest.approx(6.861, abs=5e-4) and expo == pytest.approx(13.848, abs=5e-4)
    run, qrels = seed("003_phones.run"), seed("003_phones.qrels")
    got = evaluate(qrels, run, ["DCG@6", "nDCG@6"])
    assert got["DCG@6"] == pytest.approx(linear, abs=1e-12)
    assert got["nDCG@6"] == pytest.approx(linear / ideal, abs=1e-12)
    assert got["nDCG@6"] == pytest.approx(0.961, abs=5e-4)
    assert evaluate(qrels, run, ["DCG@6"], gain="exponential")["DCG@6"] == pytest.approx(expo, abs=1e-12)
    assert evaluate(qrels, run, ["DCG(gain=exponential)@6"])["DCG(gain=exponential)@6"] == pytest.approx(expo)
    extra = evaluate(seed("003_phones_extra.qrels"), run, ["nDCG@6"])["nDCG@6"]
    assert extra == pytest.approx(linear / ideal_extra, abs=1e-12)
    assert extra == pytest.approx(0.785, abs=5e-4)


def test_004_playlist_two_systems():
    grade = {"A": 3, "B": 3, "C": 2, "D": 2, "E": 1, "F": 1, "G": 0}
    ideal = sum(g / log2(i + 2) for i, g in enumerate([3, 3, 2, 2, 1]))
    for run, items in (("004_playlist_system1.run", "AECDF"), ("004_playlist_system2.run", "ABCGE")):
        dcg = sum(grade[x] / log2(i + 2) for i, x in enumerate(items))
        got = evaluate(seed("004_playlist.qrels"), seed(run), ["nDCG@5"])["nDCG@5"]
        assert got == pytest.approx(dcg / ideal, abs=1e-12)
    assert evaluate(seed("004_playlist.qrels"), seed("004_playlist_system1.run"), ["nDCG@5"])["nDCG@5"] == \
        pytest.approx(0.8233, abs=5e-5)
    assert evaluate(seed("004_playlist.qrels"), seed("004_playlist_system2.run"), ["nDCG@5"])["nDCG@5"] == \
        pytest.approx(0.8794, abs=5e-5)


# Seed 001, user by user, as the note's tables work them out (u1, u2, u3; u4 has no labels: NaN).
SEED_001 = {
    "P@1": (1, 0, 0), "P@3": (2 / 3, 1 / 3, 0), "P@5": (2 / 5, 2 / 5, 0),
    "R@1": (1 / 6, 0, 0), "R@3": (1 / 3, 1 / 3, 0), "R@5": (1 / 3, 2 / 3, 0),
    "F1@1": (2 / 7, 0, 0), "F1@3": (4 / 9, 1 / 3, 0), "F1@5": (4 / 11, 1 / 2, 0),
    "AP@1": (1, 0, 0), "AP@3": ((1 + 1) / 2, (1 / 2) / 1, 0), "AP@5": ((1 + 1) / 2, (1 / 2 + 2 / 4) / 2, 0),
    "RR@1": (1, 0, 0), "RR@3": (1, 1 / 2, 0), "RR@5": (1, 1 / 2, 0),
    # nDCG, ideal = the top k retrieved re-sorted: u2 at 3 has rel (0,1,0) -> ideal (1,0,0)
    "nDCG@1": (1, 0, 0),
    "nDCG@3": (1, (1 / math.log(3)) / (1 / math.log(2)), 0),
    "nDCG@5": (1, (1 / math.log(3) + 1 / math.log(5)) / (1 / math.log(2) + 1 / math.log(3)), 0),
}


def test_001_recsys_users_retrieved_convention():
    got = evaluate(seed("001_recsys_users.qrels"), seed("001_recsys_users.run"), list(SEED_001),
                   convention="retrieved", per_query=True)
    for measure, values in SEED_001.items():
        for user, want in zip(("u1", "u2", "u3"), values):
            assert got[measure][user] == pytest.approx(want, abs=1e-12), (measure, user)
        assert math.isnan(got[measure]["u4"]), measure  # no labels: NaN, not 0
    means = evaluate(seed("001_recsys_users.qrels"), seed("001_recsys_users.run"), list(SEED_001),
                     convention="retrieved")
    for measure, values in SEED_001.items():
        assert means[measure] == pytest.approx(sum(values) / 3, abs=1e-12), measure
    # the note's own means, slips corrected
    assert means["RR@3"] == pytest.approx(0.5) and means["RR@5"] == pytest.approx(0.5)
    assert means["P@5"] == pytest.approx(4 / 15) and means["F1@5"] == pytest.approx(19 / 66)
    assert means["nDCG@3"] == pytest.approx(0.544, abs=5e-4) and means["nDCG@5"] == pytest.approx(0.550, abs=5e-4)
