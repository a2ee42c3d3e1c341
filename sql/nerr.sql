-- NERR8 to NERR11 and INSQ (ir_measures' names; cwl_eval's NERReq8 to NERReq11 and INSQ, Azzopardi, Mackenzie & Moffat, "ERR is
-- not C/W/L", ICTIR 2021): ERR as C/W/L measures. The gain g of an item is its grade, below 0 as 0, clipped to
-- [min_rel, max_rel] and scaled to [0, 1] (an unjudged item: 0), as ir_measures hands grades to cwl_eval. A user
-- goes on from rank i with probability C(i): NERR8 1 - g(i) before rank k and never past k; NERR10 p (1 - g(i)).
-- The value is sum_i W(i) g(i), W(i) = prod_{j<i} C(j) / the sum of that product over cwl_eval's 1000 ranks
-- (its max_n: items past rank 1000 are not read). Ranks past the end of the run have no gain: their part of the
-- sum is a closed form of the product at the end of the run (n items; k NULL is k = 1000):
--   NERR8   (min(k, 1000) - n) x end
--   NERR10  end x (1 - p^(1000 - n)) / (1 - p)
-- The product over the ranks above an item is carried as the count of gains of 1 above it (which make it 0) and
-- the sum of ln(1 - g) over the others.

CREATE OR REPLACE MACRO rm_cwl_gain(grade, min_rel, max_rel) AS
    CASE
        WHEN grade IS NULL THEN CAST(0 AS DOUBLE)
        ELSE (LEAST(GREATEST(GREATEST(grade, 0), min_rel), max_rel) - min_rel) / CAST(max_rel - min_rel AS DOUBLE)
    END;

CREATE OR REPLACE MACRO rm_cwl_full_before(query_id, kind, pos, grade, min_rel, max_rel) AS
    SUM(CASE WHEN rm_cwl_gain(grade, min_rel, max_rel) >= 1 THEN 1 ELSE 0 END)
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

CREATE OR REPLACE MACRO rm_cwl_log_before(query_id, kind, pos, grade, min_rel, max_rel) AS
    SUM(CASE WHEN rm_cwl_gain(grade, min_rel, max_rel) < 1 THEN LN(1 - rm_cwl_gain(grade, min_rel, max_rel)) ELSE 0 END)
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

-- prod_{j<i} (1 - g(j)) on a row, from its two features
CREATE OR REPLACE MACRO rm_cwl_reach(full_before, log_before) AS
    CASE WHEN COALESCE(full_before, 0) > 0 THEN CAST(0 AS DOUBLE) ELSE EXP(COALESCE(log_before, 0)) END;

-- the same product over the first d retrieved items (the whole run within d)
CREATE OR REPLACE MACRO rm_cwl_reach_end(kind, pos, grade, d, min_rel, max_rel) AS
    CASE
        WHEN SUM(CASE WHEN kind = 'R' AND pos <= d AND rm_cwl_gain(grade, min_rel, max_rel) >= 1 THEN 1 ELSE 0 END) > 0
            THEN CAST(0 AS DOUBLE)
        ELSE EXP(SUM(CASE WHEN kind = 'R' AND pos <= d AND rm_cwl_gain(grade, min_rel, max_rel) < 1
                          THEN LN(1 - rm_cwl_gain(grade, min_rel, max_rel)) ELSE 0 END))
    END;

CREATE OR REPLACE MACRO rm_cwl_depth(k) AS CASE WHEN k IS NULL OR k > 1000 THEN 1000 ELSE k END;

CREATE OR REPLACE MACRO rm_nerr8(kind, pos, grade, full_before, log_before, k, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k)
                 THEN rm_cwl_reach(full_before, log_before) * rm_cwl_gain(grade, min_rel, max_rel) ELSE 0 END),
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) THEN rm_cwl_reach(full_before, log_before) ELSE 0 END)
            + (rm_cwl_depth(k) - SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) THEN 1 ELSE 0 END))
              * rm_cwl_reach_end(kind, pos, grade, rm_cwl_depth(k), min_rel, max_rel));

CREATE OR REPLACE MACRO rm_nerr10(kind, pos, grade, full_before, log_before, p, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= 1000
                 THEN rm_cwl_reach(full_before, log_before) * POWER(CAST(p AS DOUBLE), pos - 1)
                      * rm_cwl_gain(grade, min_rel, max_rel) ELSE 0 END),
        SUM(CASE WHEN kind = 'R' AND pos <= 1000
                 THEN rm_cwl_reach(full_before, log_before) * POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END)
            + rm_cwl_reach_end(kind, pos, grade, 1000, min_rel, max_rel)
              * POWER(CAST(p AS DOUBLE), SUM(CASE WHEN kind = 'R' AND pos <= 1000 THEN 1 ELSE 0 END))
              * (1 - POWER(CAST(p AS DOUBLE), 1000 - SUM(CASE WHEN kind = 'R' AND pos <= 1000 THEN 1 ELSE 0 END)))
              / (1 - CAST(p AS DOUBLE)));

