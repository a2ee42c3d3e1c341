-- trec_eval's preference measures (-R prefs, -R qrels_prefs; trec_eval 10's form_prefs_counts.c and
-- m_prefs_*.c), over a run and a table of preference judgments prefs(query_id, jg, jsg, item_id, relevance):
-- within a judgment sub-group (jsg) an item is preferred to every item with a lower level; a judgment group
-- (jg) with several sub-groups adds the transitive preferences (a > b in one, b > c in another: a > c).
-- -R qrels_prefs reads ordinary qrels as prefs: jg is the qrels' second column, one sub-group per query.
--
-- The run table has query_id, item_id and score (higher is better; the Python package gives a run of ranks the
-- negated rank). Items are ranked as form_prefs_counts.c ranks them: score descending, ties by item id ascending
-- (strcmp; trec_eval's other measures break ties descending, 01_stream.sql), the top max_retrieved only (-M).
-- A judged item's "docid rank" is its place among the judged retrieved items (0, 1, ...; njr of them), then
-- njr, njr + 1, ... for the judged items not retrieved, in item id order. A preference a > b is
--   fulfilled (retrieved)  when both are retrieved and a is ranked above b,
--   fulfilled (implied)    when only a is retrieved,
--   possible               always; "_ret" measures count pairs with both retrieved, "_imp" pairs with at least
--                          one retrieved, the others every pair (neither retrieved: a failure).
-- One row per query of the prefs table (a query without retrieved items gets zeros): the Python package keeps
-- the queries trec_eval evaluates. The values as m_prefs_*.c compute them, including two of their quirks,
-- written out where they occur. One table macro of CTEs in portable SQL (WITH RECURSIVE for the transitive
-- preferences), so that preferences.to_sql renders it for other engines.

CREATE OR REPLACE MACRO trec_prefs(run, prefs, max_retrieved := NULL) AS TABLE
WITH RECURSIVE ranked AS (
    -- the run's items in form_prefs_counts.c's order, the top max_retrieved only
    SELECT r.query_id, r.item_id, r.pos
    FROM (
        SELECT CAST(x.query_id AS VARCHAR) AS query_id, CAST(x.item_id AS VARCHAR) AS item_id,
            ROW_NUMBER() OVER (PARTITION BY CAST(x.query_id AS VARCHAR)
                               ORDER BY CAST(x.score AS DOUBLE) DESC NULLS LAST,
                                        rm_bytewise(CAST(x.item_id AS VARCHAR)) ASC NULLS LAST) AS pos
        FROM query_table(run) AS x
    ) AS r
    WHERE rm_within(r.pos, max_retrieved)
), judged AS (
    SELECT DISTINCT CAST(p.query_id AS VARCHAR) AS query_id, CAST(p.item_id AS VARCHAR) AS item_id
    FROM query_table(prefs) AS p
), judged_ranked AS (
    SELECT j.query_id, j.item_id, r.pos,
        CAST(SUM(CASE WHEN r.pos IS NOT NULL THEN 1 ELSE 0 END) OVER (PARTITION BY j.query_id) AS BIGINT) AS njr
    FROM judged AS j
    LEFT JOIN ranked AS r
        ON rm_bytewise(r.query_id) = rm_bytewise(j.query_id) AND rm_bytewise(r.item_id) = rm_bytewise(j.item_id)
), docs AS (
    -- each judged item's docid rank: its place among the judged retrieved items (0, 1, ...; njr of them), then
    -- njr, njr + 1, ... for the judged items not retrieved, in item id order
    -- (each window partitioned by retrieved or not: no engine's NULL order is relied on)
    SELECT d.query_id, d.item_id, d.njr,
        CAST(CASE WHEN d.pos IS NOT NULL
                  THEN ROW_NUMBER() OVER (PARTITION BY d.query_id, CASE WHEN d.pos IS NULL THEN 1 ELSE 0 END
                                          ORDER BY d.pos ASC NULLS LAST) - 1
                  ELSE d.njr + ROW_NUMBER() OVER (PARTITION BY d.query_id, CASE WHEN d.pos IS NULL THEN 1 ELSE 0 END
                                                  ORDER BY rm_bytewise(d.item_id) ASC NULLS LAST) - 1
             END AS BIGINT) AS dr
    FROM judged_ranked AS d
), subgroups AS (
    SELECT CAST(p.query_id AS VARCHAR) AS query_id, CAST(p.jg AS VARCHAR) AS jg,
        COUNT(DISTINCT CAST(p.jsg AS VARCHAR)) AS subgroups
    FROM query_table(prefs) AS p
    GROUP BY CAST(p.query_id AS VARCHAR), CAST(p.jg AS VARCHAR)
), entries AS (
    -- each judgment with its item's docid rank and its group's number of sub-groups (one: the levels are
    -- equivalence classes, "EC"; several: a preference array with transitive preferences, "PA")
    SELECT CAST(p.query_id AS VARCHAR) AS query_id, CAST(p.jg AS VARCHAR) AS jg, CAST(p.jsg AS VARCHAR) AS jsg,
        CAST(p.item_id AS VARCHAR) AS item_id, CAST(p.relevance AS DOUBLE) AS lvl, d.dr, d.njr, g.subgroups
    FROM query_table(prefs) AS p
    JOIN docs AS d
        ON rm_bytewise(d.query_id) = rm_bytewise(CAST(p.query_id AS VARCHAR))
        AND rm_bytewise(d.item_id) = rm_bytewise(CAST(p.item_id AS VARCHAR))
    JOIN subgroups AS g ON g.query_id = CAST(p.query_id AS VARCHAR) AND g.jg = CAST(p.jg AS VARCHAR)
), last_entries AS (
    -- each item of a group once, with the level of its last sub-group (form_jg_pa's rel_array), and whether it
    -- is of the group's lowest level (an EC group's last class)
    SELECT e.query_id, e.jg, e.item_id, e.dr, e.njr, e.subgroups, e.lvl,
        CASE WHEN e.lvl = MIN(e.lvl) OVER (PARTITION BY e.query_id, e.jg) THEN 1 ELSE 0 END AS lowest
    FROM (SELECT x.query_id, x.jg, x.item_id, x.dr, x.njr, x.subgroups, x.lvl,
              ROW_NUMBER() OVER (PARTITION BY x.query_id, x.jg, x.item_id
                                 ORDER BY rm_bytewise(x.jsg) DESC NULLS LAST) AS last_jsg
          FROM entries AS x) AS e
    WHERE e.last_jsg = 1
), items AS (
    -- relevant (> 0) or not: an EC group counts every level <= 0 as nonrelevant, a PA group only 0
    -- (add_ec_pref_to_jg, add_pa_pref_to_jg); the place of a nonrelevant item among the group's nonrelevant
    -- items (PA), and of an item of the lowest level among those (EC), by docid rank: the Rnonrel measures keep
    -- the first R of them
    SELECT i.query_id, i.jg, i.item_id, i.dr, i.njr, i.subgroups, i.lvl, i.lowest,
        CASE WHEN i.lvl > 0 THEN 1 ELSE 0 END AS is_rel,
        CASE WHEN i.lvl = 0 OR (i.lvl < 0 AND i.subgroups = 1) THEN 1 ELSE 0 END AS is_nonrel,
        ROW_NUMBER() OVER (PARTITION BY i.query_id, i.jg, CASE WHEN i.lvl = 0 THEN 1 ELSE 0 END
                           ORDER BY i.dr ASC NULLS LAST) AS nonrel_place,
        ROW_NUMBER() OVER (PARTITION BY i.query_id, i.jg, i.lowest ORDER BY i.dr ASC NULLS LAST) AS lowest_place
    FROM last_entries AS i
), direct AS (
    -- a > b within a sub-group when a's level is higher
    SELECT DISTINCT a.query_id, a.jg, a.jsg, a.subgroups, a.njr, a.item_id AS a_item, b.item_id AS b_item,
        a.dr AS ra, b.dr AS rb
    FROM entries AS a
    JOIN entries AS b ON b.query_id = a.query_id AND b.jg = a.jg AND b.jsg = a.jsg AND b.lvl < a.lvl
), closure AS (
    -- a group of several sub-groups: closed under transitivity (form_jg_pa, add_transitives). Preferences of one
    -- sub-group are transitive already, so a shortest chain a > x > ... > b steps to another sub-group each time
    -- and never returns to one (it would have a shortcut there): at most as many steps as sub-groups, which
    -- also ends a chain around a contradiction. UNION ALL, as most engines recurse; duplicates go after.
    SELECT d.query_id, d.jg, d.jsg AS last_jsg, 1 AS steps, d.subgroups, d.njr, d.a_item, d.b_item, d.ra, d.rb
    FROM direct AS d WHERE d.subgroups > 1
    UNION ALL
    SELECT c.query_id, c.jg, d.jsg AS last_jsg, c.steps + 1 AS steps, c.subgroups, c.njr, c.a_item, d.b_item, c.ra,
        d.rb
    FROM closure AS c
    JOIN direct AS d ON d.query_id = c.query_id AND d.jg = c.jg AND d.a_item = c.b_item AND d.jsg <> c.last_jsg
    WHERE c.steps < c.subgroups
), transitive AS (
    SELECT DISTINCT c.query_id, c.jg, c.subgroups, c.njr, c.a_item, c.b_item, c.ra, c.rb FROM closure AS c
), contradictions AS (
    -- a group whose preferences contradict each other (a > b and b > a) is an error, as in trec_eval
    SELECT c.query_id, c.jg, c.a_item, c.b_item
    FROM transitive AS c
    JOIN transitive AS r
        ON r.query_id = c.query_id AND r.jg = c.jg AND r.a_item = c.b_item AND r.b_item = c.a_item
    WHERE c.a_item <> c.b_item
), valid AS (
    SELECT (SELECT CASE WHEN COUNT(*) > 0
                        THEN rm_fail('prefs: judgment group ' || MIN(x.jg) || ' of query ' || MIN(x.query_id)
                                     || ' prefers two items to each other (' || MIN(x.a_item) || ', '
                                     || MIN(x.b_item) || ')') END
            FROM contradictions AS x) IS NULL AS ok
), prefs_pairs AS (
    SELECT p.query_id, p.jg, p.subgroups, p.njr, p.a_item, p.b_item, p.ra, p.rb
    FROM (
        SELECT d.query_id, d.jg, d.subgroups, d.njr, d.a_item, d.b_item, d.ra, d.rb FROM direct AS d
        WHERE d.subgroups = 1
        UNION ALL
        SELECT c.query_id, c.jg, c.subgroups, c.njr, c.a_item, c.b_item, c.ra, c.rb FROM transitive AS c
        WHERE c.a_item <> c.b_item
    ) AS p
    CROSS JOIN valid AS v
    WHERE v.ok
), groups AS (
    SELECT i.query_id, i.jg, MIN(i.subgroups) AS subgroups, MIN(i.njr) AS njr,
        CAST(SUM(i.is_rel) AS BIGINT) AS num_rel,
        CAST(SUM(CASE WHEN i.dr < i.njr THEN i.is_rel ELSE 0 END) AS BIGINT) AS num_rel_ret,
        CAST(SUM(i.is_nonrel) AS BIGINT) AS num_nonrel,
        CAST(SUM(CASE WHEN i.dr < i.njr THEN i.is_nonrel ELSE 0 END) AS BIGINT) AS num_nonrel_ret
    FROM items AS i
    GROUP BY i.query_id, i.jg
), marked AS (
    -- each preference with what the Rnonrel recalculation keeps: a PA group drops the nonrelevant items after
    -- the first R, R its relevant items (num_rel in both variants, as the C code reads); an EC group's first
    -- loop counts the preferences between items above the lowest level
    SELECT p.query_id, p.jg, p.njr, p.ra, p.rb,
        CASE WHEN (ia.lvl = 0 AND ia.nonrel_place > g.num_rel) OR (ib.lvl = 0 AND ib.nonrel_place > g.num_rel)
             THEN 0 ELSE 1 END AS pa_kept,
        CASE WHEN ia.lowest = 1 OR ib.lowest = 1 THEN 0 ELSE 1 END AS ec_upper
    FROM prefs_pairs AS p
    JOIN items AS ia ON ia.query_id = p.query_id AND ia.jg = p.jg AND ia.item_id = p.a_item
    JOIN items AS ib ON ib.query_id = p.query_id AND ib.jg = p.jg AND ib.item_id = p.b_item
    JOIN groups AS g ON g.query_id = p.query_id AND g.jg = p.jg
), counted AS (
    -- add_ec_pref_to_jg / add_pa_pref_to_jg: fulfilled (retrieved: both, a above b; implied: only a retrieved)
    -- and possible (retrieved: both; implied: one; every preference)
    SELECT p.query_id, p.jg,
        CAST(SUM(CASE WHEN p.ra < p.rb AND p.rb < p.njr THEN 1 ELSE 0 END) AS BIGINT) AS ful_ret,
        CAST(SUM(CASE WHEN p.ra < p.njr AND p.rb >= p.njr THEN 1 ELSE 0 END) AS BIGINT) AS ful_imp,
        CAST(SUM(CASE WHEN p.ra < p.njr AND p.rb < p.njr THEN 1 ELSE 0 END) AS BIGINT) AS poss_ret,
        CAST(SUM(CASE WHEN (p.ra < p.njr AND p.rb >= p.njr) OR (p.ra >= p.njr AND p.rb < p.njr) THEN 1 ELSE 0 END)
             AS BIGINT)
            AS poss_imp,
        CAST(COUNT(*) AS BIGINT) AS poss,
        CAST(SUM(CASE WHEN p.pa_kept = 1 AND p.ra < p.rb AND p.ra < p.njr THEN 1 ELSE 0 END) AS BIGINT) AS pa_ful,
        CAST(SUM(p.pa_kept) AS BIGINT) AS pa_poss,
        CAST(SUM(CASE WHEN p.pa_kept = 1 AND p.ra < p.rb AND p.rb < p.njr THEN 1 ELSE 0 END) AS BIGINT) AS pa_ful_ret,
        CAST(SUM(CASE WHEN p.pa_kept = 1 AND p.ra < p.njr AND p.rb < p.njr THEN 1 ELSE 0 END) AS BIGINT)
            AS pa_poss_ret,
        CAST(SUM(CASE WHEN p.ec_upper = 1 AND p.ra < p.rb AND p.ra < p.njr THEN 1 ELSE 0 END) AS BIGINT) AS ec_ful,
        CAST(SUM(p.ec_upper) AS BIGINT) AS ec_poss,
        CAST(SUM(CASE WHEN p.ec_upper = 1 AND p.ra < p.rb AND p.rb < p.njr THEN 1 ELSE 0 END) AS BIGINT)
            AS ec_ful_ret,
        CAST(SUM(CASE WHEN p.ec_upper = 1 AND p.ra < p.njr AND p.rb < p.njr THEN 1 ELSE 0 END) AS BIGINT)
            AS ec_poss_ret
    FROM marked AS p
    GROUP BY p.query_id, p.jg
), lowest AS (
    -- an EC group's second loop: every item x of the group (the lowest level's too, and an item with itself: a
    -- quirk of m_prefs_avgjg_Rnonrel.c's recalculate) against each of the first R items y of the lowest level,
    -- R = num_rel (num_rel_ret, retrieved items only, for the _ret measure); fulfilled when x is retrieved and
    -- ranked above y
    SELECT x.query_id, x.jg,
        CAST(SUM(CASE WHEN y.lowest_place <= g.num_rel AND x.dr < y.dr AND x.dr < x.njr THEN 1 ELSE 0 END) AS BIGINT)
            AS ful,
        CAST(SUM(CASE WHEN y.lowest_place <= g.num_rel THEN 1 ELSE 0 END) AS BIGINT) AS poss,
        CAST(SUM(CASE WHEN y.lowest_place <= g.num_rel_ret AND x.dr < x.njr AND y.dr < y.njr AND x.dr < y.dr
                 THEN 1 ELSE 0 END) AS BIGINT) AS ful_ret,
        CAST(SUM(CASE WHEN y.lowest_place <= g.num_rel_ret AND x.dr < x.njr AND y.dr < y.njr THEN 1 ELSE 0 END)
             AS BIGINT)
            AS poss_ret
    FROM items AS x
    JOIN items AS y ON y.query_id = x.query_id AND y.jg = x.jg AND y.lowest = 1
    JOIN groups AS g ON g.query_id = x.query_id AND g.jg = x.jg
    WHERE g.subgroups = 1
    GROUP BY x.query_id, x.jg
), per_group AS (
    -- the Rnonrel measures' counts: R >= N adds R - N nonrelevant items below each relevant one; otherwise
    -- the recalculation
    SELECT g.query_id, g.jg,
        COALESCE(c.ful_ret, 0) AS ful_ret, COALESCE(c.ful_imp, 0) AS ful_imp, COALESCE(c.poss_ret, 0) AS poss_ret,
        COALESCE(c.poss_imp, 0) AS poss_imp, COALESCE(c.poss, 0) AS poss,
        CASE WHEN g.num_rel >= g.num_nonrel
             THEN COALESCE(c.ful_ret, 0) + COALESCE(c.ful_imp, 0) + g.num_rel_ret * (g.num_rel - g.num_nonrel)
             WHEN g.subgroups > 1 THEN COALESCE(c.pa_ful, 0)
             ELSE COALESCE(c.ec_ful, 0) + COALESCE(l.ful, 0) END AS rn_ful,
        CASE WHEN g.num_rel >= g.num_nonrel THEN COALESCE(c.poss, 0) + g.num_rel * (g.num_rel - g.num_nonrel)
             WHEN g.subgroups > 1 THEN COALESCE(c.pa_poss, 0)
             ELSE COALESCE(c.ec_poss, 0) + COALESCE(l.poss, 0) END AS rn_poss,
        CASE WHEN g.num_rel_ret >= g.num_nonrel_ret
             THEN COALESCE(c.ful_ret, 0) + g.num_rel_ret * (g.num_rel_ret - g.num_nonrel_ret)
             WHEN g.subgroups > 1 THEN COALESCE(c.pa_ful_ret, 0)
             ELSE COALESCE(c.ec_ful_ret, 0) + COALESCE(l.ful_ret, 0) END AS rn_ful_ret,
        CASE WHEN g.num_rel_ret >= g.num_nonrel_ret
             THEN COALESCE(c.poss_ret, 0) + g.num_rel * (g.num_rel_ret - g.num_nonrel_ret)
             WHEN g.subgroups > 1 THEN COALESCE(c.pa_poss_ret, 0)
             ELSE COALESCE(c.ec_poss_ret, 0) + COALESCE(l.poss_ret, 0) END AS rn_poss_ret
    FROM groups AS g
    LEFT JOIN counted AS c ON c.query_id = g.query_id AND c.jg = g.jg
    LEFT JOIN lowest AS l ON l.query_id = g.query_id AND l.jg = g.jg
), per_query AS (
    -- a group's ratio as the C code sums it: 0 for a group without possible preferences where it tests for that
    -- (m_prefs_avgjg*.c); for the Rnonrel measures a 0 / 0 (NaN) leaves the query's value at 0 (`sum > 0.0`)
    SELECT g.query_id,
        SUM(g.poss) AS poss, SUM(g.ful_ret + g.ful_imp) AS ful, SUM(g.ful_ret) AS ful_ret,
        SUM(g.poss_ret) AS poss_ret, SUM(g.poss_ret + g.poss_imp) AS poss_imp,
        COALESCE(SUM(CASE WHEN g.poss > 0 THEN CAST(g.ful_ret + g.ful_imp AS DOUBLE) / g.poss END), 0) / COUNT(*)
            AS avgjg,
        COALESCE(SUM(CASE WHEN g.poss_ret > 0 THEN CAST(g.ful_ret AS DOUBLE) / g.poss_ret END), 0) / COUNT(*)
            AS avgjg_ret,
        COALESCE(SUM(CASE WHEN g.poss_ret + g.poss_imp > 0
                          THEN CAST(g.ful_ret + g.ful_imp AS DOUBLE) / (g.poss_ret + g.poss_imp) END), 0) / COUNT(*)
            AS avgjg_imp,
        CASE WHEN SUM(CASE WHEN g.rn_poss = 0 THEN 1 ELSE 0 END) > 0 THEN CAST(0 AS DOUBLE)
             ELSE SUM(CAST(g.rn_ful AS DOUBLE) / NULLIF(g.rn_poss, 0)) / COUNT(*) END AS avgjg_rnonrel,
        CASE WHEN SUM(CASE WHEN g.rn_poss_ret = 0 THEN 1 ELSE 0 END) > 0 THEN CAST(0 AS DOUBLE)
             ELSE SUM(CAST(g.rn_ful_ret AS DOUBLE) / NULLIF(g.rn_poss_ret, 0)) / COUNT(*) END AS avgjg_rnonrel_ret
    FROM per_group AS g
    GROUP BY g.query_id
), item_pairs AS (
    -- per item pair of a query: how many groups prefer the pair's higher-ranked item (fwd) and how many prefer
    -- either (m_prefs_pair*.c's pref_counts); both retrieved, one, or neither
    SELECT p.query_id,
        CASE WHEN GREATEST(p.ra, p.rb) < MIN(p.njr) THEN 2 WHEN LEAST(p.ra, p.rb) < MIN(p.njr) THEN 1 ELSE 0 END
            AS retrieved,
        SUM(CASE WHEN p.ra < p.rb THEN 1 ELSE 0 END) AS fwd,
        COUNT(*) AS total
    FROM prefs_pairs AS p
    GROUP BY p.query_id, LEAST(p.ra, p.rb), GREATEST(p.ra, p.rb)
), pair_sums AS (
    SELECT x.query_id,
        SUM(CASE WHEN x.retrieved > 0 THEN CAST(x.fwd AS DOUBLE) / x.total ELSE 0 END) AS pair_sum,
        COUNT(*) AS pairs,
        SUM(CASE WHEN x.retrieved = 2 THEN CAST(x.fwd AS DOUBLE) / x.total ELSE 0 END) AS ret_sum,
        SUM(CASE WHEN x.retrieved = 2 THEN 1 ELSE 0 END) AS ret_pairs,
        SUM(CASE WHEN x.retrieved > 0 THEN 1 ELSE 0 END) AS imp_pairs
    FROM item_pairs AS x
    GROUP BY x.query_id
)
SELECT
    q.query_id,
    CAST(q.poss AS DOUBLE) AS prefs_num_prefs_poss,
    CAST(q.ful AS DOUBLE) AS prefs_num_prefs_ful,
    CAST(q.ful_ret AS DOUBLE) AS prefs_num_prefs_ful_ret,
    COALESCE(CAST(q.ful AS DOUBLE) / NULLIF(q.poss, 0), 0) AS prefs_simp,
    COALESCE(pr.pair_sum / NULLIF(pr.pairs, 0), 0) AS prefs_pair,
    q.avgjg AS prefs_avgjg,
    q.avgjg_rnonrel AS prefs_avgjg_Rnonrel,
    COALESCE(CAST(q.ful_ret AS DOUBLE) / NULLIF(q.poss_ret, 0), 0) AS prefs_simp_ret,
    COALESCE(pr.ret_sum / NULLIF(pr.ret_pairs, 0), 0) AS prefs_pair_ret,
    q.avgjg_ret AS prefs_avgjg_ret,
    q.avgjg_rnonrel_ret AS prefs_avgjg_Rnonrel_ret,
    COALESCE(CAST(q.ful AS DOUBLE) / NULLIF(q.poss_imp, 0), 0) AS prefs_simp_imp,
    COALESCE(pr.pair_sum / NULLIF(pr.imp_pairs, 0), 0) AS prefs_pair_imp,
    q.avgjg_imp AS prefs_avgjg_imp
FROM per_query AS q
LEFT JOIN pair_sums AS pr ON pr.query_id = q.query_id;
