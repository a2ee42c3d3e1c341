-- Rprec_mult (trec_eval Rprec_mult_x): precision at rank c = mult x |G| + 0.9 truncated (m_Rprec_mult.c, in double
-- precision as its C), divided by c even when fewer are retrieved; 0 when c is 0. Rprec_mult_1.00 is Rprec.
CREATE OR REPLACE MACRO rm_rprec_mult_cut(mult, query_num_rel) AS FLOOR(CAST(mult AS DOUBLE) * query_num_rel + 0.9);

CREATE OR REPLACE MACRO rm_rprec_mult(kind, pos, grade, query_num_rel, lvl, mult) AS
    rm_ratio(SUM(CASE WHEN kind = 'R' AND grade >= lvl AND pos <= rm_rprec_mult_cut(mult, query_num_rel) THEN 1 ELSE 0 END),
             MAX(rm_rprec_mult_cut(mult, query_num_rel)));

CREATE OR REPLACE MACRO rprec_mult(run, judgments, mult := 1.0, rel := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_rprec_mult(f.kind, f.pos, f.grade, f.query_num_rel, rel, mult), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (
    SELECT s.*,
           rm_query_num_rel(s.query_id, s.kind, s.grade, rel) AS query_num_rel
    FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
) AS f
CROSS JOIN (SELECT rm_valid_rel('rprec_mult', rel)
        AND rm_valid(rm_valid_number(mult) AND TRY_CAST(mult AS DOUBLE) > 0, 'rprec_mult', 'mult', 'a number > 0', mult)
        AND rm_valid_stream('rprec_mult', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('rprec_mult', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
