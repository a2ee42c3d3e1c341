-- utility (trec_eval): a x relevant retrieved + b x non-relevant retrieved + c x relevant not retrieved
-- + d x non-relevant not retrieved, the last out of num_docs documents in the collection (trec_eval -N; 0 by
-- default, as trec_eval's) (m_utility.c). Defaults 1, -1, 0, 0.
CREATE OR REPLACE MACRO rm_utility(kind, pos, grade, lvl, a, b, c, d, num_docs) AS
    CAST(a AS DOUBLE) * rm_hits(kind, pos, grade, lvl, NULL)
    + CAST(b AS DOUBLE) * (rm_retrieved(kind, pos, NULL) - rm_hits(kind, pos, grade, lvl, NULL))
    + CAST(c AS DOUBLE) * (rm_num_rel(kind, grade, lvl) - rm_hits(kind, pos, grade, lvl, NULL))
    + CAST(d AS DOUBLE) * (num_docs + rm_hits(kind, pos, grade, lvl, NULL) - rm_retrieved(kind, pos, NULL)
                           - rm_num_rel(kind, grade, lvl));

CREATE OR REPLACE MACRO utility(run, judgments, utility_a := 1.0, utility_b := -1.0, utility_c := 0.0, utility_d := 0.0, num_docs := 0, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_utility(f.kind, f.pos, f.grade, rel, utility_a, utility_b, utility_c, utility_d, num_docs), 1, empty) AS value
FROM (
    SELECT s.*
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('utility', rel)
        AND rm_valid(rm_valid_number(utility_a) AND rm_valid_number(utility_b) AND rm_valid_number(utility_c)
                     AND rm_valid_number(utility_d), 'utility', 'utility_a to utility_d', 'finite numbers', utility_a)
        AND rm_valid(rm_valid_number(num_docs) AND TRY_CAST(num_docs AS DOUBLE) >= 0
                     AND TRY_CAST(num_docs AS DOUBLE) = FLOOR(TRY_CAST(num_docs AS DOUBLE)), 'utility', 'num_docs',
                     'a whole number >= 0 (the documents in the collection, trec_eval -N)', num_docs)
        AND rm_valid_stream('utility', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('utility', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
