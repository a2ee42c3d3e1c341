-- Accuracy@k (ir_measures' accuracy provider, providers/accuracy_provider.py): the share of the pairs (relevant,
-- non-relevant) of the top k retrieved items in which the relevant item ranks first, unjudged items counting as
-- non-relevant: 1 - sum over the relevant items of the non-relevant items above them, / (relevant x
-- non-relevant). running is the number of relevant items at or above the row (rm_running_rel), so a relevant
-- item at pos has pos - running non-relevant items above it. A diagnosis of how a run orders what it retrieved:
-- the relevant items it missed do not count. Undefined (NULL, left out of the mean, as ir_measures leaves the
-- query out) without a relevant item in the top k, and without a non-relevant one (ir_measures divides by
-- zero there).
CREATE OR REPLACE MACRO rm_accuracy(kind, pos, grade, running, k, lvl) AS
    1 - rm_ratio(
        SUM(CASE WHEN kind = 'R' AND grade >= lvl AND rm_within(pos, k) THEN pos - running ELSE 0 END),
        CAST(rm_hits(kind, pos, grade, lvl, k) AS DOUBLE)
            * (rm_retrieved(kind, pos, k) - rm_hits(kind, pos, grade, lvl, k)));

CREATE OR REPLACE MACRO accuracy(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_accuracy(f.kind, f.pos, f.grade, f.running_rel, k, rel) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('accuracy', k)
        AND rm_valid_rel('accuracy', rel)
        AND rm_valid_stream('accuracy', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('accuracy', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
