-- BPM, SDCG and INST (ir_measures' names; cwl_eval's BPM-Static, NDCG-k and INST; Azzopardi, Thomas & Moffat,
-- "cwl_eval", SIGIR 2019): more C/W/L user models, with cwl_eval's gains (rm_cwl_gain of nerr.sql, read before this file:
-- grades below 0 as 0, clipped to [min_rel, max_rel], scaled to [0, 1]; unjudged items 0) and its 1000 ranks
-- (the weights W(i) = prod_{j<i} C(j) / the sum of that product over ranks 1 to 1000; ranks past the end of the
-- run have no gain). The value is sum_i W(i) g(i).

-- A grade clipped to [min_rel, max_rel], less min_rel: the gain times (max_rel - min_rel), kept in the grades'
-- own numbers so that a running sum of it is exact for whole grades (BPM compares that sum with T).
CREATE OR REPLACE MACRO rm_cwl_level(grade, min_rel, max_rel) AS
    CASE
        WHEN grade IS NULL THEN CAST(0 AS DOUBLE)
        ELSE CAST(LEAST(GREATEST(GREATEST(grade, 0), min_rel), max_rel) - min_rel AS DOUBLE)
    END;

CREATE OR REPLACE MACRO rm_cwl_level_before(query_id, kind, pos, grade, min_rel, max_rel) AS
    SUM(rm_cwl_level(grade, min_rel, max_rel))
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

-- BPM (Zhang et al., SIGIR 2017; cwl_eval's static BPM with unit costs): C(i) = 1 while the gain summed to rank i
-- is below T and i < k, else 0. So the user reads rank i when i <= K (K = min(k, 1000)) and the gain above i is
-- below T: W(i) = 1 / L on those L ranks, the value is the gain on them over L. Past the run's end (n items) the
-- ranks n + 1 .. K are read when the run's gain is below T.
CREATE OR REPLACE MACRO rm_bpm(kind, pos, grade, level_before, k, t, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) AND COALESCE(level_before, 0) < t * (max_rel - min_rel)
                 THEN rm_cwl_gain(grade, min_rel, max_rel) ELSE 0 END),
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) AND COALESCE(level_before, 0) < t * (max_rel - min_rel)
                 THEN 1 ELSE 0 END)
            + CASE WHEN SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k)
                                 THEN rm_cwl_level(grade, min_rel, max_rel) ELSE 0 END) < t * (max_rel - min_rel)
                   THEN rm_cwl_depth(k) - SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) THEN 1 ELSE 0 END)
                   ELSE 0 END);

-- SDCG (scaled DCG; cwl_eval's NDCG-k): C(i) = log2(i + 1) / log2(i + 2) before rank k, 0 from k on, so
-- W(i) = (1 / log2(i + 1)) / sum_{j=1}^{K} 1 / log2(j + 1) on ranks 1 .. K (K = min(k, 1000)): DCG@k with the
-- scaled gains over the DCG of K items of gain 1, as if the query had K fully relevant items. The ln 2 of both
-- sums cancels: sum gain / ln(i + 1) over sum_{m=2}^{K+1} 1 / ln(m).
CREATE OR REPLACE MACRO rm_sdcg(kind, pos, grade, k, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k)
                 THEN rm_cwl_gain(grade, min_rel, max_rel) / LN(CAST(pos + 1 AS DOUBLE)) ELSE 0 END),
        rm_inverse_log_sum(rm_cwl_depth(k) + 1));

CREATE OR REPLACE MACRO bpm(run, judgments, k := NULL, t := 1.0, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_bpm(f.kind, f.pos, f.grade, f.level_before, k, t, min_rel, max_rel), rm_num_rel(f.kind, f.grade, 1),
              empty) AS value
