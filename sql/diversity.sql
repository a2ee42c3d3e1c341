-- Diversity measures over subtopic judgments (TREC diversity qrels, 'query subtopic item grade'), as ndeval
-- (the TREC Web track's tool; ndeval.c 4.5, run through pyndeval) and ir_measures' pyndeval provider define them.
-- Each reads rm_subtopic_stream (01_stream.sql): 'R' rows, a retrieved item at its rank once per subtopic it is
-- relevant to; 'J' rows, the subtopic judgments at the item's rank in ndeval's greedy ideal ranking. Relevance
-- is binary (grade >= rel, 1 by default); S is the number of the query's subtopics with a relevant item (a
-- subtopic nobody judged relevant is not counted). A query with S = 0 is 0 (NULL with empty := 'nan').
--
-- Per row, seen = the items ranked above it that are relevant to its subtopic (in the run for 'R' rows, in the
-- ideal ranking for 'J' rows), and its novelty gain is (1 - alpha)^seen. The features:
--   seen      ROW_NUMBER() OVER (PARTITION BY query, kind, subtopic ORDER BY pos) - 1
--   sub_rel   the subtopic's relevant items (judged), repeated on each row of the subtopic

-- S, the subtopics of the query with a relevant item.
CREATE OR REPLACE MACRO rm_subtopics(kind, subtopic) AS COUNT(DISTINCT CASE WHEN kind = 'J' THEN subtopic END);

-- The sum, over rows of the kind within the cutoff that are relevant to their subtopic, of the novelty gain
-- times a rank weight w (the discount 1/log2(pos + 1), 1/pos, beta^(pos - 1)).
CREATE OR REPLACE MACRO rm_novelty_sum(kind, which, pos, subtopic, seen, alpha, k, w) AS
    SUM(CASE WHEN kind = which AND subtopic IS NOT NULL AND rm_within(pos, k)
             THEN POWER(1 - CAST(alpha AS DOUBLE), seen) * w ELSE 0 END);

-- ndeval's "ideal ideal" of ERR-IA@k: S items each relevant to every subtopic, sum over ranks i <= k of
-- S (1 - alpha)^(i - 1) / i. ndeval divides by it from rank 2 on only: ERR-IA@1 is the first item's gain.
CREATE OR REPLACE MACRO rm_err_ia_norm(subtopics, alpha, k) AS
    CASE WHEN k = 1 THEN CAST(1 AS DOUBLE)
         ELSE subtopics * list_sum(list_transform(range(1, CAST(k AS BIGINT) + 1),
                                                  lambda i: POWER(1 - CAST(alpha AS DOUBLE), i - 1) / i)) END;

-- The argument checks the diversity macros share.
CREATE OR REPLACE MACRO rm_valid_diversity(macro, alpha, "by", judgment_lists) AS
    rm_valid(rm_valid_number(alpha) AND TRY_CAST(alpha AS DOUBLE) >= 0 AND TRY_CAST(alpha AS DOUBLE) <= 1, macro,
             'alpha', 'a number from 0 to 1', alpha)
    AND rm_valid(len("by") = 0, macro, '"by"', 'empty (the diversity measures take no groups yet)', "by")
    AND rm_valid(NOT judgment_lists, macro, 'judgment_lists', 'false (subtopic judgments are rows)', judgment_lists);

