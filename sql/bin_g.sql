-- binG (trec_eval, experimental): over the relevant items, 1 / log2(2 + the non-relevant items retrieved above it),
-- summed over the retrieved relevant items and divided by |G| (m_binG.c).
CREATE OR REPLACE MACRO rm_bin_g(kind, pos, grade, running, lvl) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND grade >= lvl
                      THEN LN(CAST(2 AS DOUBLE)) / LN(CAST(2 + pos - running AS DOUBLE)) ELSE 0 END),
             rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO bin_g(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_bin_g(f.kind, f.pos, f.grade, f.running_rel, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*,
           rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('bin_g', rel)
        AND rm_valid_stream('bin_g', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('bin_g', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
