-- set_map (trec_eval): unranked AP, the set precision times the set recall: rel_ret^2 / (ret x |G|) (m_set_map.c).
CREATE OR REPLACE MACRO rm_set_map(kind, pos, grade, lvl) AS
    rm_ratio(CAST(rm_hits(kind, pos, grade, lvl, NULL) AS DOUBLE) * rm_hits(kind, pos, grade, lvl, NULL),
             CAST(rm_retrieved(kind, pos, NULL) AS DOUBLE) * rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO set_map(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_set_map(f.kind, f.pos, f.grade, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('set_map', rel)
        AND rm_valid_stream('set_map', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('set_map', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
