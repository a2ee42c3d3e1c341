-- Diversity measures over subtopic judgments (TREC diversity qrels, 'query subtopic item grade'), as ndeval
-- (the TREC Web track's tool; ndeval.c 4.5, run through pyndeval) and ir_measures' pyndeval provider define them.
-- Each reads rm_subtopic_stream (01_stream.sql): 'R' rows, a retrieved item at its rank once per subtopic it is
-- relevant to; 'J' rows, the subtopic judgments at the item's rank in ndeval's greedy ideal ranking. Relevance
-- is binary (grade >= rel, 1 by default); S is the number of the query's subtopics with a relevant item (a
-- subtopic nobody judged relevant is not counted). A query with S = 0 is 0 (NULL with empty := 'nan').
--
-- The stream places the ideal ranking only as deep as a measure reads it (rm_subtopic_ideal's depth): k for
-- alpha-nDCG@k and nERR-IA@k, the whole list for nNRBP, nothing for the others.
--
-- The stream's seen (the items ranked above a row that are relevant to its subtopic, in the run for 'R' rows, in
-- the ideal ranking for 'J' rows) gives a row its novelty gain, (1 - alpha)^seen; sub_rel is the subtopic's
-- relevant items.
--
-- The queries reported: rm_reported without trec_eval's -J exception (its judged_only FALSE), so that with
-- judged_only a query whose retrieved items are all unjudged has no run left and, under 'both' (ndeval's
-- default), is not reported, as ir_measures' pyndeval provider drops the unjudged items before ndeval reads the
-- run; before, it was reported 0 and counted in the mean.

-- S, the subtopics of the query with a relevant item.
CREATE OR REPLACE MACRO rm_subtopics(kind, subtopic) AS COUNT(DISTINCT CASE WHEN kind = 'J' THEN subtopic END);

-- The sum of the terms x (NULL: no term) in the order of (pos, subtopic), unique among a query's rows of one
-- kind: a canonical order, so the sum's bits do not depend on the rows' order. Only the terms are sorted
-- (FILTER); a query without a term sums to 0.
CREATE OR REPLACE MACRO rm_ordered_sum(x, pos, subtopic) AS
    COALESCE(SUM(x ORDER BY pos, subtopic) FILTER (WHERE x IS NOT NULL), 0);

-- The sum, over rows of the kind within the cutoff that are relevant to their subtopic, of the novelty gain
-- times a rank weight w (the discount 1/log2(pos + 1), 1/pos, beta^(pos - 1)). Its terms are added in rank
-- order, then subtopic order (a canonical order: rm_ordered_sum), so a value has the same bits
-- whatever the order the rows reach the aggregate in (threads, input kind).
CREATE OR REPLACE MACRO rm_novelty_sum(kind, which, pos, subtopic, seen, alpha, k, w) AS
    rm_ordered_sum(CASE WHEN kind = which AND subtopic IS NOT NULL AND rm_within(pos, k)
                        THEN POWER(1 - CAST(alpha AS DOUBLE), seen) * w END, pos, subtopic);

-- NRBP's weight of a rank: beta^(pos - 1).
CREATE OR REPLACE MACRO rm_rbp_weight(beta, pos) AS POWER(CAST(beta AS DOUBLE), pos - 1);

-- ndeval's "ideal ideal" normalisation of ERR-IA@k and alpha-DCG@k: S items each relevant to every subtopic,
-- the sum over ranks i <= k of S (1 - alpha)^(i - 1) times the rank's weight, 1 / i (ERR-IA) or 1 / log2(i + 1)
-- (alpha-DCG, log_discount). ndeval divides by it from rank 2 on only: at k = 1 both are the first item's gain.
CREATE OR REPLACE MACRO rm_ideal_ideal(subtopics, alpha, k, log_discount) AS
    CASE WHEN k = 1 THEN CAST(1 AS DOUBLE)
         ELSE subtopics * list_sum(list_transform(range(1, CAST(k AS BIGINT) + 1),
                                                  lambda i: POWER(1 - CAST(alpha AS DOUBLE), i - 1)
                                                            * CASE WHEN log_discount THEN rm_discount(i, 2)
                                                                   ELSE 1.0 / i END)) END;

