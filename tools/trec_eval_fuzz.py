"""Compare `rankmetrics eval` with the trec_eval binary, byte for byte, on random qrels and runs.

    git clone https://github.com/usnistgov/trec_eval && make -C trec_eval
    python3 tools/trec_eval_fuzz.py --trec-eval trec_eval/trec_eval --seeds 0 500

Each seed writes a small random qrels and run (1-6 queries; ids of four styles, byte order mixed; grades -1 to 4;
scores with ties, many decimals and several scales; the run in rank order, shuffled, or sorted by score with ties
as they come; space or tab separated) and runs both programs with one of FLAGS. A seed where both refuse the input
passes; one where only one refuses, or the outputs differ, is printed with its first differing lines. The
differences documented in docs/conventions.md (section 2) show up here: trec_eval 10's exit when a judged query is
missing from the run without -c, its -nan for a -J query with nothing retrieved, num_rel's 'all' line with -c -l N,
trec_eval 10's "Can't calculate measure 'num_ret'" when the first query it evaluates has only negative grades
(form_res_rels.c: 0 relevance levels asked for before any allocation). Not run by the test suite: it needs the
trec_eval binary; the cases it found are in tests/test_trec_eval_fidelity.py."""
import argparse
import os
import random
import subprocess
import sys
import tempfile

FLAGS = [[], ["-q"], ["-m", "all_trec"], ["-m", "all_trec", "-q"], ["-m", "all_trec", "-q", "-c"],
         ["-m", "all_trec", "-q", "-c", "-M", "7"], ["-m", "all_trec", "-q", "-l", "2"], ["-m", "all_trec", "-J", "-q"],
         ["-m", "all_trec", "-q", "-N", "60"], ["-q", "-m", "ndcg_cut.3,5", "-m", "P.1,3", "-m", "recall.5", "-m", "map_cut.4"],
         ["-q", "-m", "all_trec", "-mrelstring.20", "-l2"], ["-m", "official", "-c"], ["-m", "set", "-q"],
         ["-q", "-mndcg.1=3,2=9,4=4.5", "-mRprec_mult.0.5,2.0", "-mutility.2,-1,0,0", "-m11pt_avg..25,.5"],
         ["-q", "-m", "P.1,2,3,4,5,6", "-m", "recall.1,2,3,4,5", "-m", "ndcg_cut.1,2,3,4,5", "-m", "map_cut.1,2,3,5,8"],
         ["-q", "-m", "bpref", "-m", "infAP", "-m", "set_F.0.5", "-m", "set_P", "-m", "set_recall", "-m", "set_map",
          "-m", "ndcg_rel", "-m", "Rndcg", "-m", "binG", "-m", "G", "-m", "rbp.p=0.8"]]
# more combinations users type (session 24's fuzz; repeated -m of one measure, relstring alone, -n)
FLAGS += [["-c", "-J", "-m", "all_trec", "-q"], ["-M", "3", "-J", "-m", "all_trec", "-q"],
          ["-m", "all_trec", "-q", "-N", "5", "-c"], ["-m", "ndcg_cut", "-m", "P", "-m", "recall", "-q"],
          ["-m", "map_cut.1,2,3", "-m", "iprec_at_recall.0.1,0.35", "-q"],
          ["-m", "Rprec", "-m", "num_rel_ret", "-m", "num_ret", "-m", "num_rel", "-q", "-c"],
          ["-m", "success.1,2,5", "-m", "gm_map", "-m", "gm_bpref", "-q"], ["-m", "infAP", "-m", "bpref", "-J", "-q"],
          ["-m", "runid", "-m", "num_q"], ["-m", "runid", "-m", "num_q", "-c"],
          ["-m", "relative_P.2,4", "-m", "set_relative_P", "-m", "num_nonrel_judged_ret", "-m", "unj", "-q"],
          ["-m", "unj.5,10", "-m", "num_nonrel_judged_ret", "-q", "-J"], ["-m", "rbp_resid", "-m", "rbp.p=0.5", "-q"],
          ["-q", "-m", "all_trec", "-c", "-l", "3", "-M", "4"], ["-q", "-m", "all_trec", "-l", "2", "-J"],
          ["-m", "recip_rank", "-m", "map", "-m", "Rprec", "-m", "P.10", "-q", "-c", "-M", "5"],
          ["-m", "ndcg", "-m", "ndcg_rel", "-m", "Rndcg", "-m", "ndcg_cut.1,3,10", "-q", "-J"],
          ["-m", "set", "-q", "-c", "-J"], ["-m", "official", "-q", "-M", "1"],
          ["-m", "11pt_avg", "-m", "iprec_at_recall", "-m", "map", "-q", "-c"],
          ["-m", "utility.1,-1,0,0", "-m", "utility", "-q", "-N", "100"], ["-m", "set_F.2", "-m", "set_map", "-q", "-l", "2"],
          ["-m", "relstring", "-q"], ["-m", "relstring.5", "-q", "-J"], ["-m", "G", "-m", "binG", "-q", "-c"],
          ["-m", "bpref", "-m", "infAP", "-m", "gm_bpref", "-q", "-c", "-l", "2"]]
