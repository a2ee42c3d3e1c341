"""Writes the example diversity data of this folder: synthetic and deterministic (no licence restrictions; the same
files on every machine and Python version, as it uses only random.Random's random()).

Eight topics, each with 2 to 5 subtopics (aspects of the query) and 40 candidate documents. A document covers each
subtopic with a topic-specific probability; the documents judged are the 25 first candidates, with grade 0 (judged,
not relevant to that subtopic), 1 or 2 for each subtopic. Topic 7 has no relevant document at all (every grade 0);
topic 8 is judged but in no run; topic 9 is in the runs but not judged.

qrels.div     TREC diversity qrels: 'topic subtopic docno grade' (the second column is the subtopic, where
              trec_eval reads an ignored "iteration"); one line per (topic, subtopic, judged document)
diverse.run   30 documents per topic, scored by relevance plus a bonus for subtopics not yet covered (distinct
              scores, 4 decimals)
greedy.run    30 documents per topic by relevance alone, scores rounded to one decimal: many tied scores (tools
              break them by docno, and disagree on the direction)
short.run     the first 6 documents of diverse.run per topic, topic 3 left out (short lists: the cutoffs 10 and
              20 reach past the end)

Run from the repository's root: python3 datasets/diversity/make.py
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
TOPICS = range(1, 10)          # 1..9: 7 without relevant documents, 8 not in the runs, 9 not judged
N_DOCS, N_JUDGED, DEPTH = 40, 25, 30


def docno(topic, d):
    return f"d{topic}-{d:02d}"


def make(rng):
    qrels, truth = [], {}
    for topic in TOPICS:
        n_sub = 2 + int(rng.random() * 4)                   # 2..5 subtopics
        p_cover = 0.15 + 0.25 * rng.random()
        cover = {}
        for d in range(N_DOCS):
            grades = {}
            for s in range(1, n_sub + 1):
                r = rng.random()
                if topic == 7 or r > p_cover:
                    grades[s] = 0
                else:
                    grades[s] = 2 if r < p_cover / 3 else 1
            cover[d] = grades
        truth[topic] = cover
        if topic == 9:
            continue
        for s in range(1, n_sub + 1):
            for d in range(N_JUDGED):
                qrels.append((topic, s, docno(topic, d), cover[d][s]))
    return qrels, truth


def runs(rng, truth):
    diverse, greedy = [], []
    for topic in TOPICS:
        if topic == 8:
            continue
        cover = truth[topic]
        rel = {d: sum(g for g in cover[d].values()) + rng.random() * 1.5 for d in cover}
        by_rel = sorted(cover, key=lambda d: (-rel[d], d))[:DEPTH]
        greedy += [(topic, docno(topic, d), round(rel[d], 1)) for d in by_rel]
        # diverse: a greedy rerank of the 30 best, a bonus for each subtopic not yet covered
        seen, left, score = set(), list(by_rel), 100.0
        while left:
            best = max(left, key=lambda d: (rel[d] + 2 * len({s for s, g in cover[d].items() if g} - seen), -d))
            left.remove(best)
            seen |= {s for s, g in cover[best].items() if g}
            score -= 1 + round(rng.random(), 4)
            diverse.append((topic, docno(topic, best), round(score, 4)))
    short, count = [], {}
    for topic, doc, score in diverse:
        count[topic] = count.get(topic, 0) + 1
        if topic != 3 and count[topic] <= 6:
            short.append((topic, doc, score))
    return {"diverse": diverse, "greedy": greedy, "short": short}


def write_run(name, rows):
    rank = {}
    with open(os.path.join(HERE, f"{name}.run"), "w", encoding="utf-8") as fh:
        for topic, doc, score in rows:
            rank[topic] = rank.get(topic, 0) + 1
            fh.write(f"{topic} Q0 {doc} {rank[topic]} {score:g} {name}\n")


def main():
    rng = random.Random(20261125)
    qrels, truth = make(rng)
    with open(os.path.join(HERE, "qrels.div"), "w", encoding="utf-8") as fh:
        for topic, s, doc, grade in qrels:
            fh.write(f"{topic} {s} {doc} {grade}\n")
    for name, rows in runs(rng, truth).items():
        write_run(name, rows)


if __name__ == "__main__":
    main()
