"""Issue 13, metric names and parameters: RBP's spellings, the SQL macros' argument checks, fractional grades,
float32 scores, ir_measures measure objects, and one-line usage errors. Reference numbers come from ranx,
pytrec_eval and ir_measures run here, or from hand computations written out below."""
import math
import os
import re

import duckdb
import pytest

import rankmetrics_duckdb as rm
from rankmetrics_duckdb import sqlsource
from rankmetrics_duckdb.errors import InputError, UsageError

from conftest import ROOT, TREC, cli

QRELS_LEVEL = os.path.join(TREC, "qrels.rel_level")
RESULTS = os.path.join(TREC, "results.test")


def _read_qrels(path):
    out = {}
    with open(path) as fh:
        for line in fh:
            q, _, d, g = line.split()
            out.setdefault(q, {})[d] = int(g)
    return out


def _trec_order(path):
    """{query: {item: score}} with strictly decreasing scores in trec_eval's order (score descending, then item
    id descending), so that ranx's unstable sort of tied scores cannot reorder the run."""
    rows = {}
    with open(path) as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            rows.setdefault(q, []).append((float(s), d))
    out = {}
    for q, items in rows.items():
        items.sort(key=lambda t: (t[0], t[1].encode()), reverse=True)
        out[q] = {d: float(len(items) - i) for i, (_, d) in enumerate(items)}
    return out


def _ranx(qrels, run, metric):
    from ranx import Qrels, Run, evaluate
    r = Run.from_dict(run)
    evaluate(Qrels.from_dict(qrels), r, metric, make_comparable=True)
    return dict(r.scores[metric])


# --- 3. RBP: one rule for its names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["rbp.95", "rbp.8", "rbp.95-l2"])
def test_ranx_rbp_spelling_gives_ranx_numbers(name):
    """ranx's rbp.95 is p = 0.95 over raw grades (ranx sums grades >= the level, -lN); it was read as trec_eval's
    rbp (p 0.9, grade / top grade) cut at rank 95: 0.3234 where ranx gives 0.3202."""
    qrels, run = _read_qrels(QRELS_LEVEL), _trec_order(RESULTS)
    want = _ranx(qrels, run, name)
    got = rm.evaluate(QRELS_LEVEL, RESULTS, [name], per_query=True)[name]
    assert set(got) == set(want)
    for q, v in want.items():
        assert got[q] == pytest.approx(v, abs=1e-9), q
    if name == "rbp.95":
        assert want["302"] == pytest.approx(2.0748, abs=1e-4)  # the ranx number, raw grades summed


def test_raw_grade_switch_reproduces_ranx():
    """scale=raw is the switch behind ranx's spelling, for any p and cutoff-free RBP."""
    qrels, run = _read_qrels(QRELS_LEVEL), _trec_order(RESULTS)
    want = _ranx(qrels, run, "rbp.7")
    got = rm.evaluate(QRELS_LEVEL, RESULTS, ["RBP(p=0.7,scale=raw)"], per_query=True)["RBP(p=0.7,scale=raw)"]
    for q, v in want.items():
        assert got[q] == pytest.approx(v, abs=1e-9), q


@pytest.mark.parametrize("name", ["rbp@10", "rbp_10", "rbp@95"])
def test_ambiguous_rbp_names_are_refused_with_a_suggestion(name):
    """rbp@10 used p 0.8 with a cutoff, rbp_10 p 0.9 with a cutoff, and ranx reads rbp@10 as p 0.10."""
    with pytest.raises(UsageError, match=r"ambiguous.*RBP@\d+.*rbp\.\d+"):
        rm.evaluate(QRELS_LEVEL, RESULTS, [name])
    p = cli("eval", QRELS_LEVEL, RESULTS, "-m", name, check=False)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "ambiguous" in p.stderr


@pytest.mark.parametrize("name", ["rbp.9.5", "rbp.95,99", "RBP.9.5"])
def test_rbp_dotted_names_neither_ranx_nor_trec_eval_are_refused(name):
    """rbp.9.5 was read as trec_eval's dotted cutoffs: rbp_9 (p 0.9, cutoff 9: 0.171 on the ranx fuzz's case, where
    ranx gave 0.252), rbp.95,99 as rbp_95 and rbp_99; trec_eval's rbp takes no cutoff, ranx's rbp.NN whole digits."""
    with pytest.raises(UsageError, match=r"ranx's rbp.NN takes whole digits"):
        rm.evaluate(QRELS_LEVEL, RESULTS, [name])


