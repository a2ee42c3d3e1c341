-- Judged@k: the fraction of the top k that has a relevance judgment (ir_measures Judged@k; 1 - trec_eval unj_k).
-- Divided by k, even when fewer than k items were retrieved; without a cutoff, by the items retrieved.
-- A negative grade counts as unjudged, as in trec_eval.
-- judged_count: 'unj' is that (trec_eval 10's unj_k: grades >= 0 judged, over k); 'any' is ir_measures' Judged@k
-- (judged provider): any judgment counts, a negative grade too, over the items ranked within k (min(k, retrieved)).
CREATE OR REPLACE MACRO rm_judged(kind, pos, grade, k, judged_count) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND (grade >= 0 OR (judged_count = 'any' AND grade IS NOT NULL))
                       AND rm_within(pos, k) THEN 1 ELSE 0 END),
             CASE WHEN judged_count = 'any' THEN rm_retrieved(kind, pos, k) ELSE COALESCE(k, rm_retrieved(kind, pos, k)) END);

CREATE OR REPLACE MACRO judged(run, judgments, k := NULL, judged_count := 'unj',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_judged(f.kind, f.pos, f.grade, k, judged_count), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('judged', k)
        AND rm_valid_choice('judged', 'judged_count', judged_count, ['unj', 'any'])
        AND rm_valid_stream('judged', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('judged', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- unj@k (trec_eval unj_k): the fraction of the top k that is unjudged (not in the judgments, or a grade below 0),
-- divided by k even when fewer were retrieved; without a cutoff, by the items retrieved (m_unjudged.c). Not
-- 1 - Judged@k when fewer than k are retrieved (then both count only what was retrieved).
CREATE OR REPLACE MACRO rm_unjudged(kind, pos, grade, k) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND (grade IS NULL OR grade < 0) AND rm_within(pos, k) THEN 1 ELSE 0 END),
             COALESCE(k, rm_retrieved(kind, pos, k)));

CREATE OR REPLACE MACRO unjudged(run, judgments, k := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    COALESCE(rm_unjudged(f.kind, f.pos, f.grade, k), CAST(0 AS DOUBLE)) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('unjudged', k)
        AND rm_valid_stream('unjudged', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('unjudged', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
