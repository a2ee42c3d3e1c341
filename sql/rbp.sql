-- RBP(p) (rank-biased precision, Moffat & Zobel 2008): (1 - p) * sum over retrieved items of gain * p^(rank - 1);
-- a user reads on to the next item with probability p (persistence). With a cutoff k only the top k count.
--   rel NULL  graded: gain = grade / the query's highest judged grade (trec_eval 10 rbp, ir_measures RBP)
--   rel = n   binary: gain 1 for a grade >= n, else 0
CREATE OR REPLACE MACRO rm_rbp(kind, pos, grade, k, p, lvl) AS
    (1 - p) * CASE
        WHEN lvl IS NULL THEN rm_ratio(
            SUM(CASE WHEN kind = 'R' AND grade > 0 AND rm_within(pos, k)
                     THEN grade * POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END),
            MAX(CASE WHEN kind = 'J' AND grade > 0 THEN grade END))
        ELSE SUM(CASE WHEN kind = 'R' AND grade >= lvl AND rm_within(pos, k)
                      THEN POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END)
    END;

CREATE OR REPLACE MACRO rbp(run, judgments, k := NULL, p := 0.8, rel := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero') AS TABLE
SELECT
    f.query_id,
    rm_finish(rm_rbp(f.kind, f.pos, f.grade, k, p, rel), rm_num_rel(f.kind, f.grade, COALESCE(rel, 1)), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only) AS s) AS f
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);