def test_trec_eval_printed_rbp_names_read_back():
    """trec_eval prints -m rbp.p=0.5 as rbp_p=0.5 (and rbp_resid.p=0.5 as rbp_resid_p=0.5): the printed name reads
    back as the same measure (it said 'ranx reads rbp_p=0.5 as p = 0.p=0.5')."""
    got = rm.evaluate(QRELS_LEVEL, RESULTS, ["rbp_p=0.5", "rbp_resid_p=0.5"])
    want = rm.evaluate(QRELS_LEVEL, RESULTS, ["rbp.p=0.5", "rbp_resid.p=0.5"])
    assert got == want and set(got) == {"rbp_p=0.5", "rbp_resid_p=0.5"}


def test_rbp_spellings_follow_one_rule():
    """RBP (ir_measures) defaults to p 0.8, rbp (trec_eval) to p 0.9; p= and trec_eval's rbp.p= set p. Checked by
    hand on one query: run a, b, c; a and c relevant (grade 1, top grade 1): RBP = (1 - p)(1 + p^2)."""
    qrels = {"query_id": ["q", "q"], "item_id": ["a", "c"], "relevance": [1, 1]}
    run = {"query_id": ["q"] * 3, "item_id": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]}
    import pandas as pd
    names = ["RBP", "RBP@10", "RBP@2", "rbp", "rbp.p=0.95", "RBP(p=0.95)", "rbp.95"]
    got = rm.evaluate(pd.DataFrame(qrels), pd.DataFrame(run), names)
    assert got["RBP"] == pytest.approx(0.2 * (1 + 0.64))        # p 0.8: 0.328
    assert got["RBP@10"] == pytest.approx(0.2 * (1 + 0.64))
    assert got["RBP@2"] == pytest.approx(0.2 * 1)               # c at rank 3 is cut
    assert got["rbp"] == pytest.approx(0.1 * (1 + 0.81))        # p 0.9: 0.181
    for name in ("rbp_p=0.95", "RBP(p=0.95)", "rbp.95"):         # p 0.95: 0.05 * 1.9025 = 0.095125
        #                                                           (rbp.p=0.95 is named rbp_p=0.95, as trec_eval prints it)
        assert got[name] == pytest.approx(0.05 * (1 + 0.9025)), name


def test_readme_documents_the_rbp_rule():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    section = text[text.index("## Metrics and names"):text.index("## Conventions")]
    for spelling in ("rbp.95", "rbp.p=0.95", "RBP(p=0.95)", "rbp@10", "scale=raw"):
        assert spelling in section, spelling


# --- 4. the SQL macros check their arguments --------------------------------------------------------------------

@pytest.fixture(scope="module")
def con():
    c = duckdb.connect()
    rm.register(c)
    c.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q', 'a', 2.0), ('q', 'b', 1.0)) t(query_id, item_id, score)")
    c.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q', 'a', 1), ('q', 'c', 2)) t(query_id, item_id, relevance)")
    c.execute("CREATE TABLE empty_run (query_id VARCHAR, item_id VARCHAR, score DOUBLE)")
    c.execute("CREATE TABLE empty_qrels (query_id VARCHAR, item_id VARCHAR, relevance INTEGER)")
    yield c
    c.close()


NONSENSE = [
    ("ndcg(R, J, gain := 'exponentail')", "gain"),
    ("ndcg(R, J, ideal := 'nope')", "ideal"),
    ("rbp(R, J, p := 1.5)", "p"),
    ("rbp(R, J, p := 0)", "p"),
    ("ndcg(R, J, 0)", "k"),
    ("ap(R, J, -3)", "k"),
    ("\"precision\"(R, J, 2.5)", "k"),
    ("dcg(R, J, log_base := 1)", "log_base"),
    ("dcg(R, J, log_base := 0.5)", "log_base"),
    ("bpref(R, J, NULL)", "rel"),
    ("r_precision(R, J, NULL)", "rel"),
    ("num_rel(R, J, NULL)", "rel"),
    ("num_rel_ret(R, J, NULL)", "rel"),
    ("ap(R, J, denominator := 'median')", "denominator"),
    ("err(R, J, max_grade := 2000)", "max_grade"),
    ("recall(R, J, 10, ties := 'random')", "ties"),
    ("rr(R, J, queries := 'some')", "queries"),
    ("success(R, J, empty := 'skip')", "empty"),
    ("judged(R, J, judged_only := 'maybe')", "judged_only"),
    ("rbp(R, J, scale := 'log')", "scale"),
    ("num_q(R, J, NULL)", "ties"),
]