CREATE OR REPLACE MACRO rm_valid_rel_range(macro, min_rel, max_rel) AS
    rm_valid(rm_valid_number(min_rel) AND TRY_CAST(min_rel AS DOUBLE) >= 0, macro, 'min_rel', 'a number >= 0',
             min_rel)
    AND rm_valid(max_rel IS NOT NULL AND rm_valid_number(max_rel)
                 AND TRY_CAST(max_rel AS DOUBLE) > TRY_CAST(min_rel AS DOUBLE), macro, 'max_rel',
                 'a number above min_rel (the top grade; it has no default)', max_rel);

CREATE OR REPLACE MACRO nerr8(run, judgments, k := NULL, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_nerr8(f.kind, f.pos, f.grade, f.full_before, f.log_before, k, min_rel, max_rel),
              rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT
        s.*,
        rm_cwl_full_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS full_before,
        rm_cwl_log_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS log_before
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('nerr8', k)
        AND rm_valid_rel_range('nerr8', min_rel, max_rel)
        AND rm_valid_stream('nerr8', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('nerr8', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO nerr10(run, judgments, p := 0.9, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_nerr10(f.kind, f.pos, f.grade, f.full_before, f.log_before, p, min_rel, max_rel),
              rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT
        s.*,
        rm_cwl_full_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS full_before,
        rm_cwl_log_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS log_before
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(rm_valid_number(p) AND TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1,
                            'nerr10', 'p', 'a number between 0 and 1 (exclusive)', p)
        AND rm_valid_rel_range('nerr10', min_rel, max_rel)
        AND rm_valid_stream('nerr10', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('nerr10', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- NERR9, NERR11 and INSQ need sums over the ranks past the end of the run that have no closed form: harmonic
-- numbers H_m and the trigamma function psi1(x) = sum_{j >= 0} 1 / (x + j)^2. Both are written as ten exact terms
-- and the asymptotic series at x + 10 (error below 1e-12, far inside the 1e-9 the tests ask).
CREATE OR REPLACE MACRO rm_harmonic(m) AS
    LN(m + 10) + 0.5772156649015329 + 1 / (2 * CAST(m + 10 AS DOUBLE)) - 1 / (12 * POWER(CAST(m + 10 AS DOUBLE), 2))
        + 1 / (120 * POWER(CAST(m + 10 AS DOUBLE), 4)) - 1 / (252 * POWER(CAST(m + 10 AS DOUBLE), 6))
        + 1 / (240 * POWER(CAST(m + 10 AS DOUBLE), 8)) - 1 / (132 * POWER(CAST(m + 10 AS DOUBLE), 10))
        - (1 / CAST(m + 1 AS DOUBLE) + 1 / CAST(m + 2 AS DOUBLE) + 1 / CAST(m + 3 AS DOUBLE) + 1 / CAST(m + 4 AS DOUBLE)
           + 1 / CAST(m + 5 AS DOUBLE) + 1 / CAST(m + 6 AS DOUBLE) + 1 / CAST(m + 7 AS DOUBLE)
           + 1 / CAST(m + 8 AS DOUBLE) + 1 / CAST(m + 9 AS DOUBLE) + 1 / CAST(m + 10 AS DOUBLE));

CREATE OR REPLACE MACRO rm_trigamma(x) AS
    1 / CAST(x + 10 AS DOUBLE) + 1 / (2 * POWER(CAST(x + 10 AS DOUBLE), 2)) + 1 / (6 * POWER(CAST(x + 10 AS DOUBLE), 3))
        - 1 / (30 * POWER(CAST(x + 10 AS DOUBLE), 5)) + 1 / (42 * POWER(CAST(x + 10 AS DOUBLE), 7))
        - 1 / (30 * POWER(CAST(x + 10 AS DOUBLE), 9)) + 5 / (66 * POWER(CAST(x + 10 AS DOUBLE), 11))
        + 1 / POWER(CAST(x AS DOUBLE), 2) + 1 / POWER(CAST(x + 1 AS DOUBLE), 2) + 1 / POWER(CAST(x + 2 AS DOUBLE), 2)
        + 1 / POWER(CAST(x + 3 AS DOUBLE), 2) + 1 / POWER(CAST(x + 4 AS DOUBLE), 2) + 1 / POWER(CAST(x + 5 AS DOUBLE), 2)
        + 1 / POWER(CAST(x + 6 AS DOUBLE), 2) + 1 / POWER(CAST(x + 7 AS DOUBLE), 2) + 1 / POWER(CAST(x + 8 AS DOUBLE), 2)
        + 1 / POWER(CAST(x + 9 AS DOUBLE), 2);

-- NERR9: C(i) = i / (i + 1) (1 - g(i)) before rank k, so prod_{j<i} C(j) = reach(i) / i; past the run,
-- end x (H_K - H_n) (K = min(k, 1000)).
CREATE OR REPLACE MACRO rm_nerr9(kind, pos, grade, full_before, log_before, k, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k)
                 THEN rm_cwl_reach(full_before, log_before) / pos * rm_cwl_gain(grade, min_rel, max_rel) ELSE 0 END),
        SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) THEN rm_cwl_reach(full_before, log_before) / pos ELSE 0 END)
            + rm_cwl_reach_end(kind, pos, grade, rm_cwl_depth(k), min_rel, max_rel)
              * (rm_harmonic(rm_cwl_depth(k))
                 - rm_harmonic(SUM(CASE WHEN kind = 'R' AND pos <= rm_cwl_depth(k) THEN 1 ELSE 0 END))));

-- NERR11: C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g(i)), so prod_{j<i} C(j) = (2T / (i + 2T - 1))^2 reach(i);
-- past the run, end x (2T)^2 (psi1(n + 2T) - psi1(1000 + 2T)).
CREATE OR REPLACE MACRO rm_nerr11(kind, pos, grade, full_before, log_before, t, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= 1000
                 THEN rm_cwl_reach(full_before, log_before) * POWER(2 * t / (pos + 2 * t - 1), 2)
                      * rm_cwl_gain(grade, min_rel, max_rel) ELSE 0 END),
        SUM(CASE WHEN kind = 'R' AND pos <= 1000
                 THEN rm_cwl_reach(full_before, log_before) * POWER(2 * t / (pos + 2 * t - 1), 2) ELSE 0 END)
            + rm_cwl_reach_end(kind, pos, grade, 1000, min_rel, max_rel) * POWER(2 * CAST(t AS DOUBLE), 2)
              * (rm_trigamma(SUM(CASE WHEN kind = 'R' AND pos <= 1000 THEN 1 ELSE 0 END) + 2 * t)
                 - rm_trigamma(1000 + 2 * t)));

