-- Compat (ir_measures' name and its compat provider; Clarke, Vtyurina & Smucker, "Assessing top-k preferences",
-- TOIS 2021): the rank-biased overlap of the run with an ideal ranking, to the depth D = max(retrieved, |I|),
--   RBO(A, B) = sum_{d=1}^{D} p^(d-1) |A[:d] & B[:d]| / d / sum_{d=1}^{D} p^(d-1),
-- where the ideal I is the judged items with a grade > 0, by grade, then by the run's score (an item not
-- retrieved counting 0, so it follows the retrieved items of its grade with a score >= 0 and precedes those below
-- 0; ir_measures orders equal scores by the qrels' line order, here the run's order). normalize 'true' divides by
-- RBO(I, I) (when above 0), 'false' leaves it. An item in both lists counts in the overlap from d = m, the deeper
-- of its two ranks, so the numerator is sum_x (S(D) - S(m - 1)), S(n) = sum_{d=1}^{n} p^(d-1) / d.
-- S at a row's own rank is a running sum over its kind (ranks 1, 2, ... on both the 'R' and the 'J' rows; the
-- judged items of one grade hold ranks A + 1 .. A + c of the ideal in any order, and so do the retrieved ones of
-- that grade placed first in it). The retrieved items of grade g take, in run order, the ideal ranks A + t, t their
-- place among the retrieved items of grade g (plus, below score 0, the c - r items of grade g not retrieved): the
-- 'J' row of rank A + t meets the 'R' row of that item in a window over the grade ordered by that place (the 'R'
-- row just before the 'J' row of its place), and LAG reads the item's run rank and its S there.

-- S(pos - 1) on a row: sum of p^(d-1) / d over the ranks of its kind above it
CREATE OR REPLACE MACRO rm_compat_s_before(query_id, kind, pos, p) AS
    SUM(POWER(CAST(p AS DOUBLE), pos - 1) / pos)
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);

-- a row's place among the rows of its kind and grade, in rank order
CREATE OR REPLACE MACRO rm_compat_place(query_id, kind, grade, pos) AS
    ROW_NUMBER() OVER (PARTITION BY query_id, kind, grade ORDER BY pos);

CREATE OR REPLACE MACRO rm_compat_count(query_id, kind, grade, which) AS
    SUM(CASE WHEN kind = which THEN 1 ELSE 0 END) OVER (PARTITION BY query_id, grade);

-- the place in the ideal's block of its grade: a 'J' row's own, a retrieved item's (after the items not retrieved
-- when its score is below 0)
CREATE OR REPLACE MACRO rm_compat_key(kind, score, place, judged_count, retrieved_count) AS
    CASE WHEN kind = 'R' AND score < 0 THEN CAST(place + judged_count - retrieved_count AS DOUBLE)
         ELSE CAST(place AS DOUBLE) END;  -- one type in both branches (ClickHouse would order by a Variant)

CREATE OR REPLACE MACRO rm_compat_lag(query_id, kind, grade, score, place, judged_count, retrieved_count, x) AS
    LAG(x) OVER (PARTITION BY query_id, grade
                 ORDER BY rm_compat_key(kind, score, place, judged_count, retrieved_count), kind DESC NULLS LAST);

-- sum_{d=1}^{n} p^(d-1) / d over the ranks of the rows of one kind (R: the run; J: the ideal, grades > 0)
CREATE OR REPLACE MACRO rm_compat_s_of(kind, pos, grade, p, which) AS
    SUM(CASE WHEN kind = which AND (which = 'R' OR grade > 0) THEN POWER(CAST(p AS DOUBLE), pos - 1) / pos ELSE 0 END);

CREATE OR REPLACE MACRO rm_compat_depth_s(kind, pos, grade, p) AS
    CASE WHEN SUM(CASE WHEN kind = 'R' THEN 1 ELSE 0 END) >= SUM(CASE WHEN kind = 'J' AND grade > 0 THEN 1 ELSE 0 END)
         THEN rm_compat_s_of(kind, pos, grade, p, 'R') ELSE rm_compat_s_of(kind, pos, grade, p, 'J') END;

