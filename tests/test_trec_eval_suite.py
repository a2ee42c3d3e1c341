"""trec_eval's own test suite (datasets/trec_eval, NIST): every per-query and mean value of the measures we
support, to trec_eval's 4 printed decimals. The expected numbers are trec_eval's output files, not ours."""
import json
import os

import pytest

from conftest import TREC, cli, read_trec_output

# trec_eval measure -> our name for it (the same text: trec_eval names are accepted as they are).
MEASURES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "gm_bpref",
            "recip_rank", *[f"iprec_at_recall_{lv:.2f}" for lv in (0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1)],
            "P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500", "P_1000",
            "recall_5", "recall_10", "recall_15", "recall_20", "recall_30", "recall_100", "recall_200",
            "recall_500", "recall_1000", "ndcg", "ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_15", "ndcg_cut_20",
            "ndcg_cut_30", "ndcg_cut_100", "ndcg_cut_200", "ndcg_cut_500", "ndcg_cut_1000",
            "map_cut_5", "map_cut_10", "map_cut_15", "map_cut_20", "map_cut_30", "map_cut_100", "map_cut_200",
            "map_cut_500", "map_cut_1000", "success_1", "success_5", "success_10", "rbp",
            "set_P", "set_recall", "set_F", "set_map", "set_relative_P", "num_nonrel_judged_ret", "utility",
            "11pt_avg", "binG", "unj_5", "unj_10", "unj_20", "infAP", "rbp_resid", "G", "ndcg_rel", "Rndcg",
            *[f"relative_P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)],
            *[f"Rprec_mult_{m:.2f}" for m in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)]]

CASES = [
    ("out.test.aq", "qrels.test", "results.test", []),
    ("out.test.aqc", "qrels.test", "results.trunc", ["-c"]),
    ("out.test.aql", "qrels.rel_level", "results.test", ["-l", "2"]),
]


def ours(qrels, run, extra):
    args = ["eval", os.path.join(TREC, qrels), os.path.join(TREC, run), "-q", "--format", "json", *extra]
    for m in MEASURES:
        args += ["-m", m]
    got = {}
    for row in json.loads(cli(*args).stdout):
        got.setdefault(row["measure"], {})[row["query_id"]] = row["value"]
    return got


@pytest.mark.parametrize("expected,qrels,run,extra", CASES, ids=[c[0] for c in CASES])
def test_matches_trec_eval_output(expected, qrels, run, extra):
    want = read_trec_output(os.path.join(TREC, expected))
    got = ours(qrels, run, extra)
    checked = 0
    for measure in MEASURES:
        assert measure in want, f"{measure} missing from {expected}"
        for qid, value in want[measure].items():
            assert got[measure][qid] == pytest.approx(value, abs=5.1e-5), (measure, qid)
            checked += 1
        assert set(want[measure]) <= set(got[measure]), f"{measure}: queries missing"
    assert checked >= (len(MEASURES) - 4) * 4  # num_q, gm_map, gm_bpref: the mean only


# trec_eval's default measures, byte for byte: `trec_eval QRELS RUN` (SOURCE.txt), rankmetrics eval in its place
BYTE_FOR_BYTE = [("out.test", "qrels.test", "results.test"), ("out.test", "qrels.test.with-comments", "results.test"),
                 ("out.comment.test", "qrels.comment.test", "results.comment.test")]


# `trec_eval -m all_trec ...` (SOURCE.txt), with rankmetrics eval in its place: every line, byte for byte
ALL_TREC = [("out.test.a", "qrels.test", "results.test", []),
            ("out.test.aq", "qrels.test", "results.test", ["-q"]),
            ("out.test.aqc", "qrels.test", "results.trunc", ["-q", "-c"]),
            ("out.test.aql", "qrels.rel_level", "results.test", ["-mrelstring.20", "-q", "-l2"]),
            ("out.test.aqcM", "qrels.test", "results.trunc", ["-q", "-c", "-M100"]),
            ("out.test.aqZ", "qrels.test", "results.test", ["-q", "-Z", os.path.join(TREC, "zscores_file")])]


@pytest.mark.parametrize("expected,qrels,run,extra", ALL_TREC, ids=[c[0] for c in ALL_TREC])
def test_all_trec_is_trec_evals_byte_for_byte(expected, qrels, run, extra):
    """Every measure of trec_eval's all_trec set, its per-query lines (relstring too), its order and spelling."""
    p = cli("eval", "-m", "all_trec", *extra, os.path.join(TREC, qrels), os.path.join(TREC, run))
    with open(os.path.join(TREC, expected)) as fh:
        want = fh.read()
    assert p.stdout == want and want.count("\n") > 60


@pytest.mark.parametrize("expected,qrels,run", BYTE_FOR_BYTE, ids=[f"{c[0]}-{c[1]}" for c in BYTE_FOR_BYTE])
def test_default_output_is_trec_evals_byte_for_byte(expected, qrels, run):
    """The runid line, trec_eval's default measures in its order (gm_map, iprec_at_recall_*), its spelling."""
    p = cli("eval", os.path.join(TREC, qrels), os.path.join(TREC, run))
    with open(os.path.join(TREC, expected)) as fh:
        assert p.stdout == fh.read()


@pytest.mark.parametrize("expected,run,extra", [("out.test.aq", "results.test", []),
                                                ("out.test.aqc", "results.trunc", ["-c"])])
