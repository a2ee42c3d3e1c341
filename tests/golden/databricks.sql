WITH run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS rank_in
  FROM `my-project`.rm.trec_run_score AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN NOT (
        CAST(j.relevance AS DOUBLE) - CAST(j.relevance AS DOUBLE) IS NULL
        OR CAST(j.relevance AS DOUBLE) - CAST(j.relevance AS DOUBLE) <> 0
      )
      THEN CAST(CASE
        WHEN CAST(j.relevance AS DOUBLE) < 0
        THEN CEIL(CAST(j.relevance AS DOUBLE))
        ELSE FLOOR(CAST(j.relevance AS DOUBLE))
      END AS DOUBLE)
      ELSE CAST(j.relevance AS DOUBLE)
    END AS grade
  FROM `my-project`.rm.trec_judgments AS j
), item_stream AS (
  SELECT
    s.query_id,
    s.kind,
    s.item_id,
    s.score,
    s.grade,
    CASE
      WHEN s.kind = 'J'
      THEN ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind ORDER BY s.grade DESC NULLS LAST)
      ELSE s.pos
    END AS pos,
    CASE
      WHEN s.kind = 'J'
      THEN ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind ORDER BY s.grade DESC NULLS LAST)
      ELSE s.ipos
    END AS ipos,
    s.run_rows,
    s.judgment_rows,
    s.low_grade,
    s.rank_in,
    s.running_rel_6
  FROM (
    SELECT
      i.query_id,
      k.kind,
      i.item_id,
      CASE WHEN k.kind = 'R' THEN i.score END AS score,
      i.grade,
      CASE WHEN k.kind = 'R' THEN i.pos END AS pos,
      CASE WHEN k.kind = 'R' THEN i.ipos END AS ipos,
      i.run_rows,
      i.judgment_rows,
      i.low_grade,
      CASE WHEN k.kind = 'R' THEN i.rank_in END AS rank_in,
      CASE WHEN k.kind = 'R' THEN i.running_rel_6 END AS running_rel_6
    FROM (
      SELECT
        p.*,
        ROW_NUMBER() OVER (
          PARTITION BY p.query_id
          ORDER BY CASE WHEN p.pos IS NULL THEN 1 ELSE 0 END ASC NULLS LAST, COALESCE(p.grade, 0) DESC NULLS LAST, p.pos ASC NULLS LAST
        ) AS ipos
      FROM (
        SELECT
          g.*,
          CASE
            WHEN g.ranked = 1
            THEN ROW_NUMBER() OVER (
              PARTITION BY g.query_id
              ORDER BY g.ranked DESC NULLS LAST, g.score DESC NULLS LAST, g.item_id DESC NULLS LAST
            )
          END AS pos,
          CASE
            WHEN g.ranked = 1
            THEN SUM(CASE WHEN g.grade >= 1 THEN 1 ELSE 0 END) OVER (
              PARTITION BY g.query_id
              ORDER BY g.ranked DESC NULLS LAST, g.score DESC NULLS LAST, g.item_id DESC NULLS LAST
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            )
          END AS running_rel_6
        FROM (
          SELECT
            u.query_id,
            u.item_id AS item_id,
            MAX(u.score) AS score,
            MAX(u.rank_in) AS rank_in,
            MAX(u.grade) AS grade,
            MIN(u.grade) AS low_grade,
            SUM(u.run_row) AS run_rows,
            SUM(1 - u.run_row) AS judgment_rows,
            CASE WHEN SUM(u.run_row) > 0 THEN 1 ELSE 0 END AS ranked
          FROM (
            SELECT /*+ REPARTITION(u.query_id) */
              u.*
            FROM (
              SELECT
                ri.query_id,
                ri.item_id,
                ri.score,
                ri.rank_in,
                CAST(NULL AS DOUBLE) AS grade,
                1 AS run_row
              FROM run_items AS ri
              UNION ALL
              SELECT
                ji.query_id,
                ji.item_id,
                CAST(NULL AS DOUBLE) AS score,
                CAST(NULL AS DOUBLE) AS rank_in,
                ji.grade,
                0 AS run_row
              FROM judgment_items AS ji
            ) AS u
          ) AS u
          GROUP BY
            u.query_id,
            u.item_id
        ) AS g
      ) AS p
    ) AS i
    JOIN (
      SELECT
        t.kind
      FROM VALUES
        ('R'),
        ('J') AS t(kind)
    ) AS k
      ON (
        k.kind = 'R'
        AND (
          NOT i.pos IS NULL
          OR i.run_rows > 1
          OR (
            i.run_rows > 0
            AND (
              (
                i.score - i.score IS NULL OR i.score - i.score <> 0
              )
              OR i.item_id IS NULL
              OR TRIM(' ' FROM i.item_id) = ''
            )
          )
        )
      )
      OR (
        k.kind = 'J' AND i.judgment_rows > 0
      )
  ) AS s
  WHERE
    s.kind = 'J'
    OR s.pos = 1
    OR (
      NOT s.grade IS NULL
    )
    OR s.run_rows > 1
    OR (
      s.score - s.score IS NULL OR s.score - s.score <> 0
    )
    OR (
      s.query_id IS NULL
      OR s.item_id IS NULL
      OR TRIM(' ' FROM s.query_id) = ''
      OR TRIM(' ' FROM s.item_id) = ''
    )
), per_query AS (
  SELECT
    f.query_id,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND (
              f.pos <= 10
            )
            THEN CASE
              WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
              THEN CAST(0 AS DOUBLE)
              ELSE CAST(f.grade AS DOUBLE)
            END * (
              LN(CAST(2 AS DOUBLE)) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
            )
            ELSE 0
          END
        ) AS DOUBLE) / NULLIF(
          SUM(
            CASE
              WHEN f.kind = 'J' AND (
                f.pos <= 10
              )
              THEN CASE
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
                THEN CAST(0 AS DOUBLE)
                ELSE CAST(f.grade AS DOUBLE)
              END * (
                LN(CAST(2 AS DOUBLE)) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
              )
              ELSE 0
            END
          ),
          0
        )
      ),
      CAST(0 AS DOUBLE)
    ) AS m_1,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R'
            THEN CASE
              WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
              THEN CAST(0 AS DOUBLE)
              ELSE CAST(f.grade AS DOUBLE)
            END * (
              LN(CAST(2 AS DOUBLE)) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
            )
            ELSE 0
          END
        ) AS DOUBLE) / NULLIF(
          SUM(
            CASE
              WHEN f.kind = 'J'
              THEN CASE
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
                THEN CAST(0 AS DOUBLE)
                ELSE CAST(f.grade AS DOUBLE)
              END * (
                LN(CAST(2 AS DOUBLE)) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
              )
              ELSE 0
            END
          ),
          0
        )
      ),
      CAST(0 AS DOUBLE)
    ) AS m_2,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND f.grade >= 1
            THEN CAST(f.running_rel_6 AS DOUBLE) / NULLIF(f.pos, 0)
            ELSE 0
          END
        ) AS DOUBLE) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END), 0)
      ),
      CAST(0 AS DOUBLE)
    ) AS m_3,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND f.grade >= 1 AND (
              f.pos <= 100
            )
            THEN CAST(f.running_rel_6 AS DOUBLE) / NULLIF(f.pos, 0)
            ELSE 0
          END
        ) AS DOUBLE) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END), 0)
      ),
      CAST(0 AS DOUBLE)
    ) AS m_4,
    COALESCE(
      (
        CAST(SUM(CASE WHEN f.kind = 'R' AND f.grade >= 1 AND (
          f.pos <= 10
        ) THEN 1 ELSE 0 END) AS DOUBLE) / NULLIF(10, 0)
      ),
      CAST(0 AS DOUBLE)
    ) AS m_5,
    COALESCE(
      (
        CAST(SUM(CASE WHEN f.kind = 'R' AND f.grade >= 1 AND (
          f.pos <= 100
        ) THEN 1 ELSE 0 END) AS DOUBLE) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END), 0)
      ),
      CAST(0 AS DOUBLE)
    ) AS m_6,
    COALESCE(
      (
        CAST(1 AS DOUBLE) / NULLIF(MIN(CASE WHEN f.kind = 'R' AND f.grade >= 1 THEN f.pos END), 0)
      ),
      CAST(0 AS DOUBLE)
    ) AS m_7,
    MIN(
      CASE
        WHEN f.kind = 'R'
        AND (
          f.query_id IS NULL
          OR f.item_id IS NULL
          OR TRIM(' ' FROM f.query_id) = ''
          OR TRIM(' ' FROM f.item_id) = ''
        )
        THEN 'rankmetrics: a row of the run has no query id or no item id (NULL or empty)'
        WHEN f.kind = 'J'
        AND (
          f.query_id IS NULL
          OR f.item_id IS NULL
          OR TRIM(' ' FROM f.query_id) = ''
          OR TRIM(' ' FROM f.item_id) = ''
        )
        THEN 'rankmetrics: a row of the judgments has no query id or no item id (NULL or empty)'
        WHEN f.kind = 'R' AND (
          f.score - f.score IS NULL OR f.score - f.score <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' of query ',
          f.query_id,
          ' has a score (or rank) that is NULL, NaN or infinite in the run'
        )
        WHEN f.kind = 'J' AND (
          f.grade - f.grade IS NULL OR f.grade - f.grade <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' of query ',
          f.query_id,
          ' has a relevance grade that is NULL, NaN or infinite in the judgments'
        )
        WHEN f.kind = 'R' AND f.run_rows > 1
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' appears ',
          CAST(f.run_rows AS STRING),
          ' times for query ',
          f.query_id,
          ' in the run'
        )
        WHEN f.kind = 'J' AND f.judgment_rows > 1
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' of query ',
          f.query_id,
          ' is judged ',
          CAST(f.judgment_rows AS STRING),
          ' times (grades ',
          CAST(f.low_grade AS STRING),
          ' to ',
          CAST(f.grade AS STRING),
          ')'
        )
      END
    ) AS rm_fault
  FROM item_stream AS f
  GROUP BY
    f.query_id
  HAVING
    (
      SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
    )
    OR NOT MIN(
      CASE
        WHEN f.kind = 'R'
        AND (
          f.query_id IS NULL
          OR f.item_id IS NULL
          OR TRIM(' ' FROM f.query_id) = ''
          OR TRIM(' ' FROM f.item_id) = ''
        )
        THEN 'rankmetrics: a row of the run has no query id or no item id (NULL or empty)'
        WHEN f.kind = 'J'
        AND (
          f.query_id IS NULL
          OR f.item_id IS NULL
          OR TRIM(' ' FROM f.query_id) = ''
          OR TRIM(' ' FROM f.item_id) = ''
        )
        THEN 'rankmetrics: a row of the judgments has no query id or no item id (NULL or empty)'
        WHEN f.kind = 'R' AND (
          f.score - f.score IS NULL OR f.score - f.score <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' of query ',
          f.query_id,
          ' has a score (or rank) that is NULL, NaN or infinite in the run'
        )
        WHEN f.kind = 'J' AND (
          f.grade - f.grade IS NULL OR f.grade - f.grade <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' of query ',
          f.query_id,
          ' has a relevance grade that is NULL, NaN or infinite in the judgments'
        )
        WHEN f.kind = 'R' AND f.run_rows > 1
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' appears ',
          CAST(f.run_rows AS STRING),
          ' times for query ',
          f.query_id,
          ' in the run'
        )
        WHEN f.kind = 'J' AND f.judgment_rows > 1
        THEN CONCAT(
          'rankmetrics: item ',
          f.item_id,
          ' of query ',
          f.query_id,
          ' is judged ',
          CAST(f.judgment_rows AS STRING),
          ' times (grades ',
          CAST(f.low_grade AS STRING),
          ' to ',
          CAST(f.grade AS STRING),
          ')'
        )
      END
    ) IS NULL
), measure_list AS (
  SELECT
    t.measure_no,
    t.measure,
    t.summed
  FROM VALUES
    (1, 'nDCG@10', 0),
    (2, 'nDCG', 0),
    (3, 'AP', 0),
    (4, 'AP@100', 0),
    (5, 'P@10', 0),
    (6, 'R@100', 0),
    (7, 'RR', 0) AS t(measure_no, measure, summed)
), measure_values AS (
  SELECT
    m.measure_no,
    m.measure,
    m.summed,
    p.query_id,
    CASE m.measure_no
      WHEN 1
      THEN p.m_1
      WHEN 2
      THEN p.m_2
      WHEN 3
      THEN p.m_3
      WHEN 4
      THEN p.m_4
      WHEN 5
      THEN p.m_5
      WHEN 6
      THEN p.m_6
      WHEN 7
      THEN p.m_7
    END AS value,
    p.rm_fault
  FROM per_query AS p
  CROSS JOIN measure_list AS m
)
SELECT
  v.measure AS measure,
  CASE WHEN GROUPING(v.query_id) = 1 THEN CAST(NULL AS STRING) ELSE v.query_id END AS query_id,
  CAST(CASE
    WHEN MIN(v.rm_fault) IS NULL
    THEN CASE
      WHEN GROUPING(v.query_id) = 1
      THEN CASE
        WHEN v.summed = 1
        THEN SUM(v.value)
        WHEN v.summed = 2
        THEN EXP(AVG(LN(CASE WHEN v.value < 0.00001 THEN 0.00001 ELSE v.value END)))
        ELSE AVG(v.value)
      END
      ELSE MIN(v.value)
    END
    ELSE RAISE_ERROR(MIN(v.rm_fault))
  END AS DOUBLE) AS value
FROM measure_values AS v
GROUP BY
  GROUPING SETS (
    (v.measure_no, v.measure, v.summed, v.query_id),
    (v.measure_no, v.measure, v.summed)
  )