CREATE OR REPLACE MACRO rm_compat_met(kind, grade, place, prev_kind, prev_key) AS
    kind = 'J' AND grade > 0 AND prev_kind = 'R' AND prev_key = place;

CREATE OR REPLACE MACRO rm_compat(kind, pos, grade, place, s_before, prev_kind, prev_key, prev_pos, prev_s, p, normalize) AS
    rm_ratio(
        SUM(CASE WHEN rm_compat_met(kind, grade, place, prev_kind, prev_key) THEN 1 ELSE 0 END)
            * rm_compat_depth_s(kind, pos, grade, p)
        - SUM(CASE WHEN rm_compat_met(kind, grade, place, prev_kind, prev_key)
                   THEN CASE WHEN prev_pos > pos THEN COALESCE(prev_s, 0) ELSE COALESCE(s_before, 0) END
                   ELSE 0 END),
        CASE WHEN normalize = 'true' AND SUM(CASE WHEN kind = 'J' AND grade > 0 THEN 1 ELSE 0 END) > 0
             -- RBO(I, I)'s numerator: the |I| first ranks overlap fully, the deeper ones by |I|
             THEN (1 - POWER(CAST(p AS DOUBLE), SUM(CASE WHEN kind = 'J' AND grade > 0 THEN 1 ELSE 0 END))) / (1 - CAST(p AS DOUBLE))
                  + SUM(CASE WHEN kind = 'J' AND grade > 0 THEN 1 ELSE 0 END)
                    * (rm_compat_depth_s(kind, pos, grade, p) - rm_compat_s_of(kind, pos, grade, p, 'J'))
             -- the weights' sum to the depth
             ELSE (1 - POWER(CAST(p AS DOUBLE), GREATEST(SUM(CASE WHEN kind = 'R' THEN 1 ELSE 0 END),
                                                         SUM(CASE WHEN kind = 'J' AND grade > 0 THEN 1 ELSE 0 END))))
                  / (1 - CAST(p AS DOUBLE))
        END);

CREATE OR REPLACE MACRO compat(run, judgments, p := 0.95, normalize := 'true',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_compat(f.kind, f.pos, f.grade, f.place, f.s_before, f.prev_kind, f.prev_key, f.prev_pos, f.prev_s,
                        p, normalize), rm_num_rel(f.kind, f.grade, 1), empty) AS value
FROM (
    SELECT
        s.*,
        rm_compat_lag(s.query_id, s.kind, s.grade, s.score, s.place, s.judged_count, s.retrieved_count, s.kind)
            AS prev_kind,
        rm_compat_lag(s.query_id, s.kind, s.grade, s.score, s.place, s.judged_count, s.retrieved_count,
                      rm_compat_key(s.kind, s.score, s.place, s.judged_count, s.retrieved_count)) AS prev_key,
        rm_compat_lag(s.query_id, s.kind, s.grade, s.score, s.place, s.judged_count, s.retrieved_count, s.pos)
            AS prev_pos,
        rm_compat_lag(s.query_id, s.kind, s.grade, s.score, s.place, s.judged_count, s.retrieved_count, s.s_before)
            AS prev_s
    FROM (
        SELECT
            s.*,
            rm_compat_place(s.query_id, s.kind, s.grade, s.pos) AS place,
            rm_compat_count(s.query_id, s.kind, s.grade, 'J') AS judged_count,
            rm_compat_count(s.query_id, s.kind, s.grade, 'R') AS retrieved_count,
            rm_compat_s_before(s.query_id, s.kind, s.pos, p) AS s_before
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
    ) AS s
) AS f
CROSS JOIN (SELECT rm_valid(rm_valid_number(p) AND TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1,
                            'compat', 'p', 'a number between 0 and 1 (exclusive)', p)
        AND rm_valid(normalize IN ('false', 'true'), 'compat', 'normalize', '''false'' or ''true''', normalize)
        AND rm_valid_stream('compat', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('compat', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