def test_per_query_output_is_in_trec_evals_order(expected, run, extra):
    """`-q` prints query by query (in byte order), then the means; num_q, gm_map and runid only among the means.
    trec_eval prints the measures of its table in one order, so `trec_eval -q` with the default measures is its
    `-m all_trec -q` output (out.test.aq, out.test.aqc) kept to the default measures' lines."""
    with open(os.path.join(TREC, "out.test")) as fh:
        default = {line.split()[0] for line in fh}
    with open(os.path.join(TREC, expected)) as fh:
        want = "".join(line for line in fh if line.split()[0] in default)
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, run), "-q", *extra)
    assert p.stdout == want and want.count("\n") > 100


def test_measures_print_in_trec_evals_order_whatever_the_order_of_m():
    """trec_eval prints the measures of its table in one order (measures.c), and a family's values sorted: -m in
    any order, or the set name official, prints out.test."""
    with open(os.path.join(TREC, "out.test")) as fh:
        want = fh.read()
    scrambled = ["P.1000,500,200,100,30,20,15,10,5", "iprec_at_recall", "recip_rank", "bpref", "Rprec", "gm_map",
                 "map", "num_rel_ret", "num_rel", "num_ret", "num_q", "runid"]
    for names in (scrambled, ["official"]):
        args = [a for n in names for a in ("-m", n)]
        assert cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), *args).stdout == want


def test_set_measures_are_trec_evals():
    """trec_eval's measure set `set` (measures.c: runid, num_q, num_ret, num_rel, num_rel_ret, utility, set_P,
    set_recall, set_relative_P, set_map, set_F), -q: out.test.aq's lines of those measures, in its order."""
    names = {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
             "set_relative_P", "set_map", "set_F"}
    with open(os.path.join(TREC, "out.test.aq")) as fh:
        want = "".join(line for line in fh if line.split()[0] in names)
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-q", "-m", "set")
    assert p.stdout == want and want.count("\n") == 3 * 9 + 11


def test_relstring_is_a_line_of_the_trec_format_only():
    """relstring is text: the trec format prints it with -q; JSON holds numbers, so it leaves the text out (the
    measures asked with it still come, with trec_eval's map for 301 from out.test.aq)."""
    p = cli("eval", "-m", "relstring", "-m", "map", "-q", "--format", "json", os.path.join(TREC, "qrels.test"),
            os.path.join(TREC, "results.test"))
    rows = json.loads(p.stdout)
    assert {r["measure"] for r in rows} == {"map"}
    assert [r["value"] for r in rows if r["query_id"] == "301"] == [pytest.approx(0.0324, abs=5e-5)]


def test_preference_sets_need_preference_judgments():
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-m", "all_prefs",
            check=False)
    assert p.returncode == 2 and "give preference judgments with -R prefs" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("expected,fmt,judgments,run", [
    ("out.test.prefs", "prefs", "prefs.test", "prefs.results.test"),
    ("out.test.prefs", "prefs", "prefs.comment.test", "prefs.results.test"),
    ("out.test.qrels_prefs", "qrels_prefs", "qrels.test", "results.test"),
])
def test_preferences_byte_for_byte(expected, fmt, judgments, run):
    """out.test.prefs and out.test.qrels_prefs: trec_eval -m all_prefs -q -R prefs prefs.test prefs.results.test
    (also prefs.comment.test, with comment lines) and trec_eval -m all_prefs -q -R qrels_prefs qrels.test
    results.test (SOURCE.txt): every prefs_* measure of every query, judgment groups of one and of several
    sub-groups (transitive preferences), results.test's tied scores broken as form_prefs_counts.c breaks them."""
    with open(os.path.join(TREC, expected)) as fh:
        want = fh.read()
    p = cli("eval", "-m", "all_prefs", "-q", "-R", fmt, os.path.join(TREC, judgments), os.path.join(TREC, run))
    assert p.stdout == want and p.stderr == ""


def _prefs_counts(tmp_path, prefs_text, run_text, *extra):
    prefs, run = tmp_path / "p.prefs", tmp_path / "r.run"
    prefs.write_text(prefs_text)
    run.write_text(run_text)
    p = cli("eval", "-R", "prefs", "-q", "--format", "json", *extra, str(prefs), str(run))
    return {(r["measure"], r["query_id"]): r["value"] for r in json.loads(p.stdout)}


