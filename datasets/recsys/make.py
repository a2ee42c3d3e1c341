"""Writes the example recommendation data of this folder: synthetic and deterministic (no licence restrictions;
the same files on every machine and Python version, as it uses only random.Random's random()).

A catalog of 300 items in 6 genres with popularity following a Zipf law, 150 users who each like 2 genres, and a
time-ordered log of 10 to 60 interactions per user (items drawn by popularity x genre affinity, without repeats).
Each user's last 20% of interactions (at least 1) is the test set; the rest is training.

items.parquet           item_id, genre, embedding (DOUBLE[8]: the item's genre direction plus noise, 4 decimals)
items.csv               item_id, genre (the same catalog without the embeddings)
train.parquet, train.csv  user_id, item_id, weight (1.0), datetime (the interaction's day)
test.qrels              the test interactions as TREC qrels (user 0 item 1)
popularity.run          top 10 most popular training items the user has not seen (score: training count)
itemknn.run             top 10 unseen items by summed cosine similarity of item co-occurrence in training
random.run              10 unseen items drawn at random (score: 10 down to 1)

Run from the repository's root: python3 datasets/recsys/make.py
"""
import math
import os
import random

import duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
GENRES = ("action", "comedy", "drama", "horror", "romance", "scifi")
N_ITEMS, N_USERS, K, DIM = 300, 150, 10, 8


def item_id(i):
    return f"i{i:03d}"


def user_id(u):
    return f"u{u:03d}"


def catalog(rng):
    order = list(range(N_ITEMS))
    rng.shuffle(order)                        # popularity rank of each item
    popularity = {i: 1.0 / (order[i] + 1) ** 0.9 for i in range(N_ITEMS)}
    genre = {i: GENRES[int(rng.random() * len(GENRES))] for i in range(N_ITEMS)}
    embedding = {}
    for i in range(N_ITEMS):
        g = GENRES.index(genre[i])
        embedding[i] = [round((1.0 if d == g else 0.0) + 0.6 * (rng.random() - 0.5), 4) for d in range(DIM)]
    return popularity, genre, embedding


def log(rng, popularity, genre):
    rows = []                                 # (user, item, day)
    for u in range(N_USERS):
        liked = set()
        while len(liked) < 2:
            liked.add(GENRES[int(rng.random() * len(GENRES))])
        n = 10 + int(50 * rng.random() ** 2)  # most users have few interactions
        weights = {i: popularity[i] * (4.0 if genre[i] in liked else 1.0) for i in range(N_ITEMS)}
        day = int(rng.random() * 30)
        for _ in range(n):
            total = sum(weights.values())
            x, acc = rng.random() * total, 0.0
            for i in sorted(weights):
                acc += weights[i]
                if acc >= x:
                    break
            del weights[i]
            day += 1 + int(rng.random() * 3)
            rows.append((u, i, day))
    return rows


def split(rows):
    by_user = {}
    for u, i, day in rows:
        by_user.setdefault(u, []).append((day, i))
    train, test = [], []
    for u, events in by_user.items():
        events.sort()
        n_test = max(1, len(events) // 5)
        train += [(u, i, day) for day, i in events[:-n_test]]
        test += [(u, i, day) for day, i in events[-n_test:]]
    return train, test


def recommend(rng, train):
    seen, count, users_of = {}, {}, {}
    for u, i, _ in train:
        seen.setdefault(u, set()).add(i)
        count[i] = count.get(i, 0) + 1
        users_of.setdefault(i, set()).add(u)
    runs = {"popularity": [], "itemknn": [], "random": []}
    by_count = sorted(count, key=lambda i: (-count[i], i))
    for u in range(N_USERS):
        top = [i for i in by_count if i not in seen[u]][:K]
        runs["popularity"] += [(u, i, float(count[i])) for i in top]
        scores = {}
        for j in sorted(seen[u]):
            for i in users_of:
                if i in seen[u]:
                    continue
                common = len(users_of[i] & users_of[j])
                if common:
                    sim = common / math.sqrt(len(users_of[i]) * len(users_of[j]))
                    scores[i] = scores.get(i, 0.0) + sim
        best = sorted(scores, key=lambda i: (-round(scores[i], 9), i))[:K]
        runs["itemknn"] += [(u, i, round(scores[i], 6)) for i in best]
        unseen = [i for i in range(N_ITEMS) if i not in seen[u]]
        picks = []
        for _ in range(K):
            picks.append(unseen.pop(int(rng.random() * len(unseen))))
        runs["random"] += [(u, i, float(K - r)) for r, i in enumerate(picks)]
    return runs


def write_run(path, tag, rows):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        rank = 0
        for n, (u, i, score) in enumerate(rows):
            rank = 1 if n == 0 or rows[n - 1][0] != u else rank + 1
            f.write(f"{user_id(u)} Q0 {item_id(i)} {rank} {score:g} {tag}\n")


def main():
    rng = random.Random(20261125)
    popularity, genre, embedding = catalog(rng)
    train, test = split(log(rng, popularity, genre))
    runs = recommend(rng, train)
    con = duckdb.connect()
    con.execute("CREATE TABLE items (item_id VARCHAR, genre VARCHAR, embedding DOUBLE[])")
    con.executemany("INSERT INTO items VALUES (?, ?, ?)",
                    [(item_id(i), genre[i], embedding[i]) for i in range(N_ITEMS)])
    con.execute("CREATE TABLE train (user_id VARCHAR, item_id VARCHAR, weight DOUBLE, datetime DATE)")
    con.executemany("INSERT INTO train VALUES (?, ?, 1.0, DATE '2026-01-01' + CAST(? AS INTEGER))",
                    [(user_id(u), item_id(i), day) for u, i, day in sorted(train, key=lambda r: (r[2], r[0], r[1]))])
    for name, sql in (("items.parquet", "SELECT * FROM items ORDER BY item_id"),
                      ("train.parquet", "SELECT * FROM train ORDER BY datetime, user_id, item_id")):
        con.execute(f"COPY ({sql}) TO '{os.path.join(HERE, name)}' (FORMAT parquet)")
    con.execute(f"COPY (SELECT item_id, genre FROM items ORDER BY item_id) TO '{os.path.join(HERE, 'items.csv')}' "
                "(HEADER)")
    con.execute(f"COPY (SELECT * FROM train ORDER BY datetime, user_id, item_id) TO "
                f"'{os.path.join(HERE, 'train.csv')}' (HEADER)")
    with open(os.path.join(HERE, "test.qrels"), "w", encoding="utf-8", newline="\n") as f:
        for u, i, _ in sorted(test):
            f.write(f"{user_id(u)} 0 {item_id(i)} 1\n")
    for name, rows in runs.items():
        write_run(os.path.join(HERE, f"{name}.run"), name, rows)


if __name__ == "__main__":
    main()
