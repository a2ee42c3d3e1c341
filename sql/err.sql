-- ERR@k (expected reciprocal rank, Chapelle et al. 2009): sum over ranks r <= k of
-- (1 / r) * R_r * prod_{i < r} (1 - R_i), with the stopping probability R = (2^g - 1) / 2^max_grade of a grade g
-- (grades above max_grade count as max_grade, grades <= 0 and unjudged items as 0). max_grade defaults to 4,
-- as in gdeval, which ir_measures uses for ERR.

CREATE OR REPLACE MACRO rm_err_stop(grade, max_grade) AS
    CASE
        WHEN grade IS NULL OR grade <= 0 THEN CAST(0 AS DOUBLE)
        WHEN grade >= max_grade THEN (POWER(CAST(2 AS DOUBLE), max_grade) - 1) / POWER(CAST(2 AS DOUBLE), max_grade)
        ELSE (POWER(CAST(2 AS DOUBLE), grade) - 1) / POWER(CAST(2 AS DOUBLE), max_grade)
    END;

-- Probability that the user reaches the row: the product of (1 - R) over the rows above, as exp(sum(ln)).
CREATE OR REPLACE MACRO rm_err_reach(query_id, kind, pos, grade, max_grade) AS
    EXP(COALESCE(SUM(LN(1 - rm_err_stop(grade, max_grade)))
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0));

CREATE OR REPLACE MACRO rm_err(kind, pos, grade, reach, k, max_grade) AS
    SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) THEN reach * rm_err_stop(grade, max_grade) / pos ELSE 0 END);

CREATE OR REPLACE MACRO err(run, judgments, k := NULL, max_grade := 4,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_err(f.kind, f.pos, f.grade, f.reach, k, max_grade), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT s.*, rm_err_reach(s.query_id, s.kind, s.pos, s.grade, max_grade) AS reach
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('err', k)
        AND rm_valid(rm_valid_number(max_grade) AND TRY_CAST(max_grade AS DOUBLE) >= 1
                     AND TRY_CAST(max_grade AS DOUBLE) <= 1023
                     AND TRY_CAST(max_grade AS DOUBLE) = FLOOR(TRY_CAST(max_grade AS DOUBLE)), 'err', 'max_grade',
                     'a whole number from 1 to 1023 (2^max_grade must fit a double)', max_grade)
        AND rm_valid_stream('err', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('err', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