def test_preferences_count_as_get_prefs_documents(tmp_path):
    """get_prefs.c's own examples, as its comment counts them. One sub-group ranking six items (levels 3, 2, 0,
    6, 0, 2) establishes 13 preferences (5 with docno4 preferred, 4 with docno1, 2 each with docno2 and docno6).
    Two sub-groups of one group (1 > 2 > 3; 2 > 4) express 5 with the transitive 1 > 4. Two groups (users)
    (1 > 2; 3 > 1, 4 > 1, 3 > 4 and 2 > 1) express 5. With d1 ranked first and d2 second and nothing else
    retrieved, the first example fulfils d1's and d2's preferences (retrieved above the other, or the other not
    retrieved): d1 > {d2, d6, d3, d5}, d2 > {d3, d5}; d4's 5 (d4 not retrieved) and d6's 2 (neither retrieved)
    fail: 6 of 13 (prefs_simp 6/13), of which 1 with both retrieved (d1 > d2: prefs_simp_ret 1/1)."""
    run = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d1 1 2.0 r\nq3 Q0 d1 1 2.0 r\n"
    one = "".join(f"q1 u1 s1 d{i} {lvl}\n" for i, lvl in ((1, 3.0), (2, 2.0), (3, 0.0), (4, 6.0), (5, 0.0), (6, 2.0)))
    two = "q2 u1 s1 d1 3\nq2 u1 s1 d2 2\nq2 u1 s1 d3 1\nq2 u1 s2 d2 5\nq2 u1 s2 d4 4\n"
    users = ("q3 u1 s1 d1 3\nq3 u1 s1 d2 2\nq3 u2 s1 d1 0\nq3 u2 s1 d3 6\nq3 u2 s1 d4 2\nq3 u2 s2 d1 0\n"
             "q3 u2 s2 d2 8\n")
    got = _prefs_counts(tmp_path, one + two + users, run, "-m", "all_prefs")
    assert got[("prefs_num_prefs_poss", "q1")] == 13
    assert got[("prefs_num_prefs_poss", "q2")] == 5
    assert got[("prefs_num_prefs_poss", "q3")] == 5
    assert got[("prefs_num_prefs_ful", "q1")] == 6 and got[("prefs_simp", "q1")] == pytest.approx(6 / 13)
    assert got[("prefs_num_prefs_ful_ret", "q1")] == 1 and got[("prefs_simp_ret", "q1")] == 1.0
    assert got[("prefs_num_prefs_poss", "all")] == 23  # counts are summed over queries


def test_preferences_max_retrieved_and_all_queries(tmp_path):
    """-M 1: only the top item is retrieved (d2 counts as not retrieved: d1 > d2 becomes an implied preference,
    fulfilled, and none has both retrieved). -c: a judged query the run lacks counts, at 0."""
    prefs = "q1 u1 s1 d1 2\nq1 u1 s1 d2 1\nq2 u1 s1 d1 2\nq2 u1 s1 d2 1\n"
    run = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"
    got = _prefs_counts(tmp_path, prefs, run, "-M", "1", "-c", "-m", "all_prefs")
    assert got[("prefs_num_prefs_ful_ret", "q1")] == 0 and got[("prefs_num_prefs_ful", "q1")] == 1
    assert got[("prefs_simp_ret", "q1")] == 0 and got[("prefs_simp_imp", "q1")] == 1
    assert got[("prefs_simp", "q2")] == 0 and got[("num_q", "all")] == 2
    assert got[("prefs_simp", "all")] == 0.5  # (1 + 0) / 2


def test_preferences_negative_and_zero_levels_of_one_item_are_taken(tmp_path):
    """form_prefs_counts.c stops only on level 0 beside a level above 0, each item's level compared with the one it
    had last (sub-groups in byte order, levels highest first): -1 in s3 beside 0 in s1 is taken, and so is 2, -1,
    0 (s1, s2, s3: 0 follows -1); 2 then 0 (s1, s2) is not. Taken: s1 prefers d2 (2) to d1 (0), the run ranks
    d2 first: 1 preference, fulfilled: prefs_simp 1/1."""
    got = _prefs_counts(tmp_path, "q1 u1 s3 d1 -1\nq1 u1 s1 d1 0\nq1 u1 s1 d2 2\n",
                        "q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 2.0 r\n", "-m", "all_prefs")
    assert got[("prefs_num_prefs_poss", "q1")] == 1 and got[("prefs_simp", "q1")] == 1.0
    got = _prefs_counts(tmp_path, "q1 u1 s1 d1 2\nq1 u1 s2 d1 -1\nq1 u1 s3 d1 0\nq1 u1 s1 d2 1\n",
                        "q1 Q0 d1 1 1.0 r\nq1 Q0 d2 2 2.0 r\n", "-m", "all_prefs")
    assert got[("prefs_num_prefs_poss", "q1")] == 1 and got[("prefs_simp", "q1")] == 0.0  # d1 > d2, ranked below


@pytest.mark.parametrize("text,message", [
    ("q1 u1 s1 d1 2\nq1 u1 s2 d1 0\nq1 u1 s3 d1 -1\nq1 u1 s1 d2 1\n",
     "line 2: item d1 of query q1 is nonrelevant (level 0) in one sub-group of judgment group u1 and relevant"),
    ("q1 u1 s1 d1\n", "line 1: a prefs line has 5 fields (query, judgment group, sub-group, item, level), not 4"),
    ("# c\nq1 u1 s1 d1 x\n", "line 2: level 'x' is not a number"),
    ("q1 u1 s1 d1 1\nq1 u1 s1 d1 2\n", "line 2: item d1 of query q1 is judged again in judgment group u1, sub-group s1"),
    ("q1 u1 s1 d1 0\nq1 u1 s1 d2 1\nq1 u1 s2 d1 2\nq1 u1 s2 d3 1\n",
     "line 3: item d1 of query q1 is nonrelevant (level 0) in one sub-group of judgment group u1 and relevant"),
    ("q1 u1 s1 d1 2\nq1 u1 s1 d2 1\nq1 u1 s2 d2 2\nq1 u1 s2 d1 1\n",
     "judgment group u1 of query q1 prefers two items to each other"),
])
def test_bad_prefs_name_the_fault(tmp_path, text, message):
    """trec_eval stops on each of these (get_prefs.c: a malformed line; form_prefs_counts.c: an item at two levels
    of one sub-group, 0 and non-0 levels of one item in a group, a contradiction within a group): one line each."""
    prefs, run = tmp_path / "bad.prefs", tmp_path / "r.run"
    prefs.write_text(text)
    run.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    p = cli("eval", "-R", "prefs", str(prefs), str(run), check=False)
    assert p.returncode != 0 and message in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("qrels,names", [("qrels.123", ["-m", "qrels_jg"]), ("qrels.comments.123", ["-m", "qrels_jg"]),
                                         ("qrels.123", [])])
