WITH run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(NULL AS FLOAT64) AS rank_in
  FROM `my-project`.rm.trec_run_score AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN NOT (
        CAST(j.relevance AS FLOAT64) - CAST(j.relevance AS FLOAT64) IS NULL
        OR CAST(j.relevance AS FLOAT64) - CAST(j.relevance AS FLOAT64) <> 0
      )
      THEN CAST(CASE
        WHEN CAST(j.relevance AS FLOAT64) < 0
        THEN CEIL(CAST(j.relevance AS FLOAT64))
        ELSE FLOOR(CAST(j.relevance AS FLOAT64))
      END AS FLOAT64)
      ELSE CAST(j.relevance AS FLOAT64)
    END AS grade
  FROM `my-project`.rm.trec_judgments AS j
), item_stream AS (
  SELECT
    ranked.query_id,
    'R' AS kind,
    ranked.item_id,
    ranked.score,
    j.grade,
    ranked.pos,
    ROW_NUMBER() OVER (PARTITION BY ranked.query_id ORDER BY COALESCE(j.grade, 0) DESC, ranked.pos ASC) AS ipos
  FROM (
    SELECT
      r.query_id,
      r.item_id,
      r.score,
      ROW_NUMBER() OVER (PARTITION BY r.query_id ORDER BY r.score DESC, r.item_id DESC) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
    ) AS r
  ) AS ranked
  LEFT JOIN judgment_items AS j
    ON j.query_id = ranked.query_id AND j.item_id = ranked.item_id
  UNION ALL
  SELECT
    j.query_id,
    'J' AS kind,
    j.item_id,
    CAST(NULL AS FLOAT64) AS score,
    j.grade,
    ROW_NUMBER() OVER (PARTITION BY j.query_id ORDER BY j.grade DESC) AS pos,
    ROW_NUMBER() OVER (PARTITION BY j.query_id ORDER BY j.grade DESC) AS ipos
  FROM judgment_items AS j
), features AS (
  SELECT
    s.*,
    (
      SUM(CASE WHEN s.grade >= 1 THEN 1 ELSE 0 END) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY s.pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      )
    ) AS running_rel_6
  FROM item_stream AS s
  WHERE
    s.kind = 'J' OR s.pos = 1 OR (
      NOT s.grade IS NULL
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
              THEN CAST(0 AS FLOAT64)
              ELSE CAST(f.grade AS FLOAT64)
            END * (
              LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
            )
            ELSE 0
          END
        ) AS FLOAT64) / NULLIF(
          SUM(
            CASE
              WHEN f.kind = 'J' AND (
                f.pos <= 10
              )
              THEN CASE
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
                THEN CAST(0 AS FLOAT64)
                ELSE CAST(f.grade AS FLOAT64)
              END * (
                LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
              )
              ELSE 0
            END
          ),
          0
        )
      ),
      CAST(0 AS FLOAT64)
    ) AS m_1,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R'
            THEN CASE
              WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
              THEN CAST(0 AS FLOAT64)
              ELSE CAST(f.grade AS FLOAT64)
            END * (
              LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
            )
            ELSE 0
          END
        ) AS FLOAT64) / NULLIF(
          SUM(
            CASE
              WHEN f.kind = 'J'
              THEN CASE
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < 1
                THEN CAST(0 AS FLOAT64)
                ELSE CAST(f.grade AS FLOAT64)
              END * (
                LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
              )
              ELSE 0
            END
          ),
          0
        )
      ),
      CAST(0 AS FLOAT64)
    ) AS m_2,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND f.grade >= 1
            THEN CAST(f.running_rel_6 AS FLOAT64) / NULLIF(f.pos, 0)
            ELSE 0
          END
        ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END), 0)
      ),
      CAST(0 AS FLOAT64)
    ) AS m_3,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND f.grade >= 1 AND (
              f.pos <= 100
            )
            THEN CAST(f.running_rel_6 AS FLOAT64) / NULLIF(f.pos, 0)
            ELSE 0
          END
        ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END), 0)
      ),
      CAST(0 AS FLOAT64)
    ) AS m_4,
    COALESCE(
      (
        CAST(SUM(CASE WHEN f.kind = 'R' AND f.grade >= 1 AND (
          f.pos <= 10
        ) THEN 1 ELSE 0 END) AS FLOAT64) / NULLIF(10, 0)
      ),
      CAST(0 AS FLOAT64)
    ) AS m_5,
    COALESCE(
      (
        CAST(SUM(CASE WHEN f.kind = 'R' AND f.grade >= 1 AND (
          f.pos <= 100
        ) THEN 1 ELSE 0 END) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END), 0)
      ),
      CAST(0 AS FLOAT64)
    ) AS m_6,
    COALESCE(
      (
        CAST(1 AS FLOAT64) / NULLIF(MIN(CASE WHEN f.kind = 'R' AND f.grade >= 1 THEN f.pos END), 0)
      ),
      CAST(0 AS FLOAT64)
    ) AS m_7
  FROM features AS f
  GROUP BY
    f.query_id
  HAVING
    SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
    AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
), measure_list AS (
  SELECT
    1 AS measure_no,
    'nDCG@10' AS measure,
    0 AS summed
  UNION ALL
  SELECT
    2 AS measure_no,
    'nDCG' AS measure,
    0 AS summed
  UNION ALL
  SELECT
    3 AS measure_no,
    'AP' AS measure,
    0 AS summed
  UNION ALL
  SELECT
    4 AS measure_no,
    'AP@100' AS measure,
    0 AS summed
  UNION ALL
  SELECT
    5 AS measure_no,
    'P@10' AS measure,
    0 AS summed
  UNION ALL
  SELECT
    6 AS measure_no,
    'R@100' AS measure,
    0 AS summed
  UNION ALL
  SELECT
    7 AS measure_no,
    'RR' AS measure,
    0 AS summed
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
    END AS value
  FROM per_query AS p
  CROSS JOIN measure_list AS m
), rm_checks AS (
  SELECT
    MIN(d.fault) AS fault
  FROM (
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' appears ',
        CAST(COUNT(*) AS STRING),
        ' times for query ',
        x.query_id,
        ' in the run'
      ) AS fault
    FROM run_items AS x
    GROUP BY
      x.query_id,
      x.item_id
    HAVING
      COUNT(*) > 1
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' is judged ',
        CAST(COUNT(*) AS STRING),
        ' times (grades ',
        CAST(MIN(x.grade) AS STRING),
        ' to ',
        CAST(MAX(x.grade) AS STRING),
        ')'
      ) AS fault
    FROM judgment_items AS x
    GROUP BY
      x.query_id,
      x.item_id
    HAVING
      COUNT(*) > 1
    UNION ALL
    SELECT
      CASE
        WHEN x.query_id IS NULL
        OR x.item_id IS NULL
        OR TRIM(x.query_id, ' ') = ''
        OR TRIM(x.item_id, ' ') = ''
        THEN 'rankmetrics: a row of the run has no query id or no item id (NULL or empty)'
        WHEN (
          x.score - x.score IS NULL OR x.score - x.score <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          x.item_id,
          ' of query ',
          x.query_id,
          ' has a score (or rank) that is NULL, NaN or infinite in the run'
        )
      END AS fault
    FROM run_items AS x
    WHERE
      (
        x.query_id IS NULL
        OR x.item_id IS NULL
        OR TRIM(x.query_id, ' ') = ''
        OR TRIM(x.item_id, ' ') = ''
      )
      OR (
        x.score - x.score IS NULL OR x.score - x.score <> 0
      )
    UNION ALL
    SELECT
      CASE
        WHEN x.query_id IS NULL
        OR x.item_id IS NULL
        OR TRIM(x.query_id, ' ') = ''
        OR TRIM(x.item_id, ' ') = ''
        THEN 'rankmetrics: a row of the judgments has no query id or no item id (NULL or empty)'
        WHEN (
          x.grade - x.grade IS NULL OR x.grade - x.grade <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          x.item_id,
          ' of query ',
          x.query_id,
          ' has a relevance grade that is NULL, NaN or infinite in the judgments'
        )
      END AS fault
    FROM judgment_items AS x
    WHERE
      (
        x.query_id IS NULL
        OR x.item_id IS NULL
        OR TRIM(x.query_id, ' ') = ''
        OR TRIM(x.item_id, ' ') = ''
      )
      OR (
        x.grade - x.grade IS NULL OR x.grade - x.grade <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    v.measure AS measure,
    v.query_id AS query_id,
    v.value AS value
  FROM measure_values AS v
  UNION ALL
  SELECT
    v.measure AS measure,
    CAST(NULL AS STRING) AS query_id,
    CAST(CASE
      WHEN v.summed = 1
      THEN SUM(v.value)
      WHEN v.summed = 2
      THEN EXP(AVG(LN(CASE WHEN v.value < 0.00001 THEN 0.00001 ELSE v.value END)))
      ELSE AVG(v.value)
    END AS FLOAT64) AS value
  FROM measure_values AS v
  GROUP BY
    v.measure_no,
    v.measure,
    v.summed
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
