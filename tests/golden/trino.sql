WITH run_items AS (
  SELECT
    CAST(r.query_id AS VARCHAR) AS query_id,
    CAST(r.item_id AS VARCHAR) AS item_id,
    CAST(r.score AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS rank_in
  FROM "my-project".rm.trec_run_score AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS VARCHAR) AS query_id,
    CAST(j.item_id AS VARCHAR) AS item_id,
    CAST(j.relevance AS DOUBLE) AS grade
  FROM "my-project".rm.trec_judgments AS j
), stream AS (
  SELECT
    ranked.query_id,
    'R' AS kind,
    ranked.item_id,
    ranked.score,
    ranked.grade,
    ranked.pos,
    ROW_NUMBER() OVER (
      PARTITION BY ranked.query_id
      ORDER BY COALESCE(ranked.grade, 0) DESC NULLS LAST, ranked.pos ASC NULLS LAST
    ) AS ipos
  FROM (
    SELECT
      r.query_id,
      r.item_id,
      r.score,
      j.grade,
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY r.score DESC NULLS LAST, r.item_id DESC NULLS LAST
      ) AS pos
    FROM run_items AS r
    LEFT JOIN judgment_items AS j
      ON j.query_id = r.query_id AND j.item_id = r.item_id
  ) AS ranked
  UNION ALL
  SELECT
    j.query_id,
    'J' AS kind,
    j.item_id,
    CAST(NULL AS DOUBLE) AS score,
    j.grade,
    ROW_NUMBER() OVER (
      PARTITION BY j.query_id
      ORDER BY j.grade DESC NULLS LAST, j.item_id ASC NULLS LAST
    ) AS pos,
    ROW_NUMBER() OVER (
      PARTITION BY j.query_id
      ORDER BY j.grade DESC NULLS LAST, j.item_id ASC NULLS LAST
    ) AS ipos
  FROM judgment_items AS j
), features AS (
  SELECT
    s.*,
    (
      SUM(CASE WHEN s.grade >= 1 THEN 1 ELSE 0 END) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY s.pos ASC NULLS LAST
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      )
    ) AS running_rel_5
  FROM stream AS s
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
              CAST(LN(CAST(2 AS DOUBLE)) AS DOUBLE) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
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
                CAST(LN(CAST(2 AS DOUBLE)) AS DOUBLE) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
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
              CAST(LN(CAST(2 AS DOUBLE)) AS DOUBLE) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
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
                CAST(LN(CAST(2 AS DOUBLE)) AS DOUBLE) / NULLIF(LN(CAST(f.pos AS DOUBLE) + 1), 0)
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
            THEN CAST(f.running_rel_5 AS DOUBLE) / NULLIF(f.pos, 0)
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
            THEN CAST(f.running_rel_5 AS DOUBLE) / NULLIF(f.pos, 0)
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
    ) AS m_7
  FROM features AS f
  GROUP BY
    f.query_id
  HAVING
    SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
    AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
)
SELECT
  *
FROM (
  SELECT
    'nDCG@10' AS measure,
    p.query_id AS query_id,
    p.m_1 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'nDCG@10' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_1) AS DOUBLE) AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'nDCG' AS measure,
    p.query_id AS query_id,
    p.m_2 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'nDCG' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_2) AS DOUBLE) AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'AP' AS measure,
    p.query_id AS query_id,
    p.m_3 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'AP' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_3) AS DOUBLE) AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'AP@100' AS measure,
    p.query_id AS query_id,
    p.m_4 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'AP@100' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_4) AS DOUBLE) AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'P@10' AS measure,
    p.query_id AS query_id,
    p.m_5 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'P@10' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_5) AS DOUBLE) AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'R@100' AS measure,
    p.query_id AS query_id,
    p.m_6 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'R@100' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_6) AS DOUBLE) AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'RR' AS measure,
    p.query_id AS query_id,
    p.m_7 AS value
  FROM per_query AS p
  UNION ALL
  SELECT
    'RR' AS measure,
    'all' AS query_id,
    CAST(AVG(p.m_7) AS DOUBLE) AS value
  FROM per_query AS p
) AS results