def test_judgment_groups_byte_for_byte(qrels, names):
    """out.test.qrels_jg: trec_eval -m qrels_jg -q -R qrels_jg qrels.123 results.test (SOURCE.txt; also with
    qrels.comments.123, whose comment lines are skipped and whose docno holds a '#'). Without -m, -R qrels_jg
    prints the same set (trec_eval's default set needs plain qrels)."""
    with open(os.path.join(TREC, "out.test.qrels_jg")) as fh:
        want = fh.read()
    p = cli("eval", *names, "-q", "-R", "qrels_jg", os.path.join(TREC, qrels), os.path.join(TREC, "results.test"))
    assert p.stdout == want and want.count("\n") == 82 and p.stderr == ""


def test_one_judgment_group_is_the_plain_measure():
    """qrels.test read as qrels_jg has one group per query (its second column is 0): map_avgjg, P_avgjg_k and
    Rprec_mult_avgjg_1.00 are trec_eval's map, P_k and Rprec of out.test.aq (m_map_avgjg.c divides only over
    several groups)."""
    with open(os.path.join(TREC, "out.test.aq")) as fh:
        want = {(line.split()[0], line.split()[1]): line.split()[2] for line in fh}
    p = cli("eval", "-q", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.5,10,1000", "-m",
            "Rprec_mult_avgjg.1.0", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"))
    got = {(line.split()[0], line.split()[1]): line.split()[2] for line in p.stdout.splitlines()}
    plain = {"map_avgjg": "map", "P_avgjg_5": "P_5", "P_avgjg_10": "P_10", "P_avgjg_1000": "P_1000",
             "Rprec_mult_avgjg_1.00": "Rprec"}
    assert len(got) == 5 * 4
    for (measure, query), value in got.items():
        assert value == want[(plain[measure], query)], (measure, query)


def test_judgment_groups_with_c_count_missing_queries(tmp_path):
    """-c: a judged query the run lacks counts 0 in the mean and in num_q (trec_eval -c). Query 303 is cut from
    results.test: map_avgjg of 301 and 302 as out.test.qrels_jg prints them, 303 at 0, the mean over 3."""
    run = tmp_path / "no303.test"
    with open(os.path.join(TREC, "results.test")) as fh:
        run.write_text("".join(line for line in fh if not line.startswith("303")))
    p = cli("eval", "-R", "qrels_jg", "-c", "-q", "-m", "map_avgjg", "-m", "num_q", os.path.join(TREC, "qrels.123"),
            str(run))
    got = {(line.split()[0], line.split()[1]): line.split()[2] for line in p.stdout.splitlines()}
    assert got[("map_avgjg", "301")] == "0.0266" and got[("map_avgjg", "302")] == "0.2571"  # out.test.qrels_jg
    assert got[("map_avgjg", "303")] == "0.0000" and got[("num_q", "all")] == "3"
    # the mean of 301's and 302's printed values (each within 0.00005) and 0, over 3 queries
    assert float(got[("map_avgjg", "all")]) == pytest.approx((0.0266 + 0.2571 + 0) / 3, abs=1e-4)


@pytest.mark.parametrize("args,message", [
    (["-R", "qrels_jg", "-m", "map"], "'map' needs plain qrels"),
    (["-R", "qrels_jg", "-m", "all_prefs"], "'all_prefs' needs preference judgments (-R prefs or -R qrels_prefs)"),
    (["-m", "map_avgjg"], "is a judgment-group measure: give the judgments in trec_eval's qrels_jg format"),
    (["-R", "prefs", "-m", "map"], "'map' needs plain qrels"),
    (["-R", "qrels_jg", "-Z", "zscores"], "-R qrels_jg does not take -Z yet"),
    # options a route applies not were ignored without a word (alpha-nDCG the same with -J and -l 2)
    (["-R", "prefs", "--convention", "ranx"], "-R prefs does not take --convention yet"),
    (["-R", "qrels_prefs", "--ties", "average", "--query-column", "q"],
     "-R qrels_prefs does not take --ties, --query-column yet"),
    (["-R", "qrels_jg", "--query-column", "q", "--interactions", "i"],
     "-R qrels_jg does not take --query-column, --interactions yet"),
    (["-m", "alpha_nDCG@10", "-J", "-l", "2"], "diversity measures do not take -l, -J yet"),
    (["-m", "alpha_nDCG@10", "--gain", "exponential", "--interactions", "i"],
     "diversity measures do not take --gain, --interactions yet"),
])
def test_judgment_group_misuse_says_why(args, message):
    p = cli("eval", *args, os.path.join(TREC, "qrels.123"), os.path.join(TREC, "results.test"), check=False)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize("text,message", [
    ("301 0 a\n", "line 1: a qrels_jg line has 4 fields (query, judgment group, item, relevance), not 3"),
    ("# c\n301 0 a x\n", "line 2: relevance 'x' is not a number"),
    ("301 0 a 1\n301 0 b 0\n301 0 a 0\n", "line 3: item a of query 301 (judgment group 0) is judged again (first on line 1)"),
    ("# only a comment\n", "no judgments"),
    ("999 0 a 1\n", "have no query in common"),  # was "the run has no rows" (the run's rows of the judged queries)
])
def test_bad_qrels_jg_names_the_line(tmp_path, text, message):
    path = tmp_path / "bad.jg"
    path.write_text(text)
    p = cli("eval", "-R", "qrels_jg", str(path), os.path.join(TREC, "results.test"), check=False)
    assert p.returncode in (1, 2) and message in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_set_F_with_its_parameter():
    """trec_eval -m set_F.0.5 (m_set_F.c: (x + 1) P R / (x P + R) over everything retrieved, printed set_F_0.5),
    by hand from the files: P and R of each query's retrieved set."""
    rel, ret = {}, {}
    with open(os.path.join(TREC, "qrels.test")) as fh:
        for line in fh:
            q, _, d, r = line.split()
            if int(r) >= 1:
                rel.setdefault(q, set()).add(d)
    with open(os.path.join(TREC, "results.test")) as fh:
        for line in fh:
            q, _, d, *_ = line.split()
            ret.setdefault(q, set()).add(d)
    for x, label in ((0.5, "set_F_0.5"), (2.0, "set_F_2")):
        p = cli("eval", "-q", "-m", f"set_F.{label[6:]}", os.path.join(TREC, "qrels.test"),
                os.path.join(TREC, "results.test"))
        got = {(line.split()[0], line.split()[1]): line.split()[2] for line in p.stdout.splitlines()}
        assert len(got) == 4
        values = []
        for q in sorted(ret):
            h = len(rel[q] & ret[q])
            P, R = h / len(ret[q]), h / len(rel[q])
            values.append((x + 1) * P * R / (x * P + R))
            assert got[(label, q)] == f"{values[-1]:.4f}"
        assert got[(label, "all")] == f"{sum(values) / len(values):.4f}"
    # given twice, trec_eval computes it once, with the first parameters (m_set_F.c's one parameter)
    p = cli("eval", "-q", "-m", "set_F.0.5", "-m", "set_F.2", os.path.join(TREC, "qrels.test"),
            os.path.join(TREC, "results.test"))
    assert {line.split()[0] for line in p.stdout.splitlines()} == {"set_F_0.5"}


def test_measure_parameters_byte_for_byte():
    """out.test.meas_params, the whole file: every measure with trec_eval's parameters, ndcg's gain map
    (ndcg.1=3,2=9,4=4.5) and ndcg_cut's fractional cutoff (23.4 is 23) among them."""
    with open(os.path.join(TREC, "out.test.meas_params")) as fh:
        want = fh.read()
    p = cli("eval", "-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
            "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
            "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", os.path.join(TREC, "qrels.test"),
            os.path.join(TREC, "results.test"))
    assert p.stdout == want and want.count("\n") == 88


@pytest.mark.parametrize("name,message", [
    ("ndcg.1=3,1=4", "the gain of level 1 is given twice"), ("nDCG(gains={1:x})", "gains must be level=gain pairs"),
    ("nDCG(gains={-1:2})", "gain levels are grades >= 0, not -1"),
    # a gain map on ndcg_cut was read as ndcg's with the map 'cut.1=3' ("not 'cut.1=3'")
    ("ndcg_cut.1=3", "cannot read '1=3' as the parameters of trec_eval's ndcg_cut; it takes positive whole cutoffs"),
])
def test_bad_gain_maps_say_why(name, message):
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-m", name, check=False)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-m", "ndcg.1=3",
            "--ideal", "candidates", check=False)
    assert p.returncode == 2 and "applies with ideal judgments" in p.stderr


