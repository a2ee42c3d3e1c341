-- Success@k (hit rate at k): 1 when at least one relevant item is in the top k, else 0.
CREATE OR REPLACE MACRO rm_success(kind, pos, grade, k, lvl) AS
    CASE WHEN rm_hits(kind, pos, grade, lvl, k) > 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO success(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_success(f.kind, f.pos, f.grade, k, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('success', k)
        AND rm_valid_rel('success', rel)
        AND rm_valid_stream('success', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('success', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