FROM (
    SELECT
        s.*,
        rm_cwl_level_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS level_before
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'bpm', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('bpm', k)
        AND rm_valid(rm_valid_number(t) AND TRY_CAST(t AS DOUBLE) > 0, 'bpm', 't', 'a number > 0 (T)', t)
        AND rm_valid_rel_range('bpm', min_rel, max_rel)
        AND rm_valid_stream('bpm', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('bpm', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO sdcg(run, judgments, k := NULL, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_sdcg(f.kind, f.pos, f.grade, k, min_rel, max_rel), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'sdcg', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('sdcg', k)
        AND rm_valid_rel_range('sdcg', min_rel, max_rel)
        AND rm_valid_stream('sdcg', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('sdcg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- INST (Moffat et al., ADCS 2015; cwl_eval's INST): C(i) = ((x_i - 1) / x_i)^2 with x_i = i + 2T - G_i, G_i the gain
-- summed to rank i (included), so prod_{j<i} C(j) needs a running sum over a running sum: the stage-0 feature
-- level_upto is G_i (times max_rel - min_rel), the stage-1 features count the ranks above i where C is 0
-- (x = 1) and sum ln C over the others. Past the run's end (n ranks, G = G_n) x_j - 1 = x_{j-1}, so the product
-- telescopes: prod_{j=n+1}^{i-1} C(j) = (x_n / (x_n + i - 1 - n))^2, and the ranks n + 1 .. 1000 weigh
-- P_n x_n^2 (psi1(x_n) - psi1(x_n + 1000 - n)), P_n the product over the run. x_i >= 2T > 0 (G_i <= i).
CREATE OR REPLACE MACRO rm_inst_x(pos, level_upto, t, min_rel, max_rel) AS
    pos + 2 * CAST(t AS DOUBLE) - level_upto / CAST(max_rel - min_rel AS DOUBLE);

CREATE OR REPLACE MACRO rm_inst_log_c(x) AS CASE WHEN x = 1 THEN CAST(0 AS DOUBLE) ELSE 2 * (LN(ABS(x - 1)) - LN(x)) END;

CREATE OR REPLACE MACRO rm_cwl_level_upto(query_id, kind, pos, grade, min_rel, max_rel) AS
    SUM(rm_cwl_level(grade, min_rel, max_rel))
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE OR REPLACE MACRO rm_inst_zero_before(query_id, kind, pos, level_upto, t, min_rel, max_rel) AS
    SUM(CASE WHEN rm_inst_x(pos, level_upto, t, min_rel, max_rel) = 1 THEN 1 ELSE 0 END)
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

CREATE OR REPLACE MACRO rm_inst_log_before(query_id, kind, pos, level_upto, t, min_rel, max_rel) AS
    SUM(rm_inst_log_c(rm_inst_x(pos, level_upto, t, min_rel, max_rel)))
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

-- x_n: n + 2T - G_n over the run's first 1000 ranks, the largest x of them (x grows by 1 - gain a rank); read off
-- the feature, not summed again, to keep the expression shallow (SQLite's parser has a small stack)
CREATE OR REPLACE MACRO rm_inst_x_end(kind, pos, level_upto, t, min_rel, max_rel) AS
    MAX(CASE WHEN kind = 'R' AND pos <= 1000 THEN rm_inst_x(pos, level_upto, t, min_rel, max_rel) END);

CREATE OR REPLACE MACRO rm_inst(kind, pos, grade, level_upto, zero_before, log_before, t, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= 1000
                 THEN rm_cwl_reach(zero_before, log_before) * rm_cwl_gain(grade, min_rel, max_rel) ELSE 0 END),
        SUM(CASE WHEN kind = 'R' AND pos <= 1000 THEN rm_cwl_reach(zero_before, log_before) ELSE 0 END)
            + CASE WHEN SUM(CASE WHEN kind = 'R' AND pos <= 1000
                                  AND rm_inst_x(pos, level_upto, t, min_rel, max_rel) = 1 THEN 1 ELSE 0 END) > 0
                   THEN CAST(0 AS DOUBLE)
                   ELSE EXP(SUM(CASE WHEN kind = 'R' AND pos <= 1000
                                     THEN rm_inst_log_c(rm_inst_x(pos, level_upto, t, min_rel, max_rel)) ELSE 0 END))
              END
              * POWER(rm_inst_x_end(kind, pos, level_upto, t, min_rel, max_rel), 2)
              * (rm_trigamma(rm_inst_x_end(kind, pos, level_upto, t, min_rel, max_rel))
                 - rm_trigamma(rm_inst_x_end(kind, pos, level_upto, t, min_rel, max_rel) + 1000
                               - MAX(CASE WHEN kind = 'R' AND pos <= 1000 THEN pos END))));

CREATE OR REPLACE MACRO inst(run, judgments, t := 1.0, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_inst(f.kind, f.pos, f.grade, f.level_upto, f.zero_before, f.log_before, t, min_rel, max_rel),
              rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT
        s.*,
        rm_inst_zero_before(s.query_id, s.kind, s.pos, s.level_upto, t, min_rel, max_rel) AS zero_before,
        rm_inst_log_before(s.query_id, s.kind, s.pos, s.level_upto, t, min_rel, max_rel) AS log_before
    FROM (
        SELECT
            s.*,
            rm_cwl_level_upto(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS level_upto
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
    ) AS s
) AS f
CROSS JOIN (SELECT rm_valid(rm_valid_number(t) AND TRY_CAST(t AS DOUBLE) > 0, 'inst', 't', 'a number > 0 (T)', t)
        AND rm_valid_rel_range('inst', min_rel, max_rel)
        AND rm_valid_stream('inst', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('inst', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