def test_measure_parameters_as_trec_eval_writes_them():
    """out.test.meas_params: trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000
    -m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 ... (SOURCE.txt): every line of the measures whose parameters
    we read, with trec_eval's names (iprec_at_recall_0.25, Rprec_mult_5.00, utility_2,-1,0,0) and values."""
    with open(os.path.join(TREC, "out.test.meas_params")) as fh:
        want = [line for line in fh if line.split()[0].startswith(("iprec_at_recall", "P_", "recall_", "Rprec_mult",
                                                                     "utility", "success_", "11pt_avg", "ndcg_cut"))]
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-q",
            "-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
            "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0", "-m", "success.2,5,20",
            "-m", "11pt_avg..25,.5,.75", "-mndcg_cut.10,20,23.4")
    got = set(p.stdout.splitlines(keepends=True))
    assert len(want) > 50 and set(want) <= got, sorted(set(want) - got)[:5]


def test_utility_with_collection_size():
    """utility.a,b,c,d with -N (trec_eval's num_docs_in_coll), by hand from trec_eval's own counts per query
    (out.test.aq): a*rel_ret + b*(ret - rel_ret) + c*(rel - rel_ret) + d*(N + rel_ret - ret - rel) (m_utility.c)."""
    aq = read_trec_output(os.path.join(TREC, "out.test.aq"))
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-q",
            "-m", "utility.2,-1,0.5,0.001", "-N", "100000", "--format", "json")
    got = {row["query_id"]: row["value"] for row in json.loads(p.stdout)}
    for q in ("301", "302", "303"):
        rr, ret, rel = aq["num_rel_ret"][q], aq["num_ret"][q], aq["num_rel"][q]
        want = 2 * rr - (ret - rr) + 0.5 * (rel - rr) + 0.001 * (100000 + rr - ret - rel)
        assert got[q] == pytest.approx(want, abs=1e-9), q
    assert got["all"] == pytest.approx(sum(got[q] for q in ("301", "302", "303")) / 3, abs=1e-9)
    # the collection size as the metric's own parameter (it said "KeyError: 'num_docs'"): the same hand values
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-q", "--format", "json",
            "-m", "Utility(utility_a=2,utility_b=-1,utility_c=0.5,utility_d=0.001,num_docs=100000)")
    assert p.returncode == 0, p.stderr
    by_name = {row["query_id"]: row["value"] for row in json.loads(p.stdout)}
    assert by_name == pytest.approx(got, abs=1e-9)


