-- trec_eval's preference measures (-R prefs, -R qrels_prefs; trec_eval 10's form_prefs_counts.c and
-- m_prefs_*.c), over a run and a table of preference judgments prefs(query_id, jg, jsg, item_id, relevance):
-- within a judgment sub-group (jsg) an item is preferred to every item with a lower level; a judgment group
-- (jg) with several sub-groups adds the transitive preferences (a > b in one, b > c in another: a > c).
-- -R qrels_prefs reads ordinary qrels as prefs: jg is the qrels' second column, one sub-group per query.
--
-- Items are ranked as form_prefs_counts.c ranks them: score descending, ties by item id ascending (strcmp;
-- trec_eval's other measures break ties descending), the top max_retrieved only (-M). A judged item's "docid
-- rank" is its place among the judged retrieved items (0, 1, ...; njr of them), then njr, njr + 1, ... for the
-- judged items not retrieved, in item id order. A preference a > b is
--   fulfilled (retrieved)  when both are retrieved and a is ranked above b,
--   fulfilled (implied)    when only a is retrieved,
--   possible               always; "_ret" measures count pairs with both retrieved, "_imp" pairs with at least
--                          one retrieved, the others every pair (neither retrieved: a failure).
-- One row per query of the prefs table (a query without retrieved items gets zeros): the Python package keeps
-- the queries trec_eval evaluates. The values as m_prefs_*.c compute them, including two of their quirks,
-- written out where they occur.

-- The ranked run: the stream's ranking of the run, each judged item's docid rank, njr per query.
CREATE OR REPLACE MACRO rm_prefs_docs(run, prefs, max_retrieved, ties) AS TABLE
SELECT
    d.query_id,
    d.item_id,
    d.njr,
    CASE WHEN d.pos IS NOT NULL
         THEN ROW_NUMBER() OVER (PARTITION BY d.query_id ORDER BY d.pos ASC NULLS LAST) - 1
         ELSE d.njr + ROW_NUMBER() OVER (PARTITION BY d.query_id, d.pos IS NULL ORDER BY rm_bytewise(d.item_id) ASC NULLS LAST) - 1
    END AS dr
FROM (
    SELECT
        j.query_id,
        j.item_id,
        r.pos,
        SUM(CASE WHEN r.pos IS NOT NULL THEN 1 ELSE 0 END) OVER (PARTITION BY j.query_id) AS njr
    FROM (SELECT DISTINCT CAST(p.query_id AS VARCHAR) AS query_id, CAST(p.item_id AS VARCHAR) AS item_id
          FROM query_table(prefs) AS p) AS j
    LEFT JOIN (
        SELECT DISTINCT struct_extract(s.query_id, 'query_id') AS query_id, s.item_id, s.pos
        FROM rm_stream(run, prefs, ties, FALSE, 'as_given', 'query_id', 'item_id', 'score', 'rank', 'relevance',
            [], FALSE, FALSE) AS s
        WHERE s.kind = 'R' AND rm_within(s.pos, max_retrieved)
    ) AS r ON rm_bytewise(r.query_id) = rm_bytewise(j.query_id) AND rm_bytewise(r.item_id) = rm_bytewise(j.item_id)
) AS d;

-- Each preference judgment with its item's docid rank, its group's number of sub-groups (one: the levels are
-- equivalence classes, "EC"; several: a preference array with transitive preferences, "PA"), and its level's
-- place: whether it is the group's lowest level (the last EC).
CREATE OR REPLACE MACRO rm_prefs_entries(run, prefs, max_retrieved, ties) AS TABLE
SELECT
    e.*,
    g.subgroups,
    e.lvl = MIN(e.lvl) OVER (PARTITION BY e.query_id, e.jg) AS lowest
FROM (
    SELECT
        CAST(p.query_id AS VARCHAR) AS query_id,
        CAST(p.jg AS VARCHAR) AS jg,
        CAST(p.jsg AS VARCHAR) AS jsg,
        CAST(p.item_id AS VARCHAR) AS item_id,
        CAST(p.relevance AS DOUBLE) AS lvl,
        d.dr,
        d.njr
    FROM query_table(prefs) AS p
    JOIN rm_prefs_docs(run, prefs, max_retrieved, ties) AS d
        ON rm_bytewise(d.query_id) = rm_bytewise(CAST(p.query_id AS VARCHAR))
        AND rm_bytewise(d.item_id) = rm_bytewise(CAST(p.item_id AS VARCHAR))
) AS e
JOIN (
    SELECT CAST(p.query_id AS VARCHAR) AS query_id, CAST(p.jg AS VARCHAR) AS jg,
        COUNT(DISTINCT CAST(p.jsg AS VARCHAR)) AS subgroups
    FROM query_table(prefs) AS p
    GROUP BY CAST(p.query_id AS VARCHAR), CAST(p.jg AS VARCHAR)
) AS g ON g.query_id = e.query_id AND g.jg = e.jg;

-- Each item of a group once, with the level that counts for relevance (a group of several sub-groups keeps the
-- level of its last sub-group, as form_jg_pa's rel_array does), relevant (> 0) or not: an EC group counts every
-- level <= 0 as nonrelevant, a PA group only 0 (add_ec_pref_to_jg, add_pa_pref_to_jg).
CREATE OR REPLACE MACRO rm_prefs_items(run, prefs, max_retrieved, ties) AS TABLE
SELECT
    i.*,
    CASE WHEN i.lvl > 0 THEN 1 ELSE 0 END AS is_rel,
    CASE WHEN i.lvl = 0 OR (i.lvl < 0 AND i.subgroups = 1) THEN 1 ELSE 0 END AS is_nonrel,
    -- the place of a nonrelevant item among the group's nonrelevant items (PA), and of an item of the lowest
    -- level among those (EC), by docid rank: the measures ending in Rnonrel keep the first R of them
    ROW_NUMBER() OVER (PARTITION BY i.query_id, i.jg, i.lvl = 0 ORDER BY i.dr ASC NULLS LAST) AS nonrel_place,
    ROW_NUMBER() OVER (PARTITION BY i.query_id, i.jg, i.lowest ORDER BY i.dr ASC NULLS LAST) AS lowest_place
FROM (
    SELECT e.query_id, e.jg, e.item_id, e.dr, e.njr, e.subgroups, e.lowest, e.lvl
    FROM (SELECT x.*, ROW_NUMBER() OVER (PARTITION BY x.query_id, x.jg, x.item_id
                                         ORDER BY rm_bytewise(x.jsg) DESC NULLS LAST) AS last_jsg
          FROM rm_prefs_entries(run, prefs, max_retrieved, ties) AS x) AS e
    WHERE e.last_jsg = 1
) AS i;

-- The preferences of each group: a > b within a sub-group when a's level is higher, closed under transitivity
-- in a group of several sub-groups (form_jg_pa, add_transitives); a group whose preferences contradict each
-- other (a > b and b > a) is an error, as in trec_eval.
CREATE OR REPLACE MACRO rm_prefs_pairs(run, prefs, max_retrieved, ties) AS TABLE
WITH RECURSIVE direct AS (
    SELECT DISTINCT a.query_id, a.jg, a.subgroups, a.njr, a.item_id AS a_item, b.item_id AS b_item, a.dr AS ra,
        b.dr AS rb
    FROM rm_prefs_entries(run, prefs, max_retrieved, ties) AS a
    JOIN rm_prefs_entries(run, prefs, max_retrieved, ties) AS b
        ON b.query_id = a.query_id AND b.jg = a.jg AND b.jsg = a.jsg AND b.lvl < a.lvl
), closure AS (
    SELECT d.query_id, d.jg, d.subgroups, d.njr, d.a_item, d.b_item, d.ra, d.rb
    FROM direct AS d WHERE d.subgroups > 1
    UNION
    SELECT c.query_id, c.jg, c.subgroups, c.njr, c.a_item, d.b_item, c.ra, d.rb
    FROM closure AS c
    JOIN direct AS d ON d.query_id = c.query_id AND d.jg = c.jg AND d.a_item = c.b_item
)
SELECT p.*
FROM (
    SELECT d.* FROM direct AS d WHERE d.subgroups = 1
    UNION ALL
    SELECT c.* FROM closure AS c WHERE c.a_item <> c.b_item
) AS p
CROSS JOIN (
    SELECT CASE WHEN COUNT(*) > 0
                THEN rm_fail('prefs: judgment group ' || MIN(c.jg) || ' of query ' || MIN(c.query_id)
                             || ' prefers two items to each other (' || MIN(c.a_item) || ', ' || MIN(c.b_item)
                             || ')')
                ELSE TRUE END AS ok
    FROM closure AS c
    JOIN closure AS r ON r.query_id = c.query_id AND r.jg = c.jg AND r.a_item = c.b_item AND r.b_item = c.a_item
    WHERE c.a_item <> c.b_item
) AS valid
WHERE valid.ok;

-- Per group: the counts of add_ec_pref_to_jg / add_pa_pref_to_jg (fulfilled and possible, retrieved and
-- implied, neither retrieved), the relevant and nonrelevant items (retrieved or not), and the counts of the
-- Rnonrel measures' recalculation (m_prefs_avgjg_Rnonrel.c, m_prefs_avgjg_Rnonrel_ret.c).
CREATE OR REPLACE MACRO rm_prefs_groups(run, prefs, max_retrieved, ties) AS TABLE
WITH items AS (SELECT * FROM rm_prefs_items(run, prefs, max_retrieved, ties)),
groups AS (
    SELECT i.query_id, i.jg, MIN(i.subgroups) AS subgroups, MIN(i.njr) AS njr,
        SUM(i.is_rel) AS num_rel, SUM(CASE WHEN i.dr < i.njr THEN i.is_rel ELSE 0 END) AS num_rel_ret,
        SUM(i.is_nonrel) AS num_nonrel, SUM(CASE WHEN i.dr < i.njr THEN i.is_nonrel ELSE 0 END) AS num_nonrel_ret
    FROM items AS i
    GROUP BY i.query_id, i.jg
),
pairs AS (
    -- each preference with its items' places: kept by the Rnonrel recalculation (a PA group drops the
    -- nonrelevant items after the first R, R its relevant items: num_rel in both variants, as the C code reads)
    SELECT p.query_id, p.jg, p.subgroups, p.njr, p.ra, p.rb,
        CASE WHEN (ia.lvl = 0 AND ia.nonrel_place > g.num_rel) OR (ib.lvl = 0 AND ib.nonrel_place > g.num_rel)
             THEN 0 ELSE 1 END AS pa_kept,
        CASE WHEN ia.lowest OR ib.lowest THEN 0 ELSE 1 END AS ec_upper
    FROM rm_prefs_pairs(run, prefs, max_retrieved, ties) AS p
    JOIN items AS ia ON ia.query_id = p.query_id AND ia.jg = p.jg AND ia.item_id = p.a_item
    JOIN items AS ib ON ib.query_id = p.query_id AND ib.jg = p.jg AND ib.item_id = p.b_item
    JOIN groups AS g ON g.query_id = p.query_id AND g.jg = p.jg
),
counted AS (
    SELECT p.query_id, p.jg,
        SUM(CASE WHEN p.ra < p.rb AND p.rb < p.njr THEN 1 ELSE 0 END) AS ful_ret,
        SUM(CASE WHEN p.ra < p.njr AND p.rb >= p.njr THEN 1 ELSE 0 END) AS ful_imp,
        SUM(CASE WHEN p.ra < p.njr AND p.rb < p.njr THEN 1 ELSE 0 END) AS poss_ret,
        SUM(CASE WHEN (p.ra < p.njr) <> (p.rb < p.njr) THEN 1 ELSE 0 END) AS poss_imp,
        COUNT(*) AS poss,
        -- the recalculation of a PA group: the preferences between kept items
        SUM(CASE WHEN p.pa_kept = 1 AND p.ra < p.rb AND p.ra < p.njr THEN 1 ELSE 0 END) AS pa_ful,
        SUM(p.pa_kept) AS pa_poss,
        SUM(CASE WHEN p.pa_kept = 1 AND p.ra < p.rb AND p.rb < p.njr THEN 1 ELSE 0 END) AS pa_ful_ret,
        SUM(CASE WHEN p.pa_kept = 1 AND p.ra < p.njr AND p.rb < p.njr THEN 1 ELSE 0 END) AS pa_poss_ret,
        -- of an EC group, its first loop: the preferences between items above the lowest level
        SUM(CASE WHEN p.ec_upper = 1 AND p.ra < p.rb AND p.ra < p.njr THEN 1 ELSE 0 END) AS ec_ful,
        SUM(p.ec_upper) AS ec_poss,
        SUM(CASE WHEN p.ec_upper = 1 AND p.ra < p.rb AND p.rb < p.njr THEN 1 ELSE 0 END) AS ec_ful_ret,
        SUM(CASE WHEN p.ec_upper = 1 AND p.ra < p.njr AND p.rb < p.njr THEN 1 ELSE 0 END) AS ec_poss_ret
    FROM pairs AS p
    GROUP BY p.query_id, p.jg
),
lowest AS (
    -- of an EC group, its second loop: every item x of the group (the lowest level's too, and an item with
    -- itself: a quirk of m_prefs_avgjg_Rnonrel.c's recalculate) against each of the first R items y of the
    -- lowest level, R = num_rel (num_rel_ret and retrieved items only for the _ret measure); fulfilled when x is
    -- retrieved and ranked above y
    SELECT x.query_id, x.jg,
        SUM(CASE WHEN y.lowest_place <= g.num_rel AND x.dr < y.dr AND x.dr < x.njr THEN 1 ELSE 0 END) AS ful,
        SUM(CASE WHEN y.lowest_place <= g.num_rel THEN 1 ELSE 0 END) AS poss,
        SUM(CASE WHEN y.lowest_place <= g.num_rel_ret AND x.dr < x.njr AND y.dr < y.njr AND x.dr < y.dr
                 THEN 1 ELSE 0 END) AS ful_ret,
        SUM(CASE WHEN y.lowest_place <= g.num_rel_ret AND x.dr < x.njr AND y.dr < y.njr THEN 1 ELSE 0 END)
            AS poss_ret
    FROM items AS x
    JOIN items AS y ON y.query_id = x.query_id AND y.jg = x.jg AND y.lowest
    JOIN groups AS g ON g.query_id = x.query_id AND g.jg = x.jg
    WHERE g.subgroups = 1
    GROUP BY x.query_id, x.jg
)
SELECT
    g.query_id, g.jg, g.subgroups, g.num_rel, g.num_rel_ret, g.num_nonrel, g.num_nonrel_ret,
    COALESCE(c.ful_ret, 0) AS ful_ret,
    COALESCE(c.ful_imp, 0) AS ful_imp,
    COALESCE(c.poss_ret, 0) AS poss_ret,
    COALESCE(c.poss_imp, 0) AS poss_imp,
    COALESCE(c.poss, 0) AS poss,
    -- the Rnonrel measures' fulfilled and possible counts: R >= N adds R - N nonrelevant items below each
    -- relevant one; otherwise the recalculation
    CASE WHEN g.num_rel >= g.num_nonrel
         THEN COALESCE(c.ful_ret, 0) + COALESCE(c.ful_imp, 0) + g.num_rel_ret * (g.num_rel - g.num_nonrel)
         WHEN g.subgroups > 1 THEN COALESCE(c.pa_ful, 0)
         ELSE COALESCE(c.ec_ful, 0) + COALESCE(l.ful, 0) END AS rn_ful,
    CASE WHEN g.num_rel >= g.num_nonrel
         THEN COALESCE(c.poss, 0) + g.num_rel * (g.num_rel - g.num_nonrel)
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
LEFT JOIN lowest AS l ON l.query_id = g.query_id AND l.jg = g.jg;

-- Per item pair of a query: how many groups prefer the pair's higher-ranked item (fwd) and how many prefer
-- either (m_prefs_pair*.c's pref_counts); both retrieved, one, or neither.
CREATE OR REPLACE MACRO rm_prefs_item_pairs(run, prefs, max_retrieved, ties) AS TABLE
SELECT
    p.query_id,
    CASE WHEN GREATEST(p.ra, p.rb) < MIN(p.njr) THEN 'ret'
         WHEN LEAST(p.ra, p.rb) < MIN(p.njr) THEN 'imp' ELSE 'none' END AS retrieved,
    SUM(CASE WHEN p.ra < p.rb THEN 1 ELSE 0 END) AS fwd,
    COUNT(*) AS total
FROM rm_prefs_pairs(run, prefs, max_retrieved, ties) AS p
GROUP BY p.query_id, LEAST(p.ra, p.rb), GREATEST(p.ra, p.rb);

-- The ratio of a group's fulfilled to possible preferences as the C code sums it: 0 for a group without
-- possible preferences where it tests for that (m_prefs_avgjg*.c), NaN where it does not (the Rnonrel
-- measures), and a NaN in a query's sum leaves the query's value at 0 (their `if (sum > 0.0)`).
CREATE OR REPLACE MACRO rm_prefs_jg_mean(ful, poss) AS
    CASE WHEN SUM(CASE WHEN poss = 0 AND ful = 0 THEN 1 ELSE 0 END) > 0 THEN CAST(0 AS DOUBLE)
         ELSE COALESCE(SUM(CAST(ful AS DOUBLE) / NULLIF(poss, 0)), 0) / COUNT(*) END;

-- One row per query of the prefs table: trec_eval's 14 preference measures.
CREATE OR REPLACE MACRO trec_prefs(run, prefs, max_retrieved := NULL, ties := 'item_asc') AS TABLE
WITH g AS (SELECT * FROM rm_prefs_groups(run, prefs, max_retrieved, ties)),
q AS (
    SELECT g.query_id,
        SUM(g.poss) AS poss, SUM(g.ful_ret + g.ful_imp) AS ful, SUM(g.ful_ret) AS ful_ret,
        SUM(g.poss_ret) AS poss_ret, SUM(g.poss_ret + g.poss_imp) AS poss_imp, SUM(g.ful_ret + g.ful_imp) AS ful_imp,
        COALESCE(SUM(CASE WHEN g.poss > 0 THEN CAST(g.ful_ret + g.ful_imp AS DOUBLE) / g.poss END), 0) / COUNT(*)
            AS avgjg,
        COALESCE(SUM(CASE WHEN g.poss_ret > 0 THEN CAST(g.ful_ret AS DOUBLE) / g.poss_ret END), 0) / COUNT(*)
            AS avgjg_ret,
        COALESCE(SUM(CASE WHEN g.poss_ret + g.poss_imp > 0
                          THEN CAST(g.ful_ret + g.ful_imp AS DOUBLE) / (g.poss_ret + g.poss_imp) END), 0) / COUNT(*)
            AS avgjg_imp,
        rm_prefs_jg_mean(g.rn_ful, g.rn_poss) AS avgjg_rnonrel,
        rm_prefs_jg_mean(g.rn_ful_ret, g.rn_poss_ret) AS avgjg_rnonrel_ret
    FROM g
    GROUP BY g.query_id
),
pr AS (
    SELECT x.query_id,
        SUM(CASE WHEN x.retrieved <> 'none' THEN CAST(x.fwd AS DOUBLE) / x.total ELSE 0 END) AS pair_sum,
        COUNT(*) AS pairs,
        SUM(CASE WHEN x.retrieved = 'ret' THEN CAST(x.fwd AS DOUBLE) / x.total ELSE 0 END) AS ret_sum,
        SUM(CASE WHEN x.retrieved = 'ret' THEN 1 ELSE 0 END) AS ret_pairs,
        SUM(CASE WHEN x.retrieved <> 'none' THEN 1 ELSE 0 END) AS imp_pairs
    FROM rm_prefs_item_pairs(run, prefs, max_retrieved, ties) AS x
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
    COALESCE(CAST(q.ful_imp AS DOUBLE) / NULLIF(q.poss_imp, 0), 0) AS prefs_simp_imp,
    COALESCE(pr.pair_sum / NULLIF(pr.imp_pairs, 0), 0) AS prefs_pair_imp,
    q.avgjg_imp AS prefs_avgjg_imp
FROM q
LEFT JOIN pr ON pr.query_id = q.query_id;
