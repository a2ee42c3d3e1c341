-- Fusion of runs (ranx's fuse): one run made from several, a GROUP BY over the runs stacked.
-- runs: a table (run_no, query_id, item_id, score, weight): each run's rows, numbered from 1, with its weight.
-- norm: how each run's scores are made comparable first, per query (ranx/normalization): 'min-max' (s - min) /
--   (max - min), 'max' s / max, 'sum' (s - min) / (sum - min x n), 'zmuv' (s - mean) / population stddev, 'rank'
--   1 - (pos - 1) / n, or 'none'; every divisor at least 1e-9, as ranx's.
-- method: 'combsum' (the sum of the normalized scores), 'wsum' (weighted: weight x score), 'combmnz' (the sum
--   times the number of runs that retrieved the item), 'rrf' (the sum of 1 / (rrf_k + pos)), 'isr' (combmnz of
--   1 / pos^2), 'bordafuse' (Borda points: n_candidates - pos + 1 where ranked, (n_candidates - n_run + 1) / 2
--   where not). pos: the item's rank in its run, by normalized score, then item id descending byte-wise.
-- (scored: the rows with a score, which total sums: a score made NULL by nan_scores='last' is in n, the rows
-- ranked, not in the sum)
CREATE OR REPLACE MACRO rm_fuse_norm(score, norm, lo, hi, total, mean, sd, n, scored, pos) AS
    CASE
        WHEN norm = 'min-max' THEN (score - lo) / GREATEST(hi - lo, 1e-9)
        WHEN norm = 'max' THEN score / GREATEST(hi, 1e-9)
        WHEN norm = 'sum' THEN (score - lo) / GREATEST(total - lo * scored, 1e-9)
        WHEN norm = 'zmuv' THEN (score - mean) / GREATEST(sd, 1e-9)
        WHEN norm = 'rank' THEN 1 - CAST(pos - 1 AS DOUBLE) / n
        ELSE score
    END;

CREATE OR REPLACE MACRO rm_fuse_points(method, s, w, pos, rrf_k, n_candidates, n_run) AS
    CASE
        WHEN method = 'wsum' THEN w * s
        WHEN method = 'rrf' THEN 1 / (CAST(rrf_k AS DOUBLE) + pos)
        WHEN method = 'isr' THEN 1 / (CAST(pos AS DOUBLE) * pos)
        WHEN method = 'bordafuse' THEN (n_candidates - pos + 1) - (n_candidates - n_run + 1) / 2.0
        ELSE s
    END;

CREATE OR REPLACE MACRO fuse(runs, method := 'wsum', norm := 'min-max', rrf_k := 60) AS TABLE
SELECT
    c.query_id,
    c.item_id,
    CASE
        WHEN method IN ('combmnz', 'isr') THEN SUM(c.points) * COUNT(*)
        WHEN method = 'bordafuse' THEN SUM(c.points) + MAX(c.unranked_total)
        ELSE SUM(c.points)
    END AS score
FROM (
    SELECT
        p.query_id,
        p.item_id,
        rm_fuse_points(method, p.s, p.weight, p.pos, rrf_k, p.n_candidates, p.n_run) AS points,
        -- Borda: the points every run gives the items it did not rank, summed over the runs (each ranked item
        -- then takes its own run's share back in rm_fuse_points)
        p.unranked_total
    FROM (
        SELECT
            n.*,
            ROW_NUMBER() OVER (PARTITION BY n.run_no, n.query_id
                               ORDER BY n.s DESC NULLS LAST, rm_bytewise(n.item_id) DESC NULLS LAST) AS pos,
            SUM(CASE WHEN n.first_of_run THEN (n.n_candidates - n.n_run + 1) / 2.0 ELSE 0 END)
                OVER (PARTITION BY n.query_id) AS unranked_total
        FROM (
            SELECT
                r.run_no, r.query_id, r.item_id, r.weight,
                rm_fuse_norm(CAST(r.score AS DOUBLE), norm,
                    MIN(r.score) OVER (PARTITION BY r.run_no, r.query_id),
                    MAX(r.score) OVER (PARTITION BY r.run_no, r.query_id),
                    SUM(r.score) OVER (PARTITION BY r.run_no, r.query_id),
                    AVG(r.score) OVER (PARTITION BY r.run_no, r.query_id),
                    STDDEV_POP(r.score) OVER (PARTITION BY r.run_no, r.query_id),
                    COUNT(*) OVER (PARTITION BY r.run_no, r.query_id),
                    COUNT(r.score) OVER (PARTITION BY r.run_no, r.query_id),
                    ROW_NUMBER() OVER (PARTITION BY r.run_no, r.query_id
                                       ORDER BY r.score DESC NULLS LAST, rm_bytewise(r.item_id) DESC NULLS LAST)) AS s,
                COUNT(*) OVER (PARTITION BY r.run_no, r.query_id) AS n_run,
                ROW_NUMBER() OVER (PARTITION BY r.run_no, r.query_id ORDER BY rm_bytewise(r.item_id)) = 1 AS first_of_run,
                DENSE_RANK() OVER (PARTITION BY r.query_id ORDER BY rm_bytewise(r.item_id))
                    + DENSE_RANK() OVER (PARTITION BY r.query_id ORDER BY rm_bytewise(r.item_id) DESC) - 1 AS n_candidates
            FROM query_table(runs) AS r
        ) AS n
    ) AS p
) AS c
CROSS JOIN (SELECT rm_valid_choice('fuse', 'method', method,
                                   ['combsum', 'wsum', 'combmnz', 'rrf', 'isr', 'bordafuse'])
        AND rm_valid_choice('fuse', 'norm', norm, ['min-max', 'max', 'sum', 'zmuv', 'rank', 'none'])
        AND rm_valid(rm_valid_number(rrf_k) AND TRY_CAST(rrf_k AS DOUBLE) >= 0, 'fuse', 'rrf_k',
                     'a number >= 0', rrf_k) AS ok) AS valid
WHERE valid.ok
GROUP BY c.query_id, c.item_id;