def test_dcg_and_ideal_dcg_by_hand():
    """trec_eval 10's dcg and ideal_dcg (m_ndcg.c), by hand on the graded qrels: each query's run ranked as
    trec_eval ranks it (score descending, then docno descending), gain = the grade when positive, discount
    1/log2(rank + 1); the ideal ranking is every judged grade, highest first. Their ratio is out.test.aql's ndcg."""
    import math
    qrels, run = {}, {}
    with open(os.path.join(TREC, "qrels.rel_level")) as fh:
        for line in fh:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    with open(os.path.join(TREC, "results.test")) as fh:
        for line in fh:
            q, _, d, _, score, _ = line.split()
            run.setdefault(q, []).append((float(score), d))
    p = cli("eval", os.path.join(TREC, "qrels.rel_level"), os.path.join(TREC, "results.test"), "-q",
            "-m", "dcg", "-m", "ideal_dcg", "--format", "json")
    got = {(r["measure"], r["query_id"]): r["value"] for r in json.loads(p.stdout)}
    aql = read_trec_output(os.path.join(TREC, "out.test.aql"))
    for q, docs in run.items():
        ranked = sorted(docs, key=lambda x: (-x[0], [-b for b in x[1].encode()] + [1]))
        dcg = sum(max(qrels[q].get(d, 0), 0) / math.log2(i + 2) for i, (_, d) in enumerate(ranked))
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted((g for g in qrels[q].values() if g > 0),
                                                                     reverse=True)))
        assert got[("dcg", q)] == pytest.approx(dcg, abs=1e-9) and got[("ideal_dcg", q)] == pytest.approx(ideal, abs=1e-9)
        assert dcg / ideal == pytest.approx(aql["ndcg"][q], abs=5.1e-5)


def test_max_retrieved_keeps_each_querys_top_n():
    """-M N (trec_eval's max docs per topic) keeps each query's first N as ranked: num_ret becomes min(N,
    retrieved) per query (out.test.aq: 500 each), and a value of 0 is refused with one line."""
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-q", "-M", "7",
            "-m", "num_ret", "--format", "json")
    assert {r["query_id"]: r["value"] for r in json.loads(p.stdout)} == {"301": 7, "302": 7, "303": 7, "all": 21}
    bad = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-M", "0", check=False)
    assert bad.returncode == 2 and "max_retrieved (-M) must be a whole number >= 1, not '0'" in bad.stderr


def test_trec_format_matches_trec_eval_text():
    """The trec output format prints the same lines as trec_eval (measure padded, tab, qid, tab, value)."""
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"),
            "-m", "num_q", "-m", "num_ret", "-m", "map", "-m", "P_10")
    expected = {line.rstrip("\n") for line in open(os.path.join(TREC, "out.test"))}
    for line in p.stdout.splitlines():
        assert line in expected, line


def test_comment_lines_in_qrels_are_skipped():
    a = cli("eval", os.path.join(TREC, "qrels.test.with-comments"), os.path.join(TREC, "results.test"),
            "-m", "map", "--format", "json")
    assert json.loads(a.stdout)[0]["value"] == pytest.approx(0.1785, abs=5e-5)


def test_a_comment_is_a_line_starting_with_hash_in_qrels_and_a_first_field_in_runs(tmp_path):
    """get_qrels.c skips a line whose first byte is '#': ' #x 0 a 1' (white space first) is a judgment of query
    '#x' there (it was skipped here). get_trec_results.c skips the white space before a '#' first: a run's ' #c'
    line is a comment. By hand, with -c: queries '#x' (1 relevant, nothing retrieved) and 1 (a retrieved and
    relevant): num_q 2, num_rel 1 + 1 = 2, num_ret 1."""
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n #x 0 a 1\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 1 t\n\t#c Q0 b 2 0.5 t\n")
    p = cli("eval", "-c", "-q", "-m", "num_q", "-m", "num_ret", "-m", "num_rel", str(q), str(r))
    assert [tuple(line.split()) for line in p.stdout.splitlines()] == [("num_ret", "#x", "0"), ("num_rel", "#x", "1"), ("num_ret", "1", "1"),
                                ("num_rel", "1", "1"), ("num_q", "all", "2"), ("num_ret", "all", "1"),
                                ("num_rel", "all", "2")]


