-- F1@k: harmonic mean of P@k and R@k, 0 when both are 0. With h relevant items in the top k and |G| relevant
-- judged items, 2PR / (P + R) = 2h / (k + |G|). Without a cutoff, k is the number of items retrieved.
-- beta weighs recall against precision as trec_eval's set_F.x and ir_measures' SetF(beta=x) do (m_set_F.c):
-- (beta + 1) PR / (beta P + R) = (beta + 1) h / (k + beta |G|); beta 1 is F1, beta 0 is P (textbook F_b has
-- beta = b^2 here). Computed as m_set_F.c computes it, P and R first, in its order of operations: the same
-- double to the last bit (2h / (k + |G|) can differ from it there, and a mean on a rounding boundary prints
-- another 4th decimal). No hit: 0, or NULL when nothing is retrieved and nothing is relevant (rm_finish).
CREATE OR REPLACE MACRO rm_f1(kind, pos, grade, k, lvl, beta) AS
    CASE WHEN rm_hits(kind, pos, grade, lvl, k) > 0
         THEN (beta + 1) * rm_ratio(rm_hits(kind, pos, grade, lvl, k), COALESCE(k, rm_retrieved(kind, pos, k)))
              * rm_ratio(rm_hits(kind, pos, grade, lvl, k), rm_num_rel(kind, grade, lvl))
              / (beta * rm_ratio(rm_hits(kind, pos, grade, lvl, k), COALESCE(k, rm_retrieved(kind, pos, k)))
                 + rm_ratio(rm_hits(kind, pos, grade, lvl, k), rm_num_rel(kind, grade, lvl)))
         ELSE rm_ratio(0, COALESCE(k, rm_retrieved(kind, pos, k)) + beta * rm_num_rel(kind, grade, lvl)) END;

CREATE OR REPLACE MACRO f1(run, judgments, k := NULL, rel := 1, beta := 1,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_finish(rm_f1(f.kind, f.pos, f.grade, k, rel, beta), rm_num_rel(f.kind, f.grade, rel), empty) AS value
FROM (SELECT s.* FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
        rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('f1', k)
        AND rm_valid_rel('f1', rel)
        AND rm_valid(rm_valid_number(beta) AND TRY_CAST(beta AS DOUBLE) >= 0, 'f1', 'beta', 'a number >= 0', beta)
        AND rm_valid_stream('f1', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('f1', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
