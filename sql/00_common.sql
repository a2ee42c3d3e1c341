-- rankmetrics-duckdb: shared building blocks of every metric.
--
-- Every metric reads one row stream per query (see 01_stream.sql):
--   kind  'R' a retrieved item (pos = its rank in the run, 1 is best)
--         'J' a judged item    (pos = its rank in the ideal ordering, highest grade first; items of equal
--                                grade in any order: only gain(grade) x discount(pos) is ever read on 'J' rows)
--         'Q' a query of a run of lists whose list is empty: in the run, it retrieved nothing (no item, grade or
--             rank). Only the query sets read it (rm_reported): a measure counts 'R' and 'J' rows, never rows of
--             any kind
--   grade the item's relevance grade, NULL when the item is not judged
--   ipos  for 'R' rows, the item's rank when the retrieved list is re-sorted by grade (for ideal rankings)
--   score the run's score ('R' rows), used to find tied items
-- A metric is an aggregate over that stream, grouped by query. Macros in this file are small expressions
-- shared by the metrics. They are written in portable SQL: the Python package expands them and renders the
-- result for other engines with sqlglot, so no DuckDB-only syntax here (see rankmetrics_duckdb/sqlsource.py).

-- Byte-wise comparison of ids (trec_eval compares ids with strcmp), in orderings and in the joins of the stream.
-- DuckDB compares strings byte-wise already; the dialect layer rewrites this marker for engines that need a
-- collation (PostgreSQL: COLLATE "C"; SQL Server's case-insensitive default would match item AB with ab).
CREATE OR REPLACE MACRO rm_bytewise(x) AS x;

-- Fail the statement with a message naming the fault (a duplicate item, a conflicting judgment): DuckDB's
-- error(); the dialect layer writes each engine's own way (dialects.Dialect.fail: raise_error, throwIf, ...).
CREATE OR REPLACE MACRO rm_fail(msg) AS error(msg);

-- A number that is not finite: NULL, NaN or infinite. x - x is 0 for a finite x and NaN otherwise (NULL on an
-- engine without NaN: SQLite), and NaN <> 0 holds both under IEEE comparison and where NaN sorts above every
-- number (DuckDB, PostgreSQL, Spark). The input checks refuse such a score or grade (as the Python routes do):
-- NULL and NaN have no place in a ranking that every engine agrees on.
CREATE OR REPLACE MACRO rm_not_finite(x) AS (x - x IS NULL OR x - x <> 0);

-- A flag argument (judged_only) as a boolean, NULL when it is none, so that a nonsense value ('maybe') reaches the
-- macro's own check (rm_valid_stream) and its message: DuckDB 2 folds `NOT 'maybe'` while planning, which would
-- fail first with a bare conversion error. The Python package checks its flags before writing SQL, so its
-- expansion (sqlsource.IDENTITIES) is the argument itself.
CREATE OR REPLACE MACRO rm_flag(x) AS COALESCE(TRY_CAST(x AS BOOLEAN), FALSE);

-- Is pos inside the cutoff k? A NULL cutoff means the whole list.
CREATE OR REPLACE MACRO rm_within(pos, k) AS (k IS NULL OR pos <= k);

-- 1 for a retrieved item whose grade reaches the relevance level lvl, else 0.
CREATE OR REPLACE MACRO rm_is_rel_ret(kind, grade, lvl) AS
    CASE WHEN kind = 'R' AND grade >= lvl THEN 1 ELSE 0 END;

-- Relevant retrieved items in the top k.
CREATE OR REPLACE MACRO rm_hits(kind, pos, grade, lvl, k) AS
    SUM(CASE WHEN kind = 'R' AND grade >= lvl AND rm_within(pos, k) THEN 1 ELSE 0 END);

-- Retrieved items in the top k (fewer than k when the run is short).
CREATE OR REPLACE MACRO rm_retrieved(kind, pos, k) AS
    SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) THEN 1 ELSE 0 END);

-- Number of judged items of the query whose grade reaches the relevance level (|G|).
CREATE OR REPLACE MACRO rm_num_rel(kind, grade, lvl) AS
    SUM(CASE WHEN kind = 'J' AND grade >= lvl THEN 1 ELSE 0 END);

-- Number of judged items of the query below the relevance level (judged non-relevant).
CREATE OR REPLACE MACRO rm_num_nonrel(kind, grade, lvl) AS
    SUM(CASE WHEN kind = 'J' AND grade < lvl THEN 1 ELSE 0 END);

-- num / den as a double, NULL when den is 0.
CREATE OR REPLACE MACRO rm_ratio(num, den) AS CAST(num AS DOUBLE) / NULLIF(den, 0);