@pytest.mark.parametrize("expected,qrels,run,extra", CASES, ids=[c[0] for c in CASES])
def test_judged_is_one_minus_unj(expected, qrels, run, extra):
    """trec_eval's unj_k is the unjudged fraction of the top k (negative grades count as unjudged)."""
    want = read_trec_output(os.path.join(TREC, expected))
    args = ["eval", os.path.join(TREC, qrels), os.path.join(TREC, run), "-q", "--format", "json", *extra]
    for k in (5, 10, 20):
        args += ["-m", f"Judged@{k}"]
    got = {}
    for row in json.loads(cli(*args).stdout):
        got.setdefault(row["measure"], {})[row["query_id"]] = row["value"]
    for k in (5, 10, 20):
        for qid, value in want[f"unj_{k}"].items():
            if want["num_ret"].get(qid) == 0:  # nothing retrieved (-c): unj is 0 and so is Judged (0 of k judged)
                assert got[f"Judged@{k}"][qid] == 0
                continue
            if qid == "all" and 0 in want["num_ret"].values():
                per = [0 if want["num_ret"][q] == 0 else 1 - v for q, v in want[f"unj_{k}"].items() if q != "all"]
                value = 1 - sum(per) / len(per)
            assert got[f"Judged@{k}"][qid] == pytest.approx(1 - value, abs=5.1e-5), (k, qid)


def test_zscores_by_hand_and_bad_files(tmp_path):
    """-Z: (value - mean) / stddev from the file; -1000000 for a (query, measure) the file lacks, or a stddev of
    0 with another value; 0 with the value itself (convert_zscores.c). By hand from trec_eval's map per query
    (out.test.aq: 301 0.0324, 302 0.3696, 303 0.1334, to its 4 printed decimals); the mean of the z-scores."""
    z = tmp_path / "z"
    z.write_text("301 map 0.0324 0.5\n302 map 0.3696 0\n303 map 0.1 0\n301 P_5 0 1\n")
    p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-q", "-m", "map",
            "-m", "P_5", "-Z", str(z), "--format", "json")
    got = {(r["measure"], r["query_id"]): r["value"] for r in json.loads(p.stdout)}
    assert got[("Zmap", "301")] == pytest.approx(0.0, abs=5.1e-5 / 0.5)
    assert got[("Zmap", "303")] == -1000000 and got[("Zmap", "302")] in (0, -1000000)
    assert got[("ZP_5", "301")] == pytest.approx(0.0, abs=1e-12)  # trec_eval's P_5 of 301 is 0.0000
    assert got[("ZP_5", "302")] == -1000000 and got[("ZP_5", "303")] == -1000000  # not in the file
    assert got[("ZP_5", "all")] == pytest.approx(-2000000 / 3)
    for text, message in [("301 map x 1\n", "line 1: the mean 'x' is not a finite number"),
                          ("301 map 1\n", "line 1: a z-score line has 4 fields"),
                          ("301 map 1 -2\n", "line 1: the stddev -2 is negative"),
                          ("301 map 1 2\n\n301 map 1 2\n", "line 3: query 301 measure map was given already on line 1"),
                          ("", "has no lines")]:
        z.write_text(text)
        p = cli("eval", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), "-Z", str(z),
                check=False)
        assert p.returncode == 1 and message in p.stderr and "Traceback" not in p.stderr, (text, p.stderr)
        assert p.stderr.count("\n") == 1


