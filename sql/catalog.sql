-- Catalog-wide metrics: one value for the whole run, from how often each item is recommended in the top k of
-- every query of the run (the queries convention does not apply: RecTools and Recommenders read the whole
-- recommendation table). Each reads the stream with the catalog's size (rm_catalog_stream in 01_stream.sql;
-- catalog names a table of the catalog's items, item_id) and aggregates per item first: recs is how many
-- queries recommend the item in their top k, rho its rank by recs (ascending; ties in any order, which changes
-- no sum below). With groups ("by"), one row per group: the items are counted per group (rm_group_of), and the
-- row holds the group columns (and query_id NULL) beside the value.

-- CatalogCoverage@k (RecTools CatalogCoverage): the distinct items recommended in the top k; normalize := 'true'
-- divides by the catalog's size (Recommenders' catalog_coverage, whose catalog is the training items).
CREATE OR REPLACE MACRO rm_catalog_coverage(recs, catalog_size, normalize) AS
    CAST(COUNT(recs) AS DOUBLE) / CASE WHEN normalize = 'true' THEN MIN(catalog_size) ELSE 1 END;

CREATE OR REPLACE MACRO catalog_coverage(run, judgments, k := NULL, normalize := 'false', catalog := 'items',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(i.group_key),
    rm_catalog_coverage(i.recs, i.catalog_size, normalize) AS value
FROM (
    SELECT rm_group_of(f.query_id) AS group_key, f.item_id, COUNT(*) AS recs,
        ROW_NUMBER() OVER (PARTITION BY rm_group_of(f.query_id) ORDER BY COUNT(*), f.item_id) AS rho,
        MIN(f.catalog_size) AS catalog_size
    FROM (SELECT s.* FROM rm_catalog_stream(run, judgments, catalog, ties, judged_only, grades, query_column,
            item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
    WHERE f.kind = 'R' AND rm_within(f.pos, k)
    GROUP BY rm_group_of(f.query_id), f.item_id
) AS i
CROSS JOIN (SELECT rm_valid_k('catalog_coverage', k)
        AND rm_valid(normalize IN ('false', 'true'), 'catalog_coverage', 'normalize', '''false'' or ''true''',
            normalize)
        AND rm_valid_stream('catalog_coverage', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('catalog_coverage', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY i.group_key;

-- Gini@k (RecBole's GiniIndex, recbole/evaluator/metrics.py): the Gini index of the recommendation counts over
-- the whole catalog of n items, the m items never recommended counting 0: sorted ascending, the i-th count c
-- weighs 2i - n - 1, so sum((2 (n - m + rho) - n - 1) recs) / (n sum(recs)) = ((n - 2m - 1) T + 2 sum(rho
-- recs)) / (n T), T the recommendations in all top k lists. 0: every item equally often; near 1: few items.
CREATE OR REPLACE MACRO rm_gini(recs, rho, catalog_size) AS
    rm_ratio((MIN(catalog_size) - 2 * COUNT(recs) - 1) * CAST(SUM(recs) AS DOUBLE) + 2 * SUM(rho * recs),
             CAST(MIN(catalog_size) AS DOUBLE) * SUM(recs));

CREATE OR REPLACE MACRO gini(run, judgments, k := NULL, catalog := 'items',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(i.group_key),
    rm_gini(i.recs, i.rho, i.catalog_size) AS value
FROM (
    SELECT rm_group_of(f.query_id) AS group_key, f.item_id, COUNT(*) AS recs,
        ROW_NUMBER() OVER (PARTITION BY rm_group_of(f.query_id) ORDER BY COUNT(*), f.item_id) AS rho,
        MIN(f.catalog_size) AS catalog_size
    FROM (SELECT s.* FROM rm_catalog_stream(run, judgments, catalog, ties, judged_only, grades, query_column,
            item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
    WHERE f.kind = 'R' AND rm_within(f.pos, k)
    GROUP BY rm_group_of(f.query_id), f.item_id
) AS i
CROSS JOIN (SELECT rm_valid_k('gini', k)
        AND rm_valid_stream('gini', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('gini', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY i.group_key;

-- Entropy@k (Shannon entropy of the recommendations, in bits; Recommenders' distributional_coverage, after
-- Shani & Gunawardana's formula 21): -sum(p log2 p), p = recs / T, written log2 T - sum(recs log2 recs) / T.
CREATE OR REPLACE MACRO rm_entropy(recs) AS
    (LN(CAST(SUM(recs) AS DOUBLE)) - rm_ratio(SUM(recs * LN(CAST(recs AS DOUBLE))), SUM(recs))) / LN(2);

CREATE OR REPLACE MACRO entropy(run, judgments, k := NULL, catalog := 'items',
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(i.group_key),
    rm_entropy(i.recs) AS value
FROM (
    SELECT rm_group_of(f.query_id) AS group_key, f.item_id, COUNT(*) AS recs,
        ROW_NUMBER() OVER (PARTITION BY rm_group_of(f.query_id) ORDER BY COUNT(*), f.item_id) AS rho,
        MIN(f.catalog_size) AS catalog_size
    FROM (SELECT s.* FROM rm_catalog_stream(run, judgments, catalog, ties, judged_only, grades, query_column,
            item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
    WHERE f.kind = 'R' AND rm_within(f.pos, k)
    GROUP BY rm_group_of(f.query_id), f.item_id
) AS i
CROSS JOIN (SELECT rm_valid_k('entropy', k)
        AND rm_valid_stream('entropy', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('entropy', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY i.group_key;

-- Personalization@k (recmetrics' personalization, recmetrics/metrics.py): 1 - the mean cosine similarity between
-- the top k lists of every two users recommended to, as 0/1 vectors over the items: cos(u, v) = |L_u n L_v| /
-- sqrt(|L_u| |L_v|). Summed over the ordered pairs u != v it is, item by item, (sum of w)^2 - sum of w^2 over the
-- users recommending the item, w = 1 / sqrt(|L_u|) (inv_sqrt); the users are counted by their first row. Over
-- U users: 1 - that / (U (U - 1)). 0: everyone gets the same list; 1: no two lists share an item. Reads no
-- catalog.
CREATE OR REPLACE MACRO personalization(run, judgments, k := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(i.group_key),
    1 - rm_ratio(SUM(i.w * i.w - i.w2), CAST(SUM(i.firsts) AS DOUBLE) * (SUM(i.firsts) - 1)) AS value
FROM (
    SELECT rm_group_of(f.query_id) AS group_key, f.item_id, SUM(f.inv_sqrt) AS w,
        SUM(f.inv_sqrt * f.inv_sqrt) AS w2,
        SUM(CASE WHEN f.pos = 1 THEN 1 ELSE 0 END) AS firsts
    FROM (
        SELECT s.*, rm_ratio(1, SQRT(CAST(SUM(CASE WHEN rm_within(s.pos, k) THEN 1 ELSE 0 END)
                                          OVER (PARTITION BY s.query_id) AS DOUBLE))) AS inv_sqrt
        FROM rm_stream(run, judgments, ties, judged_only, grades, query_column, item_column, score_column,
            rank_column, relevance_column, "by", run_lists, judgment_lists) AS s
        WHERE s.kind = 'R'
    ) AS f
    WHERE rm_within(f.pos, k)
    GROUP BY rm_group_of(f.query_id), f.item_id
) AS i
CROSS JOIN (SELECT rm_valid_k('personalization', k)
        AND rm_valid_stream('personalization', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('personalization', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY i.group_key;