-- The argument checks the diversity macros share (k_required: the measure needs a cutoff).
CREATE OR REPLACE MACRO rm_valid_diversity(macro, k, k_required, rel, alpha, beta, ties, judged_only, queries, grades,
        empty, "by", judgment_lists) AS
    rm_valid(k IS NOT NULL OR NOT k_required, macro, 'k', 'a whole number >= 1', k)
    AND rm_valid_k(macro, k)
    AND rm_valid_rel(macro, rel)
    AND rm_valid(rm_valid_number(alpha) AND TRY_CAST(alpha AS DOUBLE) >= 0 AND TRY_CAST(alpha AS DOUBLE) <= 1, macro,
                 'alpha', 'a number from 0 to 1', alpha)
    AND rm_valid(rm_valid_number(beta) AND TRY_CAST(beta AS DOUBLE) >= 0 AND TRY_CAST(beta AS DOUBLE) < 1, macro,
                 'beta', 'a number from 0 to below 1', beta)
    AND rm_valid(len("by") = 0, macro, '"by"', 'empty (the diversity measures take no groups yet)', "by")
    AND rm_valid(NOT judgment_lists, macro, 'judgment_lists', 'false (subtopic judgments are rows)', judgment_lists)
    AND rm_valid_stream(macro, ties, judged_only, queries, grades)
    AND rm_valid_empty(macro, empty);

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
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, alpha, k, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('alpha_ndcg', k, TRUE, rel, alpha, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- ERR-IA@k (Chapelle et al., CIKM 2009, intent aware; ndeval's ERR-IA@k, ir_measures' ERR_IA) with ndeval's
-- collection-independent normalisation: the sum over the top k of each item's novelty gain / its rank, over
-- rm_ideal_ideal (ndeval's ERR-IA@1 is not normalised: the first item's gain).
CREATE OR REPLACE MACRO err_ia(run, judgments, k := NULL, alpha := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, 1.0 / f.pos),
                        rm_ideal_ideal(rm_subtopics(f.kind, f.subtopic), alpha, k, FALSE)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, alpha, 0, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('err_ia', k, TRUE, rel, alpha, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- alpha-DCG@k (ndeval's alpha-DCG@k, ir_measures' alpha_DCG) with ndeval's collection-independent normalisation:
-- alpha-nDCG's numerator over rm_ideal_ideal (ndeval's alpha-DCG@1 is not normalised: the first item's gain).
CREATE OR REPLACE MACRO alpha_dcg(run, judgments, k := NULL, alpha := 0.5, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, rm_discount(f.pos, 2)),
                        rm_ideal_ideal(rm_subtopics(f.kind, f.subtopic), alpha, k, TRUE)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, alpha, 0, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('alpha_dcg', k, TRUE, rel, alpha, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

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
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, alpha, k, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('nerr_ia', k, TRUE, rel, alpha, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- NRBP (novelty- and rank-biased precision, Clarke et al., ICTIR 2009; ndeval's NRBP, ir_measures' NRBP):
-- (1 - (1 - alpha) beta) / S times the sum over the run of each item's novelty gain times beta^(rank - 1).
-- ndeval reads the whole run (k := NULL); a cutoff k reads the top k.
CREATE OR REPLACE MACRO nrbp(run, judgments, k := NULL, alpha := 0.5, beta := 0.5, rel := 1,
        subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish((1 - (1 - CAST(alpha AS DOUBLE)) * CAST(beta AS DOUBLE))
                  * rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k,
                                            rm_rbp_weight(beta, f.pos)),
                             rm_subtopics(f.kind, f.subtopic)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, alpha, 0, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('nrbp', k, FALSE, rel, alpha, beta, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- nNRBP (ndeval's nNRBP, ir_measures' nNRBP): NRBP over the NRBP of the greedy ideal ranking (ndeval gives
-- NaN for a query with S = 0, 0/0; here that follows empty like every measure).
CREATE OR REPLACE MACRO nnrbp(run, judgments, k := NULL, alpha := 0.5, beta := 0.5, rel := 1,
        subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_novelty_sum(f.kind, 'R', f.pos, f.subtopic, f.seen, alpha, k, rm_rbp_weight(beta, f.pos)),
                        rm_novelty_sum(f.kind, 'J', f.pos, f.subtopic, f.seen, alpha, k, rm_rbp_weight(beta, f.pos))),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, alpha, k, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('nnrbp', k, FALSE, rel, alpha, beta, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

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
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, 0.5, 0, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('p_ia', k, TRUE, rel, 0.5, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- AP-IA (intent-aware average precision; ndeval's MAP-IA, ir_measures' AP_IA): the mean over the S subtopics
-- of the subtopic's AP, each relevant item's precision at its rank (its seen + 1 over its rank) summed over its
-- relevant items. ndeval reads the whole run (k := NULL).
CREATE OR REPLACE MACRO ap_ia(run, judgments, k := NULL, rel := 1, subtopic_column := 'subtopic',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_ratio(rm_ordered_sum(CASE WHEN f.kind = 'R' AND f.subtopic IS NOT NULL AND rm_within(f.pos, k)
                                            THEN (f.seen + 1.0) / f.pos / f.sub_rel END, f.pos, f.subtopic),
                                  rm_subtopics(f.kind, f.subtopic)),
              rm_subtopics(f.kind, f.subtopic), empty) AS value
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, 0.5, 0, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('ap_ia', k, FALSE, rel, 0.5, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

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
FROM (SELECT s.* FROM rm_subtopic_stream(run, judgments, rel, 0.5, 0, ties, judged_only, grades,
        query_column, item_column, score_column, rank_column, relevance_column, subtopic_column, "by", run_lists,
        judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_diversity('st_recall', k, TRUE, rel, 0.5, 0.5, ties, judged_only, queries, grades,
            empty, "by", judgment_lists)
        AND rm_valid_subtopic_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, subtopic_column, "by", run_lists) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, FALSE, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