@pytest.mark.parametrize("tables", [("run", "qrels"), ("empty_run", "empty_qrels")])
@pytest.mark.parametrize("call,param", NONSENSE)
def test_macro_refuses_nonsense_argument(con, call, param, tables):
    sql = "SELECT * FROM " + call.replace("R, J", f"'{tables[0]}', '{tables[1]}'")
    with pytest.raises(duckdb.Error) as info:
        con.execute(sql).fetchall()
    message = str(info.value).splitlines()[0]
    macro = re.match(r'"?(\w+)', call).group(1)
    assert f"{macro}: {param} must be" in message, message


def test_macros_accept_their_defaults_and_valid_values(con):
    # hand: run a (rank 1, grade 1), b (rank 2, unjudged); |G| = 2 (a, c)
    # bpref: a is relevant with no judged non-relevant item above it (1), summed over R = 2: 1/2
    assert con.execute("SELECT value FROM bpref('run', 'qrels')").fetchall() == [(0.5,)]
    assert con.execute("SELECT value FROM ap('run', 'qrels', 10)").fetchall() == [(0.5,)]  # (1/1) / 2
    # raw RBP, p 0.5: (1 - 0.5) * grade 1 * 0.5^0 = 0.5
    assert con.execute("SELECT value FROM rbp('run', 'qrels', p := 0.5, scale := 'raw')").fetchall() == [(0.5,)]


def test_readme_signatures_are_exact():
    """Each metric macro's positional order, as the README lists it, is the order sql/ defines."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    from rankmetrics_duckdb import shape
    tail = [f'"{p}"' if p == "by" else p for p in shape.MACRO_PARAMS]
    assert f"`..., {', '.join(tail)})`" in text  # the table-shape parameters every metric macro ends with
    from rankmetrics_duckdb import measures
    metrics = {m.macro for m in measures.METRICS.values()}
    for name, macro in sqlsource.macros().items():
        if not macro.is_table or name.startswith("rm_") or name not in metrics:
            if macro.is_table and not name.startswith("rm_"):  # the file readers, fuse: every parameter listed
                assert f"`{macro.name}({', '.join(macro.params)})`" in text, name
            continue
        assert macro.params[-len(tail):] == tail, name
        signature = f"{macro.name}({', '.join(macro.params[:-len(tail)])}, ...)"
        assert f"`{signature}`" in text, signature


def test_rendered_sql_has_no_duckdb_error():
    """DuckDB's error() of the macros' argument checks never reaches another engine: each fails its own way
    (dialects.Dialect.fail), and the DuckDB macros' checks (rm_valid_*) are not copied into the fused query."""
    for dialect in ("postgres", "spark", "snowflake", "bigquery", "clickhouse", "databricks"):
        sql = rm.macros_sql(dialect=dialect, schema="m")
        # rm_valid_* use DuckDB's isfinite and list_contains; native objects check arguments in portable SQL
        assert "isfinite" not in sql.lower() and "list_contains" not in sql.lower(), dialect
    sql = rm.to_sql(["nDCG@10", "RBP", "bpref"], dialect="duckdb", run="r", judgments="j")
    assert "must be" not in sql  # the argument checks: Python checks them before writing the query
    assert sql.upper().count("ERROR(") == 1  # the input checks (rm_checks): a duplicate fails the query


# --- 5. fractional grades ----------------------------------------------------------------------------------------

def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_fractional_grades_truncated_as_trec_eval(tmp_path):
    """trec_eval reads a grade with atol: 1.5 is 1 and 1.9 is 1. Run a then b, qrels a 1.5, b 1.9.
    truncated: both 1, the run is ideal, nDCG = 1. as given: DCG = 1.5 + 1.9/log2(3) = 2.69877,
    ideal = 1.9 + 1.5/log2(3) = 2.84640, nDCG = 0.94813."""
    import pytrec_eval
    qrels = _write(tmp_path, "q.qrels", "q 0 a 1.5\nq 0 b 1.9\n")
    run = _write(tmp_path, "q.run", "q Q0 a 1 2.0 t\nq Q0 b 2 1.0 t\n")
    # pytrec_eval refuses fractional grades; trec_eval's atol makes them ints, as below
    ev = pytrec_eval.RelevanceEvaluator({"q": {"a": int(1.5), "b": int(1.9)}}, {"ndcg"})
    want = ev.evaluate({"q": {"a": 2.0, "b": 1.0}})["q"]["ndcg"]
    assert want == pytest.approx(1.0)
    assert rm.evaluate(qrels, run, ["ndcg"])["ndcg"] == pytest.approx(want, abs=1e-12)
    as_given = (1.5 + 1.9 / math.log2(3)) / (1.9 + 1.5 / math.log2(3))
    assert as_given == pytest.approx(0.94813, abs=1e-5)
    assert rm.evaluate(qrels, run, ["ndcg"], grades="as_given")["ndcg"] == pytest.approx(as_given, abs=1e-12)
    # ranx keeps integer grades (Qrels.from_dict truncates 1.5 and 1.9 to 1): its nDCG is 1, as the ranx preset's
    from ranx import Qrels, Run, evaluate as ranx_evaluate
    ranx_ndcg = ranx_evaluate(Qrels.from_dict({"q": {"a": 1.5, "b": 1.9}}), Run.from_dict({"q": {"a": 2.0, "b": 1.0}}),
                              "ndcg")
    assert ranx_ndcg == pytest.approx(1.0)
    assert rm.evaluate(qrels, run, ["ndcg"], convention="ranx")["ndcg"] == pytest.approx(ranx_ndcg, abs=1e-12)


