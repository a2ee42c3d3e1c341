-- rankmetrics-duckdb: the row stream every metric reads.
--
-- Inputs: a run table (query_id, item_id, and score and/or rank) and a judgments table
-- (query_id, item_id, relevance). Ids are compared as text whatever their types.

-- The run, normalized: text ids, a score (higher is better; -rank when the run only has ranks) and the
-- given rank (for ties = 'input'). DuckDB only: the Python package writes this step for other engines,
-- where it knows which columns the table has.
CREATE OR REPLACE MACRO rm_run_items(run) AS TABLE
SELECT
    CAST(r.query_id AS VARCHAR) AS query_id,
    CAST(r.item_id AS VARCHAR) AS item_id,
    CAST(COALESCE(CAST(r.score AS DOUBLE), -CAST(r.rank AS DOUBLE)) AS DOUBLE) AS score,
    CAST(r.rank AS DOUBLE) AS rank_in
FROM (
    SELECT CAST(NULL AS DOUBLE) AS score, CAST(NULL AS DOUBLE) AS rank WHERE FALSE
    UNION ALL BY NAME
    SELECT * FROM query_table(run)
) AS r;

-- A judgment's grade: 'truncate' (trec_eval, which reads grades with atol: 1.5 is 1, -0.5 is 0) or 'as_given'.
CREATE OR REPLACE MACRO rm_grade(relevance, grades) AS
    CASE
        WHEN grades = 'truncate' THEN CAST(
            CASE WHEN CAST(relevance AS DOUBLE) < 0 THEN CEIL(CAST(relevance AS DOUBLE))
                 ELSE FLOOR(CAST(relevance AS DOUBLE)) END AS DOUBLE)
        ELSE CAST(relevance AS DOUBLE)
    END;

-- The judgments, normalized: text ids and a numeric grade (rm_grade). DuckDB only, like rm_run_items.
CREATE OR REPLACE MACRO rm_judgment_items(judgments, grades) AS TABLE
SELECT
    CAST(j.query_id AS VARCHAR) AS query_id,
    CAST(j.item_id AS VARCHAR) AS item_id,
    rm_grade(j.relevance, grades) AS grade
FROM query_table(judgments) AS j;

-- The stream: one 'R' row per retrieved item and one 'J' row per judged item (see 00_common.sql).
--   ties        how the run is ordered: 'item_desc' (score, then item id descending byte-wise: trec_eval),
--               'item_asc' (score, then item id ascending), 'average' (as item_desc; DCG then averages the
--               discounts of tied items), 'input' (the run's own rank column, then as item_desc)
--   judged_only drop unjudged items (and negative grades, which trec_eval treats as unjudged) before ranking (-J)
--   grades      fractional grades: 'truncate' toward zero (trec_eval) or 'as_given' (rm_grade)
CREATE OR REPLACE MACRO rm_stream(run, judgments, ties, judged_only, grades) AS TABLE
SELECT
    ranked.query_id,
    'R' AS kind,
    ranked.item_id,
    ranked.score,
    j.grade,
    ranked.pos,
    ROW_NUMBER() OVER (
        PARTITION BY ranked.query_id
        ORDER BY COALESCE(j.grade, 0) DESC NULLS LAST, ranked.pos ASC NULLS LAST
    ) AS ipos
FROM (
    -- The run is ranked on its own, then joined with the judgments: sorting the run's rows as they were read
    -- is much cheaper than sorting the join's output. With judged_only, unjudged items go before ranking.
    SELECT
        r.query_id,
        r.item_id,
        r.score,
        ROW_NUMBER() OVER (
            PARTITION BY r.query_id
            ORDER BY
                CASE WHEN ties = 'input' THEN r.rank_in END ASC NULLS LAST,
                r.score DESC NULLS LAST,
                CASE WHEN ties = 'item_asc' THEN rm_bytewise(r.item_id) END ASC NULLS LAST,
                rm_bytewise(r.item_id) DESC NULLS LAST
        ) AS pos
    FROM (
        SELECT ri.query_id, ri.item_id, ri.score, ri.rank_in FROM rm_run_items(run) AS ri WHERE NOT judged_only
        UNION ALL
        SELECT ri.query_id, ri.item_id, ri.score, ri.rank_in
        FROM rm_run_items(run) AS ri
        JOIN rm_judgment_items(judgments, grades) AS jo ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
        WHERE judged_only AND jo.grade >= 0
    ) AS r
) AS ranked
LEFT JOIN rm_judgment_items(judgments, grades) AS j
    ON j.query_id = ranked.query_id AND j.item_id = ranked.item_id
UNION ALL
-- The ideal ordering of the judged items, by grade alone: a 'J' row's pos is only read as a discount paired with
-- its own grade (the ideal DCG; the running windows of 'R' rows never read their 'J' values), and items of equal
-- grade are interchangeable there, so no item-id tie-break is needed (a numeric sort, no string compares).
-- ipos repeats pos (the same window), for the columns of the 'R' rows.
SELECT
    j.query_id,
    'J' AS kind,
    j.item_id,
    CAST(NULL AS DOUBLE) AS score,
    j.grade,
    ROW_NUMBER() OVER (PARTITION BY j.query_id ORDER BY j.grade DESC NULLS LAST) AS pos,
    ROW_NUMBER() OVER (PARTITION BY j.query_id ORDER BY j.grade DESC NULLS LAST) AS ipos
FROM rm_judgment_items(judgments, grades) AS j;
