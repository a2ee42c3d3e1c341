-- relative_P@k (trec_eval relative_P_k; set_relative_P without a cutoff): the relevant items in the top k over
-- the most the top k could hold, min(k, |G|); without a cutoff k is the number retrieved (m_rel_P.c, m_set_rel_P.c).
CREATE OR REPLACE MACRO rm_relative_p(kind, pos, grade, k, lvl) AS
    rm_ratio(rm_hits(kind, pos, grade, lvl, k),
             CASE WHEN COALESCE(k, rm_retrieved(kind, pos, NULL)) < rm_num_rel(kind, grade, lvl)
                  THEN COALESCE(k, rm_retrieved(kind, pos, NULL)) ELSE rm_num_rel(kind, grade, lvl) END);

CREATE OR REPLACE MACRO relative_precision(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_relative_p(f.kind, f.pos, f.grade, k, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('relative_precision', k)
        AND rm_valid_rel('relative_precision', rel)
        AND rm_valid_stream('relative_precision', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('relative_precision', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