def test_negative_fractional_grade_truncates_toward_zero(tmp_path):
    """atol("-0.5") is 0: a judged non-relevant item for trec_eval (bpref counts it), where -0.5 as given is
    below 0, i.e. unjudged. Run n then a; qrels n -0.5, a 1: bpref = 1 - 1/min(1, 1) = 0 with n judged
    non-relevant above a, and 1 when n is unjudged."""
    qrels = _write(tmp_path, "n.qrels", "q 0 n -0.5\nq 0 a 1\n")
    run = _write(tmp_path, "n.run", "q Q0 n 1 2.0 t\nq Q0 a 2 1.0 t\n")
    assert rm.evaluate(qrels, run, ["bpref"])["bpref"] == pytest.approx(0.0)
    assert rm.evaluate(qrels, run, ["bpref"], grades="as_given")["bpref"] == pytest.approx(1.0)


def test_fractional_grades_in_the_sql_macros_and_native_objects():
    """The same two cases through the DuckDB macros (trec_eval's default: truncate; native objects are checked
    against eval in test_native): run a then b, qrels a 1.5, b 1.9 -> nDCG 1 truncated, 0.94813 as given (hand
    computation in test_fractional_grades_truncated_as_trec_eval); qrels n -0.5, a 1 -> bpref 0 truncated, 1 as
    given (test_negative_fractional_grade_truncates_toward_zero)."""
    import duckdb
    con = duckdb.connect()
    rm.register(con)
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q', 'a', 2.0), ('q', 'b', 1.0), ('q', 'n', 3.0)) "
                "t(query_id, item_id, score)")
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q', 'a', 1.5), ('q', 'b', 1.9)) "
                "t(query_id, item_id, relevance)")
    con.execute("CREATE TABLE run2 AS SELECT * FROM (VALUES ('q', 'n', 2.0), ('q', 'a', 1.0)) t(query_id, item_id, score)")
    con.execute("CREATE TABLE qrels2 AS SELECT * FROM (VALUES ('q', 'n', -0.5), ('q', 'a', 1.0)) "
                "t(query_id, item_id, relevance)")
    # n (unjudged, ranked first) only shifts both: DCG = 1/log2(3) + 1/2 over ideal 1 + 1/log2(3) when truncated
    truncated = (1 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3))
    given = (1.5 / math.log2(3) + 1.9 / 2) / (1.9 + 1.5 / math.log2(3))
    assert con.execute("SELECT value FROM ndcg('run', 'qrels')").fetchall() == [(pytest.approx(truncated),)]
    assert con.execute("SELECT value FROM ndcg('run', 'qrels', grades := 'as_given')").fetchall() == \
        [(pytest.approx(given),)]
    assert rm.evaluate("qrels", "run", ["ndcg"], con=con)["ndcg"] == pytest.approx(truncated, abs=1e-12)
    assert con.execute("SELECT value FROM bpref('run2', 'qrels2')").fetchall() == [(pytest.approx(0.0),)]
    assert con.execute("SELECT value FROM bpref('run2', 'qrels2', grades := 'as_given')").fetchall() == \
        [(pytest.approx(1.0),)]
    with pytest.raises(duckdb.Error, match="grades"):
        con.execute("SELECT value FROM ndcg('run', 'qrels', grades := 'round')").fetchall()


def test_readme_conventions_table_has_grades_and_scores():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    section = text[text.index("## Conventions"):text.index("## How it works")]
    assert "`grades`" in section and "`scores`" in section and "`pytrec_eval`" in section


# --- 6. scores compared in float32 (pytrec_eval) -----------------------------------------------------------------

