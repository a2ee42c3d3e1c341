-- Whether each query got a recommendation list (RecTools' data-quality metrics, rectools/metrics/dq.py).
--
-- SufficientReco@k: 1 when the run has k items for the query, else 0; with deep := 'true', the share of k it
-- has (at most 1). Only queries of the run have a value (RecTools averages over the users of the
-- recommendations): NULL for a query without a retrieved item, left out of the mean, unless the run is one of lists
-- and the query's list is empty (its 'Q' row: sql/01_stream.sql): asked, it got none of its k items, 0. (The term
-- folds away where run_lists is false.)
CREATE OR REPLACE MACRO rm_sufficient(kind, pos, k, deep, run_lists) AS
    CASE WHEN rm_retrieved(kind, pos, NULL) = 0
              AND NOT (run_lists AND SUM(CASE WHEN kind = 'Q' THEN 1 ELSE 0 END) > 0) THEN NULL
         WHEN deep = 'true' THEN LEAST(CAST(rm_retrieved(kind, pos, k) AS DOUBLE) / k, CAST(1 AS DOUBLE))
         WHEN rm_retrieved(kind, pos, k) >= k THEN CAST(1 AS DOUBLE)
         ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO sufficient_reco(run, judgments, k := NULL, deep := 'false',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_sufficient(f.kind, f.pos, k, deep, run_lists) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'sufficient_reco', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('sufficient_reco', k)
        AND rm_valid(deep IN ('false', 'true'), 'sufficient_reco', 'deep', '''false'' or ''true''', deep)
        AND rm_valid_stream('sufficient_reco', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('sufficient_reco', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- CoveredUsers@k: 1 when a judged query (a user of the test interactions) has a recommended item in the top k,
-- else 0; NULL for a query without a judgment (RecTools averages over the test users).
CREATE OR REPLACE MACRO covered_users(run, judgments, k := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    CASE WHEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) = 0 THEN NULL
         WHEN rm_retrieved(f.kind, f.pos, k) > 0 THEN CAST(1 AS DOUBLE)
         ELSE CAST(0 AS DOUBLE) END AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('covered_users', k)
        AND rm_valid_stream('covered_users', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('covered_users', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