-- INSQ: C(i) = ((i + 2T - 1) / (i + 2T))^2, whatever the gain: W(i) = (i + 2T - 1)^-2 / (psi1(2T) - psi1(1000 + 2T)).
CREATE OR REPLACE MACRO rm_insq(kind, pos, grade, t, min_rel, max_rel) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND pos <= 1000
                 THEN rm_cwl_gain(grade, min_rel, max_rel) / POWER(CAST(pos + 2 * t - 1 AS DOUBLE), 2) ELSE 0 END),
        rm_trigamma(2 * t) - rm_trigamma(1000 + 2 * t));

CREATE OR REPLACE MACRO nerr9(run, judgments, k := NULL, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_nerr9(f.kind, f.pos, f.grade, f.full_before, f.log_before, k, min_rel, max_rel), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT
        s.*,
        rm_cwl_full_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS full_before,
        rm_cwl_log_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS log_before
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('nerr9', k)
        AND rm_valid_rel_range('nerr9', min_rel, max_rel)
        AND rm_valid_stream('nerr9', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('nerr9', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO nerr11(run, judgments, t := 1.0, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_nerr11(f.kind, f.pos, f.grade, f.full_before, f.log_before, t, min_rel, max_rel), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT
        s.*,
        rm_cwl_full_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS full_before,
        rm_cwl_log_before(s.query_id, s.kind, s.pos, s.grade, min_rel, max_rel) AS log_before
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(rm_valid_number(t) AND TRY_CAST(t AS DOUBLE) > 0, 'nerr11', 't', 'a number > 0 (T)', t)
        AND rm_valid_rel_range('nerr11', min_rel, max_rel)
        AND rm_valid_stream('nerr11', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('nerr11', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO insq(run, judgments, t := 1.0, min_rel := 0, max_rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_insq(f.kind, f.pos, f.grade, t, min_rel, max_rel), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid(rm_valid_number(t) AND TRY_CAST(t AS DOUBLE) > 0, 'insq', 't', 'a number > 0 (T)', t)
        AND rm_valid_rel_range('insq', min_rel, max_rel)
        AND rm_valid_stream('insq', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('insq', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