-- Gain of a grade: linear (the grade), exponential (2^grade - 1) or binary (1). Grades that are missing,
-- not positive, or below the gain level glvl give no gain. raw: the grade as given, whatever it is (scikit-learn's
-- dcg_score and ndcg_score take y_true as the gain: 0.5 gives 0.5, a negative grade a negative gain); none when
-- missing.
CREATE OR REPLACE MACRO rm_gain(grade, gain, glvl) AS
    CASE
        WHEN gain = 'raw' THEN COALESCE(CAST(grade AS DOUBLE), CAST(0 AS DOUBLE))
        WHEN grade IS NULL OR grade <= 0 OR grade < glvl THEN CAST(0 AS DOUBLE)
        WHEN gain = 'exponential' THEN POWER(CAST(2 AS DOUBLE), grade) - 1
        WHEN gain = 'binary' THEN CAST(1 AS DOUBLE)
        ELSE CAST(grade AS DOUBLE)
    END;

-- The gain of a grade with trec_eval's gain map (m_ndcg.c: -m ndcg.1=3,2=9,4=4.5; ir_measures' gains={...}):
-- gains is '' (none) or 'level=gain,...' with whole levels >= 0; a judged grade listed there gets its gain (a
-- level 0 or a negative gain too), any other grade its gain as rm_gain says.
CREATE OR REPLACE MACRO rm_gain_key(grade) AS ',' || CAST(CAST(grade AS BIGINT) AS VARCHAR) || '=';

CREATE OR REPLACE MACRO rm_gain_of(grade, gain, glvl, gains) AS
    CASE
        WHEN gains <> '' AND grade >= 0 AND grade = FLOOR(grade)
             AND POSITION(rm_gain_key(grade) IN ',' || gains) > 0
            THEN CAST(SUBSTRING(',' || gains || ',',
                                POSITION(rm_gain_key(grade) IN ',' || gains) + LENGTH(rm_gain_key(grade)),
                                POSITION(',' IN SUBSTRING(',' || gains || ',',
                                    POSITION(rm_gain_key(grade) IN ',' || gains) + LENGTH(rm_gain_key(grade))))
                                    - 1) AS DOUBLE)
        ELSE rm_gain(grade, gain, glvl)
    END;

-- Log discount of a rank: 1 / log_base(pos + 1), written with ln so that every engine has it.
CREATE OR REPLACE MACRO rm_discount(pos, log_base) AS LN(CAST(log_base AS DOUBLE)) / LN(CAST(pos AS DOUBLE) + 1);

-- Final value of a metric for one query: a query with no relevant judgment is NULL (NaN, left out of the
-- means) when empty = 'nan', otherwise its value, and a value that had nothing to divide by is 0.
CREATE OR REPLACE MACRO rm_finish(value, num_rel, empty) AS
    CASE WHEN empty = 'nan' AND num_rel = 0 THEN NULL ELSE COALESCE(value, CAST(0 AS DOUBLE)) END;

