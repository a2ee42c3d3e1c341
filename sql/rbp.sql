-- RBP(p) (rank-biased precision, Moffat & Zobel 2008): (1 - p) * sum over retrieved items of gain * p^(rank - 1);
-- a user reads on to the next item with probability p (persistence). With a cutoff k only the top k count.
--   scale 'max', rel NULL  graded: gain = grade / the query's highest judged grade (trec_eval 10 rbp, ir_measures RBP)
--   scale 'max', rel = n   binary: gain 1 for a grade >= n, else 0
--   scale 'raw'            the grade itself for a grade >= rel (1 when rel is NULL), else 0 (ranx's rbp.95)
CREATE OR REPLACE MACRO rm_rbp(kind, pos, grade, k, p, lvl, scale) AS
    (1 - CAST(p AS DOUBLE)) * CASE
        WHEN scale = 'raw' THEN
            SUM(CASE WHEN kind = 'R' AND grade > 0 AND grade >= COALESCE(lvl, 1) AND rm_within(pos, k)
                     THEN grade * POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END)
        WHEN lvl IS NULL THEN rm_ratio(
            SUM(CASE WHEN kind = 'R' AND grade > 0 AND rm_within(pos, k)
                     THEN grade * POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END),
            MAX(CASE WHEN kind = 'J' AND grade > 0 THEN grade END))
        ELSE SUM(CASE WHEN kind = 'R' AND grade >= lvl AND rm_within(pos, k)
                      THEN POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END)
    END;

CREATE OR REPLACE MACRO rbp(run, judgments, k := NULL, p := 0.8, rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', scale := 'max', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_rbp(f.kind, f.pos, f.grade, k, p, rel, scale), rm_num_rel(f.kind, f.grade, COALESCE(rel, 1)), empty)
        AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('rbp', k)
        AND rm_valid(rm_valid_number(p) AND TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1, 'rbp', 'p',
                     'a number between 0 and 1 (exclusive)', p)
        AND rm_valid(rel IS NULL OR rm_valid_number(rel), 'rbp', 'rel', 'a finite number, or NULL for graded gain', rel)
        AND rm_valid_choice('rbp', 'scale', scale, ['max', 'raw'])
        AND rm_valid_stream('rbp', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('rbp', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- rbp_resid (trec_eval): RBP's residual, the most it could rise if every unjudged retrieved item (not in the
-- judgments, or a grade below 0) were fully relevant: p^(items retrieved) + (1 - p) * the sum of p^(rank - 1)
-- over the unjudged retrieved items; 0 when none is unjudged (m_rbp_resid.c; p 0.9 as trec_eval's rbp).
CREATE OR REPLACE MACRO rm_rbp_resid(kind, pos, grade, p) AS
    CASE WHEN SUM(CASE WHEN kind = 'R' AND (grade IS NULL OR grade < 0) THEN 1 ELSE 0 END) > 0
         THEN POWER(CAST(p AS DOUBLE), rm_retrieved(kind, pos, NULL))
              + (1 - CAST(p AS DOUBLE)) * SUM(CASE WHEN kind = 'R' AND (grade IS NULL OR grade < 0)
                                   THEN POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END)
         ELSE CAST(0 AS DOUBLE) END;

CREATE OR REPLACE MACRO rbp_resid(run, judgments, p := 0.9,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_rbp_resid(f.kind, f.pos, f.grade, p) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid(rm_valid_number(p) AND TRY_CAST(p AS DOUBLE) > 0 AND TRY_CAST(p AS DOUBLE) < 1,
                            'rbp_resid', 'p', 'a number between 0 and 1 (exclusive)', p)
        AND rm_valid_stream('rbp_resid', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('rbp_resid', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
