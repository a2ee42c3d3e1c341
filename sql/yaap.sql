-- YAAP, "yet another average precision" (trec_eval yaap, m_yaap.c; Robertson, "On Smoothing Average Precision",
-- ECIR 2012): ln((1 + S) / (1 + |G| - S)), S the sum of the precisions at the ranks holding a relevant item
-- (AP's numerator). Monotonic with AP on one query, and averages better across queries. 0 for a query with no
-- relevant item (ln 1). No cutoff: the whole ranking, as trec_eval's.
-- running is the number of relevant items at or above the row (rm_running_rel), so the precision is running / pos.
CREATE OR REPLACE MACRO rm_yaap(kind, pos, grade, running, lvl) AS
    LN((1.0 + SUM(CASE WHEN kind = 'R' AND grade >= lvl THEN CAST(running AS DOUBLE) / pos ELSE 0 END))
       / (1.0 + CAST(rm_num_rel(kind, grade, lvl) AS DOUBLE)
          - SUM(CASE WHEN kind = 'R' AND grade >= lvl THEN CAST(running AS DOUBLE) / pos ELSE 0 END)));

CREATE OR REPLACE MACRO yaap(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_yaap(f.kind, f.pos, f.grade, f.running_rel, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('yaap', rel)
        AND rm_valid_stream('yaap', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('yaap', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
