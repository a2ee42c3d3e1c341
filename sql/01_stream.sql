-- rankmetrics-duckdb: the row stream every metric reads.
--
-- Inputs: a run table (query_id, item_id, and score and/or rank) and a judgments table
-- (query_id, item_id, relevance). Ids are compared as text whatever their types.

-- Warehouse shapes (DuckDB only; the Python package writes these steps for other engines, where it knows the
-- table's columns). Every metric macro takes, besides its own parameters:
--   query_column, item_column, score_column, rank_column, relevance_column
--               the names of the columns holding the query id, item id, score, rank and relevance grade
--               (score and rank may be missing from the run: then the other one ranks it)
--   "by"        group columns of the run (e.g. ['model_version', 'ds']): each group is evaluated as a run of
--               its own against the judgments, which are joined on the group columns they also have and shared
--               by the groups on the others; the results gain one column per group column, in its own type
--   run_lists   the run's item column is a list, in rank order (position 1 is best): MLlib's and BigQuery ML's
--               shape; its score and rank columns are then not read
--   judgment_lists
--               the judgments' item column is a list of relevant items (grade 1), or, with a relevance column
--               that is a list too, of items with the grade at the same position
-- Inside the stream, query_id is a STRUCT of the group columns and the query id as text (field query_id): every
-- window, join and GROUP BY of the metrics keys on it, and each metric's result unnests it into columns.

-- The group of a key: the key with its query id NULL (a STRUCT of the group columns and query_id NULL). The
-- metrics of the whole run (sql/catalog.sql, auc.sql's gauc) group by it, one row per group of the run; without
-- groups there is one. sqlgen.py and native.py read it as their own group key, or drop it without groups.
CREATE OR REPLACE MACRO rm_group_of(key) AS struct_update(key, query_id := CAST(NULL AS VARCHAR));

-- The run, normalized: the key (above), the item id as text, a score (higher is better; -rank when the run only
-- has ranks, or the list position) and the given rank (for ties = 'input').
CREATE OR REPLACE MACRO rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS TABLE
SELECT
    struct_pack(*COLUMNS(list_concat("by", ['query_id']))) AS query_id,
    r.item_id,
    -- the score when the run has a score column (score_columns: COLUMNS finds it beside the dummy rm_no_score),
    -- NULL included (refused by rm_row_fault, as eval refuses it), else -rank; NULL (refused) beside a rank that
    -- is NaN or infinite, as eval refuses such a rank
    CAST(CASE WHEN r.score_columns = 2 AND r.rank IS NOT NULL AND rm_not_finite(CAST(r.rank AS DOUBLE)) THEN NULL
              WHEN r.score_columns = 2 THEN CAST(r.score AS DOUBLE)
              ELSE -CAST(r.rank AS DOUBLE) END AS DOUBLE) AS score,
    CAST(r.rank AS DOUBLE) AS rank_in
FROM (
    -- one row per item: the columns named by the parameters, under our names (a missing score or rank is NULL;
    -- COLUMNS picks the dummy rm_* columns in the branch that does not apply, so that both branches bind)
    SELECT
        COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_score'),
        CAST(COLUMNS(lambda c: lower(c) = lower(query_column)) AS VARCHAR) AS query_id,
        CAST(COLUMNS(lambda c: lower(c) = CASE WHEN run_lists THEN 'rm_no_item' ELSE lower(item_column) END) AS VARCHAR) AS item_id,
        COALESCE(*COLUMNS(lambda c: lower(c) = lower(score_column) OR c = 'rm_no_score')) AS score,
        len(list_value(*COLUMNS(lambda c: lower(c) = lower(score_column) OR c = 'rm_no_score'))) AS score_columns,
        COALESCE(*COLUMNS(lambda c: lower(c) = lower(rank_column) OR c = 'rm_no_score')) AS rank
    FROM (SELECT *, NULL AS rm_no_score, '' AS rm_no_item FROM query_table(run)) AS w
    WHERE NOT run_lists
    UNION ALL BY NAME
    SELECT
        COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_score'),
        CAST(COLUMNS(lambda c: lower(c) = lower(query_column)) AS VARCHAR) AS query_id,
        CAST(UNNEST(COLUMNS(lambda c: lower(c) = CASE WHEN run_lists THEN lower(item_column) ELSE 'rm_no_list' END)) AS VARCHAR)
            AS item_id,
        CAST(NULL AS DOUBLE) AS score,
        1 AS score_columns,
        GENERATE_SUBSCRIPTS(COLUMNS(lambda c: lower(c) = CASE WHEN run_lists THEN lower(item_column) ELSE 'rm_no_list' END), 1)
            AS rank
    FROM (SELECT *, NULL AS rm_no_score, CAST([] AS VARCHAR[]) AS rm_no_list FROM query_table(run)) AS w
    WHERE run_lists
) AS r;

-- The queries of a run of lists whose list is empty (or NULL): each asked of the model, which returned nothing. The
-- key as rm_run_items makes it; no row without run_lists. Unnested, such a query has no row, so the stream gives it
-- a 'Q' row of its own (rm_stream), and rm_reported counts it as a query of the run. A row without a query id
-- (NULL or blank) is one too, which rm_run_fault refuses (as an unnested row without one).
CREATE OR REPLACE MACRO rm_empty_lists(run, query_column, item_column, "by", run_lists) AS TABLE
SELECT struct_pack(*COLUMNS(list_concat("by", ['query_id']))) AS query_id
FROM (
    SELECT
        COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_score'),
        CAST(COLUMNS(lambda c: lower(c) = lower(query_column)) AS VARCHAR) AS query_id,
        len(COLUMNS(lambda c: lower(c) = CASE WHEN run_lists THEN lower(item_column) ELSE 'rm_no_list' END)) AS items
    FROM (SELECT *, NULL AS rm_no_score, CAST([] AS VARCHAR[]) AS rm_no_list FROM query_table(run)) AS w
    WHERE run_lists
) AS e
WHERE COALESCE(e.items, 0) = 0;

-- The HAVING of every metric macro: does a query's result row stay (rm_in_query_set's `queries`)? trec_eval -J is
-- the exception: a query of the run whose retrieved items are all unjudged keeps no 'R' row after judged_only,
-- yet trec_eval evaluates it (num_ret 0: it is in the run and in the qrels). So with judged_only the queries of
-- 'both' are the judged ones that are in the run, read from the run's rows before -J. sqlgen and native.py read
-- rm_run_items as their run_items CTE; with the conventions folded (sqlgen) one of the two terms is left.
CREATE OR REPLACE MACRO rm_reported(kind, query_id, queries, judged_only, run, query_column, item_column,
        score_column, rank_column, "by", run_lists) AS
    (NOT (queries = 'both' AND rm_flag(judged_only)) AND rm_in_query_set(kind, queries))
    OR (queries = 'both' AND rm_flag(judged_only) AND SUM(CASE WHEN kind = 'J' THEN 1 ELSE 0 END) > 0
        AND rm_bytewise(query_id) IN (
            SELECT rm_bytewise(ri.query_id)
            FROM rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS ri))
    -- a run of lists: a query whose list is empty ('Q' row: rm_empty_lists) is a query of the run that retrieved
    -- nothing (pytrec_eval evaluates a query whose ranking is empty: num_ret 0), under 'both' when it is judged
    -- ('all' and 'judged' decide without the run); the term folds away where run_lists is false
    OR (run_lists AND (queries = 'both' OR queries = 'run') AND SUM(CASE WHEN kind = 'Q' THEN 1 ELSE 0 END) > 0
        AND (queries = 'run' OR SUM(CASE WHEN kind = 'J' THEN 1 ELSE 0 END) > 0));

-- A judgment's grade: 'truncate' (trec_eval, which reads grades with atol: 1.5 is 1, -0.5 is 0) or 'as_given'.
-- A grade that is not finite stays as it is, for the input checks to refuse (Spark's FLOOR of NaN is 0).
CREATE OR REPLACE MACRO rm_grade(relevance, grades) AS
    CASE
        WHEN grades = 'truncate' AND NOT rm_not_finite(CAST(relevance AS DOUBLE)) THEN CAST(
            CASE WHEN CAST(relevance AS DOUBLE) < 0 THEN CEIL(CAST(relevance AS DOUBLE))
                 ELSE FLOOR(CAST(relevance AS DOUBLE)) END AS DOUBLE)
        ELSE CAST(relevance AS DOUBLE)
    END;

-- The judgments, normalized: the key of each group of the run they apply to (joined on the group columns they
-- have, as text), the item id as text and a numeric grade (rm_grade).
CREATE OR REPLACE MACRO rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column,
        "by", judgment_lists) AS TABLE
SELECT
    struct_update(g.key, query_id := j.query_id) AS query_id,
    j.item_id,
    -- grade 1 without a relevance column (rel_columns: COLUMNS finds the dummy rm_no_rel alone); a NULL grade
    -- (or a list of grades shorter than the items) stays NULL, which rm_input_fault refuses
    rm_grade(COALESCE(j.relevance, CASE WHEN j.rel_columns = 1 THEN 1 END), grades) AS grade
FROM (
    SELECT
        CAST(COLUMNS(lambda c: lower(c) = lower(query_column)) AS VARCHAR) AS query_id,
        CAST(COLUMNS(lambda c: lower(c) = CASE WHEN judgment_lists THEN 'rm_no_item' ELSE lower(item_column) END) AS VARCHAR)
            AS item_id,
        CAST(COALESCE(*COLUMNS(lambda c: lower(c) = lower(relevance_column) OR c = 'rm_no_rel')) AS DOUBLE) AS relevance,
        len(list_value(*COLUMNS(lambda c: lower(c) = lower(relevance_column) OR c = 'rm_no_rel'))) AS rel_columns,
        to_json(struct_pack(*COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_rel'))) AS groups
    FROM (SELECT *, NULL AS rm_no_rel, '' AS rm_no_item FROM query_table(judgments)) AS w
    WHERE NOT judgment_lists
    UNION ALL
    SELECT
        CAST(COLUMNS(lambda c: lower(c) = lower(query_column)) AS VARCHAR) AS query_id,
        CAST(UNNEST(COLUMNS(lambda c: lower(c) = CASE WHEN judgment_lists THEN lower(item_column) ELSE 'rm_no_list' END))
            AS VARCHAR) AS item_id,
        CAST(UNNEST(COALESCE(*COLUMNS(lambda c: lower(c) = CASE WHEN judgment_lists THEN lower(relevance_column)
                                                         ELSE 'rm_no_list' END OR c = 'rm_no_rel'))) AS DOUBLE)
            AS relevance,
        len(list_value(*COLUMNS(lambda c: lower(c) = CASE WHEN judgment_lists THEN lower(relevance_column) ELSE 'rm_no_list' END
                                         OR c = 'rm_no_rel'))) AS rel_columns,
        to_json(struct_pack(*COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_rel'))) AS groups
    FROM (SELECT *, CAST(NULL AS DOUBLE[]) AS rm_no_rel, CAST([] AS DOUBLE[]) AS rm_no_list
          FROM query_table(judgments)) AS w
    WHERE judgment_lists
) AS j
JOIN (
    -- the run's groups: each key (its query id empty) and its group columns as text, to match the judgments'
    SELECT DISTINCT
        struct_pack(*COLUMNS(list_concat("by", ['query_id']))) AS key,
        to_json(struct_pack(*COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_rel'))) AS groups
    FROM (SELECT COLUMNS(lambda c: lower(c) <> 'query_id'), '' AS query_id, NULL AS rm_no_rel FROM query_table(run)) AS w
    -- without groups the one key, the run empty or not (an empty run's judged queries score 0 under 'judged', as
    -- the rendered SQL scores them; the key's fields are unioned by name)
    UNION
    SELECT {'query_id': ''} AS key, to_json(struct_pack(rm_no_rel := NULL)) AS groups WHERE len("by") = 0
) AS g ON json_contains(g.groups, j.groups);

-- The stream: one 'R' row per retrieved item and one 'J' row per judged item (see 00_common.sql), and one 'Q' row
-- per query of a run of lists whose list is empty.
--   ties        how the run is ordered: 'item_desc' (score, then item id descending byte-wise: trec_eval),
--               'item_asc' (score, then item id ascending), 'average' (as item_desc; DCG then averages the
--               discounts of tied items), 'input' (the run's own rank column, then as item_desc)
--   judged_only drop unjudged items (and negative grades, which trec_eval treats as unjudged) before ranking (-J)
--   grades      fractional grades: 'truncate' toward zero (trec_eval) or 'as_given' (rm_grade)
CREATE OR REPLACE MACRO rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS TABLE
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
        SELECT ri.query_id, ri.item_id, ri.score, ri.rank_in FROM rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS ri WHERE NOT rm_flag(judged_only)
        UNION ALL
        SELECT ri.query_id, ri.item_id, ri.score, ri.rank_in
        FROM rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS ri
        JOIN rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by", judgment_lists) AS jo
            ON rm_bytewise(jo.query_id) = rm_bytewise(ri.query_id) AND rm_bytewise(jo.item_id) = rm_bytewise(ri.item_id)
        WHERE rm_flag(judged_only) AND jo.grade >= 0
    ) AS r
) AS ranked
LEFT JOIN rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by", judgment_lists) AS j
    -- ids compared byte-wise here too: a case-insensitive default collation (MySQL, SQL Server) would match
    -- item AB with judgment ab
    ON rm_bytewise(j.query_id) = rm_bytewise(ranked.query_id) AND rm_bytewise(j.item_id) = rm_bytewise(ranked.item_id)
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
FROM rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by", judgment_lists) AS j
UNION ALL
-- A query of a run of lists whose list is empty retrieved nothing, yet is a query of the run: one 'Q' row, with no
-- item, grade or rank (rm_empty_lists; none without run_lists). No measure reads it (each reads 'R' and 'J' rows,
-- and its windows put it apart: NULL ranks sort last); rm_reported counts it as the run's.
SELECT
    e.query_id,
    'Q' AS kind,
    CAST(NULL AS VARCHAR) AS item_id,
    CAST(NULL AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS grade,
    NULL AS pos,  -- untyped: the ranks' own type (ClickHouse's ROW_NUMBER is unsigned; a BIGINT NULL made a Variant)
    NULL AS ipos
FROM rm_empty_lists(run, query_column, item_column, "by", run_lists) AS e;

-- The same stream in the shape of one exchange (the SQL for Spark: dialects.Dialect.stream = 'grouped'). rm_stream
-- ranks the run, joins it with the judgments on (query, item) and ranks the judgments, and the input checks group
-- the run and the judgments by (query, item) again: on an engine that moves rows between workers, each of these
-- repartitions the run (by query, by (query, item), by query again). Here the run's rows and the judgments' rows
-- are put together and grouped by (query, item) once: each group is one item of a query with its run row (score,
-- given rank), its judgment (grade) and how many rows of each it had (run_rows, judgment_rows, which the checks
-- read: sqlgen.grouped_faults), and all the windows after it partition by the query, which a partitioning by query
-- serves (an engine may partition the grouping by query alone: Spark does). Each item then gives an 'R' row when
-- the run has it and a 'J' row when it is judged (a join with the two kinds, not a UNION ALL of two reads, which
-- would compute the grouping twice on engines that inline CTEs). The rows and their values are rm_stream's, on
-- inputs without duplicates (the checks refuse the others): the same order, ties and judged_only.
CREATE OR REPLACE MACRO rm_grouped_stream(run, judgments, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS TABLE
SELECT
    s.query_id,
    s.kind,
    s.item_id,
    s.score,
    s.grade,
    -- the ideal ordering of the judged items, by grade alone (as rm_stream's 'J' rows), numbered over the 'J'
    -- rows after the kinds are joined, not over the grouped items: sqlgen.plan gives this SELECT the filter of
    -- the rows the measures read (keep_rows, which keeps every 'J' row), which applies before the window, and
    -- the window's sort is of the rows kept (before, Spark sorted every item of the run, judged or not)
    CASE WHEN s.kind = 'J' THEN ROW_NUMBER() OVER (
        PARTITION BY s.query_id, s.kind ORDER BY s.grade DESC NULLS LAST
    ) ELSE s.pos END AS pos,
    CASE WHEN s.kind = 'J' THEN ROW_NUMBER() OVER (
        PARTITION BY s.query_id, s.kind ORDER BY s.grade DESC NULLS LAST
    ) ELSE s.ipos END AS ipos,
    s.run_rows,
    s.judgment_rows,
    s.low_grade,
    s.rank_in
FROM (
    SELECT
        i.query_id,
        k.kind,
        i.item_id,
        CASE WHEN k.kind = 'R' THEN i.score END AS score,
        i.grade,
        CASE WHEN k.kind = 'R' THEN i.pos END AS pos,
        CASE WHEN k.kind = 'R' THEN i.ipos END AS ipos,
        i.run_rows,
        i.judgment_rows,
        i.low_grade,
        -- the given rank, for the check of a preset that reads rank values as positions (sqlgen.grouped_fault)
        CASE WHEN k.kind = 'R' THEN i.rank_in END AS rank_in
    FROM (
        SELECT
            p.*,
            -- rm_stream's ipos: the retrieved items re-sorted by grade (the others last, where nothing reads them)
            ROW_NUMBER() OVER (
                PARTITION BY p.query_id
                ORDER BY CASE WHEN p.pos IS NULL THEN 1 ELSE 0 END ASC NULLS LAST, COALESCE(p.grade, 0) DESC NULLS LAST,
                    p.pos ASC NULLS LAST
            ) AS ipos
        FROM (
            SELECT
                g.*,
                -- the run's ranking (rm_stream's ORDER BY), over the items it ranks: those it has (judged ones with
                -- judged_only); the others sort last and get no rank
                CASE WHEN g.ranked = 1 THEN ROW_NUMBER() OVER (
                    PARTITION BY g.query_id
                    ORDER BY
                        g.ranked DESC NULLS LAST,
                        CASE WHEN ties = 'input' THEN g.rank_in END ASC NULLS LAST,
                        g.score DESC NULLS LAST,
                        CASE WHEN ties = 'item_asc' THEN rm_bytewise(g.item_id) END ASC NULLS LAST,
                        rm_bytewise(g.item_id) DESC NULLS LAST
                ) END AS pos
            FROM (
                SELECT
                    u.query_id,
                    rm_bytewise(u.item_id) AS item_id,
                    MAX(u.score) AS score,
                    MAX(u.rank_in) AS rank_in,
                    MAX(u.grade) AS grade,
                    MIN(u.grade) AS low_grade,
                    SUM(u.run_row) AS run_rows,
                    SUM(1 - u.run_row) AS judgment_rows,
                    CASE WHEN SUM(u.run_row) > 0 AND (NOT rm_flag(judged_only) OR MAX(u.grade) >= 0) THEN 1 ELSE 0 END
                        AS ranked
                FROM (
                    SELECT ri.query_id, ri.item_id, ri.score, ri.rank_in, CAST(NULL AS DOUBLE) AS grade, 1 AS run_row
                    FROM rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS ri
                    UNION ALL
                    SELECT ji.query_id, ji.item_id, CAST(NULL AS DOUBLE) AS score, CAST(NULL AS DOUBLE) AS rank_in,
                        ji.grade, 0 AS run_row
                    FROM rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by",
                        judgment_lists) AS ji
                ) AS u
                GROUP BY u.query_id, rm_bytewise(u.item_id)
            ) AS g
        ) AS p
    ) AS i
    JOIN (SELECT 'R' AS kind UNION ALL SELECT 'J' AS kind) AS k
        -- an item twice in the run, or with a score that is NULL, NaN or infinite, or an id NULL or empty, gives
        -- its 'R' row even when it is not ranked (unjudged, with judged_only): the checks read it there, and the
        -- statement fails on it as rm_stream's checks make it fail
        ON (k.kind = 'R' AND (i.pos IS NOT NULL OR i.run_rows > 1 OR (i.run_rows > 0 AND (rm_not_finite(i.score)
                OR i.item_id IS NULL OR trim(i.item_id, ' ') = ''))))
            OR (k.kind = 'J' AND i.judgment_rows > 0)
) AS s
UNION ALL
-- rm_stream's 'Q' rows (a run of lists' queries whose list is empty), after the grouping: no item to group
SELECT
    e.query_id,
    'Q' AS kind,
    CAST(NULL AS VARCHAR) AS item_id,
    CAST(NULL AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS grade,
    NULL AS pos,  -- untyped, as rm_stream's: the types of the rows above
    NULL AS ipos,
    NULL AS run_rows,
    NULL AS judgment_rows,
    CAST(NULL AS DOUBLE) AS low_grade,
    CAST(NULL AS DOUBLE) AS rank_in
FROM rm_empty_lists(run, query_column, item_column, "by", run_lists) AS e;

-- A row without a query id or an item id (NULL, empty or all spaces), or whose score (or rank) or grade is NULL,
-- NaN or infinite (the messages of sqlgen.py's _missing_id and _number_fault, which the SQL for other engines
-- checks with).
CREATE OR REPLACE MACRO rm_row_fault(query_id, item_id, number, what, input) AS
    CASE
        WHEN query_id IS NULL OR item_id IS NULL OR trim(query_id, ' ') = '' OR trim(item_id, ' ') = ''
            THEN 'rankmetrics: a row of the ' || input || ' has no query id or no item id (NULL or empty)'
        WHEN rm_not_finite(number)
            THEN 'rankmetrics: item ' || item_id || ' of query ' || query_id || ' has ' || what
                 || ' that is NULL, NaN or infinite in the ' || input
    END;

-- The run's faults (an item twice in a query, a row rm_row_fault refuses, a run of lists' row whose list is empty
-- and whose query id is missing: it names no query, as an unnested row without one), one row each.
CREATE OR REPLACE MACRO rm_run_fault(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS TABLE
SELECT 'rankmetrics: item ' || x.item_id || ' appears ' || CAST(COUNT(*) AS VARCHAR) || ' times for query '
    || x.query_id.query_id || ' in the run' AS fault
FROM rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS x
GROUP BY x.query_id, x.item_id
HAVING COUNT(*) > 1
UNION ALL
SELECT f.fault
FROM (
    SELECT rm_row_fault(x.query_id.query_id, x.item_id, x.score, 'a score (or rank)', 'run') AS fault
    FROM rm_run_items(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS x
) AS f
WHERE f.fault IS NOT NULL
UNION ALL
SELECT 'rankmetrics: a row of the run has no query id or no item id (NULL or empty)' AS fault
FROM rm_empty_lists(run, query_column, item_column, "by", run_lists) AS e
WHERE e.query_id.query_id IS NULL OR trim(e.query_id.query_id, ' ') = '';

-- The types of the "by" columns a table has, as JSON ({"segment": "VARCHAR", ...}; the dummy rm_no_rel makes
-- COLUMNS match when it has none), from its first row: no row, no types.
CREATE OR REPLACE MACRO rm_group_types(t, "by") AS TABLE
SELECT to_json(struct_pack(*COLUMNS(*))) AS types
FROM (SELECT typeof(COLUMNS(lambda c: list_contains("by", c) OR c = 'rm_no_rel'))
      FROM (SELECT *, NULL AS rm_no_rel FROM query_table(t)) AS w LIMIT 1) AS f;

-- A group column of the run that the judgments have too, in another type: the groups are matched on their values
-- as JSON, where 1 is not "1" nor 1.0, so such judgments would match no group and the result would be empty
-- (eval refuses text against numbers the same way; integers of any width match).
CREATE OR REPLACE MACRO rm_group_type(t) AS
    CASE WHEN t IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER',
                    'UBIGINT', 'UHUGEINT') THEN 'integer' ELSE t END;

CREATE OR REPLACE MACRO rm_group_type_fault(run, judgments, "by") AS TABLE
SELECT 'rankmetrics: group column ' || u.k || ': ' || (r.types ->> u.k) || ' in the run, ' || (j.types ->> u.k)
    || ' in the judgments; give it one type on both sides (cast one of them)' AS fault
FROM rm_group_types(run, "by") AS r
CROSS JOIN rm_group_types(judgments, "by") AS j
CROSS JOIN UNNEST(json_keys(j.types)) AS u(k)
WHERE u.k <> 'rm_no_rel' AND (r.types ->> u.k) IS NOT NULL
    AND rm_group_type(r.types ->> u.k) <> rm_group_type(j.types ->> u.k);

-- The first fault of the inputs, NULL when they are clean: an item twice in a query of the run (a table holding
-- two models without "by", say), an item judged twice in a query, or a row without an id, a finite score or a
-- finite grade. Each metric macro refuses such inputs with error() (rm_valid_inputs): counted twice, they would
-- give a wrong number; a NULL or NaN score ranks where the engine sorts it, and a NULL grade is no grade.
CREATE OR REPLACE MACRO rm_input_fault(run, judgments, grades, query_column, item_column, score_column, rank_column,
        relevance_column, "by", run_lists, judgment_lists) AS TABLE
SELECT MIN(d.fault) AS fault
FROM (
    SELECT r.fault FROM rm_run_fault(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS r
    UNION ALL
    SELECT g.fault FROM rm_group_type_fault(run, judgments, "by") AS g
    UNION ALL
    -- a group column named like a column of the results (shape.OUTPUT_COLUMNS): the value read would be the group
    SELECT 'rankmetrics: by: a group column named ' || b.g || ' would clash with the results'' own columns '
        || '(measure, query_id, value, aggregate); rename it in a view or query' AS fault
    FROM (SELECT UNNEST("by") AS g) AS b
    WHERE lower(b.g) IN ('measure', 'query_id', 'value', 'aggregate')
    UNION ALL
    SELECT rm_row_fault(x.query_id.query_id, x.item_id, x.grade, 'a relevance grade', 'judgments') AS fault
    FROM rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by", judgment_lists) AS x
    UNION ALL
    SELECT 'rankmetrics: item ' || x.item_id || ' of query ' || x.query_id.query_id || ' is judged '
        || CAST(COUNT(*) AS VARCHAR) || ' times (grades ' || CAST(MIN(x.grade) AS VARCHAR) || ' to '
        || CAST(MAX(x.grade) AS VARCHAR) || ')' AS fault
    FROM rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by", judgment_lists) AS x
    GROUP BY x.query_id, x.item_id
    HAVING COUNT(*) > 1
) AS d;

CREATE OR REPLACE MACRO rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
        relevance_column, "by", run_lists, judgment_lists) AS
    (SELECT rm_fail(f.fault) FROM rm_input_fault(run, judgments, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS f WHERE f.fault IS NOT NULL) IS NULL;

-- The grades a gain cannot take (measures.grade_rules, which the Python routes and the rendered SQL read; these
-- messages are sqlgen._grade_fault's): with exponential gain a grade above 1023 (measures.GRADE_LIMIT: 2^grade - 1
-- overflows a double), and with raw gain in a macro that takes no negative grade (negative: nDCG, as scikit-learn's
-- ndcg_score) a negative one. Checked in the macros that take a gain; the statement fails on the first found.
CREATE OR REPLACE MACRO rm_valid_gain_grades(macro, negative, gain, run, judgments, grades, query_column, item_column,
        relevance_column, "by", judgment_lists) AS
    (SELECT rm_fail('rankmetrics: item ' || j.item_id || ' of query ' || j.query_id.query_id
                    || CASE WHEN gain = 'exponential'
                            THEN ' has a grade too high for exponential gain in ' || macro
                                 || ' (2^grade - 1 overflows past grade 1023)'
                            ELSE ' has a negative grade, which ' || macro
                                 || ' with raw gain does not take (nor does scikit-learn ndcg_score)' END)
     FROM rm_judgment_items(judgments, grades, run, query_column, item_column, relevance_column, "by", judgment_lists)
         AS j
     WHERE (gain = 'exponential' AND j.grade >= 1024) OR (negative AND gain = 'raw' AND j.grade < 0)
     LIMIT 1) IS NULL;

-- The recommender metrics that read the training interactions (MeanInvUserFreq, AvgRecPopularity, Serendipity)
-- read the stream with item statistics beside each row: from a table of interactions (user_id, item_id; one
-- row per interaction, the training log), per item the users who interacted with it (item_users), its
-- interactions (item_count) and its popularity rank (pop_rank: 1 for the most interactions, equal counts
-- sharing a rank, as RecTools' Serendipity ranks them), the users of the items more popular than it (users_before:
-- items ordered by item_users descending, then by id; APLT and ACLT's head) and the users summed over all items
-- (pair_count, the distinct (user, item) pairs); NULL for an item without interactions. (The item's id
-- is stats_item_id: a second item_id in the join would make ClickHouse rename the stream's s.* columns.)
CREATE OR REPLACE MACRO rm_item_stats(interactions) AS TABLE
SELECT
    c.stats_item_id,
    c.item_users,
    c.item_count,
    DENSE_RANK() OVER (ORDER BY c.item_count DESC) AS pop_rank,
    SUM(c.item_users) OVER (ORDER BY c.item_users DESC, rm_bytewise(c.stats_item_id) ASC NULLS LAST
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - c.item_users AS users_before,
    SUM(c.item_users) OVER () AS pair_count
FROM (
    SELECT CAST(i.item_id AS VARCHAR) AS stats_item_id, COUNT(DISTINCT CAST(i.user_id AS VARCHAR)) AS item_users,
        COUNT(*) AS item_count
    FROM query_table(interactions) AS i
    GROUP BY CAST(i.item_id AS VARCHAR)
) AS c;

-- The totals: users with an interaction (train_users), interactions (train_count) and the catalog's size
-- (catalog_size: the distinct items of the catalog table, or of the interactions when it is NULL).
CREATE OR REPLACE MACRO rm_train_totals(interactions, catalog) AS TABLE
SELECT
    COUNT(DISTINCT CAST(i.user_id AS VARCHAR)) AS train_users,
    COUNT(*) AS train_count,
    (SELECT COUNT(DISTINCT CAST(c.item_id AS VARCHAR)) FROM query_table(COALESCE(catalog, interactions)) AS c)
        AS catalog_size
FROM query_table(interactions) AS i;

CREATE OR REPLACE MACRO rm_item_stream(run, judgments, interactions, catalog, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS TABLE
SELECT s.*, st.item_users, st.item_count, st.pop_rank, st.users_before, st.pair_count, t.train_users, t.train_count, t.catalog_size
FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column, rank_column,
        relevance_column, "by", run_lists, judgment_lists) AS s
LEFT JOIN rm_item_stats(interactions) AS st ON rm_bytewise(st.stats_item_id) = rm_bytewise(s.item_id)
CROSS JOIN rm_train_totals(interactions, catalog) AS t;

-- Intersection (intersection.sql) compares the run with a second run, the reference (another model's
-- recommendations: RecTools' ref_reco), and reads the stream with, beside each row, its item's rank in the reference
-- for the same query (ref_pos; NULL for an item the reference does not have there). The reference is a table in
-- the run's shape (the same column names, groups and lists) and is ranked exactly as the run is: by rm_stream,
-- with the same ties, judged_only and grades. (Its ids are ref_query_id and ref_item_id: a second item_id in the
-- join would make ClickHouse rename the stream's s.* columns; the metric reads ref_pos on 'R' rows only.)
CREATE OR REPLACE MACRO rm_reference_stream(run, judgments, reference, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS TABLE
SELECT s.*, rf.ref_pos
FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column, rank_column,
        relevance_column, "by", run_lists, judgment_lists) AS s
LEFT JOIN (
    SELECT x.query_id AS ref_query_id, x.item_id AS ref_item_id, x.pos AS ref_pos
    FROM rm_stream(reference, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS x
    WHERE x.kind = 'R'
) AS rf
    ON rm_bytewise(rf.ref_query_id) = rm_bytewise(s.query_id) AND rm_bytewise(rf.ref_item_id) = rm_bytewise(s.item_id);

-- The reference's first fault, as the run's (rm_run_fault: an item twice in a query, a row without an id or a
-- finite score), NULL when it is clean.
CREATE OR REPLACE MACRO rm_valid_reference(reference, query_column, item_column, score_column, rank_column, "by",
        run_lists) AS
    (SELECT rm_fail(replace(replace(MIN(r.fault), ' in the run', ' in the reference'), ' of the run ',
                            ' of the reference '))
     FROM rm_run_fault(reference, query_column, item_column, score_column, rank_column, "by", run_lists) AS r
     HAVING COUNT(*) > 0) IS NULL;

-- The catalog-wide metrics (CatalogCoverage, Gini, entropy) read the stream with the catalog's size beside each
-- row: the distinct items of the catalog table (item_id).
CREATE OR REPLACE MACRO rm_catalog_totals(catalog) AS TABLE
SELECT COUNT(DISTINCT CAST(c.item_id AS VARCHAR)) AS catalog_size
FROM query_table(catalog) AS c;

CREATE OR REPLACE MACRO rm_catalog_stream(run, judgments, catalog, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS TABLE
SELECT s.*, t.catalog_size
FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column, rank_column,
        relevance_column, "by", run_lists, judgment_lists) AS s
CROSS JOIN rm_catalog_totals(catalog) AS t;

-- The diversity measures (diversity.sql: alpha-nDCG, ERR-IA, NRBP, P-IA, AP-IA, subtopic recall, ...; ndeval's
-- definitions) read subtopic judgments: TREC diversity qrels, 'query subtopic item grade', whose second column is
-- the subtopic (trec_eval ignores it as the "iteration"). A subtopic judgment is one (query, subtopic, item):
-- the judgments table has a subtopic column (subtopic_column), and an item is relevant to a subtopic when its
-- grade reaches the relevance level rel (ndeval's judgments are binary). Groups ("by") and judgment lists are
-- not read here (the diversity macros refuse them).
CREATE OR REPLACE MACRO rm_subtopic_items(judgments, grades, rel, query_column, item_column, relevance_column,
        subtopic_column) AS TABLE
SELECT
    struct_pack(query_id := w.query_id) AS query_id,
    w.item_id,
    w.subtopic,
    rm_grade(w.relevance, grades) AS grade,
    rm_grade(w.relevance, grades) >= rel AS relevant
FROM (
    SELECT
        CAST(COLUMNS(lambda c: lower(c) = lower(query_column)) AS VARCHAR) AS query_id,
        CAST(COLUMNS(lambda c: lower(c) = lower(item_column)) AS VARCHAR) AS item_id,
        -- NULL without such a column (COLUMNS then picks the dummy), which rm_subtopic_input_fault reports
        CAST(COALESCE(*COLUMNS(lambda c: lower(c) = lower(subtopic_column) OR c = 'rm_no_subtopic')) AS VARCHAR) AS subtopic,
        COALESCE(CAST(COLUMNS(lambda c: lower(c) = lower(relevance_column)) AS DOUBLE), 1) AS relevance
    FROM (SELECT *, NULL AS rm_no_subtopic FROM query_table(judgments)) AS w
) AS w;

-- A subtopic judged twice for an item of a query, a judgment without a subtopic (or no subtopic column), or an
-- item twice in the run: the first such fault, or NULL.
CREATE OR REPLACE MACRO rm_subtopic_input_fault(run, judgments, grades, query_column, item_column, score_column,
        rank_column, relevance_column, subtopic_column, "by", run_lists) AS TABLE
SELECT MIN(d.fault) AS fault
FROM (
    SELECT r.fault FROM rm_run_fault(run, query_column, item_column, score_column, rank_column, "by", run_lists) AS r
    UNION ALL
    SELECT 'rankmetrics: item ' || x.item_id || ' of query ' || x.query_id.query_id || ' is judged '
        || CAST(COUNT(*) AS VARCHAR) || ' times for subtopic ' || x.subtopic AS fault
    FROM rm_subtopic_items(judgments, grades, 1, query_column, item_column, relevance_column, subtopic_column) AS x
    GROUP BY x.query_id, x.subtopic, x.item_id
    HAVING COUNT(*) > 1
    UNION ALL
    SELECT 'rankmetrics: the judgment of item ' || x.item_id || ' for query ' || x.query_id.query_id
        || ' has no subtopic (the judgments need a column ''' || subtopic_column || ''': subtopic_column)' AS fault
    FROM rm_subtopic_items(judgments, grades, 1, query_column, item_column, relevance_column, subtopic_column) AS x
    WHERE x.subtopic IS NULL
) AS d;

CREATE OR REPLACE MACRO rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column,
        rank_column, relevance_column, subtopic_column, "by", run_lists) AS
    (SELECT rm_fail(f.fault) FROM rm_subtopic_input_fault(run, judgments, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists) AS f
     WHERE f.fault IS NOT NULL) IS NULL;

-- ndeval's ideal ranking of a query's relevant items (idealResult in ndeval.c; computing the best one is
-- NP-hard): greedy, rank by rank, the item that adds the most gain, the sum over its relevant subtopics of
-- (1 - alpha)^(items already placed that are relevant to the subtopic); equal gains go to the greatest item id
-- (byte-wise, as ndeval's strcmp). Gains are compared rounded to 12 decimals, so that the order in which a sum
-- adds its terms cannot split a tie that ndeval sees. One row per relevant item: its ideal rank (ipos). Items
-- relevant to no subtopic add nothing wherever they go, so they are left out. Each step of the recursion carries
-- the relevant (item, subtopic) pairs not yet placed, each with its subtopic's items placed so far (covered), and
-- the pairs of the item it places (with their rank, ipos). Only the first depth ranks are placed
-- (a measure cut at k reads no deeper; NULL: every relevant item; 0: none, for the measures that read no ideal).
CREATE OR REPLACE MACRO rm_subtopic_ideal(judgments, grades, rel, alpha, depth, query_column, item_column,
        relevance_column, subtopic_column) AS TABLE
WITH RECURSIVE greedy(query_id, item_id, subtopic, covered, ipos, step) AS (
    -- the relevant (item, subtopic) pairs, none placed yet
    SELECT x.query_id, x.item_id, x.subtopic, 0, CAST(NULL AS BIGINT), 0
    FROM rm_subtopic_items(judgments, grades, rel, query_column, item_column, relevance_column, subtopic_column) AS x
    WHERE x.relevant AND (depth IS NULL OR depth > 0)
    UNION ALL
    -- a step: of the pairs not yet placed, those of each query's best item get the next rank (ipos), and the
    -- others count it in covered when it is relevant to their subtopic
    SELECT b.query_id, b.item_id, b.subtopic, b.covered + b.hit, CASE WHEN b.choice = 1 THEN b.step + 1 END,
        b.step + 1
    FROM (
        SELECT c.*, MAX(CASE WHEN c.choice = 1 THEN 1 ELSE 0 END) OVER (PARTITION BY c.query_id, c.subtopic) AS hit
        FROM (
            SELECT v.*,
                DENSE_RANK() OVER (PARTITION BY v.query_id ORDER BY v.gain DESC, rm_bytewise(v.item_id) DESC) AS choice
            FROM (
                SELECT g.*,
                    ROUND(SUM(POWER(1 - CAST(alpha AS DOUBLE), g.covered)) OVER (PARTITION BY g.query_id, g.item_id),
                          12) AS gain
                FROM greedy AS g
                WHERE g.ipos IS NULL
            ) AS v
        ) AS c
    ) AS b
    WHERE depth IS NULL OR b.step < depth
)
SELECT DISTINCT g.query_id, g.item_id, g.ipos FROM greedy AS g WHERE g.ipos IS NOT NULL;

-- The stream of the diversity measures, one row per item and subtopic it is relevant to:
--   'R' rows: each retrieved item at its rank (pos, from rm_stream: the same ranking and ties as every metric;
--             with judged_only, unjudged items are dropped and the others ranked again in the same order), once
--             per subtopic it is relevant to (subtopic NULL for an item relevant to none)
--   'J' rows: each subtopic judgment (subtopic NULL when not relevant), pos the item's rank in ndeval's greedy
--             ideal ranking to rank depth (rm_subtopic_ideal; NULL for an item relevant to no subtopic, or
--             placed deeper)
-- and on each row: seen, the rows of its query, kind and subtopic ranked above it (the items above it relevant to
-- its subtopic), and sub_rel, the items judged relevant to its subtopic.
CREATE OR REPLACE MACRO rm_subtopic_stream(run, judgments, rel, alpha, depth, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS TABLE
SELECT
    u.*,
    ROW_NUMBER() OVER (PARTITION BY u.query_id, u.kind, u.subtopic ORDER BY u.pos ASC NULLS LAST) - 1 AS seen,
    SUM(CASE WHEN u.kind = 'J' AND u.subtopic IS NOT NULL THEN 1 ELSE 0 END)
        OVER (PARTITION BY u.query_id, u.subtopic) AS sub_rel
FROM (
SELECT r.query_id, 'R' AS kind, r.item_id, j.subtopic, r.pos
FROM (
    SELECT
        ranked.query_id,
        ranked.item_id,
        ROW_NUMBER() OVER (PARTITION BY ranked.query_id ORDER BY ranked.pos ASC NULLS LAST) AS pos
    FROM (
        SELECT DISTINCT s.query_id, s.item_id, s.pos
        FROM rm_stream(run, judgments, ties, FALSE, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists) AS s
        WHERE s.kind = 'R'
    ) AS ranked
    WHERE NOT rm_flag(judged_only)
       OR EXISTS (SELECT 1
                  FROM rm_subtopic_items(judgments, grades, rel, query_column, item_column, relevance_column,
                      subtopic_column) AS jo
                  WHERE rm_bytewise(jo.query_id.query_id) = rm_bytewise(ranked.query_id.query_id)
                    AND rm_bytewise(jo.item_id) = rm_bytewise(ranked.item_id) AND jo.grade >= 0)
) AS r
LEFT JOIN (
    SELECT x.query_id, x.item_id, x.subtopic
    FROM rm_subtopic_items(judgments, grades, rel, query_column, item_column, relevance_column, subtopic_column) AS x
    WHERE x.relevant
) AS j
    ON rm_bytewise(j.query_id.query_id) = rm_bytewise(r.query_id.query_id)
    AND rm_bytewise(j.item_id) = rm_bytewise(r.item_id)
UNION ALL
SELECT x.query_id, 'J' AS kind, x.item_id, CASE WHEN x.relevant THEN x.subtopic END AS subtopic, i.ipos AS pos
FROM rm_subtopic_items(judgments, grades, rel, query_column, item_column, relevance_column, subtopic_column) AS x
LEFT JOIN rm_subtopic_ideal(judgments, grades, rel, alpha, depth, query_column, item_column, relevance_column,
        subtopic_column) AS i
    ON i.query_id = x.query_id AND i.item_id = x.item_id
) AS u;

-- IntraListDiversity reads the stream with, on each retrieved row whose item has a vector in the catalog
-- (vectors: a table of item_id and embedding, a list of numbers per item, all of one length), the vector's length
-- (dims), the sum of its cosine similarities to the items with a vector ranked above it (sim_above) and the
-- positions at which it equals them, summed over them (same_above): the sums over the pairs of a query's top k
-- are the sums of these over its top k rows. NULL on the rows of items without a vector; read on 'R' rows only.
-- rm_item_vectors: one row per item and position (vec_dim) of its vector, the value vec_value.
CREATE OR REPLACE MACRO rm_item_vectors(vectors) AS TABLE
SELECT CAST(v.item_id AS VARCHAR) AS vec_item_id, GENERATE_SUBSCRIPTS(v.embedding, 1) AS vec_dim,
    CAST(UNNEST(v.embedding) AS DOUBLE) AS vec_value
FROM query_table(vectors) AS v;

-- The vectors as evaluate() takes them (inputs.py): one row per item, each a list of finite numbers, all of one
-- length. Otherwise the pairs of an item listed twice were summed twice, an item without a list (NULL, empty)
-- was left out of its lists' pairs, and lists of other lengths were compared on their common positions: a
-- number, with no word. rm_vector_fault: one row per fault (its message as fault), read by the macro
-- (rm_valid_vectors) and, over the CTEs item_vectors and vector_rows, by the rendered SQL's checks
-- (sqlgen.vector_faults). rm_vector_rows: the vectors' items, one row per row of the table.
CREATE OR REPLACE MACRO rm_vector_rows(vectors) AS TABLE
SELECT CAST(v.item_id AS VARCHAR) AS vec_item_id FROM query_table(vectors) AS v;

CREATE OR REPLACE MACRO rm_vector_fault(vectors) AS TABLE
SELECT 'rankmetrics: item ' || r.vec_item_id || ' has ' || CAST(COUNT(*) AS VARCHAR)
       || ' rows in the vectors table (give one row per item)' AS fault
FROM rm_vector_rows(vectors) AS r
GROUP BY r.vec_item_id
HAVING COUNT(*) > 1
UNION ALL
SELECT 'rankmetrics: item ' || COALESCE(r.vec_item_id, 'NULL')
       || ' of the vectors table has no list of finite numbers (NULL or empty)' AS fault
FROM rm_vector_rows(vectors) AS r
LEFT JOIN (SELECT DISTINCT iv.vec_item_id FROM rm_item_vectors(vectors) AS iv) AS d ON d.vec_item_id = r.vec_item_id
WHERE d.vec_item_id IS NULL
UNION ALL
SELECT 'rankmetrics: item ' || iv.vec_item_id || ' of the vectors table has a value that is not a finite number ('
       || COALESCE(CAST(iv.vec_value AS VARCHAR), 'NULL') || ')' AS fault
FROM rm_item_vectors(vectors) AS iv
WHERE rm_not_finite(iv.vec_value)
UNION ALL
SELECT CASE WHEN MIN(n.dims) <> MAX(n.dims)
            THEN 'rankmetrics: the vectors table has lists of different lengths (' || CAST(MIN(n.dims) AS VARCHAR)
                 || ' to ' || CAST(MAX(n.dims) AS VARCHAR) || '; give one length)' END AS fault
FROM (SELECT iv.vec_item_id, COUNT(*) AS dims FROM rm_item_vectors(vectors) AS iv GROUP BY iv.vec_item_id) AS n;

CREATE OR REPLACE MACRO rm_valid_vectors(vectors) AS
    (SELECT rm_fail(f.fault) FROM rm_vector_fault(vectors) AS f WHERE f.fault IS NOT NULL LIMIT 1) IS NULL;

CREATE OR REPLACE MACRO rm_vector_stream(run, judgments, vectors, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS TABLE
SELECT s.*, a.dims, a.sim_above, a.same_above
FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column, rank_column,
        relevance_column, "by", run_lists, judgment_lists) AS s
LEFT JOIN (
    SELECT e.query_id, e.pos, COUNT(*) AS dims, SUM(e.unit * e.unit_above) AS sim_above,
        SUM(e.same_above) AS same_above
    FROM (
        SELECT r.query_id, r.pos, u.unit,
            SUM(u.unit) OVER (PARTITION BY r.query_id, u.vec_dim ORDER BY r.pos
                              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - u.unit AS unit_above,
            COUNT(*) OVER (PARTITION BY r.query_id, u.vec_dim, u.vec_value ORDER BY r.pos
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1 AS same_above
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
                rank_column, relevance_column, "by", run_lists, judgment_lists) AS r
        JOIN (
            SELECT iv.vec_item_id, iv.vec_dim, iv.vec_value,
                -- an all-zero vector has no direction: its unit vector is taken as zero (cosine similarity 0 to
                -- every vector, distance 1; docs/conventions.md), not NULL, which left its pairs out
                COALESCE(iv.vec_value / NULLIF(SQRT(SUM(iv.vec_value * iv.vec_value) OVER (PARTITION BY iv.vec_item_id)), 0),
                         0) AS unit
            FROM rm_item_vectors(vectors) AS iv
        ) AS u ON rm_bytewise(u.vec_item_id) = rm_bytewise(r.item_id)
        WHERE r.kind = 'R'
    ) AS e
    GROUP BY e.query_id, e.pos
) AS a ON a.query_id = s.query_id AND a.pos = s.pos;