def test_fractional_cutoffs_as_trec_eval_reads_them():
    """trec_eval reads -m cutoffs with C's atol (meas_init.c get_long_cutoffs): ndcg_cut.23.4 is ndcg_cut_23; a
    cutoff of 0, or one given twice once read, is refused."""
    base = [os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")]
    assert (cli("eval", *base, "-m", "ndcg_cut.23.4").stdout.replace("ndcg_cut_23", "X")
            == cli("eval", *base, "-m", "ndcg_cut.23").stdout.replace("ndcg_cut_23", "X"))
    for name in ("P.0.5", "P.5,5.5"):
        p = cli("eval", *base, "-m", name, check=False)
        assert p.returncode == 2 and name in p.stderr and "Traceback" not in p.stderr


def test_text_lines_alone():
    """trec_eval -m runid prints only the runid line (out.test's first line); -m relstring.20 -q -l2 on
    qrels.rel_level only out.test.aql's relstring lines; in Python, asking for text lines alone computes
    nothing (they are lines of the trec format, not values)."""
    import rankmetrics_duckdb as rm
    with open(os.path.join(TREC, "out.test")) as fh:
        first = fh.readline()
    p = cli("eval", "-m", "runid", os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"))
    assert p.stdout == first
    with open(os.path.join(TREC, "out.test.aql")) as fh:
        want = "".join(line for line in fh if line.startswith("relstring"))
    p = cli("eval", "-mrelstring.20", "-q", "-l2", os.path.join(TREC, "qrels.rel_level"),
            os.path.join(TREC, "results.test"))
    assert p.stdout == want and want.count("\n") == 3
    assert rm.evaluate(os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test"), ["runid"]) == {}


def _lines_of(path, keep):
    with open(os.path.join(TREC, path)) as fh:
        return "".join(line for line in fh if keep(line.split()))


def test_a_measure_given_twice_takes_its_first_parameters_as_trec_eval_does():
    """trec_eval computes a measure once, with the first parameters given for it (trec_eval.c's mark_measure
    marks it; meas_init.c's te_init_meas_* take the first matching -m argument): -m P.3 -m P.10 prints P_3
    only, and a bare name or a set naming it adds nothing (-m P -m P.3, -m all_trec -m P.3: P_3, no default
    cutoffs). The expected lines are trec_eval's own (out.test.meas_params: -m P.5,7,3 gives P_3; out.test.aq:
    -m all_trec -q), a note on stderr says what was left out."""
    q, r = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    p3 = _lines_of("out.test.meas_params", lambda f: f[0] == "P_3")
    assert p3.count("\n") == 4
    for args in (["-m", "P.3", "-m", "P.10"], ["-m", "P", "-m", "P.3"], ["-m", "P.3", "-m", "P"]):
        p = cli("eval", "-q", *args, q, r)
        assert p.stdout == p3
        assert "left out for P.3" in p.stderr
    # all_trec with P.3: out.test.aq with P_3's lines in place of P's default cutoffs
    with open(os.path.join(TREC, "out.test.aq")) as fh:
        aq = fh.read().splitlines(keepends=True)
    want = []
    for line in aq:
        if line.split()[0].startswith("P_"):
            if line.split()[0] == "P_5":  # P's block, where P_3's line of the same query goes
                want += [x for x in p3.splitlines(keepends=True) if x.split()[1] == line.split()[1]]
            continue
        want.append(line)
    p = cli("eval", "-q", "-m", "all_trec", "-m", "P.3", q, r)
    assert p.stdout == "".join(want) and "left out" not in p.stderr
    # JSON is not trec_eval's output: every measure asked for (P_3's values as above, P_10's of out.test.aq)
    rows = json.loads(cli("eval", "-q", "-m", "P.3", "-m", "P.10", "--format", "json", q, r).stdout)
    p10 = _lines_of("out.test.aq", lambda f: f[0] == "P_10")
    assert {(x["measure"], x["query_id"] or "all"): "%.4f" % x["value"] for x in rows} == {
        (f[0], f[1]): f[2] for f in (line.split() for line in (p3 + p10).splitlines())}


def test_a_judgment_group_measure_given_twice_takes_its_first_parameters_too():
    """-R qrels_jg reads several -m of one measure as trec_eval does (meas_init.c, as for plain qrels): -m
    P_avgjg.5 -m P_avgjg.10 prints P_avgjg_5 alone (it printed both), as does -m P_avgjg -m P_avgjg.5 (it printed
    the default cutoffs too). The expected lines are out.test.qrels_jg's P_avgjg_5 (trec_eval -m qrels_jg -q -R
    qrels_jg qrels.123 results.test)."""
    want = _lines_of("out.test.qrels_jg", lambda f: f[0] == "P_avgjg_5")
    assert want.count("\n") == 4
    for args, left in ((["-m", "P_avgjg.5", "-m", "P_avgjg.10"], "P_avgjg.10 left out for P_avgjg.5"),
                       (["-m", "P_avgjg", "-m", "P_avgjg.5"], "P_avgjg left out for P_avgjg.5")):
        p = cli("eval", "-q", "-R", "qrels_jg", *args, os.path.join(TREC, "qrels.123"),
                os.path.join(TREC, "results.test"))
        assert p.stdout == want and left in p.stderr


def test_no_summary_n_leaves_the_means_out_as_trec_eval_does():
    """trec_eval -n: no summary (the 'all' lines, runid among them); with -q the per-query lines of out.test.aq."""
    q, r = os.path.join(TREC, "qrels.test"), os.path.join(TREC, "results.test")
    want = _lines_of("out.test.aq", lambda f: f[1] != "all")
    assert want.count("\n") > 100
    assert cli("eval", "-m", "all_trec", "-q", "-n", q, r).stdout == want
    assert cli("eval", "-m", "all_trec", "-n", q, r).stdout == ""


def test_other_judgment_formats_and_zscores_read_gzip_and_name_what_they_take(tmp_path):
    """-R prefs, -R qrels_jg and -Z read gzip of their text as eval's qrels and runs do (it failed: "not UTF-8
    text"), giving trec_eval's own outputs; a binary file (Parquet) is named with the form the option reads, not
    eval's list with Parquet in it."""
    import gzip
    import pyarrow as pa
    import pyarrow.parquet as pq
    packed = {}
    for name in ("prefs.test", "qrels.123", "zscores_file"):
        packed[name] = str(tmp_path / (name + ".gz"))
        with open(os.path.join(TREC, name), "rb") as src, gzip.open(packed[name], "wb") as dst:
            dst.write(src.read())
    results = os.path.join(TREC, "results.test")
    for args, out in [(["-m", "all_prefs", "-q", "-R", "prefs", packed["prefs.test"],
                        os.path.join(TREC, "prefs.results.test")], "out.test.prefs"),
                      (["-m", "qrels_jg", "-q", "-R", "qrels_jg", packed["qrels.123"], results], "out.test.qrels_jg"),
                      (["-q", "-m", "all_trec", "-Z", packed["zscores_file"], os.path.join(TREC, "qrels.test"),
                        results], "out.test.aqZ")]:
        with open(os.path.join(TREC, out)) as fh:
            assert cli("eval", *args).stdout == fh.read(), out
    parquet = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"query_id": ["1"], "item_id": ["a"], "relevance": [1]}), parquet)
    for args, form in [(["-R", "prefs", parquet, results], "prefs text: lines 'query judgment group sub-group item "
                                                            "level', or gzip of it"),
                       (["-m", "P_5", "-Z", parquet, os.path.join(TREC, "qrels.test"), results],
                        "z-score text: lines 'qid measure mean stddev', or gzip of it")]:
        p = cli("eval", *args, check=False)
        # (this small Parquet file has its first NUL byte after a newline byte)
        assert p.returncode == 1 and p.stderr == (f"rankmetrics: error: {parquet}: cannot detect the format: a NUL "
                                                  f"byte (line 2), binary content, not text (expected {form})\n")
