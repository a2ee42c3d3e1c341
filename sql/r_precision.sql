-- Rprec (R-precision): precision at rank |G|, the number of relevant judged items of the query.
CREATE OR REPLACE MACRO rm_r_precision(kind, pos, grade, query_num_rel, lvl) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND grade >= lvl AND pos <= query_num_rel THEN 1 ELSE 0 END),
             rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO r_precision(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_r_precision(f.kind, f.pos, f.grade, f.query_num_rel, rel), rm_num_rel(f.kind, f.grade, rel), empty)
        AS value
FROM (
    SELECT s.*, rm_query_num_rel(s.query_id, s.kind, s.grade, rel) AS query_num_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('r_precision', rel)
        AND rm_valid_stream('r_precision', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('r_precision', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
