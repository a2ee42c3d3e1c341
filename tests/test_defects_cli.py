"""Issue 13: defects of the command line and the Python surface, and the documents a new user trips over."""
import os

import pytest

from conftest import ROOT, TREC, cli, read_trec_output

import rankmetrics_duckdb as rm
from rankmetrics_duckdb.errors import UsageError

Q, R = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
AQ = read_trec_output(os.path.join(TREC, "out.test.aq"))  # trec_eval -q on qrels.test / results.test


def test_relation_cutoff_only_request_fetches():
    # the cutoff-only path scanned the run for its list length and left that result open on the connection
    rows = rm.relation(Q, R, ["nDCG@10"]).fetchall()
    per = {q: v for m, q, v in rows if q in ("301", "302", "303")}
    for q in ("301", "302", "303"):
        assert per[q] == pytest.approx(AQ["ndcg_cut_10"][q], abs=5e-5)  # out.test.aq: 0.1518, 0.7530, 0.0000
    means = [v for m, q, v in rows if q not in per]
    assert len(means) == 1 and means[0] == pytest.approx(AQ["ndcg_cut_10"]["all"], abs=5e-5)  # 0.3016
