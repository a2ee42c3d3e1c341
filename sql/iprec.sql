-- IPrec (trec_eval iprec_at_recall, ir_measures IPrec@r): interpolated precision at the recall level at_recall,
-- the highest precision at any rank at or below the c-th relevant retrieved item, c = the level times |G|
-- rounded half away from zero (iprec_rounding 'nearest': trec_eval 10's lround) or plus 0.9 and truncated ('v9':
-- trec_eval 9, pytrec_eval); c = 0 counts as 1, and the value is 0 when fewer than c relevant items are retrieved.
-- A level outside 0 to 1 is taken as trec_eval takes it (`-m iprec_at_recall.1.2`): its c by the same rounding, so
-- above 1 the value is 0 unless c rounds to |G| (1.2 of 2: c = 2), and below 0 c counts as 1. Precision rises
-- only at a relevant item, so the highest precision at or below a rank is the highest running / pos over the
-- relevant rows from there on (m_iprec_at_recall.c loops backwards instead).
-- the count in double precision, as trec_eval's C (0.7 x 3 + 0.9 is 2.9999999999999996 there, so 2 with 'v9')
CREATE OR REPLACE MACRO rm_iprec_count(at_recall, query_num_rel, rounding) AS
    FLOOR(CAST(at_recall AS DOUBLE) * query_num_rel + CASE WHEN rounding = 'v9' THEN 0.9 ELSE 0.5 END);

CREATE OR REPLACE MACRO rm_iprec(kind, pos, grade, running, query_num_rel, lvl, at_recall, rounding) AS
    COALESCE(MAX(CASE WHEN kind = 'R' AND grade >= lvl
                       AND running >= CASE WHEN rm_iprec_count(at_recall, query_num_rel, rounding) < 1 THEN 1
                                           ELSE rm_iprec_count(at_recall, query_num_rel, rounding) END
                      THEN CAST(running AS DOUBLE) / pos END),
             CAST(0 AS DOUBLE));

CREATE OR REPLACE MACRO iprec_at_recall(run, judgments, at_recall := 0.0, rel := 1, iprec_rounding := 'nearest',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_iprec(f.kind, f.pos, f.grade, f.running_rel, f.query_num_rel, rel, at_recall, iprec_rounding),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel,
           rm_query_num_rel(s.query_id, s.kind, s.grade, rel) AS query_num_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('iprec_at_recall', rel)
        AND rm_valid(rm_valid_number(at_recall), 'iprec_at_recall', 'at_recall', 'a finite number (a recall level)',
                     at_recall)
        AND rm_valid_choice('iprec_at_recall', 'iprec_rounding', iprec_rounding, ['nearest', 'v9'])
        AND rm_valid_stream('iprec_at_recall', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('iprec_at_recall', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- 11pt_avg (trec_eval): the mean of the interpolated precision at trec_eval's eleven recall levels 0.0 to 1.0
-- (m_11pt_avg.c).
CREATE OR REPLACE MACRO rm_11pt_avg(kind, pos, grade, running, query_num_rel, lvl, rounding) AS
    (rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.0, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.1, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.2, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.3, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.4, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.5, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.6, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.7, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.8, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 0.9, rounding)
    + rm_iprec(kind, pos, grade, running, query_num_rel, lvl, 1.0, rounding)) / 11;

CREATE OR REPLACE MACRO eleven_pt_avg(run, judgments, rel := 1, iprec_rounding := 'nearest',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_11pt_avg(f.kind, f.pos, f.grade, f.running_rel, f.query_num_rel, rel, iprec_rounding),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel,
           rm_query_num_rel(s.query_id, s.kind, s.grade, rel) AS query_num_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('eleven_pt_avg', rel)
        AND rm_valid_choice('eleven_pt_avg', 'iprec_rounding', iprec_rounding, ['nearest', 'v9'])
        AND rm_valid_stream('eleven_pt_avg', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('eleven_pt_avg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
