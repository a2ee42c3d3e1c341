-- RR@k (reciprocal rank): 1 / rank of the first relevant item in the top k, 0 when there is none.
CREATE OR REPLACE MACRO rm_rr(kind, pos, grade, k, lvl) AS
    rm_ratio(1, MIN(CASE WHEN kind = 'R' AND grade >= lvl AND rm_within(pos, k) THEN pos END));

CREATE OR REPLACE MACRO rr(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_rr(f.kind, f.pos, f.grade, k, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('rr', k)
        AND rm_valid_rel('rr', rel)
        AND rm_valid_stream('rr', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('rr', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
