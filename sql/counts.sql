-- Counts, as trec_eval reports them (their mean row is a sum over queries):
--   num_q       1 for each evaluated query
--   num_ret     items retrieved
--   num_rel     relevant judged items |G|
--   num_rel_ret relevant items retrieved
CREATE OR REPLACE MACRO num_q(run, judgments,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT UNNEST(f.query_id), CAST(1 AS DOUBLE) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_stream('num_q', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO num_ret(run, judgments,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT UNNEST(f.query_id), CAST(rm_retrieved(f.kind, f.pos, NULL) AS DOUBLE) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_stream('num_ret', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO num_rel(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT UNNEST(f.query_id), CAST(rm_num_rel(f.kind, f.grade, rel) AS DOUBLE) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_rel('num_rel', rel)
        AND rm_valid_stream('num_rel', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO num_rel_ret(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT UNNEST(f.query_id), CAST(rm_hits(f.kind, f.pos, f.grade, rel, NULL) AS DOUBLE) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_rel('num_rel_ret', rel)
        AND rm_valid_stream('num_rel_ret', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- num_nonrel_judged_ret (trec_eval): judged items below the relevance level that were retrieved (a grade below 0
-- counts as unjudged, as in trec_eval) (m_num_nonrel_judged_ret.c).
CREATE OR REPLACE MACRO num_nonrel_judged_ret(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT UNNEST(f.query_id),
    CAST(SUM(CASE WHEN f.kind = 'R' AND f.grade >= 0 AND f.grade < rel THEN 1 ELSE 0 END) AS DOUBLE) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_rel('num_nonrel_judged_ret', rel)
        AND rm_valid_stream('num_nonrel_judged_ret', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
