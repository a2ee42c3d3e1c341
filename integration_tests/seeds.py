"""Write the integration project's seeds (seeds/*.csv) from the repository's datasets/.

    python3 integration_tests/seeds.py

run, qrels        trec_eval's own test run and qrels (datasets/trec_eval: results.test, qrels.test)
recs, labels      the example warehouse tables (datasets/warehouse): three models x two segments in one table
recs_lists        recs_lists.parquet, each list of movies written as text '3|1|2' (the model recs_lists makes
                  it an array again, as CSV has no lists)
labels_mixed      labels under mixed-case column names (UserID, MovieID, Rating)
recsys_recs       the three recommendation models of datasets/recsys in one table (model, user_id, item_id, rank,
                  score), recsys_test their test set (relevance 1), recsys_train the training interactions
                  (user_id, item_id), recsys_items the catalog (item_id; embedding_text, each item's vector
                  written as text '0.1|0.7|...', which the model recsys_items_vectors makes an array again)
rank_values       a few users' recommendations by rank (user_id, item_id, rank, score), written here: user ok's
                  ranks are 1..n, the others' are not (tied, with a gap, from 0, not whole), which RecTools reads
                  as positions; rank_values_test their test items (relevance 1)
"""
import csv
import os

import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "datasets")


def _write(folder, name, header, rows):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name + ".csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def _trec(name, fields):
    with open(os.path.join(DATA, "trec_eval", name)) as fh:
        return [tuple(line.split()[i] for i in fields) for line in fh if line.strip()]


def main(project=HERE):
    """Write the seeds into project/seeds (default: this project's)."""
    folder = os.path.join(project, "seeds")
    _write(folder, "run", ["query_id", "item_id", "score"], _trec("results.test", (0, 2, 4)))
    _write(folder, "qrels", ["query_id", "item_id", "relevance"], _trec("qrels.test", (0, 2, 3)))
    recs = pq.read_table(os.path.join(DATA, "warehouse", "recs.parquet")).to_pylist()
    _write(folder, "recs", ["model_version", "segment", "user_id", "movie_id", "pred"],
           [(r["model_version"], r["segment"], r["user_id"], r["movie_id"], repr(r["pred"])) for r in recs])
    labels = pq.read_table(os.path.join(DATA, "warehouse", "labels.parquet")).to_pylist()
    _write(folder, "labels", ["user_id", "movie_id", "rating"], [(r["user_id"], r["movie_id"], r["rating"]) for r in labels])
    _write(folder, "labels_mixed", ["UserID", "MovieID", "Rating"],
           [(r["user_id"], r["movie_id"], r["rating"]) for r in labels])
    lists = pq.read_table(os.path.join(DATA, "warehouse", "recs_lists.parquet")).to_pylist()
    _write(folder, "recs_lists_text", ["model_version", "segment", "user_id", "movie_ids"],
           [(r["model_version"], r["segment"], r["user_id"], "|".join(map(str, r["movie_id"]))) for r in lists])

    recsys = os.path.join(DATA, "recsys")
    rows = []
    for model in ("popularity", "itemknn", "random"):
        with open(os.path.join(recsys, f"{model}.run")) as fh:
            rows += [(model, u, i, rank, score) for u, _, i, rank, score, _ in (line.split() for line in fh)]
    _write(folder, "recsys_recs", ["model", "user_id", "item_id", "rank", "score"], rows)
    with open(os.path.join(recsys, "test.qrels")) as fh:
        _write(folder, "recsys_test", ["user_id", "item_id", "relevance"],
               [(u, i, 1) for u, _, i, _ in (line.split() for line in fh)])
    train = pq.read_table(os.path.join(recsys, "train.parquet")).to_pylist()
    _write(folder, "recsys_train", ["user_id", "item_id"], [(r["user_id"], r["item_id"]) for r in train])
    items = pq.read_table(os.path.join(recsys, "items.parquet")).to_pylist()
    _write(folder, "recsys_items", ["item_id", "embedding_text"],
           [(r["item_id"], "|".join(map(repr, r["embedding"]))) for r in items])

    # ranks 1..n (ok: its rank order is not its score order) and not (tests/test_dbt.py computes their numbers by hand)
    _write(folder, "rank_values", ["user_id", "item_id", "rank", "score"],
           [("ok", "a", 2, 0.9), ("ok", "b", 1, 0.1), ("ok", "c", 3, 0.5),
            ("tied", "a", 1, 0.3), ("tied", "b", 1, 0.2), ("tied", "c", 2, 0.1),
            ("gap", "a", 1, 0.2), ("gap", "b", 3, 0.1),
            ("zero", "a", 0, 0.3), ("zero", "b", 1, 0.2), ("zero", "c", 2, 0.1),
            ("fraction", "a", 1, 0.3), ("fraction", "b", 1.5, 0.2), ("fraction", "c", 3, 0.1)])
    _write(folder, "rank_values_test", ["user_id", "item_id", "relevance"],
           [("ok", "a", 1), ("tied", "c", 1), ("gap", "b", 1), ("zero", "c", 1), ("fraction", "b", 1)])


if __name__ == "__main__":
    main()
