-- AP@k (average precision): the sum of P@j over the ranks j <= k that hold a relevant item, divided by
--   'judged'    |G|, every relevant judged item, even with a cutoff (trec_eval map and map_cut_k, ranx, MLlib MAP)
--   'capped'    min(k, |G|) (MLlib meanAveragePrecisionAt, recommenders map_at_k, Kaggle MAP@k)
--   'retrieved' the relevant items found in the top k (seed note 001, torchmetrics)
-- running is the number of relevant items at or above the row (rm_running_rel), so P@j = running / j.
CREATE OR REPLACE MACRO rm_ap(kind, pos, grade, running, k, lvl, denominator) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND grade >= lvl AND rm_within(pos, k) THEN CAST(running AS DOUBLE) / pos ELSE 0 END),
        CASE
            WHEN denominator = 'capped' AND k IS NOT NULL AND k < rm_num_rel(kind, grade, lvl) THEN k
            WHEN denominator = 'retrieved' THEN rm_hits(kind, pos, grade, lvl, k)
            ELSE rm_num_rel(kind, grade, lvl)
        END);

CREATE OR REPLACE MACRO ap(run, judgments, k := NULL, rel := 1, denominator := 'judged',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ap(f.kind, f.pos, f.grade, f.running_rel, k, rel, denominator), rm_num_rel(f.kind, f.grade, rel), empty)
        AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('ap', k)
        AND rm_valid_rel('ap', rel)
        AND rm_valid_choice('ap', 'denominator', denominator, ['judged', 'capped', 'retrieved'])
        AND rm_valid_stream('ap', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('ap', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
