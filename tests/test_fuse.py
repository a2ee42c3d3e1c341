"""rankmetrics fuse / rm.fuse against ranx's fuse, run in the test: every method we offer under every
normalization, on trec_eval's suite runs and on synthetic runs (scores without ties: ranx keeps tied items in the
order it met them), with wsum's weights and rrf's k; the written run; bad input in one line."""
import os

import pytest

import ranx  # the test extra installs it: a missing one fails, never skips

import rankmetrics_duckdb as rm  # noqa: E402
from conftest import TREC, cli  # noqa: E402
from synthetic import make, write_trec  # noqa: E402

METHODS = {"combsum": "sum", "wsum": "wsum", "combmnz": "mnz", "rrf": "rrf", "isr": "isr",
           "bordafuse": "bordafuse"}  # ours -> ranx's name
NORMS = ["min-max", "max", "sum", "zmuv", "rank", None]


def _synthetic_runs(tmp):
    paths = []
    for seed in (3, 5, 8):
        qrels, run = make(seed=seed, queries=10, depth=40, ties=False, missing=False)
        folder = os.path.join(tmp, str(seed))
        os.makedirs(folder, exist_ok=True)
        paths.append(write_trec(qrels, run, folder)[1])
    return paths


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("fuse"))
    return {"synthetic": _synthetic_runs(tmp)}


def _ranx(paths, method, norm, params):
    loaded = [ranx.Run.from_file(p, kind="trec") for p in paths]
    common = set.intersection(*[set(r.keys()) for r in loaded])
    loaded = [ranx.Run({q: r.to_dict()[q] for q in common}) for r in loaded]
    return ranx.fuse(loaded, norm=norm, method=METHODS[method], params=params).to_dict(), common


@pytest.mark.parametrize("norm", NORMS, ids=[str(n) for n in NORMS])
@pytest.mark.parametrize("method", sorted(METHODS))
def test_fuse_equals_ranx(runs, method, norm):
    paths = runs["synthetic"]
    params = {"weights": [0.5, 0.3, 0.2]} if method == "wsum" else ({"k": 20} if method == "rrf" else {})
    want, _ = _ranx(paths, method, norm, params)
    got = rm.fuse(paths, method=method, norm=norm or "none", weights=params.get("weights"),
                  rrf_k=params.get("k", 60)).to_pydict()
    fused = {(q, d): s for q, d, s in zip(got["query_id"], got["item_id"], got["score"])}
    expected = {(q, d): s for q, docs in want.items() for d, s in docs.items()}
    assert set(fused) == set(expected) and len(expected) > 500
    for key, value in expected.items():
        assert fused[key] == pytest.approx(value, abs=1e-9), key


def test_fuse_of_trec_eval_runs_on_the_command_line(tmp_path):
    """results.test and results.trunc (trec_eval's suite; its six TREC columns, as ranx reads no more): rrf and
    min-max combsum as ranx computes them, written as a TREC run ranked by the fused score, and as Parquet."""
    trunc = tmp_path / "results.trunc"
    with open(os.path.join(TREC, "results.trunc")) as fh:
        trunc.write_text("".join(" ".join(line.split()[:6]) + "\n" for line in fh))
    paths = [os.path.join(TREC, "results.test"), str(trunc)]
    for method in ("rrf", "combsum"):
        want, common = _ranx(paths, method, "min-max", {})
        out = tmp_path / f"{method}.run"
        cli("fuse", *paths, "-m", method, "-o", str(out), "--tag", "both")
        lines = [line.split() for line in out.read_text().splitlines()]
        got = {(q, d): float(s) for q, _, d, _, s, _ in lines}
        # ranx fuses runs of the same queries only; a query of one run only (302 is not in results.trunc) is
        # fused from that run alone here
        assert common == {"301", "303"} and {q for q, _ in got} == {"301", "302", "303"}
        # ties aside: results.test has tied scores, whose order ranx keeps as it met them (its ranks, hence rrf)
        tied = _tied_items(paths)
        both = {key: value for key, value in got.items() if key[0] in common and key not in tied}
        want = {q: {d: s for d, s in docs.items() if (q, d) not in tied} for q, docs in want.items()}
        assert len(tied) < 40 and len(both) > 900
        assert both == pytest.approx({(q, d): s for q, docs in want.items() for d, s in docs.items()}, abs=1e-12)
        for i in range(1, len(lines)):  # ranks from 1 in each query, by the fused score
            same = lines[i][0] == lines[i - 1][0]
            assert int(lines[i][3]) == (int(lines[i - 1][3]) + 1 if same else 1)
            assert not same or float(lines[i][4]) <= float(lines[i - 1][4])
        assert {tag for *_, tag in lines} == {"both"}
        # the fused run is a run: eval reads it
        assert cli("eval", os.path.join(TREC, "qrels.test"), str(out), "-m", "map").stdout.startswith("map")
    import pyarrow.parquet as pq
    cli("fuse", *paths, "-m", "rrf", "-o", str(tmp_path / "f.parquet"))
    table = pq.read_table(str(tmp_path / "f.parquet"))
    assert table.column_names == ["query_id", "item_id", "score"] and table.num_rows > 500


