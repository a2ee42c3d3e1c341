-- bpref (Buckley & Voorhees 2004, as trec_eval computes it): for each relevant retrieved item, 1 minus the
-- judged non-relevant items ranked above it, divided by min(R, N) and capped at 1; summed and divided by R.
-- R = relevant judged items, N = judged non-relevant items (grade >= 0 and below the relevance level;
-- trec_eval counts negative grades as unjudged; negative_grades 'nonrelevant': every judged grade below the
-- level, a negative one too, as ranx counts them). Unjudged retrieved items are skipped.

-- A judged non-relevant grade: below the level, and not negative unless negative_grades says it counts.
CREATE OR REPLACE MACRO rm_nonrel(grade, lvl, negative_grades) AS
    grade < lvl AND (grade >= 0 OR negative_grades = 'nonrelevant');

-- Judged non-relevant retrieved items at or above the row.
CREATE OR REPLACE MACRO rm_nonrel_above(query_id, kind, pos, grade, lvl, negative_grades) AS
    SUM(CASE WHEN rm_nonrel(grade, lvl, negative_grades) THEN 1 ELSE 0 END)
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

-- Judged non-relevant items of the query (N), on every row of the query.
CREATE OR REPLACE MACRO rm_query_num_nonrel(query_id, kind, grade, lvl, negative_grades) AS
    SUM(CASE WHEN kind = 'J' AND rm_nonrel(grade, lvl, negative_grades) THEN 1 ELSE 0 END)
        OVER (PARTITION BY query_id);

CREATE OR REPLACE MACRO rm_bpref(kind, grade, nonrel_above, query_num_rel, query_num_nonrel, lvl) AS
    rm_ratio(
        SUM(CASE
            WHEN kind = 'R' AND grade >= lvl AND nonrel_above > 0 THEN
                1 - CAST(CASE WHEN nonrel_above < query_num_rel THEN nonrel_above ELSE query_num_rel END AS DOUBLE)
                    / NULLIF(CASE WHEN query_num_nonrel < query_num_rel THEN query_num_nonrel
                                  ELSE query_num_rel END, 0)
            WHEN kind = 'R' AND grade >= lvl THEN 1
            ELSE 0
        END),
        rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO bpref(run, judgments, rel := 1, negative_grades := 'unjudged',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_bpref(f.kind, f.grade, f.nonrel_above, f.query_num_rel, f.query_num_nonrel, rel),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT
        s.*,
        rm_nonrel_above(s.query_id, s.kind, s.pos, s.grade, rel, negative_grades) AS nonrel_above,
        rm_query_num_rel(s.query_id, s.kind, s.grade, rel) AS query_num_rel,
        rm_query_num_nonrel(s.query_id, s.kind, s.grade, rel, negative_grades) AS query_num_nonrel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('bpref', rel)
        AND rm_valid_choice('bpref', 'negative_grades', negative_grades, ['unjudged', 'nonrelevant'])
        AND rm_valid_stream('bpref', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('bpref', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
