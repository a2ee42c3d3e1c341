-- Novelty and popularity bias of recommendations, from the training interactions (RecTools' novelty.py,
-- popularity.py and serendipity.py). Each reads the stream with item statistics (rm_item_stream in
-- 01_stream.sql): interactions names the table of training interactions (user_id, item_id), catalog the table
-- of the catalog's items (item_id; NULL: the items of the interactions). Each is a mean over the query's top k
-- retrieved items, NULL (left out of the mean) for a query without one: RecTools averages over the users
-- recommended to.

-- MeanInvUserFreq@k (novelty, self-information): -log2(users who interacted with the item / users with an
-- interaction); an item nobody interacted with counts as one user (RecTools fills 1).
CREATE OR REPLACE MACRO rm_miuf(kind, pos, item_users, train_users, k) AS
    AVG(CASE WHEN kind = 'R' AND rm_within(pos, k)
             THEN -LN(CAST(COALESCE(item_users, 1) AS DOUBLE) / train_users) / LN(2) END);

CREATE OR REPLACE MACRO mean_inv_user_freq(run, judgments, k := NULL, interactions := 'interactions', catalog := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_miuf(f.kind, f.pos, f.item_users, f.train_users, k) AS value
FROM (SELECT s.* FROM rm_item_stream(run, judgments, interactions, catalog, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('mean_inv_user_freq', k)
        AND rm_valid_stream('mean_inv_user_freq', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('mean_inv_user_freq', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- AvgRecPopularity@k: the items' training interactions (0 for an item without any); normalize := 'true'
-- divides by all training interactions (RecTools' normalize=True).
CREATE OR REPLACE MACRO rm_arp(kind, pos, item_count, train_count, k, normalize) AS
    AVG(CASE WHEN kind = 'R' AND rm_within(pos, k)
             THEN CAST(COALESCE(item_count, 0) AS DOUBLE)
                  / CASE WHEN normalize = 'true' THEN train_count ELSE 1 END END);

CREATE OR REPLACE MACRO avg_rec_popularity(run, judgments, k := NULL, normalize := 'false', interactions := 'interactions',
        catalog := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_arp(f.kind, f.pos, f.item_count, f.train_count, k, normalize) AS value
FROM (SELECT s.* FROM rm_item_stream(run, judgments, interactions, catalog, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('avg_rec_popularity', k)
        AND rm_valid(normalize IN ('false', 'true'), 'avg_rec_popularity', 'normalize', '''false'' or ''true''',
            normalize)
        AND rm_valid_stream('avg_rec_popularity', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('avg_rec_popularity', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- Serendipity@k (RecTools; Ge et al. 2010): for a relevant item at rank r, how much more likely it is for this
-- user than for anyone, max((n + 1 - r) / n - (n + 1 - its popularity rank) / n, 0), n the catalog's size (an
-- item without interactions: (n + 1 - r) / n); 0 for an item that is not relevant.
CREATE OR REPLACE MACRO rm_serendipity(kind, pos, grade, pop_rank, catalog_size, k, lvl) AS
    AVG(CASE WHEN kind = 'R' AND rm_within(pos, k)
             THEN CASE WHEN grade >= lvl
                       THEN GREATEST(CAST(catalog_size + 1 - pos AS DOUBLE) / catalog_size
                                     - COALESCE(CAST(catalog_size + 1 - pop_rank AS DOUBLE) / catalog_size, 0),
                                     CAST(0 AS DOUBLE))
                       ELSE CAST(0 AS DOUBLE) END END);

CREATE OR REPLACE MACRO serendipity(run, judgments, k := NULL, rel := 1, interactions := 'interactions', catalog := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    rm_serendipity(f.kind, f.pos, f.grade, f.pop_rank, f.catalog_size, k, rel) AS value
FROM (SELECT s.* FROM rm_item_stream(run, judgments, interactions, catalog, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('serendipity', k)
        AND rm_valid_rel('serendipity', rel)
        AND rm_valid_stream('serendipity', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('serendipity', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);

-- APLT@k and ACLT@k (Elliot's popularity_bias APLT and ACLT; Abdollahpouri et al. 2019): the share (APLT) and
-- the count (ACLT: share := 'false') of the top k items that are in the long tail. As Elliot's Popularity (popularity_utils): an
-- item's popularity is the users who interacted with it in training; the short head is the most popular items,
-- taken one by one until they cover head_share of the (user, item) pairs (the one that crosses the line
-- included; Elliot's pop_ratio 0.8), and the long tail every other item of the interactions (an item nobody
-- interacted with is in neither). Items of equal popularity are taken in item id order (Elliot: its own index).
CREATE OR REPLACE MACRO rm_long_tail(item_users, users_before, pair_count, head_share) AS
    CASE WHEN item_users IS NOT NULL AND users_before >= CAST(head_share AS DOUBLE) * pair_count THEN 1 ELSE 0 END;

CREATE OR REPLACE MACRO long_tail(run, judgments, k := NULL, head_share := 0.8, share := 'true',
        interactions := 'interactions', catalog := NULL,
        ties := 'item_desc', judged_only := FALSE, queries := 'both', empty := 'zero', grades := 'truncate',
        query_column := 'query_id', item_column := 'item_id', score_column := 'score', rank_column := 'rank',
        relevance_column := 'relevance', "by" := [], run_lists := FALSE, judgment_lists := FALSE) AS TABLE
SELECT
    UNNEST(f.query_id),
    CASE WHEN share = 'true'
         THEN AVG(CASE WHEN f.kind = 'R' AND rm_within(f.pos, k)
                       THEN CAST(rm_long_tail(f.item_users, f.users_before, f.pair_count, head_share) AS DOUBLE) END)
         ELSE CAST(SUM(CASE WHEN f.kind = 'R' AND rm_within(f.pos, k)
                            THEN rm_long_tail(f.item_users, f.users_before, f.pair_count, head_share) END) AS DOUBLE)
    END AS value
FROM (SELECT s.* FROM rm_item_stream(run, judgments, interactions, catalog, ties, judged_only, grades, query_column,
        item_column, score_column, rank_column, relevance_column, "by", run_lists, judgment_lists) AS s) AS f
CROSS JOIN (SELECT rm_valid_k('long_tail', k)
        AND rm_valid(rm_valid_number(head_share) AND TRY_CAST(head_share AS DOUBLE) BETWEEN 0 AND 1,
                     'long_tail', 'head_share', 'a share from 0 to 1', head_share)
        AND rm_valid(share IN ('false', 'true'), 'long_tail', 'share', '''false'' or ''true''', share)
        AND rm_valid_stream('long_tail', ties, judged_only, queries, grades)
        AND rm_valid_inputs(run, judgments, grades, query_column, item_column, score_column, rank_column,
            relevance_column, "by", run_lists, judgment_lists)
        AND rm_valid_empty('long_tail', empty) AS ok) AS valid
WHERE valid.ok
GROUP BY f.query_id
HAVING rm_reported(f.kind, f.query_id, queries, judged_only, run, query_column, item_column, score_column,
    rank_column, "by", run_lists);
