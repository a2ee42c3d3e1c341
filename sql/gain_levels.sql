-- trec_eval's experimental gain measures over the ideal ranking's positions (m_G.c, m_ndcg_rel.c, m_Rndcg.c).
-- The gain of an item is its grade when positive (trec_eval's default gains: the relevance level), or the gain
-- trec_eval's gain map gives its level (gains: 'level=gain,...', -m G.1=3,2=9; a gain may be 0 or negative,
-- level 0 may be given one; rm_gain_of). The ideal ranking is every judgment by gain, highest first, and holds
-- the positive gains only (trec_eval stops at the first gain <= 0): the stream's 'J' rows, numbered by grade,
-- their pos the ideal rank; with a gain map, numbered again by gain (rm_ideal_pos: a map may order the levels
-- otherwise). A window over a query's 'R' and 'J' rows together, ordered by that position, reads at a retrieved
-- row what the ideal ranking holds up to its rank (J rows first at a tie: the ideal up to and including that
-- rank), and at a judged row what the run holds up to it (R rows first).
CREATE OR REPLACE MACRO rm_trec_gain(grade, gains) AS rm_gain_of(grade, 'linear', 0, gains);

CREATE OR REPLACE MACRO rm_ideal_pos(query_id, kind, pos, grade, gains) AS
    CASE WHEN gains <> '' AND kind = 'J' THEN rm_gain_pos(query_id, kind, grade, 'linear', 0, gains) ELSE pos END;

-- (one sort key, 2 pos + 0 or 1: MariaDB 10 computes some windows wrongly when another window of the same query
-- orders by two keys)
CREATE OR REPLACE MACRO rm_ideal_upto(query_id, kind, pos, value) AS
    SUM(CASE WHEN kind = 'J' THEN value ELSE 0 END)
        OVER (PARTITION BY query_id ORDER BY 2 * pos + CASE WHEN kind = 'J' THEN 0 ELSE 1 END
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE OR REPLACE MACRO rm_run_upto(query_id, kind, pos, value) AS
    SUM(CASE WHEN kind = 'R' THEN value ELSE 0 END)
        OVER (PARTITION BY query_id ORDER BY 2 * pos + CASE WHEN kind = 'R' THEN 0 ELSE 1 END
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

-- How many positions the ideal ranking has (the judged rows with a positive gain), and the run's nDCG over all of
-- it: the run's DCG (every gain, at its rank) over the ideal DCG (the positive gains, at their ideal positions),
-- 0 without one.
CREATE OR REPLACE MACRO rm_ideal_count(kind, tgain) AS SUM(CASE WHEN kind = 'J' AND tgain > 0 THEN 1 ELSE 0 END);

CREATE OR REPLACE MACRO rm_whole_ndcg(kind, pos, tgain, gpos) AS
    COALESCE(SUM(CASE WHEN kind = 'R' THEN tgain * rm_discount(pos, 2) ELSE 0 END)
             / NULLIF(SUM(CASE WHEN kind = 'J' AND tgain > 0 THEN tgain * rm_discount(gpos, 2) ELSE 0 END), 0), 0);

-- G: over the retrieved items with a gain, gain / log2(2 + cost - gained), cost being the sum over the ranks so
-- far of max(ideal gain, 1) and gained the run's gain so far; normalized by the sum of the ideal gains.
CREATE OR REPLACE MACRO rm_g(kind, pos, tgain, ideal_extra, gained) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND tgain <> 0
                      THEN tgain * LN(CAST(2 AS DOUBLE)) / LN(2 + pos + ideal_extra - gained)
                      ELSE 0 END),
             SUM(CASE WHEN kind = 'J' AND tgain > 0 THEN tgain ELSE 0 END));

-- ndcg_rel: nDCG averaged over the items with a positive gain: at each retrieved one, the run's DCG so far over
-- the ideal DCG at that rank (or at the last rank with an ideal gain); each one not retrieved counts the final
-- nDCG; 0 unless that sum is positive (m_ndcg_rel.c: a negative gain can make it so).
CREATE OR REPLACE MACRO rm_positive_ratio(x, n) AS CASE WHEN x > 0 THEN rm_ratio(x, n) ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO rm_ndcg_rel(kind, pos, tgain, gpos, dcg_upto, ideal_dcg_upto) AS
    rm_positive_ratio(
        SUM(CASE WHEN kind = 'R' AND tgain > 0 THEN dcg_upto / NULLIF(ideal_dcg_upto, 0) ELSE 0 END)
        + (rm_ideal_count(kind, tgain)
           - SUM(CASE WHEN kind = 'R' AND tgain > 0 THEN 1 ELSE 0 END))
          * rm_whole_ndcg(kind, pos, tgain, gpos),
        rm_ideal_count(kind, tgain));

