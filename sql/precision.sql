-- P@k (precision at k): relevant retrieved items in the top k, divided by k, even when fewer than k items
-- were retrieved (trec_eval P_k, ranx precision@k, MLlib precisionAt). Without a cutoff: divided by the
-- number of items retrieved.
CREATE OR REPLACE MACRO rm_precision(kind, pos, grade, k, lvl) AS
    rm_ratio(rm_hits(kind, pos, grade, lvl, k), COALESCE(k, rm_retrieved(kind, pos, k)));

CREATE OR REPLACE MACRO precision(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_precision(f.kind, f.pos, f.grade, k, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('precision', k)
        AND rm_valid_rel('precision', rel)
        AND rm_valid_stream('precision', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('precision', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
