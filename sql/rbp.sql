-- RBP(p) (rank-biased precision, Moffat & Zobel 2008): (1 - p) * sum over relevant retrieved items of p^(rank - 1).
-- A user reads the next item with probability p (persistence). Binary relevance at level rel.
CREATE OR REPLACE MACRO rm_rbp(kind, pos, grade, p, lvl) AS
    (1 - p) * SUM(CASE WHEN kind = 'R' AND grade >= lvl THEN POWER(CAST(p AS DOUBLE), pos - 1) ELSE 0 END);

CREATE OR REPLACE MACRO rbp(run, judgments, p := 0.8, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero') AS TABLE
SELECT
    f.query_id,
    rm_finish(rm_rbp(f.kind, f.pos, f.grade, p, rel), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only) AS s) AS f
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);