def test_float32_scores_as_pytrec_eval(tmp_path):
    """a 1.00000001 and b 1.0 are different doubles but the same float32; tied, trec_eval's order puts b (item id
    descending) first. b is relevant: AP 1/2 in double (b at rank 2), 1 in float32."""
    import pytrec_eval
    qrels = _write(tmp_path, "f.qrels", "q 0 b 1\n")
    run = _write(tmp_path, "f.run", "q Q0 a 1 1.00000001 t\nq Q0 b 2 1.0 t\n")
    want = pytrec_eval.RelevanceEvaluator({"q": {"b": 1}}, {"map"}).evaluate(
        {"q": {"a": 1.00000001, "b": 1.0}})["q"]["map"]
    assert want == pytest.approx(1.0)
    assert rm.evaluate(qrels, run, ["map"])["map"] == pytest.approx(0.5)  # trec_eval 10: doubles
    assert rm.evaluate(qrels, run, ["map"], scores="float32")["map"] == pytest.approx(want)
    assert rm.evaluate(qrels, run, ["map"], convention="pytrec_eval")["map"] == pytest.approx(want)
    p = cli("eval", qrels, run, "-m", "map", "--scores", "float32", "--format", "csv")
    assert "1.0" in p.stdout


# --- 12. ir_measures' measure objects ----------------------------------------------------------------------------

def test_ir_measures_objects_accepted():
    import ir_measures
    qrels_path = os.path.join(TREC, "qrels.test")
    measures = [ir_measures.nDCG @ 10, ir_measures.AP(rel=1), ir_measures.P @ 5]
    got = rm.evaluate(qrels_path, RESULTS, measures)
    want = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(qrels_path),
                                      ir_measures.read_trec_run(RESULTS))
    for m in measures:
        assert got[str(m)] == pytest.approx(want[m], abs=1e-9), str(m)


@pytest.mark.parametrize("bad", [42, None, 3.5, object()])
def test_non_string_metric_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="metric must be a name"):
        rm.evaluate(os.path.join(TREC, "qrels.test"), RESULTS, [bad])


# --- unclear messages: one line, exit 2, the fault named ---------------------------------------------------------

@pytest.mark.parametrize("args,named", [
    (["-m", "ERR(max_grade=1e400)"], "max_grade"),
    (["-m", "AP(rel=nan)"], "rel"),
    (["-m", "AP", "-l", "nan"], "relevance level"),
    (["-m", "AP", "-l", "inf"], "relevance level"),
    (["-m", "DCG(log_base=inf)"], "log_base"),
    (["-m", "DCG", "--log-base", "inf"], "log_base"),
    (["-m", "nDCG(gain=exponential,gain=linear)"], "gain is given twice"),
    (["-m", "nDCG(rel=2)@10-l3"], "rel is given twice"),
    (["-m", "ndcg_burges(gain=linear)@10"], "contradicts"),
])
def test_bad_parameter_is_one_line_usage_error(args, named):
    p = cli("eval", os.path.join(TREC, "qrels.test"), RESULTS, *args, check=False)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], p.stderr
    assert "Traceback" not in p.stderr


def test_exponential_gain_of_a_huge_grade_is_an_input_error(tmp_path):
    """2^2000 - 1 overflows a double: nDCG was NaN. Now an input error naming the grade, query and item."""
    qrels = _write(tmp_path, "h.qrels", "q 0 a 2000\nq 0 b 1\n")
    run = _write(tmp_path, "h.run", "q Q0 a 1 2.0 t\nq Q0 b 2 1.0 t\n")
    p = cli("eval", qrels, run, "-m", "nDCG(gain=exponential)@10", check=False)
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "2000" in lines[0] and "item a" in lines[0] and "query q" in lines[0], p.stderr
    with pytest.raises(InputError, match="2000"):
        rm.evaluate(qrels, run, ["ndcg_burges@10"])
    # linear gain of the same grade is finite: (2000 + 1/log2(3)) / (2000 + 1/log2(3)) = 1
    assert rm.evaluate(qrels, run, ["nDCG@10"])["nDCG@10"] == pytest.approx(1.0)


def test_a_space_after_the_at_is_a_cutoff():
    # "ndcg@ 3" (ranx's own parse, int(" 3"), takes it) was split as two names and refused as "metric 'ndcg@':
    # cutoff '' is not a whole number". trec_eval's out.test on qrels.test / results.test: P_5 0.2667, map 0.1785
    got = rm.evaluate(os.path.join(TREC, "qrels.test"), RESULTS, ["P@ 5", "P@  5 map"])
    assert got == pytest.approx({"P@5": 0.2667, "map": 0.1785}, abs=5e-5)
    out = cli("eval", os.path.join(TREC, "qrels.test"), RESULTS, "-m", "P@ 5").stdout
    assert float(out.split()[-1]) == pytest.approx(0.2667, abs=5e-5)
