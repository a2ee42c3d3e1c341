"""Deterministic synthetic runs and judgments for parity tests: graded relevance, tied scores, unjudged
items, judged queries missing from the run and run queries missing from the judgments."""
import random


def make(seed=7, queries=25, depth=60, ties=True, grades=(0, 0, 0, 1, 1, 2, 3), missing=True):
    rnd = random.Random(seed)
    qrels, run = {}, {}
    for q in range(queries):
        qid = f"q{q:02d}"
        items = [f"d{rnd.randrange(10_000):05d}" for _ in range(depth * 2)]
        items = list(dict.fromkeys(items))
        judged = rnd.sample(items, k=min(len(items), depth))
        qrels[qid] = {d: rnd.choice(grades) for d in judged}
        if missing and q % 9 == 4:
            continue  # judged, not retrieved
        ranked = rnd.sample(items, k=min(len(items), rnd.randrange(depth // 3, depth)))
        if ties:
            run[qid] = {d: float(rnd.randrange(20)) / 4 for d in ranked}  # many tied scores
        else:
            run[qid] = {d: rnd.random() for d in ranked}
    if missing:
        run["zz_unjudged"] = {f"d{i}": float(i) for i in range(10)}  # retrieved, not judged
        qrels["q_norel"] = {"d1": 0, "d2": 0}  # judged, nothing relevant
        run["q_norel"] = {"d1": 1.0, "d3": 0.5}
    return qrels, run


def to_tables(qrels, run):
    """pyarrow tables with the standard columns."""
    import pyarrow as pa
    jq, ji, jr = zip(*[(q, d, r) for q, docs in qrels.items() for d, r in docs.items()])
    rq, ri, rs = zip(*[(q, d, s) for q, docs in run.items() for d, s in docs.items()])
    return (pa.table({"query_id": list(jq), "item_id": list(ji), "relevance": list(jr)}),
            pa.table({"query_id": list(rq), "item_id": list(ri), "score": list(rs)}))


def write_trec(qrels, run, folder):
    import os
    qp, rp = os.path.join(folder, "synthetic.qrels"), os.path.join(folder, "synthetic.run")
    with open(qp, "w") as fh:
        for q, docs in qrels.items():
            for d, r in docs.items():
                fh.write(f"{q} 0 {d} {r}\n")
    with open(rp, "w") as fh:
        for q, docs in run.items():
            for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1])):
                fh.write(f"{q} Q0 {d} {i + 1} {s!r} synthetic\n")
    return qp, rp
