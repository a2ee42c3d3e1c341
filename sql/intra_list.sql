-- IntraListDiversity@k (RecTools' IntraListDiversity, rectools/metrics/diversity.py; Recommenders' diversity
-- over item vectors): the mean distance between the pairs of the query's top k items, 0 with fewer than two
-- items, NULL (left out of the mean) for a query without a retrieved item: RecTools averages over the users
-- recommended to. The items' vectors are the catalog's list column embedding (vectors names the table); an
-- item without one is left out of the pairs (RecTools: its distances are NaN, which its mean skips), NULL when
-- no pair is left. distance: 'cosine' (1 - the cosine similarity of the two vectors: Recommenders) or
-- 'hamming' (the number of positions at which they differ: RecTools' PairwiseHammingDistanceCalculator, over
-- item features). The stream with vectors (rm_vector_stream in 01_stream.sql) carries on each row its sums
-- against the rows ranked above it, so a sum over the pairs of the top k is a sum over its rows:
-- mean cosine distance = 1 - sum(sim_above) / pairs; mean Hamming distance = dims - sum(same_above) / pairs
-- (the count same_above as a number like sim_above: a CASE choosing between them by a parameter needs one type).
CREATE OR REPLACE MACRO rm_ild(kind, pos, dims, sim_above, same_above, k, distance) AS
    CASE WHEN SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) THEN 1 ELSE 0 END) = 0 THEN NULL
         WHEN SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) THEN 1 ELSE 0 END) < 2 THEN CAST(0 AS DOUBLE)
         ELSE CASE WHEN distance = 'hamming'
                   THEN MAX(CASE WHEN kind = 'R' AND rm_within(pos, k) THEN dims END) ELSE 1 END
              - rm_ratio(SUM(CASE WHEN kind = 'R' AND rm_within(pos, k)
                                  THEN CASE WHEN distance = 'hamming' THEN CAST(same_above AS DOUBLE)
                                            ELSE sim_above END END),
                         SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) AND dims IS NOT NULL THEN 1 ELSE 0 END)
                         * (SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) AND dims IS NOT NULL THEN 1 ELSE 0 END)
                            - 1) / 2.0) END;

CREATE OR REPLACE MACRO intra_list_diversity(run, judgments, k := NULL, distance := 'cosine', vectors := 'items',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_ild(f.kind, f.pos, f.dims, f.sim_above, f.same_above, k, distance) AS value
FROM (SELECT s.* FROM rm_vector_stream(run, judgments, vectors, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('intra_list_diversity', k)
        AND rm_valid_choice('intra_list_diversity', 'distance', distance, ['cosine', 'hamming'])
        AND rm_valid_stream('intra_list_diversity', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_vectors(vectors)
        AND rm_valid_empty('intra_list_diversity', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