-- alpha-nDCG@k (Clarke et al., SIGIR 2008; ndeval's alpha-nDCG@k, ir_measures' alpha_nDCG): the
-- novelty-discounted gain of the run's top k, each item's gain (the sum over its subtopics of (1 - alpha)^seen)
-- discounted by 1/log2(rank + 1), over the same sum for the greedy ideal ranking. 0 when the run gains nothing.
CREATE OR REPLACE MACRO alpha_ndcg(run, judgments, k := NULL, alpha := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, rm_discount(f.pos, 2)),
                        rm_novelty_sum(f.kind, 'J', f.pos, f.subtopic, f.seen, alpha, k, rm_discount(f.pos, 2))),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, alpha, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'alpha_ndcg', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('alpha_ndcg', k)
        AND rm_valid_rel('alpha_ndcg', rel)
        AND rm_valid_diversity('alpha_ndcg', alpha, "by", judgment_lists)
        AND rm_valid_stream('alpha_ndcg', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('alpha_ndcg', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- ERR-IA@k (Chapelle et al., CIKM 2009, intent aware; ndeval's ERR-IA@k, ir_measures' ERR_IA) with ndeval's
-- collection-independent normalisation: the sum over the top k of each item's novelty gain / its rank, over
-- rm_err_ia_norm (ndeval's ERR-IA@1 is not normalised: the first item's gain).
CREATE OR REPLACE MACRO err_ia(run, judgments, k := NULL, alpha := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, 1.0 / f.pos),
                        rm_err_ia_norm(rm_subtopics(f.kind, f.subtopic), alpha, k)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, alpha, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'err_ia', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('err_ia', k)
        AND rm_valid_rel('err_ia', rel)
        AND rm_valid_diversity('err_ia', alpha, "by", judgment_lists)
        AND rm_valid_stream('err_ia', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('err_ia', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- nERR-IA@k (ndeval's nERR-IA@k, ir_measures' nERR_IA): ERR-IA@k over the same sum for the greedy ideal
-- ranking (collection-dependent normalisation). 0 when the run gains nothing.
CREATE OR REPLACE MACRO nerr_ia(run, judgments, k := NULL, alpha := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, 1.0 / f.pos),
                        rm_novelty_sum(f.kind, 'J', f.pos, f.subtopic, f.seen, alpha, k, 1.0 / f.pos)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, alpha, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'nerr_ia', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('nerr_ia', k)
        AND rm_valid_rel('nerr_ia', rel)
        AND rm_valid_diversity('nerr_ia', alpha, "by", judgment_lists)
        AND rm_valid_stream('nerr_ia', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('nerr_ia', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- NRBP (novelty- and rank-biased precision, Clarke et al., ICTIR 2009; ndeval's NRBP, ir_measures' NRBP):
-- (1 - (1 - alpha) beta) / S times the sum over the run of each item's novelty gain times beta^(rank - 1).
-- ndeval reads the whole run (k := NULL); a cutoff k reads the top k.
CREATE OR REPLACE MACRO nrbp(run, judgments, k := NULL, alpha := 0.5, beta := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish((1 - (1 - CAST(alpha AS DOUBLE)) * CAST(beta AS DOUBLE))
        * rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, POWER(CAST(beta AS DOUBLE), f.pos - 1)),
                   rm_subtopics(f.kind, f.subtopic)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, alpha, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('nrbp', k)
        AND rm_valid_rel('nrbp', rel)
        AND rm_valid_diversity('nrbp', alpha, "by", judgment_lists)
        AND rm_valid(rm_valid_number(beta) AND TRY_CAST(beta AS DOUBLE) >= 0 AND TRY_CAST(beta AS DOUBLE) < 1,
            'nrbp', 'beta', 'a number from 0 to below 1', beta)
        AND rm_valid_stream('nrbp', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('nrbp', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- nNRBP (ndeval's nNRBP, ir_measures' nNRBP): NRBP over the NRBP of the greedy ideal ranking (ndeval gives
-- NaN for a query with S = 0, 0/0; here that follows empty like every measure).
CREATE OR REPLACE MACRO nnrbp(run, judgments, k := NULL, alpha := 0.5, beta := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, POWER(CAST(beta AS DOUBLE), f.pos - 1)),
                        rm_novelty_sum(f.kind, 'J', f.pos, f.subtopic, f.seen, alpha, k, POWER(CAST(beta AS DOUBLE), f.pos - 1))),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, alpha, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('nnrbp', k)
        AND rm_valid_rel('nnrbp', rel)
        AND rm_valid_diversity('nnrbp', alpha, "by", judgment_lists)
        AND rm_valid(rm_valid_number(beta) AND TRY_CAST(beta AS DOUBLE) >= 0 AND TRY_CAST(beta AS DOUBLE) < 1,
            'nnrbp', 'beta', 'a number from 0 to below 1', beta)
        AND rm_valid_stream('nnrbp', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('nnrbp', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- P-IA@k (intent-aware precision, Agrawal et al., WSDM 2009; ndeval's P-IA@k, ir_measures' P_IA): the
-- (item, subtopic) pairs of the top k that are relevant, over k S (k even when the run is shorter).
CREATE OR REPLACE MACRO p_ia(run, judgments, k := NULL, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(SUM(CASE WHEN f.kind = 'R' AND f.subtopic IS NOT NULL AND rm_within(f.pos, k) THEN 1 ELSE 0 END),
                        CAST(k AS DOUBLE) * rm_subtopics(f.kind, f.subtopic)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, 0.5, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'p_ia', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('p_ia', k)
        AND rm_valid_rel('p_ia', rel)
        AND rm_valid_diversity('p_ia', 0.5, "by", judgment_lists)
        AND rm_valid_stream('p_ia', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('p_ia', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- AP-IA (intent-aware average precision; ndeval's MAP-IA, ir_measures' AP_IA): the mean over the S subtopics
-- of the subtopic's AP, each relevant item's precision at its rank (its seen + 1 over its rank) summed over its
-- relevant items. ndeval reads the whole run (k := NULL).
CREATE OR REPLACE MACRO ap_ia(run, judgments, k := NULL, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(SUM(CASE WHEN f.kind = 'R' AND f.subtopic IS NOT NULL AND rm_within(f.pos, k)
                                 THEN (f.seen + 1.0) / f.pos / f.sub_rel ELSE 0 END),
                        rm_subtopics(f.kind, f.subtopic)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, 0.5, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_k('ap_ia', k)
        AND rm_valid_rel('ap_ia', rel)
        AND rm_valid_diversity('ap_ia', 0.5, "by", judgment_lists)
        AND rm_valid_stream('ap_ia', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('ap_ia', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);

-- Subtopic recall@k (ndeval's strec@k, ir_measures' StRecall): the subtopics with a relevant item in the
-- top k, over S.
CREATE OR REPLACE MACRO st_recall(run, judgments, k := NULL, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(COUNT(DISTINCT CASE WHEN f.kind = 'R' AND rm_within(f.pos, k) THEN f.subtopic END),
                        rm_subtopics(f.kind, f.subtopic)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (
    SELECT s.*,
        ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.subtopic ORDER BY s.pos ASC NULLS LAST) - 1 AS seen,
        SUM(CASE WHEN s.kind = 'J' AND s.subtopic IS NOT NULL THEN 1 ELSE 0 END)
            OVER (PARTITION BY s.query_id, s.subtopic) AS sub_rel
    FROM rm_subtopic_stream(run, judgments, rel, 0.5, ties, judged_only, grades, query_column, item_column,
        score_column, rank_column, relevance_column, subtopic_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid(k IS NOT NULL, 'st_recall', 'k', 'a whole number >= 1', k)
        AND rm_valid_k('st_recall', k)
        AND rm_valid_rel('st_recall', rel)
        AND rm_valid_diversity('st_recall', 0.5, "by", judgment_lists)
        AND rm_valid_stream('st_recall', ties, judged_only, queries, grades)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists)
        AND rm_valid_empty('st_recall', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_in_query_set(f.kind, queries);
