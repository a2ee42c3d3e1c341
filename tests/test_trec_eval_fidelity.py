"""Cases found by comparing `rankmetrics eval` with the trec_eval 10.0 binary (built from the commit of the
trec_eval suite in datasets/trec_eval) on random files, byte for byte.

trec_eval prints 4 decimals: a value whose exact decimal lies on a rounding boundary prints as the last bit of
trec_eval's own double arithmetic decides; each expected value below is that arithmetic written out in Python,
term by term in trec_eval's order. And -J keeps a query of the run whose retrieved items are all unjudged."""
import json
import math

import pytest

from conftest import cli

import rankmetrics_duckdb as rm


def _write(tmp_path, qrels, run):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("".join(f"{qid} 0 {doc} {rel}\n" for qid, doc, rel in qrels))
    r.write_text("".join(f"{qid} Q0 {doc} {i + 1} {score} tag\n" for i, (qid, doc, score) in enumerate(run)))
    return str(q), str(r)


def _trec_line(stdout, measure, qid):
    for line in stdout.splitlines():
        name, q, value = line.split("\t")
        if name.strip() == measure and q == qid:
            return value
    raise AssertionError(f"no {measure} {qid} line in:\n{stdout}")


def test_rbp_on_a_rounding_boundary(tmp_path):
    # q1: x (grade 0), a (3), b (1) retrieved in that order; c (grade 4, not retrieved) makes the query's top grade
    # 4. m_rbp.c: gains normalized to grade / 4 (0, 0.75, 0.25), sum += gain * cur_p with cur_p = 1, 0.9, 0.9 * 0.9,
    # value (1.0 - p) * sum: exactly 0.08775 in decimals, 0.08774999999999998 in doubles, printed 0.0877. With 1 - p
    # computed as the decimal 0.1 the value was 0.08775000000000001, printed 0.0878.
    q, r = _write(tmp_path, [("q1", "a", 3), ("q1", "b", 1), ("q1", "c", 4), ("q1", "x", 0)],
                  [("q1", "x", 3), ("q1", "a", 2), ("q1", "b", 1)])
    p = 0.9
    total, cur_p = 0.0, 1.0
    for gain in (0 / 4, 3 / 4, 1 / 4):
        if gain != 0:
            total += gain * cur_p
        cur_p = cur_p * p
    want = (1.0 - p) * total
    assert "%.4f" % want == "0.0877"
    out = cli("eval", q, r, "-m", "rbp", "-q").stdout
    assert _trec_line(out, "rbp", "q1") == "%.4f" % want
    assert _trec_line(out, "rbp", "all") == "%.4f" % want
    rows = json.loads(cli("eval", q, r, "-m", "rbp", "-q", "--format", "json").stdout)
    assert [row["value"] for row in rows if row["query_id"] == "q1"][0] == pytest.approx(want, abs=1e-15)


RELEVANT = {"q1": 0, "q2": 1, "q3": 7, "q4": 1}  # each query's relevant items, retrieved first


def _four_queries(tmp_path, depth):
    """q1..q4, each retrieving `depth` items d0, d1, ... in that order, the first RELEVANT[q] of them relevant
    (q1 has one relevant item, not retrieved)."""
    qrels, run = [], []
    for qid, n in RELEVANT.items():
        qrels += [(qid, f"d{i}", 1) for i in range(n)] + ([(qid, "missing", 1)] if n == 0 else [])
        run += [(qid, f"d{i}", 1000 - i) for i in range(depth)]
    return _write(tmp_path, qrels, run)


def test_mean_adds_the_queries_in_trec_evals_order(tmp_path):
    # P_200 of q1..q4 is 0/200, 1/200, 7/200, 1/200 (each query retrieves 200 items; the relevant ones among them:
    # 0, 1, 7, 1; q1's one relevant item is not retrieved). trec_eval adds the values query by query in its qrels'
    # id order (te_acc_meas_s) and divides by num_q (te_calc_avg_meas_s): exactly 0.01125 in decimals,
    # 0.011249999999999998 in doubles, printed 0.0112; added in value order it was 0.011250000000000001 (0.0113).
    q, r = _four_queries(tmp_path, 200)
    total = 0.0
    for qid in sorted(RELEVANT):
        total += RELEVANT[qid] / 200
    want = total / len(RELEVANT)
    assert "%.4f" % want == "0.0112"
    out = cli("eval", q, r, "-m", "P.200").stdout
    assert _trec_line(out, "P_200", "all") == "%.4f" % want
    # the same bits in Python, whatever the input kind
    assert rm.evaluate(q, r, ["P_200"])["P_200"] == want


def test_gm_map_adds_the_logs_in_trec_evals_order(tmp_path):
    # gm_map: exp of the mean of ln(max(AP, 0.00001)) (te_calc_avg_meas_s_gm), the logs added query by query in
    # the qrels' id order. The same four queries as above with AP 0 (floored to 0.00001), then the hand AP of each
    # (relevant items at the top: AP 1 each).
    q, r = _four_queries(tmp_path, 20)
    import math
    ap = {"q1": 0.0, "q2": 1.0, "q3": 1.0, "q4": 1.0}  # q1 retrieves none of its relevant items; the others rank
    logs = 0.0                                            # every relevant item first
    for qid in sorted(ap):
        logs += math.log(max(ap[qid], 0.00001))
    want = math.exp(logs / len(ap))
    assert rm.evaluate(q, r, ["gm_map"])["gm_map"] == pytest.approx(want, rel=1e-15)
    assert _trec_line(cli("eval", q, r, "-m", "gm_map").stdout, "gm_map", "all") == "%.4f" % want


