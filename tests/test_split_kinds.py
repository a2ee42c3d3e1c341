"""sqlgen.plan(split_kinds=True): the features read only on retrieved rows are computed over the retrieved rows
alone. A change of query shape, not of definition: the numbers must be bit-identical to the one-stream query
(both with their floating-point sums in value order, determinism.ordered), on every measure and convention.

The expected values here are those of the default shape, which the rest of the suite checks against trec_eval,
pytrec_eval, ranx, scikit-learn and MLlib; this file checks the two shapes agree exactly (the parity contract of
a second rendering of the same definitions)."""
from __future__ import annotations

import math
import os

import pytest
from sqlglot import exp

import rankmetrics_duckdb as rm
from rankmetrics_duckdb import conventions, determinism, measures, sqlgen

from conftest import TREC
import synthetic

METRICS = ["nDCG@10", "nDCG", "AP", "AP@100", "P@10", "R@100", "RR", "RR@10", "DCG@10", "F1@10", "Rprec",
           "Success@10", "bpref", "ERR@20", "RBP(p=0.8)", "Judged@10", "AP(denominator=capped)@10",
           "nDCG(ideal=retrieved)@5", "NumQ", "NumRet", "NumRel", "NumRelRet", "IPrec@0.3", "GMAP", "RelP@10", "RelP", "SetAP",
           "RprecMult(mult=0.4)", "IPrecAvg11", "binG", "Utility", "Unjudged@10", "NumNonrelJudgedRet", "infAP",
           "RBPResid", "IdealDCG@10", "G", "nDCGRel", "RnDCG", "AUC", "PartialAUC@3", "PAP@3", "Fallout@10",
           "SufficientReco(deep=true)@20", "CoveredUsers@5",
           "BPM(T=2.5,max_rel=3)@10", "INST(T=2.0,max_rel=3)", "Compat(p=0.8)", "SDCG(max_rel=4)@20"]
# measure sets whose retrieved rows get pruned (every measure reads judged rows within a cutoff) or not
SETS = [METRICS, ["nDCG@10", "AP", "P@10", "R@1000", "RR"], ["AP@100", "bpref", "ERR@20", "Rprec"],
        ["nDCG(ideal=retrieved)@5", "P@5"],
        ["nDCG@10", "P@10", "AP@10", "RR@10", "Success@10", "Judged@10", "ERR@20", "DCG@10", "F1@10", "R@100"]]
CONVENTIONS = [("trec_eval", {}), ("mllib", {}), ("sklearn", {}), ("retrieved", {}), ("ranx", {}),
               ("trec_eval", {"queries": "judged", "judged_only": True}),
               ("trec_eval", {"gain": "exponential", "rel": 2, "ties": "average"})]


def _rows(ev, split, top_n=False):
    plan = sqlgen.plan(ev.measures, ev.conv, sqlgen.Source(ev.run.relation, ev.run.has_score, ev.run.has_rank),
                       sqlgen.Source(ev.judgments.relation, True, False), split_kinds=split, top_n=top_n)
    sql = determinism.ordered(plan.query).sql(dialect="duckdb")
    rows = ev.con.execute(sql).fetchall()
    return sorted(((m, q, "nan" if v is None or (isinstance(v, float) and math.isnan(v)) else v.hex())
                   for m, q, v in rows), key=lambda r: (r[0], r[1] is None, r[1] or "")), sql  # None: the mean


# every convention on the synthetic data (ties, unjudged and unretrieved items, empty queries), trec_eval's test
# data under trec_eval's (the suite's time: about 4 s a case)
@pytest.mark.parametrize("data,convention,overrides",
                         [("trec", *CONVENTIONS[0])] + [("synthetic", c, o) for c, o in CONVENTIONS])
def test_split_kinds_gives_the_same_bits(data, convention, overrides):
    if data == "trec":
        judgments, run = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    else:
        judgments, run = synthetic.to_tables(*synthetic.make())
    for metrics in SETS:
        ev = rm.Evaluation(judgments, run, metrics, convention=convention, **overrides)
        cut = measures.cutoff_depth(ev.measures, ev.conv)
        try:
            one, one_sql = _rows(ev, False)
            split, split_sql = _rows(ev, True)
            # a cutoff-only request also ranks the top K only, with DuckDB's heap when asked (test_top_k.py)
            heap, heap_sql = _rows(ev, True, top_n=True) if cut is not None else (split, split_sql)
        finally:
            ev.close()
        assert one and len(one) == len(split)
        assert one == split, f"{convention} {overrides} {metrics}"
        assert heap == split, f"top_n: {convention} {overrides} {metrics}"
        assert "retrieved AS s" in split_sql and "retrieved AS s" not in one_sql
        assert (f"QUALIFY pos <= {cut}" in split_sql) == (cut is not None)
        if cut is not None and ev.conv["ties"] == "item_desc":
            assert "ROW(" in heap_sql and "ROW(" not in split_sql


def test_features_of_retrieved_rows_skip_the_judged_rows():
    """AP's running count is partitioned by kind and read only on 'R' rows: computed over the retrieved rows
    (the judged rows carry NULL); bpref's |G| window spans both kinds and is computed over both."""
    stand_in = sqlgen.Source(exp.to_table("run"))
    plan = sqlgen.plan(measures.parse_all(["AP", "bpref"]), conventions.resolve("trec_eval"),
                       stand_in, sqlgen.Source(exp.to_table("qrels")), split_kinds=True)
    features = next(c.this for c in plan.query.args["with_"].expressions if c.alias == "features")
    inner = features.args["from_"].this.this  # the UNION ALL of the retrieved and judged rows
    retrieved_part, judged_part = inner.this, inner.expression
    assert retrieved_part.args["from_"].this.name == "retrieved"
    assert judged_part.args["from_"].this.name == "judged"
    own = {e.alias for e in retrieved_part.expressions if e.find(exp.Window)}
    assert {n.split("_")[0] for n in own} == {"running", "nonrel"}
    assert all(isinstance(e.this, exp.Null) for e in judged_part.expressions if e.alias in own)
    both = {e.alias for e in features.expressions if e.find(exp.Window)}
    assert {n.rsplit("_", 1)[0] for n in both} == {"query_num_rel", "query_num_nonrel"}