-- Which queries a metric reports: 'both' (in the run and the judgments; trec_eval), 'judged' (every judged
-- query, missing ones score 0; trec_eval -c), 'run' (every query of the run) or 'all' (either side).
CREATE OR REPLACE MACRO rm_in_query_set(kind, queries) AS
    CASE
        WHEN queries = 'both' THEN SUM(CASE WHEN kind = 'R' THEN 1 ELSE 0 END) > 0
                               AND SUM(CASE WHEN kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN queries = 'judged' THEN SUM(CASE WHEN kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN queries = 'run' THEN SUM(CASE WHEN kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
    END;

-- Running count, in rank order, of the rows of the same query and kind whose grade reaches lvl
-- (the current row included).
CREATE OR REPLACE MACRO rm_running_rel(query_id, kind, pos, grade, lvl) AS
    SUM(CASE WHEN grade >= lvl THEN 1 ELSE 0 END)
        OVER (PARTITION BY query_id, kind ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

-- A per-query aggregate repeated on every row of the query (for metrics that compare a rank with |G|).
CREATE OR REPLACE MACRO rm_query_num_rel(query_id, kind, grade, lvl) AS
    SUM(CASE WHEN kind = 'J' AND grade >= lvl THEN 1 ELSE 0 END) OVER (PARTITION BY query_id);

-- Argument checks of the public table macros (DuckDB only: error() is DuckDB's). Each table macro joins one row,
--     CROSS JOIN (SELECT rm_valid_k('ndcg', k) AND ... AS ok) AS valid ... WHERE valid.ok
-- computed once whatever the inputs (empty ones too): an argument outside its range raises an error naming the
-- macro, the parameter and the value, instead of a silent fallback. sqlgen never reads that join (it takes the
-- features, the value and HAVING of a macro) and native.py strips it, so no SQL rendered for another engine
-- contains error(). A check that is NULL (a NULL or non-numeric argument) fails too.
CREATE OR REPLACE MACRO rm_valid(ok, macro, param, rule, value) AS
    CASE WHEN ok THEN TRUE
         ELSE error(macro || ': ' || param || ' must be ' || rule || ', not '
                    || COALESCE('''' || CAST(value AS VARCHAR) || '''', 'NULL')) END;

CREATE OR REPLACE MACRO rm_valid_number(x) AS isfinite(TRY_CAST(x AS DOUBLE));


CREATE OR REPLACE MACRO rm_valid_k(macro, k) AS
    rm_valid(k IS NULL OR (rm_valid_number(k) AND TRY_CAST(k AS DOUBLE) >= 1
                           AND TRY_CAST(k AS DOUBLE) = FLOOR(TRY_CAST(k AS DOUBLE))),
             macro, 'k', 'a whole number >= 1, or NULL for no cutoff', k);

CREATE OR REPLACE MACRO rm_valid_rel(macro, rel) AS
    rm_valid(rm_valid_number(rel), macro, 'rel', 'a finite number (the relevance level)', rel);

-- gains: '' or 'level=gain,...' (whole levels >= 0, each once; numeric gains), with the judgments' ideal only.
-- A level is written without leading zeros: rm_gain_of finds a grade's gain by the level's text (',1='), and
-- '01=10' matched no grade, which kept the default gain without a word. A level given twice is refused as the
-- command line refuses it (rm_gain_of would take the first); that second check has no portable form (its list
-- functions are DuckDB's): the native objects carry the pattern (native._macro_rules) and each engine's form of
-- the second (dialects.Dialect.distinct_levels); the dbt macros also check the levels when they compile.
CREATE OR REPLACE MACRO rm_valid_gains(macro, gains, ideal) AS
    rm_valid(gains = '' OR (regexp_full_match(gains, '(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*')
                            AND ideal = 'judgments'),
             macro, 'gains', 'level=gain pairs such as ''1=3,2=9'', levels without leading zeros (with ideal judgments)',
             gains)
    AND rm_valid(gains = '' OR len(list_distinct(regexp_extract_all(',' || gains, ',([0-9]+)=', 1)))
                               = len(string_split(gains, ',')),
                 macro, 'gains', 'level=gain pairs with each level once', gains);

CREATE OR REPLACE MACRO rm_valid_choice(macro, param, value, choices) AS
    rm_valid(list_contains(choices, TRY_CAST(value AS VARCHAR)), macro, param,
             'one of ' || array_to_string(choices, ', '), value);

-- The parameters of rm_stream and rm_finish that most macros share.
CREATE OR REPLACE MACRO rm_valid_stream(macro, ties, judged_only, queries, grades) AS
    rm_valid_choice(macro, 'ties', ties, ['item_desc', 'item_asc', 'average', 'input'])
    AND rm_valid_choice(macro, 'grades', grades, ['truncate', 'as_given'])
    AND rm_valid(TRY_CAST(judged_only AS BOOLEAN) IS NOT NULL, macro, 'judged_only', 'true or false', judged_only)
    AND rm_valid_choice(macro, 'queries', queries, ['both', 'judged', 'run', 'all']);

CREATE OR REPLACE MACRO rm_valid_empty(macro, empty) AS rm_valid_choice(macro, 'empty', empty, ['zero', 'nan']);

CREATE OR REPLACE MACRO rm_valid_gain(macro, gain) AS
    rm_valid_choice(macro, 'gain', gain, ['linear', 'exponential', 'binary', 'raw']);

CREATE OR REPLACE MACRO rm_valid_log_base(macro, log_base) AS
    rm_valid(rm_valid_number(log_base) AND TRY_CAST(log_base AS DOUBLE) > 1, macro, 'log_base',
             'a finite number > 1', log_base);

-- The logarithmic integral li(x) = gamma + ln ln x + sqrt(x) sum_{n >= 1} c_n (ln x)^n (Ramanujan's series,
-- c_n = (-1)^(n-1) / (n! 2^(n-1)) sum_{j=0}^{floor((n-1)/2)} 1 / (2j + 1)), 28 terms: error below 1e-11 up to
-- x = 1100, the range SDCG and nDCG's 'cutoff' ideal read. A flat sum, not Horner's nesting: SQLite's parser overflows on deep parentheses.
CREATE OR REPLACE MACRO rm_li(x) AS
    0.5772156649015329 + LN(LN(CAST(x AS DOUBLE))) + SQRT(CAST(x AS DOUBLE)) * (
        1.0 * LN(CAST(x AS DOUBLE)) + -0.25 * POWER(LN(CAST(x AS DOUBLE)), 2)
        + 0.05555555555555555 * POWER(LN(CAST(x AS DOUBLE)), 3) + -0.006944444444444444 * POWER(LN(CAST(x AS DOUBLE)), 4)
        + 0.0007986111111111112 * POWER(LN(CAST(x AS DOUBLE)), 5) + -6.655092592592593e-05 * POWER(LN(CAST(x AS DOUBLE)), 6)
        + 5.196523053665911e-06 * POWER(LN(CAST(x AS DOUBLE)), 7) + -3.2478269085411943e-07 * POWER(LN(CAST(x AS DOUBLE)), 8)
        + 1.92395470276588e-08 * POWER(LN(CAST(x AS DOUBLE)), 9) + -9.619773513829401e-10 * POWER(LN(CAST(x AS DOUBLE)), 10)
        + 4.595032957151163e-11 * POWER(LN(CAST(x AS DOUBLE)), 11) + -1.9145970654796514e-12 * POWER(LN(CAST(x AS DOUBLE)), 12)
        + 7.665424482554353e-14 * POWER(LN(CAST(x AS DOUBLE)), 13) + -2.737651600912269e-15 * POWER(LN(CAST(x AS DOUBLE)), 14)
        + 9.436669225201533e-17 * POWER(LN(CAST(x AS DOUBLE)), 15) + -2.9489591328754792e-18 * POWER(LN(CAST(x AS DOUBLE)), 16)
        + 8.925758821411961e-20 * POWER(LN(CAST(x AS DOUBLE)), 17) + -2.479377450392211e-21 * POWER(LN(CAST(x AS DOUBLE)), 18)
        + 6.689726105226863e-23 * POWER(LN(CAST(x AS DOUBLE)), 19) + -1.6724315263067158e-24 * POWER(LN(CAST(x AS DOUBLE)), 20)
        + 4.07086654448594e-26 * POWER(LN(CAST(x AS DOUBLE)), 21) + -9.251969419286227e-28 * POWER(LN(CAST(x AS DOUBLE)), 22)
        + 2.0513952492276501e-29 * POWER(LN(CAST(x AS DOUBLE)), 23) + -4.273740102557604e-31 * POWER(LN(CAST(x AS DOUBLE)), 24)
        + 8.701187477749344e-33 * POWER(LN(CAST(x AS DOUBLE)), 25) + -1.6733052841825663e-34 * POWER(LN(CAST(x AS DOUBLE)), 26)
        + 3.14939780145465e-36 * POWER(LN(CAST(x AS DOUBLE)), 27) + -5.623924645454731e-38 * POWER(LN(CAST(x AS DOUBLE)), 28));

-- sum_{m=2}^{n} 1 / ln(m) for n >= 1: twelve exact terms and the Euler-Maclaurin expansion at x = n + 12,
-- -0.24323834289098076 + li(x) + f(x) / 2 + f'(x) / 12 - f'''(x) / 720 + f'''''(x) / 30240 with f = 1 / ln (its
-- constant from the sum to 200000 in 50 digits; error below 1e-11 for n up to 1001).
CREATE OR REPLACE MACRO rm_inverse_log_sum(n) AS
    -0.24323834289098076 + rm_li(n + 12) + 1 / (2 * LN(CAST(n + 12 AS DOUBLE)))
        - 1 / (12 * CAST(n + 12 AS DOUBLE) * POWER(LN(CAST(n + 12 AS DOUBLE)), 2))
        + (POWER(LN(CAST(n + 12 AS DOUBLE)), 2) + 3 * LN(CAST(n + 12 AS DOUBLE)) + 3)
          / (360 * POWER(CAST(n + 12 AS DOUBLE), 3) * POWER(LN(CAST(n + 12 AS DOUBLE)), 4))
        - (12 * POWER(LN(CAST(n + 12 AS DOUBLE)), 4) + 50 * POWER(LN(CAST(n + 12 AS DOUBLE)), 3)
           + 105 * POWER(LN(CAST(n + 12 AS DOUBLE)), 2) + 120 * LN(CAST(n + 12 AS DOUBLE)) + 60)
          / (15120 * POWER(CAST(n + 12 AS DOUBLE), 5) * POWER(LN(CAST(n + 12 AS DOUBLE)), 6))
        - (1 / LN(CAST(n + 1 AS DOUBLE)) + 1 / LN(CAST(n + 2 AS DOUBLE)) + 1 / LN(CAST(n + 3 AS DOUBLE))
           + 1 / LN(CAST(n + 4 AS DOUBLE)) + 1 / LN(CAST(n + 5 AS DOUBLE)) + 1 / LN(CAST(n + 6 AS DOUBLE))
           + 1 / LN(CAST(n + 7 AS DOUBLE)) + 1 / LN(CAST(n + 8 AS DOUBLE)) + 1 / LN(CAST(n + 9 AS DOUBLE))
           + 1 / LN(CAST(n + 10 AS DOUBLE)) + 1 / LN(CAST(n + 11 AS DOUBLE)) + 1 / LN(CAST(n + 12 AS DOUBLE)));
