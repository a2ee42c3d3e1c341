-- DCG@k and nDCG@k: discounted cumulative gain of the top k, and its ratio to the ideal ranking's DCG.
--   gain      'linear' (the grade: trec_eval, ranx ndcg, scikit-learn), 'exponential' (2^grade - 1: ranx
--             ndcg_burges, Burges et al.) or 'binary' (1 for every positive grade)
--   rel       grades below this level give no gain (ranx metric-lN); trec_eval's -l does not touch nDCG
--   log_base  base of the discount 1 / log(rank + 1); it changes DCG, never nDCG
--   ideal     the ideal ranking: 'judgments' (all judged items by grade: trec_eval, ranx), 'candidates' (the
--             run's own items by grade, unjudged as 0: scikit-learn) or 'retrieved' (the top k retrieved
--             items re-sorted by grade: seed note 001) or 'cutoff' (k items of gain 1, whatever the judgments:
--             RecTools' NDCG default)
--   ties      'average' gives tied items the mean discount of the ranks they share (scikit-learn, McSherry &
--             Najork 2008); every other value ranks them one after the other.

-- Mean discount of the ranks shared by the items tied on score, ranks past k counting 0 (scikit-learn's
-- _tie_averaged_dcg).
CREATE OR REPLACE MACRO rm_tie_discount(query_id, kind, score, pos, k, log_base) AS
    AVG(CASE WHEN rm_within(pos, k) THEN rm_discount(pos, log_base) ELSE 0 END)
        OVER (PARTITION BY query_id, kind, score);

-- Rank of a retrieved item once the top k retrieved items are re-sorted by grade (for ideal = 'retrieved').
CREATE OR REPLACE MACRO rm_ideal_pos_within(query_id, kind, pos, grade, k) AS
    SUM(CASE WHEN rm_within(pos, k) THEN 1 ELSE 0 END)
        OVER (PARTITION BY query_id, kind ORDER BY COALESCE(grade, 0) DESC, pos
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE OR REPLACE MACRO rm_dcg(kind, pos, grade, tie_discount, k, gain, glvl, log_base, ties, gains) AS
    SUM(CASE
        WHEN kind = 'R' AND ties = 'average' THEN rm_gain_of(grade, gain, glvl, gains) * tie_discount
        WHEN kind = 'R' AND rm_within(pos, k) THEN rm_gain_of(grade, gain, glvl, gains) * rm_discount(pos, log_base)
        ELSE 0
    END);

-- With a gain map (gains), the ideal ranking orders the judged items by their gain (gain_pos), and only
-- positive gains count in it (m_ndcg.c stops at the first gain <= 0).
CREATE OR REPLACE MACRO rm_gain_pos(query_id, kind, grade, gain, glvl, gains) AS
    ROW_NUMBER() OVER (PARTITION BY query_id, kind ORDER BY rm_gain_of(grade, gain, glvl, gains) DESC NULLS LAST);

CREATE OR REPLACE MACRO rm_ideal_dcg(kind, pos, ipos, ideal_pos_within, grade, k, gain, glvl, log_base, ideal, gains,
        gain_pos) AS
    SUM(CASE
        WHEN gains <> '' AND kind = 'J' AND rm_within(gain_pos, k) AND rm_gain_of(grade, gain, glvl, gains) > 0
            THEN rm_gain_of(grade, gain, glvl, gains) * rm_discount(gain_pos, log_base)
        WHEN gains <> '' THEN 0
        WHEN ideal = 'judgments' AND kind = 'J' AND rm_within(pos, k)
            THEN rm_gain(grade, gain, glvl) * rm_discount(pos, log_base)
        WHEN ideal = 'candidates' AND kind = 'R' AND rm_within(ipos, k)
            THEN rm_gain(grade, gain, glvl) * rm_discount(ipos, log_base)
        WHEN ideal = 'retrieved' AND kind = 'R' AND rm_within(pos, k)
            THEN rm_gain(grade, gain, glvl) * rm_discount(ideal_pos_within, log_base)
        ELSE 0
    END);

CREATE OR REPLACE MACRO dcg(run, judgments, k := NULL, gain := 'linear', rel := 1, log_base := 2, gains := '',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_dcg(f.kind, f.pos, f.grade, f.tie_discount, k, gain, rel, log_base, ties, gains),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_tie_discount(s.query_id, s.kind, s.score, s.pos, k, log_base) AS tie_discount
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('dcg', k)
        AND rm_valid_gain('dcg', gain)
        AND rm_valid_gain_grades('dcg', FALSE, gain, run, judgments, grades, query_column, item_column,
            relevance_column, "by", judgment_lists)
        AND rm_valid_gains('dcg', gains, 'judgments')
        AND rm_valid_rel('dcg', rel)
        AND rm_valid_log_base('dcg', log_base)
        AND rm_valid_stream('dcg', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('dcg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- The ideal = 'cutoff' denominator (RecTools' NDCG default, divide_by_achievable=False): the DCG of k items of
-- gain 1, sum_{r=1}^{k} log_base-discount(r) = ln(log_base) * sum_{m=2}^{k+1} 1 / ln(m), whatever the query's
-- judgments (00_common.sql's series, exact to 1e-11 for k up to 1000, the range its check allows).
CREATE OR REPLACE MACRO rm_cutoff_ideal_dcg(k, log_base) AS
    LN(CAST(log_base AS DOUBLE)) * rm_inverse_log_sum(k + 1);

CREATE OR REPLACE MACRO ndcg(run, judgments, k := NULL, gain := 'linear', rel := 1, log_base := 2,
        ideal := 'judgments', gains := '', ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(
        rm_ratio(rm_dcg(f.kind, f.pos, f.grade, f.tie_discount, k, gain, rel, log_base, ties, gains),
                 CASE WHEN ideal = 'cutoff' THEN rm_cutoff_ideal_dcg(k, log_base)
                      ELSE rm_ideal_dcg(f.kind, f.pos, f.ipos, f.ideal_pos_within, f.grade, k, gain, rel, log_base,
                                        ideal, gains, f.gain_pos) END),
        rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT
        s.*,
        rm_tie_discount(s.query_id, s.kind, s.score, s.pos, k, log_base) AS tie_discount,
        rm_ideal_pos_within(s.query_id, s.kind, s.pos, s.grade, k) AS ideal_pos_within,
        rm_gain_pos(s.query_id, s.kind, s.grade, gain, rel, gains) AS gain_pos
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('ndcg', k)
        AND rm_valid_gain('ndcg', gain)
        AND rm_valid_gain_grades('ndcg', TRUE, gain, run, judgments, grades, query_column, item_column,
            relevance_column, "by", judgment_lists)
        AND rm_valid_rel('ndcg', rel)
        AND rm_valid_log_base('ndcg', log_base)
        AND rm_valid_choice('ndcg', 'ideal', ideal, ['judgments', 'candidates', 'retrieved', 'cutoff'])
        AND rm_valid(ideal <> 'cutoff' OR k BETWEEN 1 AND 1000, 'ndcg', 'k',
            'a cutoff from 1 to 1000 with ideal ''cutoff''', k)
        AND rm_valid_gains('ndcg', gains, ideal)
        AND rm_valid_stream('ndcg', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('ndcg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- ideal_dcg (trec_eval 10): the DCG of the ideal ranking of the judged items (nDCG's denominator with ideal
-- 'judgments'), within the top k when a cutoff is given (m_ndcg.c).
CREATE OR REPLACE MACRO ideal_dcg(run, judgments, k := NULL, gain := 'linear', rel := 1, log_base := 2, gains := '',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ideal_dcg(f.kind, f.pos, f.ipos, f.pos, f.grade, k, gain, rel, log_base, 'judgments', gains,
                           f.gain_pos),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (SELECT s.*, rm_gain_pos(s.query_id, s.kind, s.grade, gain, rel, gains) AS gain_pos FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('ideal_dcg', k)
        AND rm_valid_gain('ideal_dcg', gain)
        AND rm_valid_gain_grades('ideal_dcg', FALSE, gain, run, judgments, grades, query_column, item_column,
            relevance_column, "by", judgment_lists)
        AND rm_valid_gains('ideal_dcg', gains, 'judgments')
        AND rm_valid_rel('ideal_dcg', rel)
        AND rm_valid_log_base('ideal_dcg', log_base)
        AND rm_valid_stream('ideal_dcg', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('ideal_dcg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
