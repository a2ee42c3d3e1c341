-- Hits@k: the number of relevant items retrieved in the top k (ranx hits@k; trec_eval's num_rel_ret with a
-- cutoff). Without a cutoff: every relevant item retrieved.
CREATE OR REPLACE MACRO hits(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(CAST(rm_hits(f.kind, f.pos, f.grade, rel, k) AS DOUBLE), rm_num_rel(f.kind, f.grade, rel), empty)
        AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('hits', k)
        AND rm_valid_rel('hits', rel)
        AND rm_valid_stream('hits', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('hits', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