FLAGS += [["-m", "P.5", "-m", "P.10", "-q"], ["-m", "P", "-m", "P.3", "-q"], ["-n", "-q", "-m", "all_trec"],
          ["-m", "relstring", "-m", "runid", "-q", "-c"], ["-m", "relstring.3", "-m", "map", "-q", "-c"]]


def _ids(rng, n, style):
    if style == 0:
        return [f"d{i}" for i in range(n)]
    if style == 1:
        return [str(rng.randint(0, 10**6)) for _ in range(n)]
    if style == 2:
        return [rng.choice("AaBbZ_-09Dd~é") + str(i) for i in range(n)]
    return [f"doc-{i:05d}" for i in range(n)]


def write_case(seed, folder):
    """A random qrels and run in folder (qrels, run)."""
    rng = random.Random(seed)
    queries = list(dict.fromkeys(f"{rng.choice(['q', 'Q', '', 't'])}{rng.randint(0, 30)}"
                                 for _ in range(rng.randint(1, 6))))
    style = rng.randint(0, 3)
    qrels, run = [], []
    for q in queries:
        docs = list(dict.fromkeys(_ids(rng, rng.randint(1, 40), style)))
        if rng.random() < 0.85:
            qrels += [(q, d, rng.choice([-1, 0, 0, 1, 1, 2, 3, 4])) for d in rng.sample(docs, rng.randint(0, len(docs)))]
        if rng.random() < 0.9:
            scale = rng.choice([1, 0.1, 100, 1e-3, 1e6])
            for d in rng.sample(docs, rng.randint(1, len(docs))):
                run.append((q, d, rng.choice([round(rng.random() * scale, rng.randint(0, 6)), rng.randint(-3, 3),
                                              rng.random() * scale])))
    qrels = qrels or [(queries[0], "dx", 1)]
    run = run or [(queries[0], "dx", 1.0)]
    order = rng.randint(0, 2)
    if order == 0:  # trec_eval's rank order: query, score descending, docno descending byte-wise
        run.sort(key=lambda t: t[1].encode(), reverse=True)
        run.sort(key=lambda t: -t[2])
        run.sort(key=lambda t: t[0])
    elif order == 1:
        rng.shuffle(run)
    else:
        run.sort(key=lambda t: (t[0], -t[2]))
    sep = rng.choice([" ", "\t"])
    rng.shuffle(qrels)
    with open(os.path.join(folder, "qrels"), "w", encoding="utf-8") as fh:
        fh.writelines(f"{q} 0 {d} {r}\n" for q, d, r in qrels)
    with open(os.path.join(folder, "run"), "w", encoding="utf-8") as fh:
        fh.writelines(sep.join([q, "Q0", d, str(i + 1), repr(s) if isinstance(s, float) else str(s), "tag"]) + "\n"
                      for i, (q, d, s) in enumerate(run))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trec-eval", required=True, help="the trec_eval binary")
    ap.add_argument("--seeds", nargs=2, type=int, default=(0, 200), metavar=("FIRST", "END"))
    args = ap.parse_args(argv)
    differ = 0
    with tempfile.TemporaryDirectory() as folder:
        files = [os.path.join(folder, "qrels"), os.path.join(folder, "run")]
        for seed in range(*args.seeds):
            write_case(seed, folder)
            flags = FLAGS[seed % len(FLAGS)]
            a = subprocess.run([args.trec_eval, *flags, *files], capture_output=True, text=True)
            b = subprocess.run([sys.executable, "-m", "rankmetrics_duckdb", "eval", *flags, *files],
                               capture_output=True, text=True)
            if a.returncode or b.returncode:
                if bool(a.returncode) != bool(b.returncode):
                    differ += 1
                    print(seed, flags, "exit", a.returncode, b.returncode, a.stderr.strip()[:150], "|",
                          b.stderr.strip()[:150])
            elif a.stdout != b.stdout:
                differ += 1
                pairs = [(x, y) for x, y in zip(a.stdout.splitlines(), b.stdout.splitlines()) if x != y]
                print(seed, flags, pairs[:3] or "line counts differ")
    print(f"{differ} of {args.seeds[1] - args.seeds[0]} seeds differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
