"""Writes the example warehouse tables of this folder (synthetic, deterministic; no licence restrictions):

recs.parquet        (model_version, segment, user_id BIGINT, movie_id BIGINT, pred): 3 models x 2 segments x 12 users,
                    8 recommendations each, scores without ties
recs_lists.parquet  (model_version, segment, user_id, movie_id): the same, the movies as a list in rank order
labels.parquet      (user_id BIGINT, movie_id BIGINT, rating): 6 rated movies per user, ratings 0 to 3

Run from the repository's root: PYTHONPATH=. python3 datasets/warehouse/make.py (the same generator as tests/test_warehouse.py).
"""
import os
import sys

import duckdb
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests"))
from test_warehouse import labels_table, recs_table  # noqa: E402

pq.write_table(recs_table(), os.path.join(HERE, "recs.parquet"))
pq.write_table(labels_table(), os.path.join(HERE, "labels.parquet"))
con = duckdb.connect()
con.register("recs", recs_table())
pq.write_table(con.sql("SELECT model_version, segment, user_id, list(movie_id ORDER BY pred DESC) AS movie_id "
                       "FROM recs GROUP BY ALL ORDER BY ALL").to_arrow_table(), os.path.join(HERE, "recs_lists.parquet"))