def _tied_items(paths):
    """(query, item) pairs whose score equals another item's of the same query in one of the runs."""
    from collections import Counter
    tied = set()
    for path in paths:
        with open(path) as fh:
            rows = [line.split() for line in fh]
        counts = Counter((r[0], float(r[4])) for r in rows)
        tied |= {(r[0], r[2]) for r in rows if counts[(r[0], float(r[4]))] > 1}
    return tied


@pytest.mark.parametrize("args,message,code", [
    (["-m", "condorcet"], "condorcet is not offered", 2),
    (["-m", "nope"], "unknown fusion method 'nope'", 2),
    (["--norm", "log"], "unknown fusion normalization 'log'", 2),
    (["--weights", "1"], "1 weights for 2 runs", 2),
    (["-m", "rrf", "--weights", "1", "2"], "weights apply to wsum only", 2),
    (["--rrf-k", "-1"], "rrf_k must be a number >= 0", 2),
    (["-m", "combsum", "--rrf-k", "5"], "rrf_k applies to rrf only, not combsum", 2),  # was ignored
    (["--tag", "a b"], "the run tag must be one word", 2),
])
def test_bad_fusion_arguments_say_why(args, message, code):
    p = cli("fuse", os.path.join(TREC, "results.test"), os.path.join(TREC, "results.trunc"), *args, check=False)
    assert p.returncode == code and message in p.stderr and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1


