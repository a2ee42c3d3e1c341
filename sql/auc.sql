-- ROC AUC of each query's ranking (RecTools' PartialAUC and PAP, rectools/metrics/auc.py). The positives are the
-- judged items with a grade >= rel (all of them, retrieved or not); the negatives are the other retrieved items
-- (judged non-relevant or unjudged, as RecTools counts every recommended item outside the test interactions). A
-- relevant item the run does not retrieve ranks below every negative. On a retrieved relevant row, running (the
-- relevant items at or above it, rm_running_rel) gives the negatives above it: pos - running.
--
-- pAUC@k: the k top-ranked negatives against every positive: each retrieved positive with fewer than k negatives
-- above it scores k - (negatives above), over k x |G|. PAP@k (pAp@k): the same over the top min(k, |G|)
-- positives, over k x min(k, |G|): like P@k when |G| >= k, like pAUC@k otherwise. A run with fewer than k
-- negatives counts the missing ones as ranked below every positive it retrieved (RecTools' insufficient_handling
-- 'ignore'). AUC: the whole list (every retrieved negative). Without a relevant item each is 0, or NULL with
-- empty := 'nan'.
CREATE OR REPLACE MACRO rm_partial_auc(kind, pos, grade, running, k, top, lvl) AS
    rm_ratio(
        SUM(CASE WHEN kind = 'R' AND grade >= lvl AND pos - running < k AND (top IS NULL OR running <= top)
                 THEN k - (pos - running) ELSE 0 END),
        CAST(k AS DOUBLE) * CASE WHEN top IS NULL THEN rm_num_rel(kind, grade, lvl)
                                 ELSE LEAST(rm_num_rel(kind, grade, lvl), top) END);

-- AUC over the whole list: every retrieved relevant item scores the negatives below it, (retrieved relevant x
-- negatives - the negatives above them) / (negatives x |G|); NULL without a retrieved negative.
CREATE OR REPLACE MACRO rm_auc(kind, pos, grade, running, lvl) AS
    rm_ratio(
        CAST(rm_hits(kind, pos, grade, lvl, NULL) AS DOUBLE)
            * SUM(CASE WHEN kind = 'R' AND (grade IS NULL OR grade < lvl) THEN 1 ELSE 0 END)
            - SUM(CASE WHEN kind = 'R' AND grade >= lvl THEN pos - running ELSE 0 END),
        CAST(SUM(CASE WHEN kind = 'R' AND (grade IS NULL OR grade < lvl) THEN 1 ELSE 0 END) AS DOUBLE)
            * rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO partial_auc(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_partial_auc(f.kind, f.pos, f.grade, f.running_rel, k, NULL, rel),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'partial_auc', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('partial_auc', k)
        AND rm_valid_rel('partial_auc', rel)
        AND rm_valid_stream('partial_auc', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('partial_auc', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO pap(run, judgments, k := NULL, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_partial_auc(f.kind, f.pos, f.grade, f.running_rel, k, k, rel),
              rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'pap', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('pap', k)
        AND rm_valid_rel('pap', rel)
        AND rm_valid_stream('pap', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('pap', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

CREATE OR REPLACE MACRO auc(run, judgments, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    CASE WHEN empty = 'nan' AND rm_num_rel(f.kind, f.grade, rel) = 0 THEN NULL
         WHEN rm_num_rel(f.kind, f.grade, rel) = 0 THEN CAST(0 AS DOUBLE)
         ELSE rm_auc(f.kind, f.pos, f.grade, f.running_rel, rel)
    END AS value
FROM (
    SELECT s.*, rm_running_rel(s.query_id, s.kind, s.pos, s.grade, rel) AS running_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('auc', rel)
        AND rm_valid_stream('auc', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('auc', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- GAUC (group AUC; Zhou et al. 2018, "Deep Interest Network", section 6.2): each query's AUC over its
-- impressions, the judged items the run scores (positives: grade >= rel, negatives: judged below it; unjudged
-- items were not shown), as scikit-learn's roc_auc_score on them (a tied positive and negative count 1/2; scores
-- as given, or minus the rank for a run without scores), then one value for the whole run (per group with "by"):
-- the mean weighted by each query's impressions (weighted := 'true') or the plain mean ('false'). A query with
-- only positives or only negatives has no AUC and is left out (of the weights too). neg_upto: the negatives
-- scored at or below the row (the default frame of an ordered window, RANGE ... CURRENT ROW, holds the rows tied
-- with it); neg_tied: those scored equal to it.
CREATE OR REPLACE MACRO rm_impression_auc(grade, neg_upto, neg_tied, lvl) AS
    rm_ratio(SUM(CASE WHEN grade >= lvl THEN neg_upto - 0.5 * neg_tied ELSE 0 END),
             CAST(SUM(CASE WHEN grade >= lvl THEN 1 ELSE 0 END) AS DOUBLE)
                 * SUM(CASE WHEN grade < lvl THEN 1 ELSE 0 END));

CREATE OR REPLACE MACRO gauc(run, judgments, rel := 1, weighted := 'true',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(i.group_key),
    rm_ratio(SUM(CASE WHEN weighted = 'true' THEN i.impressions ELSE 1 END * i.auc),
             SUM(CASE WHEN i.auc IS NULL THEN 0 WHEN weighted = 'true' THEN i.impressions ELSE 1 END)) AS value
FROM (
    SELECT rm_group_of(f.query_id) AS group_key, f.query_id,
        SUM(CASE WHEN f.grade IS NOT NULL THEN 1 ELSE 0 END) AS impressions,
        rm_impression_auc(f.grade, f.neg_upto, f.neg_tied, rel) AS auc
    FROM (
        SELECT s.*,
            SUM(CASE WHEN s.grade < rel THEN 1 ELSE 0 END) OVER (
                PARTITION BY s.query_id ORDER BY COALESCE(s.score, -CAST(s.pos AS DOUBLE)) NULLS LAST) AS neg_upto,
            SUM(CASE WHEN s.grade < rel THEN 1 ELSE 0 END) OVER (
                PARTITION BY s.query_id, COALESCE(s.score, -CAST(s.pos AS DOUBLE))) AS neg_tied
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
        WHERE s.kind = 'R'  -- the unjudged items too (no impression): a run with no judged item has one row
    ) AS f
    GROUP BY rm_group_of(f.query_id), f.query_id
) AS i
CROSS JOIN (SELECT rm_valid_rel('gauc', rel)
        AND rm_valid(weighted IN ('false', 'true'), 'gauc', 'weighted', '''false'' or ''true''', weighted)
        AND rm_valid_stream('gauc', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('gauc', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY i.group_key;
