-- Fall-out@k: judged non-relevant items (a grade below rel) retrieved in the top k / the query's judged
-- non-relevant items: the false-positive rate over the judged items. NULL without a judged non-relevant item
-- (undefined; left out of the mean).
CREATE OR REPLACE MACRO rm_fallout(kind, pos, grade, k, lvl) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND grade < lvl AND rm_within(pos, k) THEN 1 ELSE 0 END),
             rm_num_nonrel(kind, grade, lvl));

CREATE OR REPLACE MACRO fallout(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_fallout(f.kind, f.pos, f.grade, k, rel) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('fallout', k)
        AND rm_valid_rel('fallout', rel)
        AND rm_valid_stream('fallout', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('fallout', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