def test_bad_runs_name_the_file(tmp_path):
    one = cli("fuse", os.path.join(TREC, "results.test"), check=False)
    assert one.returncode == 2 and "fusion needs two or more runs, got 1" in one.stderr
    qrels = cli("fuse", os.path.join(TREC, "results.test"), os.path.join(TREC, "qrels.test"), check=False)
    assert qrels.returncode == 1 and "qrels.test" in qrels.stderr and qrels.stderr.count("\n") == 1
    dup = tmp_path / "dup.run"
    dup.write_text("1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    p = cli("fuse", os.path.join(TREC, "results.test"), str(dup), check=False)
    assert p.returncode == 1 and "dup.run" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("query,item", [("q 2", "d1"), ("q1", "d\n2"), ("q1", "d\t2")])
def test_ids_a_trec_line_cannot_hold_are_refused_for_a_trec_run(tmp_path, query, item):
    """An id with white space (read from Parquet) was written into the fused TREC run as it was: 'q 2 Q0 d1 ...'
    has 7 fields and 'd\n2' splits its line, a run eval cannot read back. Refused, nothing written; as Parquet
    the ids are kept (read back equal)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    paths = []
    for name, scores in (("a", [2.0, 1.0]), ("b", [1.0, 3.0])):
        paths.append(str(tmp_path / f"{name}.parquet"))
        pq.write_table(pa.table({"query_id": [query, query], "item_id": [item, "d9"], "score": scores}), paths[-1])
    out = tmp_path / "fused.run"
    p = cli("fuse", *paths, "-o", str(out), check=False)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, p.stderr
    assert "holds white space, which a TREC run line cannot hold" in p.stderr and not out.exists()
    cli("fuse", *paths, "-o", str(tmp_path / "fused.parquet"))
    fused = pq.read_table(str(tmp_path / "fused.parquet"))
    assert set(fused["query_id"].to_pylist()) == {query} and set(fused["item_id"].to_pylist()) == {item, "d9"}


def test_nan_scores_last_in_fusion(tmp_path):
    # found by a differential run: under nan_scores='last' the 'sum' norm counted the NaN row (made NULL) in n but
    # not in the sum, so its divisor went negative and was clamped (b fused to 2000000000.99...); and an item with
    # no score in any run was written with the score None, which nothing reads back
    import math
    import pyarrow as pa
    import rankmetrics_duckdb as rm
    t = lambda items, scores: pa.table({"query_id": ["1"] * len(items), "item_id": items, "score": scores})  # noqa
    r1, r2 = t(["a", "b", "c"], [math.nan, 5.0, 3.0]), t(["a", "b"], [1.0, 2.0])
    # by hand, norm 'sum' (s - min) / (sum - min x n) over each run's scored rows: r1 b (5-3)/(8-2x3) = 1, c 0;
    # r2 a (1-1)/(3-1x2) = 0, b (2-1)/1 = 1; a's NaN in r1 adds nothing: b 2, a 0, c 0 (a and c tie at 0: item id
    # descending puts c first)
    got = rm.fuse([r1, r2], method="combsum", norm="sum", nan_scores="last").to_pylist()
    assert [(r["item_id"], r["score"]) for r in got] == [("b", 2.0), ("c", 0.0), ("a", 0.0)]
    (tmp_path / "r1").write_text("1 Q0 a 1 nan t\n1 Q0 b 2 1.0 t\n")
    (tmp_path / "r2").write_text("1 Q0 x 1 1.0 t\n")
    p = cli("fuse", str(tmp_path / "r1"), str(tmp_path / "r2"), "--nan-scores", "last", "-o", str(tmp_path / "f"))
    assert (tmp_path / "f").read_text().splitlines()[-1] == "1 Q0 a 3 nan fused"
    (tmp_path / "q").write_text("1 0 a 1\n")
    p = cli("eval", str(tmp_path / "q"), str(tmp_path / "f"), "-m", "recip_rank", "--nan-scores", "last")
    assert p.stdout == "recip_rank            \tall\t0.3333\n"  # a ranked 3rd, last


@pytest.mark.parametrize("method", sorted(METHODS))
def test_ranx_method_names_are_taken(runs, method):
    # ranx.fuse's own names (sum, mnz) were refused as unknown methods
    paths = runs["synthetic"][:2]
    assert rm.fuse(paths, method=METHODS[method]).to_pydict() == rm.fuse(paths, method=method).to_pydict()


@pytest.mark.parametrize("norm,first", [("none", "inf"), ("sum", "nan"), ("zmuv", "nan"), ("min-max", "nan")])
def test_a_fused_score_beyond_a_double_is_refused(tmp_path, norm, first):
    # a (1e308) and b (-1e308) in both runs. norm none: a's sum 2e308 overflows to inf, and the run written was one
    # eval refuses. sum: the total 1e308 + -1e308 = 0 divides (nan); zmuv: the mean's sum overflows (inf - inf =
    # nan); min-max: the spread 1e308 - -1e308 = inf, and (1e308 - -1e308) / inf = inf / inf = nan. ranx writes
    # nan for min-max and 0.0 for zmuv: neither is a fusion of these runs
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1e308 t\n1 Q0 b 2 -1e308 t\n" if norm != "none" else "1 Q0 a 1 1e308 t\n1 Q0 b 2 1 t\n")
    out = tmp_path / "fused"
    p = cli("fuse", str(run), str(run), "--method", "sum", "--norm", norm, "-o", str(out), check=False)
    assert p.returncode == 1 and not out.exists(), p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankmetrics: error: the fused score of item ") and (
        f" for query 1 is {first} (method combsum, norm {norm}): the scores overflow a double; " in lines[0]), lines
    # scaled down a thousandfold the same runs fuse: under none, a's sum 2e305 and b's 2 (hand computed)
    run.write_text("1 Q0 a 1 1e305 t\n1 Q0 b 2 1 t\n")
    fused = rm.fuse([str(run), str(run)], method="sum", norm="none").to_pylist()
    assert fused == [{"query_id": "1", "item_id": "a", "score": 2e305}, {"query_id": "1", "item_id": "b", "score": 2.0}]