def test_judged_only_keeps_a_run_query_with_no_judged_item_retrieved(tmp_path):
    # trec_eval -J drops the unjudged items from each ranking (form_res_rels); a query of the run whose items are
    # all unjudged is still evaluated, with nothing retrieved (num_ret 0), and counts in num_q and the means.
    # q1: a (relevant) then x (unjudged): with -J, a alone: AP 1, P_5 1/5. q2: y and z, both unjudged, two relevant
    # items c and d judged: with -J nothing retrieved: AP 0, P_5 0, num_rel 2. Means over the two: map 0.5, P_5 0.1.
    # q3 is judged but not in the run: skipped without -c, as trec_eval skips it.
    q, r = _write(tmp_path, [("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 1), ("q2", "d", 1), ("q3", "e", 1)],
                  [("q1", "a", 2), ("q1", "x", 1), ("q2", "y", 2), ("q2", "z", 1)])
    out = cli("eval", q, r, "-J", "-q", "-m", "map", "-m", "P.5", "-m", "num_ret", "-m", "num_rel", "-m",
              "num_q").stdout
    assert _trec_line(out, "num_q", "all") == "2"
    assert _trec_line(out, "num_ret", "q2") == "0" and _trec_line(out, "num_rel", "q2") == "2"
    assert _trec_line(out, "map", "q2") == "0.0000" and _trec_line(out, "P_5", "q2") == "0.0000"
    assert _trec_line(out, "map", "q1") == "1.0000" and _trec_line(out, "P_5", "q1") == "0.2000"
    assert _trec_line(out, "map", "all") == "0.5000" and _trec_line(out, "P_5", "all") == "0.1000"
    assert "q3" not in out
    # the Python route and the prepared one, and with -c the judged query missing from the run too (AP 0)
    assert rm.evaluate(q, r, ["map", "P_5"], judged_only=True) == {"map": 0.5, "P_5": pytest.approx(0.1)}
    with rm.prepare(q, r, judged_only=True) as prepared:  # the stream kept in a table, read again
        assert prepared.evaluate(["map", "P_5"]) == {"map": 0.5, "P_5": pytest.approx(0.1)}
    assert rm.evaluate(q, r, ["map"], judged_only=True, queries="judged") == {"map": pytest.approx(1 / 3)}


def test_rbp_with_its_parameter_prints_as_trec_eval_names_and_places_it(tmp_path):
    # trec_eval prints a measure given with parameters as name_params (m_rbp.c's te_print_final_meas_s_double_p:
    # -m rbp.p=0.8 prints rbp_p=0.8), in its measure table's order (measures.c: binG before rbp), whatever the
    # order of -m. It printed rbp.p=0.8, first.
    q, r = _write(tmp_path, [("q1", "a", 1), ("q1", "b", 0)], [("q1", "a", 2), ("q1", "b", 1)])
    out = cli("eval", q, r, "-m", "rbp.p=0.8", "-m", "binG").stdout
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["binG", "rbp_p=0.8"]
    # rbp: (1 - 0.8) * (1 * 1) with a's gain 1 at rank 1 (the query's top grade is 1: no normalization)
    assert _trec_line(out, "rbp_p=0.8", "all") == "%.4f" % ((1.0 - 0.8) * 1.0)


def test_iprec_at_recall_levels_above_1_as_trec_eval_takes_them(tmp_path):
    # trec_eval takes any level (`-m iprec_at_recall.1.5` printed 0 where rankmetrics refused it): its count of
    # relevant items is lround(level x |G|) (m_iprec_at_recall.c), and a count above the relevant retrieved gives 0.
    # By hand: a (relevant), b, c (relevant): precision 1 at a, 2/3 at c. |G| = 2: level 1.0 and 1.2 (2.4 -> 2)
    # reach c: 2/3; 1.25 (2.5 -> 3) and 1.5 (3) no rank: 0. trec_eval prints the levels in order.
    q, r = _write(tmp_path, [("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2)],
                  [("q1", "a", 3), ("q1", "b", 2), ("q1", "c", 1)])
    out = cli("eval", q, r, "-m", "iprec_at_recall.1.5,1.0,1.2,1.25").stdout
    assert out.splitlines() == [f"iprec_at_recall_{level}  \tall\t{value}" for level, value in
                                (("1.00", "0.6667"), ("1.20", "0.6667"), ("1.25", "0.0000"), ("1.50", "0.0000"))]
    got = rm.evaluate(q, r, ["IPrec@1.2", "IPrec(at_recall=1.25)", "IPrec@1.0"])
    assert got == {"IPrec@1.2": 2 / 3, "IPrec(at_recall=1.25)": 0.0, "IPrec@1.0": 2 / 3}
    # the rounding as the metric's own parameter (it said "KeyError: 'iprec_rounding'"): trec_eval 9's count is
    # level x |G| + 0.9 truncated: 0.6 of 2 is 2.1 -> 2 relevant items, reached at c: 2/3, where lround(1.2) = 1 is
    # reached at a: 1; 0.3 is 1.5 -> 1 (lround(0.6) = 1 too): 1
    got = rm.evaluate(q, r, ["IPrec(iprec_rounding=v9)@0.6", "IPrec(iprec_rounding=nearest)@0.6",
                             "IPrec(iprec_rounding=v9)@0.3"])
    assert got == {"IPrec(iprec_rounding=v9)@0.6": 2 / 3, "IPrec(iprec_rounding=nearest)@0.6": 1.0,
                   "IPrec(iprec_rounding=v9)@0.3": 1.0}


def test_judged_only_keeps_such_queries_within_each_group():
    # by= groups are runs of their own: per model, a query whose retrieved items are all unjudged is kept with -J.
    # m1: q1 a (relevant; x unjudged, dropped): AP 1; q2 y, z unjudged: nothing retrieved, AP 0 -> map 0.5.
    # m2: q1 x unjudged: AP 0; q2 c (relevant, rank 1; y dropped), two relevant items: AP 1/2 -> map 0.25.
    import pyarrow as pa
    judgments = pa.table({"query_id": ["q1", "q1", "q2", "q2"], "item_id": ["a", "b", "c", "d"],
                          "relevance": [1, 0, 1, 1]})
    run = pa.table({"model": ["m1", "m1", "m1", "m1", "m2", "m2", "m2"],
                    "query_id": ["q1", "q1", "q2", "q2", "q1", "q2", "q2"],
                    "item_id": ["a", "x", "y", "z", "x", "c", "y"], "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0]})
    got = rm.evaluate(judgments, run, ["map"], by=["model"], judged_only=True, per_query=True)
    assert got == {("m1",): {"map": {"q1": 1.0, "q2": 0.0}}, ("m2",): {"map": {"q1": 0.0, "q2": 0.5}}}


def test_set_f_computed_as_m_set_f_c_computes_it(tmp_path):
    # -c: a and b are judged and not in the run (0 each); c retrieves 5 items, 1 of its 5 relevant ones; d
    # retrieves 8, 3 of its 8 relevant ones. m_set_F.c: P = rel_ret / ret, R = rel_ret / rel, then
    # (x + 1) * P * R / (x * P + R) with x = 1: for c 0.20000000000000004 (2h / (k + |G|) gives exactly 0.2), and
    # the mean (te_calc_avg_meas_s: the sum over the 4 queries / 4) 0.14375000000000002, printed 0.1438 by
    # trec_eval (0.14375 would print 0.1437).
    qrels = ([("a", "r1", 1), ("b", "r1", 1)] + [("c", f"c{i}", 1) for i in range(1, 6)]
             + [("d", f"d{i}", 1) for i in range(1, 9)])
    run = ([("c", d, 9 - i) for i, d in enumerate(["c1", "x1", "x2", "x3", "x4"])]
           + [("d", d, 9 - i) for i, d in enumerate(["d1", "d2", "d3", "y1", "y2", "y3", "y4", "y5"])])
    q, r = _write(tmp_path, qrels, run)

    def set_f(rel_ret, ret, rel, x=1.0):
        P, R = rel_ret / ret, rel_ret / rel
        return (x + 1.0) * P * R / (x * P + R)
    values = [0.0, 0.0, set_f(1, 5, 5), set_f(3, 8, 8)]
    total = 0.0
    for v in values:
        total += v
    mean = total / 4
    assert values[2] == 0.20000000000000004 and "%.4f" % mean == "0.1438"
    out = cli("eval", q, r, "-c", "-q", "-m", "set_F", "-m", "set_P").stdout
    assert _trec_line(out, "set_F", "c") == "0.2000"
    assert _trec_line(out, "set_F", "all") == "%.4f" % mean
    assert _trec_line(out, "set_P", "all") == "0.1437"
    rows = json.loads(cli("eval", q, r, "-c", "-q", "-m", "set_F", "--format", "json").stdout)
    assert [row["value"] for row in rows if row["query_id"] == "c"] == [values[2]]


def _lines(stdout):
    return [tuple(x.strip() for x in line.split("\t")) for line in stdout.splitlines()]


def test_relstring_alone_is_printed_for_the_queries_trec_eval_evaluates(tmp_path):
    # trec_eval prints relstring once per query it evaluates (trec_eval.c's loop over the judged queries): q1
    # (d1 relevant, d2 unjudged: '1-'), q2 (d9 unjudged: '-'); q3 has no judgments and is not evaluated. -J drops
    # the unjudged items: q1 '1', q2 '' (still evaluated: num_ret 0). Asked for alone, relstring used to be printed
    # for the run's queries instead (q3 '-'; under -J, q2 missing).
    q, r = _write(tmp_path, [("q1", "d1", 1), ("q2", "d1", 1)],
                  [("q1", "d1", 2), ("q1", "d2", 1), ("q2", "d9", 1), ("q3", "d1", 1)])
    assert _lines(cli("eval", q, r, "-q", "-m", "relstring").stdout) == [
        ("relstring", "q1", "'1-'"), ("relstring", "q2", "'-'")]
    assert _lines(cli("eval", q, r, "-q", "-J", "-m", "relstring").stdout) == [
        ("relstring", "q1", "'1'"), ("relstring", "q2", "''")]
    # runid is a summary line: printed after the per-query lines
    assert _lines(cli("eval", q, r, "-q", "-m", "relstring", "-m", "runid").stdout) == [
        ("relstring", "q1", "'1-'"), ("relstring", "q2", "'-'"), ("runid", "all", "tag")]


def test_relstring_n_of_a_judged_query_missing_from_the_run_under_c(tmp_path):
    # -c: q3 is judged and not in the run. trec_eval ranks a placeholder item for it ("ceci_nest_pas_un_docno",
    # unjudged) and afterwards clears the text of the measure named exactly 'relstring' only: relstring_3 prints
    # '-', relstring ''. Under -J the placeholder is dropped as unjudged: ''.
    q, r = _write(tmp_path, [("q1", "d1", 1), ("q3", "d1", 1)],
                  [("q1", "d1", 3.0), ("q1", "d4", 2.0), ("q1", "d3", 1.0), ("q2", "d9", 1)])
    assert _lines(cli("eval", q, r, "-q", "-c", "-m", "relstring.3", "-m", "map").stdout) == [
        ("map", "q1", "1.0000"), ("relstring_3", "q1", "'1--'"), ("map", "q3", "0.0000"),
        ("relstring_3", "q3", "'-'"), ("map", "all", "0.5000")]
    assert _lines(cli("eval", q, r, "-q", "-c", "-m", "relstring").stdout) == [
        ("relstring", "q1", "'1--'"), ("relstring", "q3", "''")]
    assert _lines(cli("eval", q, r, "-q", "-c", "-J", "-m", "relstring.3").stdout) == [
        ("relstring_3", "q1", "'1'"), ("relstring_3", "q3", "''")]
    # relstring.0: no character of any query (the placeholder's neither)
    assert _lines(cli("eval", q, r, "-q", "-c", "-m", "relstring.0").stdout) == [
        ("relstring_0", "q1", "''"), ("relstring_0", "q3", "''")]


def test_zscores_of_gm_map_are_of_its_log_as_trec_eval_holds_it(tmp_path):
    # trec_eval's gm_map holds ln(max(AP, 0.00001)) per query (m_gm_map.c), -Z z-scores that (convert_zscores.c)
    # and the 'all' row is exp(sum of the z-scores / queries) (te_calc_avg_meas_s_gm). q1: AP 1 (its relevant
    # item first), q2: AP 0.5 (its one relevant item second). With means 0.5, -0.5 and stddevs 0.25, 0.5:
    # z = (0 - 0.5) / 0.25 = -2 and (ln 0.5 + 0.5) / 0.5; the row exp((-2 + z2) / 2). The z-scores of AP itself
    # (2 and 0) averaged geometrically gave 2^(1/2) * 0.00001^(1/2) before.
    import math
    q, r = _write(tmp_path, [("q1", "a", 1), ("q2", "b", 1)],
                  [("q1", "a", 2), ("q1", "x", 1), ("q2", "x", 2), ("q2", "b", 1)])
    z = tmp_path / "z"
    z.write_text("q1 gm_map 0.5 0.25\nq2 gm_map -0.5 0.5\nq1 map 0.5 0.25\nq2 map 0.5 0.25\n")
    zs = [(math.log(1.0) - 0.5) / 0.25, (math.log(0.5) + 0.5) / 0.5]
    total = 0.0
    for v in zs:
        total += v
    want = math.exp(total / 2)
    out = cli("eval", q, r, "-Z", str(z), "-m", "gm_map", "-m", "map").stdout
    assert _trec_line(out, "Zgm_map", "all") == "%.4f" % want == "0.3033"
    assert _trec_line(out, "Zmap", "all") == "%.4f" % (((1 - 0.5) / 0.25 + (0.5 - 0.5) / 0.25) / 2)


def test_white_space_around_a_line_is_not_a_field(tmp_path):
    # trec_eval reads fields separated by white space: a tab before the first field or after the last is no
    # field. The general reader trimmed spaces only: 'q1 0 d1 1' with a tab before it counted 5 fields (an empty
    # one first) and was refused ('4 columns where a TREC qrels line has 4'), a run line so became a row with an
    # empty query id. q1: d1 relevant, d2 not; run d9 (unjudged) then d1: P_2 = 1/2.
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("\tq1 0 d1 1\nq1 0 d2 0\t\n")
    r.write_text("\tq1 Q0 d9 1 2 tag\nq1 Q0 d1 2 1 tag \t\n")
    out = cli("eval", "-q", "-m", "P.2", str(q), str(r)).stdout
    assert _lines(out) == [("P_2", "q1", "0.5000"), ("P_2", "all", "0.5000")]


def test_parameters_of_a_measure_that_takes_none_are_ignored_as_trec_eval_does(tmp_path):
    # map, recip_rank, gm_map, set_P, bpref ... take no parameters (meas_init.c's te_init_meas_s_double): trec_eval
    # ignores -m map.1's and prints map. q1: d1 not relevant first, d2 relevant second: AP 0.5, RR 0.5. map.1 was
    # read as AP@1 (0.0000, printed map_1).
    q, r = _write(tmp_path, [("q1", "d1", 0), ("q1", "d2", 1)], [("q1", "d1", 2), ("q1", "d2", 1)])
    out = cli("eval", "-q", "-m", "map.1", "-m", "recip_rank.1", "-m", "gm_map.1", q, r).stdout
    assert _lines(out) == [("map", "q1", "0.5000"), ("recip_rank", "q1", "0.5000"), ("map", "all", "0.5000"),
                           ("gm_map", "all", "0.5000"), ("recip_rank", "all", "0.5000")]


def test_rbp_resid_with_its_parameter(tmp_path):
    # trec_eval -m rbp_resid.p=0.5 (m_rbp_resid.c), printed rbp_resid_p=0.5; it was refused as an ambiguous name.
    # q1: d1 relevant first, d2 unjudged second (num_ret 2): the residual is what the unjudged rank could add,
    # (1 - p) * p^(2 - 1) = 0.25, plus the tail below the last rank, p^2 = 0.25: 0.5.
    q, r = _write(tmp_path, [("q1", "d1", 1)], [("q1", "d1", 3), ("q1", "d2", 2)])
    p = 0.5
    want = (1 - p) * p + p ** 2
    out = cli("eval", "-q", "-m", "rbp_resid.p=0.5", q, r).stdout
    assert _lines(out) == [("rbp_resid_p=0.5", "q1", "%.4f" % want), ("rbp_resid_p=0.5", "all", "%.4f" % want)]


def test_judgment_group_means_are_added_as_trec_eval_adds_them(tmp_path):
    # -R qrels_jg, P_avgjg.200: query a has groups 0, 1, 2 with 10, 2 and 3 relevant items retrieved, b groups 0
    # and 1 with 1 and 0. m_P_avgjg.c adds each group's rel / 200 in the groups' order and divides by their
    # number; te_acc_meas_s adds the queries in order: (0.05 + 0.01 + 0.015) / 3 and (0.005 + 0) / 2, then
    # their sum / 2 = 0.013750000000000002 in doubles, printed 0.0138 (a correctly rounded sum, math.fsum, gave
    # 0.01375 - 2e-18: 0.0137).
    q = tmp_path / "qrels"
    lines = [f"a 0 d{i} 1" for i in range(1, 11)] + ["a 1 d1 1", "a 1 d2 1"] + [f"a 2 d{i} 1" for i in range(1, 4)]
    q.write_text("\n".join(lines + ["b 0 e1 1", "b 1 e1 0"]) + "\n")
    r = tmp_path / "run"
    r.write_text("".join(f"a Q0 d{i} {i} {100 - i} t\n" for i in range(1, 11)) + "b Q0 e1 1 1 t\n")
    a = 0.0
    for v in (10 / 200, 2 / 200, 3 / 200):
        a += v
    a /= 3
    b = (1 / 200 + 0 / 200) / 2
    mean = (a + b) / 2
    assert "%.4f" % mean == "0.0138"
    out = cli("eval", "-q", "-R", "qrels_jg", "-m", "P_avgjg.200", str(q), str(r)).stdout
    assert _lines(out)[-1] == ("P_avgjg_200", "all", "0.0138")


def test_yaap_by_hand(tmp_path):
    # trec_eval's yaap (m_yaap.c): ln((1 + S) / (1 + num_rel - S)), S the sum of the precisions at the relevant
    # ranks. q1: d1 relevant, d2 not, d3 relevant retrieved, d4 relevant not retrieved: S = 1/1 + 2/3, num_rel 3.
    # q2: judged, nothing relevant: ln(1 / 1) = 0.
    import math
    q, r = _write(tmp_path, [("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d3", 1), ("q1", "d4", 1), ("q2", "e1", 0)],
                  [("q1", "d1", 3), ("q1", "d2", 2), ("q1", "d3", 1), ("q2", "e1", 1)])
    s = 1 / 1 + 2 / 3
    q1 = math.log((1.0 + s) / (1.0 + 3 - s))
    out = cli("eval", "-q", "-m", "yaap", q, r).stdout
    assert _lines(out) == [("yaap", "q1", "%.4f" % q1), ("yaap", "q2", "0.0000"), ("yaap", "all", "%.4f" % (q1 / 2))]
    rows = json.loads(cli("eval", "-q", "-m", "YAAP", q, r, "--format", "json").stdout)
    assert [x["value"] for x in rows if x["query_id"] == "q1"] == [pytest.approx(q1, abs=1e-15)]


def test_judgment_groups_with_max_retrieved(tmp_path):
    # -R qrels_jg -M 2 (form_res_rels_jg.c sorts by score, then docno descending, and keeps the first 2, as
    # form_res_rels.c): q1 retrieves d1, d2, d3 (scores 3, 2, 1); group 0 judges d1 and d3 relevant, group 1 d3.
    # Cut to d1, d2: group 0 AP (1/1) / 2 = 0.5, group 1 AP 0 (d3 cut); map_avgjg (0.5 + 0) / 2 = 0.25.
    # P_avgjg.2: group 0 1/2, group 1 0: 0.25. Without -M: group 0 (1 + 2/3) / 2, group 1 1/3.
    q = tmp_path / "qrels"
    q.write_text("q1 0 d1 1\nq1 0 d3 1\nq1 1 d3 1\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\n")
    out = cli("eval", "-R", "qrels_jg", "-M", "2", "-m", "map_avgjg", "-m", "P_avgjg.2", str(q), str(r)).stdout
    assert _lines(out) == [("map_avgjg", "all", "0.2500"), ("P_avgjg_2", "all", "0.2500")]
    out = cli("eval", "-R", "qrels_jg", "-m", "map_avgjg", str(q), str(r)).stdout
    assert _lines(out) == [("map_avgjg", "all", "%.4f" % (((1 + 2 / 3) / 2 + 1 / 3) / 2))]


def test_judgment_groups_complete_counts_a_judged_query_whose_groups_the_run_lacks(tmp_path):
    # -R qrels_jg -c: every judged query is evaluated, one the run lacks at 0 (trec_eval -c), even when its groups'
    # names occur in no query of the run (they are `by` groups of the run): q1's group g1 judges d1 relevant, the
    # run retrieves d1 first: AP 1; q2 (group g2) is not in the run: 0. map_avgjg (1 + 0) / 2 = 0.5, num_q 2 (the
    # trec_eval 10 binary prints these lines). Without -c: q1 alone, 1.0, num_q 1.
    q = tmp_path / "qrels"
    q.write_text("q1 g1 d1 1\nq2 g2 d1 1\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 d1 1 1 t\n")
    out = cli("eval", "-R", "qrels_jg", "-c", "-q", "-m", "map_avgjg", "-m", "num_q", str(q), str(r)).stdout
    assert _lines(out) == [("map_avgjg", "q1", "1.0000"), ("map_avgjg", "q2", "0.0000"), ("num_q", "all", "2"),
                           ("map_avgjg", "all", "0.5000")]
    assert _lines(cli("eval", "-R", "qrels_jg", "-c", "-m", "num_q", str(q), str(r)).stdout) == [("num_q", "all", "2")]
    out = cli("eval", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "num_q", str(q), str(r)).stdout
    assert _lines(out) == [("num_q", "all", "1"), ("map_avgjg", "all", "1.0000")]


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("gz", [False, True])
def test_the_rank_field_is_not_read_as_trec_eval_does_not_read_it(tmp_path, sep, gz):
    # get_trec_results.c: "the rank field is ignored here"; pytrec_eval's parse_run and ranx's reader skip it too.
    # Ranks that are not numbers, not finite or out of order: the numbers are pytrec_eval's (run here), which
    # ranks by score alone. Under ties 'input' (the mllib preset) the ranking follows the field: refused.
    import gzip
    import pytrec_eval
    rows = [("q1", "d1", "x", "0.5"), ("q1", "d2", "-", "2.5"), ("q1", "d3", "inf", "1.5"),
            ("q1", "d4", "nan", "3"), ("q2", "d1", "1e999", "1"), ("q2", "d5", "7", "2")]
    text = "".join(sep.join((q, "Q0", d, rank, score, "tag")) + "\n" for q, d, rank, score in rows)
    run = tmp_path / ("run.gz" if gz else "run")
    run.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d9 1\n")
    want = pytrec_eval.RelevanceEvaluator(
        {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1, "d9": 1}}, {"map", "P.2", "ndcg"}).evaluate(
        {"q1": {"d1": 0.5, "d2": 2.5, "d3": 1.5, "d4": 3.0}, "q2": {"d1": 1.0, "d5": 2.0}})
    p = cli("eval", str(qrels), str(run), "-m", "map", "-m", "P.2", "-m", "ndcg", "-q", "--format", "json")
    got = {(r["measure"], r["query_id"]): r["value"] for r in json.loads(p.stdout)}
    for q in ("q1", "q2"):
        for name, key in (("map", "map"), ("P_2", "P_2"), ("ndcg", "ndcg")):
            assert got[(name, q)] == pytest.approx(want[q][key], abs=1e-12)
    got = rm.evaluate(str(qrels), str(run), ["AP", "nDCG"], per_query=True)
    for q in ("q1", "q2"):
        assert got["AP"][q] == pytest.approx(want[q]["map"], abs=1e-12)
        assert got["nDCG"][q] == pytest.approx(want[q]["ndcg"], abs=1e-12)
    p = cli("eval", str(qrels), str(run), "-m", "P@2", "--convention", "mllib", check=False)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.strip().splitlines() == [f"rankmetrics: error: {run}, line 1: rank 'x' is not a number "
                                             f"(query q1, item d1)"]


def test_trec_eval_options_read_or_refused_by_name(tmp_path):
    # q1 retrieves d1 (grade 1) then d2 (grade 2). -T trec_results (trec_eval's only run format) and -D 0 (its
    # default debug level) change nothing: P_1 = 1/1. Other -D levels print trec_eval's debug lines: refused by
    # name (argparse used to blame the run's path). -l 1.5: trec_eval reads 1 (atol), we refuse a level that is not
    # whole under its whole grades. ndcg.1=1e1 (atof: gain 10 for grade 1; grade 2 keeps gain 2): DCG
    # 10 + 2 / log2(3), the ideal the same (10 first): 1.0, where gains 1 and 2 would give (1 + 2 / log2(3)) /
    # (2 + 1 / log2(3)) = 0.8597. ndcg.+1=3 (a signed level): 3 + 2 / log2(3) both: 1.0 (the trec_eval 10 binary
    # prints these lines).
    q = tmp_path / "qrels"
    q.write_text("q1 0 d1 1\nq1 0 d2 2\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    for extra in (["-T", "trec_results"], ["-D", "0"]):
        assert _lines(cli("eval", *extra, "-m", "P.1", str(q), str(r)).stdout) == [("P_1", "all", "1.0000")]
    p = cli("eval", "-D", "1", "-m", "P.1", str(q), str(r), check=False)
    assert p.returncode == 2 and p.stderr.strip() == ("rankmetrics: error: -D 1: trec_eval's debug output (and its -D "
                                                      "0.QID, one query) is not supported")
    p = cli("eval", "-l", "1.5", "-m", "P.1", str(q), str(r), check=False)
    assert p.returncode == 2 and "relevance level 1.5 is not a whole number" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    dcg = 10 + 2 / math.log2(3)
    assert _lines(cli("eval", "-m", "ndcg.1=1e1", str(q), str(r)).stdout) == [("ndcg_1=1e1", "all",
                                                                               "%.4f" % (dcg / dcg))]
    assert (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)) < 0.86
    assert _lines(cli("eval", "-m", "ndcg.+1=3", str(q), str(r)).stdout) == [("ndcg_+1=3", "all", "1.0000")]
    assert cli("--version").stdout.startswith("rankmetrics ")
    assert cli("eval", "-v").stdout == cli("--version").stdout


def test_a_refused_request_says_only_why(tmp_path):
    # the note that a repeated measure was left out (trec_eval computes it once) comes once the request is taken:
    # a refused one prints its error alone, on one line
    q = tmp_path / "qrels"
    q.write_text("q1 0 d1 1\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 d1 1 1 t\n")
    p = cli("eval", "-m", "P.2", "-m", "P.5", "-m", "recall.0", str(q), str(r), check=False)
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "rankmetrics: error: metric 'recall.0': cutoff '0' is not a positive number (trec_eval reads cutoffs as whole "
        "numbers: 23.4 is 23)"]
    p = cli("eval", "-m", "P.2", "-m", "P.5", str(q), str(r))
    assert _lines(p.stdout) == [("P_2", "all", "0.5000")]  # 1 relevant in the top 2, by hand
    assert p.stderr == ("rankmetrics: note: trec_eval computes a measure once, with the first parameters given for "
                        "it: P.5 left out for P.2\n")


def _trec_gains(counts, pairs):
    """gain_init.c's setup_gains: the levels of the map first, then each judged level 0..max not in it with its
    level as gain; sorted by gain, lowest first (each entry [level, gain, judged items at the level])."""
    gains = [[level, gain, 0] for level, gain in pairs.items()]
    for level in range(max(counts) + 1 if counts else 0):
        entry = next((e for e in gains if e[0] == level), None)
        if entry is None:
            gains.append([level, float(level), counts.get(level, 0)])
        else:
            entry[2] = counts.get(level, 0)
    return sorted(gains, key=lambda e: e[1])


class _Ideal:
    """trec_eval's walk down the ideal ranking (cur_level, num_at_level, ideal_gain), as m_G.c and the others
    write it inline."""
    def __init__(self, gains):
        self.gains, self.cur, self.n = gains, len(gains) - 1, 0
        self.gain = gains[self.cur][1] if self.cur >= 0 else 0.0

    def step(self):
        self.n += 1
        while self.cur >= 0 and self.n > self.gains[self.cur][2]:
            self.n, self.cur = 1, self.cur - 1
            self.gain = self.gains[self.cur][1] if self.cur >= 0 else 0.0


def _gain_measures(judged, retrieved, pairs):
    """trec_eval's G, ndcg_rel and Rndcg of one query (m_G.c, m_ndcg_rel.c, m_Rndcg.c, transcribed loop for loop):
    judged {item: level}, retrieved [item, ...] in rank order, pairs {level: gain}."""
    counts = {}
    for level in judged.values():
        if level >= 0:
            counts[level] = counts.get(level, 0) + 1
    gains = _trec_gains(counts, pairs)
    by_level = {e[0]: e[1] for e in gains}
    res = [by_level.get(judged.get(item, -1), 0.0) for item in retrieved]
    out = {}
    # G
    ideal, g, s_res, s_ideal, cost, i = _Ideal(gains), 0.0, 0.0, 0.0, 0.0, 0
    while i < len(res) and ideal.gain > 0.0:
        s_res += res[i]
        ideal.step()
        if ideal.gain > 0.0:
            s_ideal += ideal.gain
        cost += ideal.gain if ideal.gain >= 1.0 else 1.0
        if res[i] != 0:
            g += res[i] / math.log2(2 + cost - s_res)
        i += 1
    while i < len(res):
        s_res += res[i]
        cost += 1.0
        if res[i] != 0:
            g += res[i] / math.log2(2 + cost - s_res)
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            s_ideal += ideal.gain
    out["G"] = g / s_ideal if s_ideal > 0.0 else 0.0
    # ndcg_rel
    ideal, dcg, idcg, total, num_rel, num_rel_ret, i = _Ideal(gains), 0.0, 0.0, 0.0, 0, 0, 0
    while i < len(res) and ideal.gain > 0.0:
        if res[i] != 0:
            dcg += res[i] / math.log2(i + 2)
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            idcg += ideal.gain / math.log2(i + 2)
        if res[i] > 0:
            total += dcg / idcg
            num_rel_ret += 1
        i += 1
    while i < len(res):
        if res[i] != 0:
            dcg += res[i] / math.log2(i + 2)
        if res[i] > 0:
            total += dcg / idcg
            num_rel_ret += 1
        i += 1
    while ideal.gain > 0.0:
        ideal.step()
        if ideal.gain > 0.0:
            num_rel += 1
            idcg += ideal.gain / math.log2(i + 2)
        i += 1
    total += (num_rel - num_rel_ret) * dcg / idcg if idcg else 0.0  # 0/0 there: NaN, and NaN > 0 is false
    out["ndcg_rel"] = total / num_rel if total > 0.0 else 0.0
    # Rndcg (res_rels.num_rel: the items judged relevant, level >= 1)
    if not any(level >= 1 for level in judged.values()):
        out["Rndcg"] = 0.0
        return out
    ideal, dcg, idcg, total, changes, i = _Ideal(gains), 0.0, 0.0, 0.0, 0, 0
    old = ideal.gain
    while i < len(res) and ideal.gain > 0.0:
        ideal.step()
        if old != ideal.gain:
            if idcg > 0.0:
                total, changes = total + dcg / idcg, changes + 1
            old = ideal.gain
        if res[i] != 0:
            dcg += res[i] / math.log2(i + 2)
        if ideal.gain > 0.0:
            idcg += ideal.gain / math.log2(i + 2)
        i += 1
    if i < len(res):
        while i < len(res):
            if res[i] != 0:
                dcg += res[i] / math.log2(i + 2)
            i += 1
        if idcg > 0.0:
            total, changes = total + dcg / idcg, changes + 1
    while ideal.gain > 0.0:
        ideal.step()
        if old != ideal.gain:
            if idcg > 0.0:
                total, changes = total + dcg / idcg, changes + 1
            old = ideal.gain
        if ideal.gain > 0.0:
            idcg += ideal.gain / math.log2(i + 2)
        i += 1
    out["Rndcg"] = total / changes if changes else math.nan  # trec_eval: 0/0, printed -nan
    return out


# gain maps of trec_eval's form: gains raised, a level's gain made negative or 0, level 0 given a gain, two levels
# given one gain (one R level in Rndcg), the levels' order reversed; distinct gains differ by 1 or more, since
# trec_eval orders the levels with a comparison that truncates the difference of two gains (docs/conventions.md)
GAIN_MAPS = ["1=3,2=9", "0=1,2=-1", "2=-2,0=5", "0=2,3=1", "1=2", "1=3,2=1,3=1", "3=0,1=5.5", "2=1.5,1=4.5", "1=0,2=0,3=0"]


def test_gain_maps_of_g_ndcg_rel_and_rndcg_as_trec_eval_computes_them(tmp_path):
    """G, ndcg_rel and Rndcg with trec_eval's gain map (-m G.1=3,2=9), each query against the loops of m_G.c,
    m_ndcg_rel.c and m_Rndcg.c transcribed above; the same loops reproduce the measures without a map."""
    import random
    rnd = random.Random(19)
    qrels, run, judged, ranked = [], [], {}, {}
    for q in range(12):
        qid = f"q{q}"
        items = [f"d{i}" for i in range(rnd.randint(4, 14))]
        judged[qid] = {d: rnd.choice([0, 0, 1, 1, 2, 3]) for d in rnd.sample(items, rnd.randint(1, len(items)))}
        if q == 0:
            judged[qid] = {d: 0 for d in judged[qid]}  # nothing relevant
        ranked[qid] = rnd.sample(items + ["u1", "u2"], rnd.randint(1, len(items)))  # u1, u2: never judged
        qrels += [(qid, d, g) for d, g in judged[qid].items()]
        run += [(qid, d, 100 - i) for i, d in enumerate(ranked[qid])]
    q, r = _write(tmp_path, qrels, run)
    for gmap in [""] + GAIN_MAPS:
        pairs = {int(lv): float(g) for lv, g in (p.split("=") for p in gmap.split(","))} if gmap else {}
        want = {qid: _gain_measures(judged[qid], ranked[qid], pairs) for qid in judged if ranked[qid]}
        for fam in ("G", "ndcg_rel", "Rndcg"):
            name = f"{fam}.{gmap}" if gmap else fam
            printed = f"{fam}_{gmap}" if gmap else fam
            rows = json.loads(cli("eval", "-q", "-m", name, q, r, "--format", "json").stdout)
            got = {row["query_id"]: row["value"] for row in rows if row["measure"] == printed}
            assert set(got) == set(want) | {"all"}, (name, got)
            # Rndcg of a query whose relevant items all have gains <= 0 under the map: trec_eval divides 0 by 0
            # and prints -nan; rankmetrics gives 0, as for its other 0/0 (docs/conventions.md)
            values = {qid: 0.0 if math.isnan(v[fam]) else v[fam] for qid, v in want.items()}
            for qid, value in values.items():
                assert got[qid] == pytest.approx(value, abs=1e-12), (name, qid)
            assert got["all"] == pytest.approx(sum(values.values()) / len(values), abs=1e-12), name


def test_g_ndcg_rel_and_rndcg_with_a_gain_map_by_hand(tmp_path):
    # One query: a (grade 1), b (grade 2) and c (grade 0) judged; the run retrieves x (unjudged), a, b. Gain map
    # 1=3,2=9: gains a 3, b 9, c 0; the ideal ranking is b (9), a (3).
    q, r = _write(tmp_path, [("q1", "a", 1), ("q1", "b", 2), ("q1", "c", 0)],
                  [("q1", "x", 3), ("q1", "a", 2), ("q1", "b", 1)])
    # G: cost after rank r is the sum of max(ideal gain, 1) over ranks 1..r: 9, 12, 13; gained so far 0, 3, 12.
    # a at rank 2: 3 / log2(2 + 12 - 3); b at rank 3: 9 / log2(2 + 13 - 12); over the ideal gains 9 + 3.
    g = (3 / math.log2(11) + 9 / math.log2(3)) / 12
    # ndcg_rel: DCG at rank 2 is 3 / log2(3), at rank 3 adds 9 / log2(4); the ideal DCG at ranks 1, 2: 9, then
    # 9 + 3 / log2(3) (no ideal gain at rank 3). Averaged at a and b over the 2 items with a gain.
    dcg2, dcg3 = 3 / math.log2(3), 3 / math.log2(3) + 9 / 2
    ideal2 = 9 + 3 / math.log2(3)
    ndcg_rel = (dcg2 / ideal2 + dcg3 / ideal2) / 2
    # Rndcg: the ideal gain drops after rank 1 (9 -> 3) and after rank 2 (3 -> 0): nDCG@1 = 0 / 9 and
    # nDCG@2 = dcg2 / ideal2; 3 retrieved is not 2 beyond the 2 ideal ranks, so no final nDCG.
    rndcg = (0 / 9 + dcg2 / ideal2) / 2
    for fam, want in (("G", g), ("ndcg_rel", ndcg_rel), ("Rndcg", rndcg)):
        rows = json.loads(cli("eval", "-q", "-m", f"{fam}.1=3,2=9", q, r, "--format", "json").stdout)
        assert [x["value"] for x in rows if x["query_id"] == "q1"] == [pytest.approx(want, abs=1e-15)], fam
        out = cli("eval", "-q", "-m", f"{fam}.1=3,2=9", q, r).stdout
        assert _lines(out) == [(f"{fam}_1=3,2=9", "q1", "%.4f" % want), (f"{fam}_1=3,2=9", "all", "%.4f" % want)]
