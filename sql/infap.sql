-- infAP (Yilmaz & Aslam 2006, trec_eval infAP): AP inferred from a sample of the pool. A judgment with a grade
-- below 0 is in the pool but unjudged; an item not in the judgments is outside the pool and only takes a rank.
-- Over the relevant retrieved items, at 0-based rank j: 1 at j = 0, else
--   1/(j+1) + j/(j+1) * ((rel above + nonrel above + pool-unjudged above) / j)
--                     * ((rel above + eps) / (rel above + nonrel above + 2 eps)),   eps = 0.00001,
-- summed and divided by |G| (m_infap.c; "above" counts the retrieved items ranked higher).
CREATE OR REPLACE MACRO rm_infap(kind, pos, grade, running, nonrel_above, unjudged_above, lvl) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND grade >= lvl THEN
                     CASE WHEN pos = 1 THEN CAST(1 AS DOUBLE)
                          ELSE 1 / CAST(pos AS DOUBLE)
                               + ((pos - 1) / CAST(pos AS DOUBLE))
                                 * ((running - 1 + nonrel_above + unjudged_above) / CAST(pos - 1 AS DOUBLE))
                                 * ((running - 1 + 0.00001) / (running - 1 + nonrel_above + 2 * 0.00001))
                     END
                 ELSE 0 END),
             rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO infap(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_infap(f.kind, f.pos, f.grade, f.running_rel, f.running_nonrel, f.running_unjudged, rel),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel,
           SUM(CASE WHEN s.grade >= 0 AND s.grade < rel THEN 1 ELSE 0 END)
               OVER (PARTITION BY s.query_id, s.kind ORDER BY s.pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               AS running_nonrel,
           SUM(CASE WHEN s.grade < 0 THEN 1 ELSE 0 END)
               OVER (PARTITION BY s.query_id, s.kind ORDER BY s.pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               AS running_unjudged
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('infap', rel)
        AND rm_valid_stream('infap', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('infap', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