-- Rndcg: nDCG averaged at the ranks where the ideal gain drops (the last judged item of each positive gain: the
-- judged rows of a gain are consecutive in the ideal ranking, so its last is the one at their highest position),
-- plus, when at least two items beyond the last positive ideal rank are retrieved, the nDCG of the whole run;
-- 0 without a relevant judgment.
CREATE OR REPLACE MACRO rm_rndcg(kind, pos, grade, tgain, gpos, level_end, dcg_upto, ideal_dcg_upto, lvl) AS
    CASE WHEN rm_num_rel(kind, grade, lvl) = 0 THEN CAST(0 AS DOUBLE) ELSE rm_ratio(
        SUM(CASE WHEN kind = 'J' AND level_end THEN dcg_upto / NULLIF(ideal_dcg_upto, 0) ELSE 0 END)
        + CASE WHEN rm_retrieved(kind, pos, NULL) >= rm_ideal_count(kind, tgain) + 2
               THEN rm_whole_ndcg(kind, pos, tgain, gpos)
               ELSE 0 END,
        SUM(CASE WHEN kind = 'J' AND level_end THEN 1 ELSE 0 END)
        + CASE WHEN rm_retrieved(kind, pos, NULL) >= rm_ideal_count(kind, tgain) + 2
               THEN 1 ELSE 0 END) END;

CREATE OR REPLACE MACRO g(run, judgments, rel := 1, gains := '',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_g(f.kind, f.pos, f.tgain, f.g_ideal_extra, f.g_gained), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*,
           rm_ideal_upto(s.query_id, s.kind, s.gpos, CASE WHEN s.tgain > 1 THEN s.tgain - 1 ELSE 0 END) AS g_ideal_extra,
           SUM(s.tgain) OVER (PARTITION BY s.query_id, s.kind ORDER BY s.pos
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS g_gained
    FROM (
        SELECT s.*,
               rm_trec_gain(s.grade, gains) AS tgain,
               rm_ideal_pos(s.query_id, s.kind, s.pos, s.grade, gains) AS gpos
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
    ) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('g', rel)
        AND rm_valid_gains('g', gains, 'judgments')
        AND rm_valid_stream('g', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('g', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO ndcg_rel(run, judgments, rel := 1, gains := '',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ndcg_rel(f.kind, f.pos, f.tgain, f.gpos, f.rel_dcg_upto, f.rel_ideal_upto), rm_num_rel(f.kind, f.grade, rel),
              empty) AS value
FROM (
    SELECT s.*,
           SUM(s.tgain * rm_discount(s.pos, 2)) OVER (PARTITION BY s.query_id, s.kind ORDER BY s.pos
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rel_dcg_upto,
           rm_ideal_upto(s.query_id, s.kind, s.gpos,
                         CASE WHEN s.tgain > 0 THEN s.tgain * rm_discount(s.gpos, 2) ELSE 0 END) AS rel_ideal_upto
    FROM (
        SELECT s.*,
               rm_trec_gain(s.grade, gains) AS tgain,
               rm_ideal_pos(s.query_id, s.kind, s.pos, s.grade, gains) AS gpos
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
    ) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('ndcg_rel', rel)
        AND rm_valid_gains('ndcg_rel', gains, 'judgments')
        AND rm_valid_stream('ndcg_rel', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('ndcg_rel', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO rndcg(run, judgments, rel := 1, gains := '',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_rndcg(f.kind, f.pos, f.grade, f.tgain, f.gpos, f.r_level_end, f.r_dcg_upto, f.r_ideal_upto, rel),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*,
           rm_run_upto(s.query_id, s.kind, s.gpos, s.tgain * rm_discount(s.pos, 2)) AS r_dcg_upto,
           SUM(CASE WHEN s.tgain > 0 THEN s.tgain * rm_discount(s.gpos, 2) ELSE 0 END)
               OVER (PARTITION BY s.query_id, s.kind ORDER BY s.gpos
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS r_ideal_upto,
           s.tgain > 0 AND s.gpos = MAX(s.gpos) OVER (PARTITION BY s.query_id, s.kind, s.tgain) AS r_level_end
    FROM (
        SELECT s.*,
               rm_trec_gain(s.grade, gains) AS tgain,
               rm_ideal_pos(s.query_id, s.kind, s.pos, s.grade, gains) AS gpos
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
    ) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('rndcg', rel)
        AND rm_valid_gains('rndcg', gains, 'judgments')
        AND rm_valid_stream('rndcg', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('rndcg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
