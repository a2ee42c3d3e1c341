-- rankmetrics-duckdb: TREC files from SQL, for the SQL-only route (DuckDB only; not rendered for other engines).
--
--   CREATE VIEW run AS FROM trec_run('results.test');
--   CREATE VIEW judgments AS FROM trec_qrels('qrels.test');
--   SELECT avg(value) AS map FROM ap('run', 'judgments');
--
-- Fields are separated by any run of whitespace (spaces, tabs), as trec_eval reads them; blank lines and lines
-- starting with '#' are skipped. Exactly the named file is read (a name that would match other files as a
-- pattern is refused). A line with the wrong number of fields, or a number that is not one, is an error that
-- quotes the line. Ids stay text.

-- The lines of one file, split into fields: (p, line). A DuckDB CSV read of whole lines (no delimiter, quote
-- or escape character occurs in TREC text), keeping the file name to refuse glob patterns. The checks are in
-- WHERE clauses: a column that a query does not use (count(*)) is pruned, a filter never is.
CREATE OR REPLACE MACRO rm_trec_fields(path, fn) AS TABLE
SELECT string_split_regex(regexp_replace(l.line, '^\s+|\s+$', '', 'g'), '\s+') AS p, l.line AS line
FROM read_csv(path, columns = {'line': 'VARCHAR'}, delim = '\x01', header = false, quote = '', escape = '',
              auto_detect = false, filename = true) AS l
WHERE CASE
        WHEN l.filename <> path THEN error(fn || '(''' || path || '''): reads exactly one file, but the name '
                                           || 'matches ' || l.filename || ' as a pattern')
        ELSE l.line IS NOT NULL AND regexp_replace(l.line, '\s', '', 'g') <> '' AND NOT starts_with(ltrim(l.line), '#')
    END;

-- Judgments (qrels): 'qid iter docno relevance' -> (query_id, item_id, relevance, subtopic). The second column,
-- which trec_eval ignores, is kept as subtopic: in TREC diversity qrels ('qid subtopic docno relevance') it is
-- the subtopic the diversity measures (diversity.sql) read; the other metrics never read it.
CREATE OR REPLACE MACRO trec_qrels(path) AS TABLE
SELECT s.p[1] AS query_id, s.p[3] AS item_id, CAST(s.p[4] AS DOUBLE) AS relevance, s.p[2] AS subtopic
FROM rm_trec_fields(path, 'trec_qrels') AS s
WHERE CASE
        WHEN len(s.p) <> 4 THEN error('trec_qrels(''' || path || '''): ' || len(s.p) || ' fields where a qrels line '
                                      || 'has 4 (qid iter docno relevance): ' || s.line)
        WHEN TRY_CAST(s.p[4] AS DOUBLE) IS NULL THEN error('trec_qrels(''' || path || '''): relevance '''
                                                           || s.p[4] || ''' is not a number: ' || s.line)
        ELSE TRUE
    END;

-- A run: 'qid Q0 docno rank score tag' -> (query_id, item_id, rank, score). trec_eval orders by score and
-- ignores the rank column; the metric macros do too unless ties := 'input'.
CREATE OR REPLACE MACRO trec_run(path) AS TABLE
SELECT s.p[1] AS query_id, s.p[3] AS item_id, CAST(s.p[4] AS DOUBLE) AS rank, CAST(s.p[5] AS DOUBLE) AS score
FROM rm_trec_fields(path, 'trec_run') AS s
WHERE CASE
        WHEN len(s.p) <> 6 THEN error('trec_run(''' || path || '''): ' || len(s.p) || ' fields where a run line '
                                      || 'has 6 (qid Q0 docno rank score tag): ' || s.line)
        WHEN TRY_CAST(s.p[4] AS DOUBLE) IS NULL OR TRY_CAST(s.p[5] AS DOUBLE) IS NULL
            THEN error('trec_run(''' || path || '''): rank ''' || s.p[4] || ''' or score ''' || s.p[5]
                       || ''' is not a number: ' || s.line)
        ELSE TRUE
    END;
