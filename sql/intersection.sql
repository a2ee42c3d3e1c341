-- Intersection@k (RecTools' Intersection, rectools/metrics/intersection.py): the share of the query's top k
-- retrieved items that are also in the top ref_k of a second run, the reference (reference names its table, in the
-- run's shape; ranked as the run is: rm_reference_stream in 01_stream.sql). ref_k NULL: k (RecTools' default);
-- k NULL: the whole list. A query the reference does not have scores 0; a query without a retrieved item has no
-- value (NULL, left out of the mean): RecTools averages over the users of the recommendations. The judgments are
-- not read (they only decide, by the queries convention, which queries are evaluated).
CREATE OR REPLACE MACRO rm_intersection(kind, pos, ref_pos, k, ref_k) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND rm_within(pos, k) AND ref_pos IS NOT NULL
                           AND rm_within(ref_pos, COALESCE(ref_k, k)) THEN 1 ELSE 0 END),
             rm_retrieved(kind, pos, k));

CREATE OR REPLACE MACRO intersection(run, judgments, k := NULL, ref_k := NULL, reference := 'reference',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_intersection(f.kind, f.pos, f.ref_pos, k, ref_k) AS value
FROM (SELECT s.* FROM rm_reference_stream(run, judgments, reference, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('intersection', k)
        AND rm_valid(ref_k IS NULL OR (rm_valid_number(ref_k) AND TRY_CAST(ref_k AS DOUBLE) >= 1
                                       AND TRY_CAST(ref_k AS DOUBLE) = FLOOR(TRY_CAST(ref_k AS DOUBLE))),
                     'intersection', 'ref_k', 'a whole number >= 1, or NULL (k)', ref_k)
        AND rm_valid_stream('intersection', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_reference(reference, query_column, item_column, score_column, rank_column, "by", run_lists)
        AND rm_valid_empty('intersection', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
