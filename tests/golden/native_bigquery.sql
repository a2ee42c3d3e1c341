-- rankmetrics for bigquery: every metric as table functions returning (query_id, value), one row per
-- query that the queries convention keeps (the mean is avg(value); trec_eval's counts sum; gm_map and gm_bpref: exp(avg(ln(max(value, 0.00001))))).
-- Reads the run table `my-project`.rm.native_run (query_id, item_id, score and rank)
-- and the judgments table `my-project`.rm.native_judgments (query_id, item_id, relevance).
-- The recommender metrics also read the training interactions `my-project`.rm.native_interactions (user_id, item_id) and the catalog `my-project`.rm.native_items (item_id, embedding);
-- the catalog-wide ones return one row, query_id NULL.
-- Intersection compares the run with the reference run `my-project`.rm.native_reference, in the run's shape.
-- Call with every argument, in order (BigQuery table functions have no defaults); NULL means the default;
-- k NULL means no cutoff. For example:
--   SELECT query_id, value FROM metrics.rm_ndcg(10, 'linear', 1, 2, 'judgments', '', 'item_desc', FALSE, 'both', 'zero', 'truncate');
--   SELECT query_id, value FROM metrics.rm_ap(100, 2, 'judged', 'item_desc', FALSE, 'both', 'zero', 'truncate');

CREATE OR REPLACE TABLE FUNCTION metrics.rm_accuracy(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_accuracy: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_accuracy: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_accuracy: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_accuracy: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_accuracy: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_accuracy: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_accuracy: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    (
      1 - (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN f.pos - f.running_rel
            ELSE 0
          END
        ) AS FLOAT64) / NULLIF(
          (
            CAST(SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  prm.k IS NULL OR f.pos <= prm.k
                )
                THEN 1
                ELSE 0
              END
            ) AS FLOAT64) * (
              SUM(
                CASE WHEN f.kind = 'R' AND (
                  prm.k IS NULL OR f.pos <= prm.k
                ) THEN 1 ELSE 0 END
              ) - SUM(
                CASE
                  WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN 1
                  ELSE 0
                END
              )
            )
          ),
          0
        )
      )
    ) AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_ap(k INT64, rel FLOAT64, denominator STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(denominator, 'judged') AS denominator,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_ap: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.denominator IN ('judged', 'capped', 'retrieved'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ap: denominator must be one of judged, capped, retrieved, not ',
            COALESCE(CAST(prm.denominator AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ap: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ap: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ap: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ap: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_ap: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_ap: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            CASE
              WHEN prm.denominator = 'capped'
              AND NOT prm.k IS NULL
              AND prm.k < SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
              THEN prm.k
              WHEN prm.denominator = 'retrieved'
              THEN SUM(
                CASE
                  WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN 1
                  ELSE 0
                END
              )
              ELSE SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
            END,
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.denominator,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_partial_auc(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k IS NULL OR prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.k IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_partial_auc: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.grade >= prm.rel
              AND f.pos - f.running_rel < prm.k
              AND (
                NULL IS NULL OR f.running_rel <= NULL
              )
              THEN prm.k - (
                f.pos - f.running_rel
              )
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              CAST(prm.k AS FLOAT64) * CASE
                WHEN NULL IS NULL
                THEN SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
                ELSE LEAST(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), NULL)
              END
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_pap(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k IS NULL OR prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_pap: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_pap: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_pap: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_pap: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_pap: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.k IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_pap: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_pap: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_pap: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.grade >= prm.rel
              AND f.pos - f.running_rel < prm.k
              AND (
                prm.k IS NULL OR f.running_rel <= prm.k
              )
              THEN prm.k - (
                f.pos - f.running_rel
              )
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              CAST(prm.k AS FLOAT64) * CASE
                WHEN prm.k IS NULL
                THEN SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
                ELSE LEAST(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), prm.k)
              END
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_auc(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_auc: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_auc: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_auc: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_auc: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_auc: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_auc: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      WHEN SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN CAST(0 AS FLOAT64)
      ELSE (
        CAST((
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                NULL IS NULL OR f.pos <= NULL
              )
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) * SUM(
            CASE
              WHEN f.kind = 'R' AND (
                f.grade IS NULL OR f.grade < prm.rel
              )
              THEN 1
              ELSE 0
            END
          ) - SUM(
            CASE WHEN f.kind = 'R' AND f.grade >= prm.rel THEN f.pos - f.running_rel ELSE 0 END
          )
        ) AS FLOAT64) / NULLIF(
          (
            CAST(SUM(
              CASE
                WHEN f.kind = 'R' AND (
                  f.grade IS NULL OR f.grade < prm.rel
                )
                THEN 1
                ELSE 0
              END
            ) AS FLOAT64) * SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
          ),
          0
        )
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_gauc(rel FLOAT64, weighted STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(weighted, 'true') AS weighted,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.weighted IN ('false', 'true'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gauc: weighted must be one of false, true, not ',
            COALESCE(CAST(prm.weighted AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gauc: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gauc: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gauc: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gauc: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.weighted IN ('false', 'true')
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gauc: weighted must be \'false\' or \'true\', not ',
            COALESCE(CAST(prm.weighted AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_gauc: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_gauc: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    CAST(NULL AS STRING) AS query_id,
    b.value
  FROM (
    SELECT
      (
        CAST(SUM(CASE WHEN prm.weighted = 'true' THEN i.impressions ELSE 1 END * i.auc) AS FLOAT64) / NULLIF(
          SUM(
            CASE
              WHEN i.auc IS NULL
              THEN 0
              WHEN prm.weighted = 'true'
              THEN i.impressions
              ELSE 1
            END
          ),
          0
        )
      ) AS value
    FROM (
      SELECT
        f.query_id,
        SUM(CASE WHEN NOT f.grade IS NULL THEN 1 ELSE 0 END) AS impressions,
        (
          CAST(SUM(CASE WHEN f.grade >= prm.rel THEN f.neg_upto - 0.5 * f.neg_tied ELSE 0 END) AS FLOAT64) / NULLIF(
            (
              CAST(SUM(CASE WHEN f.grade >= prm.rel THEN 1 ELSE 0 END) AS FLOAT64) * SUM(CASE WHEN f.grade < prm.rel THEN 1 ELSE 0 END)
            ),
            0
          )
        ) AS auc
      FROM (
        SELECT
          s.*,
          SUM(CASE WHEN s.grade < prm.rel THEN 1 ELSE 0 END) OVER (
            PARTITION BY s.query_id
            ORDER BY CASE WHEN COALESCE(s.score, -CAST(s.pos AS FLOAT64)) IS NULL THEN 1 ELSE 0 END ASC, COALESCE(s.score, -CAST(s.pos AS FLOAT64))
          ) AS neg_upto,
          SUM(CASE WHEN s.grade < prm.rel THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id, COALESCE(s.score, -CAST(s.pos AS FLOAT64))) AS neg_tied
        FROM item_stream AS s
        CROSS JOIN params AS prm
        WHERE
          s.kind = 'R'
      ) AS f
      CROSS JOIN params AS prm
      GROUP BY
        f.query_id,
        prm.rel
    ) AS i
    CROSS JOIN params AS prm
    GROUP BY
      prm.weighted
  ) AS b
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_bin_g(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bin_g: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bin_g: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bin_g: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bin_g: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_bin_g: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_bin_g: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel
              THEN LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(2 + f.pos - f.running_rel AS FLOAT64)), 0)
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_bpref(rel FLOAT64, negative_grades STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(negative_grades, 'unjudged') AS negative_grades,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.negative_grades IN ('unjudged', 'nonrelevant'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpref: negative_grades must be one of unjudged, nonrelevant, not ',
            COALESCE(CAST(prm.negative_grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpref: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpref: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpref: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpref: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_bpref: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_bpref: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND f.nonrel_above > 0
              THEN 1 - CAST(CASE
                WHEN f.nonrel_above < f.query_num_rel
                THEN f.nonrel_above
                ELSE f.query_num_rel
              END AS FLOAT64) / NULLIF(
                CASE
                  WHEN f.query_num_nonrel < f.query_num_rel
                  THEN f.query_num_nonrel
                  ELSE f.query_num_rel
                END,
                0
              )
              WHEN f.kind = 'R' AND f.grade >= prm.rel
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN s.grade < prm.rel AND (
              s.grade >= 0 OR prm.negative_grades = 'nonrelevant'
            )
            THEN 1
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS nonrel_above,
      (
        SUM(CASE WHEN s.kind = 'J' AND s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id)
      ) AS query_num_rel,
      (
        SUM(
          CASE
            WHEN s.kind = 'J'
            AND s.grade < prm.rel
            AND (
              s.grade >= 0 OR prm.negative_grades = 'nonrelevant'
            )
            THEN 1
            ELSE 0
          END
        ) OVER (PARTITION BY s.query_id)
      ) AS query_num_nonrel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_catalog_coverage(k INT64, normalize STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(normalize, 'false') AS normalize,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), catalog_totals AS (
  SELECT
    COUNT(DISTINCT CAST(c.item_id AS STRING)) AS catalog_size
  FROM catalog_items AS c
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    t.catalog_size
  FROM rm_plain_stream AS s
  CROSS JOIN catalog_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.normalize IN ('false', 'true'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: normalize must be one of false, true, not ',
            COALESCE(CAST(prm.normalize AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.normalize IN ('false', 'true')
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: normalize must be \'false\' or \'true\', not ',
            COALESCE(CAST(prm.normalize AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_catalog_coverage: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    CAST(NULL AS STRING) AS query_id,
    b.value
  FROM (
    SELECT
      (
        CAST(COUNT(i.recs) AS FLOAT64) / NULLIF(CASE WHEN prm.normalize = 'true' THEN MIN(i.catalog_size) ELSE 1 END, 0)
      ) AS value
    FROM (
      SELECT
        f.item_id,
        COUNT(*) AS recs,
        ROW_NUMBER() OVER (
          ORDER BY CASE WHEN COUNT(*) IS NULL THEN 1 ELSE 0 END ASC, COUNT(*), CASE WHEN f.item_id IS NULL THEN 1 ELSE 0 END ASC, f.item_id
        ) AS rho,
        MIN(f.catalog_size) AS catalog_size
      FROM item_stream AS f
      CROSS JOIN params AS prm
      WHERE
        f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        )
      GROUP BY
        f.item_id,
        prm.k
    ) AS i
    CROSS JOIN params AS prm
    GROUP BY
      prm.normalize
  ) AS b
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_gini(k INT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), catalog_totals AS (
  SELECT
    COUNT(DISTINCT CAST(c.item_id AS STRING)) AS catalog_size
  FROM catalog_items AS c
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    t.catalog_size
  FROM rm_plain_stream AS s
  CROSS JOIN catalog_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_gini: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gini: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gini: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gini: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_gini: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_gini: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    CAST(NULL AS STRING) AS query_id,
    b.value
  FROM (
    SELECT
      (
        CAST((
          (
            MIN(i.catalog_size) - 2 * COUNT(i.recs) - 1
          ) * CAST(SUM(i.recs) AS FLOAT64) + 2 * SUM(i.rho * i.recs)
        ) AS FLOAT64) / NULLIF((
          CAST(MIN(i.catalog_size) AS FLOAT64) * SUM(i.recs)
        ), 0)
      ) AS value
    FROM (
      SELECT
        f.item_id,
        COUNT(*) AS recs,
        ROW_NUMBER() OVER (
          ORDER BY CASE WHEN COUNT(*) IS NULL THEN 1 ELSE 0 END ASC, COUNT(*), CASE WHEN f.item_id IS NULL THEN 1 ELSE 0 END ASC, f.item_id
        ) AS rho,
        MIN(f.catalog_size) AS catalog_size
      FROM item_stream AS f
      CROSS JOIN params AS prm
      WHERE
        f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        )
      GROUP BY
        f.item_id,
        prm.k
    ) AS i
  ) AS b
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_entropy(k INT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), catalog_totals AS (
  SELECT
    COUNT(DISTINCT CAST(c.item_id AS STRING)) AS catalog_size
  FROM catalog_items AS c
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    t.catalog_size
  FROM rm_plain_stream AS s
  CROSS JOIN catalog_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_entropy: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_entropy: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_entropy: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_entropy: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_entropy: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_entropy: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    CAST(NULL AS STRING) AS query_id,
    b.value
  FROM (
    SELECT
      (
        (
          LN(CAST(SUM(i.recs) AS FLOAT64)) - (
            CAST(SUM(i.recs * LN(CAST(i.recs AS FLOAT64))) AS FLOAT64) / NULLIF(SUM(i.recs), 0)
          )
        ) / NULLIF(LN(2), 0)
      ) AS value
    FROM (
      SELECT
        f.item_id,
        COUNT(*) AS recs,
        ROW_NUMBER() OVER (
          ORDER BY CASE WHEN COUNT(*) IS NULL THEN 1 ELSE 0 END ASC, COUNT(*), CASE WHEN f.item_id IS NULL THEN 1 ELSE 0 END ASC, f.item_id
        ) AS rho,
        MIN(f.catalog_size) AS catalog_size
      FROM item_stream AS f
      CROSS JOIN params AS prm
      WHERE
        f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        )
      GROUP BY
        f.item_id,
        prm.k
    ) AS i
  ) AS b
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_personalization(k INT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_personalization: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_personalization: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_personalization: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_personalization: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_personalization: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_personalization: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    CAST(NULL AS STRING) AS query_id,
    b.value
  FROM (
    SELECT
      1 - (
        CAST(SUM(i.w * i.w - i.w2) AS FLOAT64) / NULLIF((
          CAST(SUM(i.firsts) AS FLOAT64) * (
            SUM(i.firsts) - 1
          )
        ), 0)
      ) AS value
    FROM (
      SELECT
        f.item_id,
        SUM(f.inv_sqrt) AS w,
        SUM(f.inv_sqrt * f.inv_sqrt) AS w2,
        SUM(CASE WHEN f.pos = 1 THEN 1 ELSE 0 END) AS firsts
      FROM (
        SELECT
          s.*,
          (
            CAST(1 AS FLOAT64) / NULLIF(
              SQRT(
                CAST(SUM(CASE WHEN (
                  prm.k IS NULL OR s.pos <= prm.k
                ) THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id) AS FLOAT64)
              ),
              0
            )
          ) AS inv_sqrt
        FROM item_stream AS s
        CROSS JOIN params AS prm
        WHERE
          s.kind = 'R'
      ) AS f
      CROSS JOIN params AS prm
      WHERE
        (
          prm.k IS NULL OR f.pos <= prm.k
        )
      GROUP BY
        f.item_id,
        prm.k
    ) AS i
  ) AS b
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_compat(p FLOAT64, normalize STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(p, 0.95) AS p,
    COALESCE(normalize, 'true') AS normalize,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.p <= 0 OR prm.p >= 1
          THEN CONCAT(
            'rankmetrics: rm_compat: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.normalize IN ('false', 'true'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: normalize must be one of false, true, not ',
            COALESCE(CAST(prm.normalize AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.p IS NULL AND prm.p > 0 AND prm.p < 1
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.normalize IN ('false', 'true')
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_compat: normalize must be \'false\' or \'true\', not ',
            COALESCE(CAST(prm.normalize AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.p - prm.p IS NULL OR prm.p - prm.p <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_compat: p must be a finite number, not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_compat: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST((
            SUM(
              CASE
                WHEN f.kind = 'J' AND f.grade > 0 AND f.prev_kind = 'R' AND f.prev_key = f.place
                THEN 1
                ELSE 0
              END
            ) * CASE
              WHEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) >= SUM(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN 1 ELSE 0 END)
              THEN SUM(
                CASE
                  WHEN f.kind = 'R' AND (
                    'R' = 'R' OR f.grade > 0
                  )
                  THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1) / NULLIF(f.pos, 0)
                  ELSE 0
                END
              )
              ELSE SUM(
                CASE
                  WHEN f.kind = 'J' AND (
                    'J' = 'R' OR f.grade > 0
                  )
                  THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1) / NULLIF(f.pos, 0)
                  ELSE 0
                END
              )
            END - SUM(
              CASE
                WHEN f.kind = 'J' AND f.grade > 0 AND f.prev_kind = 'R' AND f.prev_key = f.place
                THEN CASE
                  WHEN f.prev_pos > f.pos
                  THEN COALESCE(f.prev_s, 0)
                  ELSE COALESCE(f.s_before, 0)
                END
                ELSE 0
              END
            )
          ) AS FLOAT64) / NULLIF(
            CASE
              WHEN prm.normalize = 'true'
              AND SUM(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN 1 ELSE 0 END) > 0
              THEN (
                1 - POWER(
                  CAST(prm.p AS FLOAT64),
                  SUM(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN 1 ELSE 0 END)
                )
              ) / NULLIF(1 - CAST(prm.p AS FLOAT64), 0) + SUM(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN 1 ELSE 0 END) * (
                CASE
                  WHEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) >= SUM(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN 1 ELSE 0 END)
                  THEN SUM(
                    CASE
                      WHEN f.kind = 'R' AND (
                        'R' = 'R' OR f.grade > 0
                      )
                      THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1) / NULLIF(f.pos, 0)
                      ELSE 0
                    END
                  )
                  ELSE SUM(
                    CASE
                      WHEN f.kind = 'J' AND (
                        'J' = 'R' OR f.grade > 0
                      )
                      THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1) / NULLIF(f.pos, 0)
                      ELSE 0
                    END
                  )
                END - SUM(
                  CASE
                    WHEN f.kind = 'J' AND (
                      'J' = 'R' OR f.grade > 0
                    )
                    THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1) / NULLIF(f.pos, 0)
                    ELSE 0
                  END
                )
              )
              ELSE (
                1 - POWER(
                  CAST(prm.p AS FLOAT64),
                  GREATEST(
                    SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END),
                    SUM(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN 1 ELSE 0 END)
                  )
                )
              ) / NULLIF(1 - CAST(prm.p AS FLOAT64), 0)
            END,
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        LAG(s.kind) OVER (
          PARTITION BY s.query_id, s.grade
          ORDER BY CASE
            WHEN CASE
              WHEN s.kind = 'R' AND s.score < 0
              THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
              ELSE CAST(s.place AS FLOAT64)
            END IS NULL
            THEN 1
            ELSE 0
          END ASC, CASE
            WHEN s.kind = 'R' AND s.score < 0
            THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
            ELSE CAST(s.place AS FLOAT64)
          END, s.kind DESC
        )
      ) AS prev_kind,
      (
        LAG(
          CASE
            WHEN s.kind = 'R' AND s.score < 0
            THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
            ELSE CAST(s.place AS FLOAT64)
          END
        ) OVER (
          PARTITION BY s.query_id, s.grade
          ORDER BY CASE
            WHEN CASE
              WHEN s.kind = 'R' AND s.score < 0
              THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
              ELSE CAST(s.place AS FLOAT64)
            END IS NULL
            THEN 1
            ELSE 0
          END ASC, CASE
            WHEN s.kind = 'R' AND s.score < 0
            THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
            ELSE CAST(s.place AS FLOAT64)
          END, s.kind DESC
        )
      ) AS prev_key,
      (
        LAG(s.pos) OVER (
          PARTITION BY s.query_id, s.grade
          ORDER BY CASE
            WHEN CASE
              WHEN s.kind = 'R' AND s.score < 0
              THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
              ELSE CAST(s.place AS FLOAT64)
            END IS NULL
            THEN 1
            ELSE 0
          END ASC, CASE
            WHEN s.kind = 'R' AND s.score < 0
            THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
            ELSE CAST(s.place AS FLOAT64)
          END, s.kind DESC
        )
      ) AS prev_pos,
      (
        LAG(s.s_before) OVER (
          PARTITION BY s.query_id, s.grade
          ORDER BY CASE
            WHEN CASE
              WHEN s.kind = 'R' AND s.score < 0
              THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
              ELSE CAST(s.place AS FLOAT64)
            END IS NULL
            THEN 1
            ELSE 0
          END ASC, CASE
            WHEN s.kind = 'R' AND s.score < 0
            THEN CAST(s.place + s.judged_count - s.retrieved_count AS FLOAT64)
            ELSE CAST(s.place AS FLOAT64)
          END, s.kind DESC
        )
      ) AS prev_s
    FROM (
      SELECT
        s.*,
        (
          ROW_NUMBER() OVER (PARTITION BY s.query_id, s.kind, s.grade ORDER BY s.pos)
        ) AS place,
        (
          SUM(CASE WHEN s.kind = 'J' THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id, s.grade)
        ) AS judged_count,
        (
          SUM(CASE WHEN s.kind = 'R' THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id, s.grade)
        ) AS retrieved_count,
        (
          SUM(POWER(CAST(prm.p AS FLOAT64), s.pos - 1) / NULLIF(s.pos, 0)) OVER (
            PARTITION BY s.query_id, s.kind
            ORDER BY s.pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          )
        ) AS s_before
      FROM item_stream AS s
      CROSS JOIN params AS prm
    ) AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.normalize,
    prm.p,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_num_q(ties STRING, judged_only BOOL, queries STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_q: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_q: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_q: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_num_q: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CAST(1 AS FLOAT64) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_num_ret(ties STRING, judged_only BOOL, queries STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_ret: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_ret: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_ret: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_num_ret: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CAST(SUM(CASE WHEN f.kind = 'R' AND (
      NULL IS NULL OR f.pos <= NULL
    ) THEN 1 ELSE 0 END) AS FLOAT64) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_num_rel(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_rel: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_rel: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_rel: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_num_rel: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_num_rel: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CAST(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) AS FLOAT64) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_num_rel_ret(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_rel_ret: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_rel_ret: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_rel_ret: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_num_rel_ret: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_num_rel_ret: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CAST(SUM(
      CASE
        WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
          NULL IS NULL OR f.pos <= NULL
        )
        THEN 1
        ELSE 0
      END
    ) AS FLOAT64) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_num_nonrel_judged_ret(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_nonrel_judged_ret: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_nonrel_judged_ret: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_num_nonrel_judged_ret: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_num_nonrel_judged_ret: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_num_nonrel_judged_ret: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CAST(SUM(CASE WHEN f.kind = 'R' AND f.grade >= 0 AND f.grade < prm.rel THEN 1 ELSE 0 END) AS FLOAT64) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_dcg(k INT64, gain STRING, rel FLOAT64, log_base FLOAT64, gains STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(gain, 'linear') AS gain,
    COALESCE(rel, 1) AS rel,
    COALESCE(log_base, 2) AS log_base,
    COALESCE(gains, '') AS gains,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_dcg: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.gain IN ('linear', 'exponential', 'binary', 'raw'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_dcg: gain must be one of linear, exponential, binary, raw, not ',
            COALESCE(CAST(prm.gain AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.log_base <= 1
          THEN CONCAT(
            'rankmetrics: rm_dcg: log_base must be a number > 1, not ',
            COALESCE(CAST(prm.log_base AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_dcg: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_dcg: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_dcg: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_dcg: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                (
                  SELECT
                    COUNT(DISTINCT x)
                  FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', prm.gains), ',([0-9]+)=')) AS x
                ) = ARRAY_LENGTH(SPLIT(prm.gains, ','))
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_dcg: gains must be level=gain pairs with each level once, not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                REGEXP_CONTAINS(
                  prm.gains,
                  '^((0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*)$'
                )
                AND 'judgments' = 'judgments'
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_dcg: gains must be level=gain pairs such as \'1=3,2=9\', levels without leading zeros (with ideal judgments), not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_dcg: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN (
            prm.log_base - prm.log_base IS NULL OR prm.log_base - prm.log_base <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_dcg: log_base must be a finite number, not ',
            COALESCE(CAST(prm.log_base AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_dcg: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a grade too high for exponential gain in rm_dcg (2^grade - 1 overflows past grade 1023)'
      ) AS fault
    FROM judgment_items AS x
    CROSS JOIN params AS prm
    WHERE
      prm.gain = 'exponential' AND x.grade >= 1024
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        SUM(
          CASE
            WHEN f.kind = 'R' AND prm.ties = 'average'
            THEN CASE
              WHEN prm.gains <> ''
              AND f.grade >= 0
              AND f.grade = FLOOR(f.grade)
              AND INSTR(',' || prm.gains, (
                ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
              )) > 0
              THEN CAST(SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )),
                INSTR(
                  SUBSTRING(
                    ',' || prm.gains || ',',
                    INSTR(',' || prm.gains, (
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    )) + LENGTH((
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    ))
                  ),
                  ','
                ) - 1
              ) AS FLOAT64)
              ELSE CASE
                WHEN prm.gain = 'raw'
                THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                THEN CAST(0 AS FLOAT64)
                WHEN prm.gain = 'exponential'
                THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                WHEN prm.gain = 'binary'
                THEN CAST(1 AS FLOAT64)
                ELSE CAST(f.grade AS FLOAT64)
              END
            END * f.tie_discount
            WHEN f.kind = 'R' AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN CASE
              WHEN prm.gains <> ''
              AND f.grade >= 0
              AND f.grade = FLOOR(f.grade)
              AND INSTR(',' || prm.gains, (
                ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
              )) > 0
              THEN CAST(SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )),
                INSTR(
                  SUBSTRING(
                    ',' || prm.gains || ',',
                    INSTR(',' || prm.gains, (
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    )) + LENGTH((
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    ))
                  ),
                  ','
                ) - 1
              ) AS FLOAT64)
              ELSE CASE
                WHEN prm.gain = 'raw'
                THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                THEN CAST(0 AS FLOAT64)
                WHEN prm.gain = 'exponential'
                THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                WHEN prm.gain = 'binary'
                THEN CAST(1 AS FLOAT64)
                ELSE CAST(f.grade AS FLOAT64)
              END
            END * (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
            )
            ELSE 0
          END
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        AVG(
          CASE
            WHEN (
              prm.k IS NULL OR s.pos <= prm.k
            )
            THEN (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(s.pos AS FLOAT64) + 1), 0)
            )
            ELSE 0
          END
        ) OVER (PARTITION BY s.query_id, s.kind, s.score)
      ) AS tie_discount
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.gain,
    prm.gains,
    prm.judged_only,
    prm.k,
    prm.log_base,
    prm.queries,
    prm.rel,
    prm.ties
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_ndcg(k INT64, gain STRING, rel FLOAT64, log_base FLOAT64, ideal STRING, gains STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(gain, 'linear') AS gain,
    COALESCE(rel, 1) AS rel,
    COALESCE(log_base, 2) AS log_base,
    COALESCE(ideal, 'judgments') AS ideal,
    COALESCE(gains, '') AS gains,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_ndcg: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.gain IN ('linear', 'exponential', 'binary', 'raw'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: gain must be one of linear, exponential, binary, raw, not ',
            COALESCE(CAST(prm.gain AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.log_base <= 1
          THEN CONCAT(
            'rankmetrics: rm_ndcg: log_base must be a number > 1, not ',
            COALESCE(CAST(prm.log_base AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ideal IN ('judgments', 'candidates', 'retrieved', 'cutoff'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: ideal must be one of judgments, candidates, retrieved, cutoff, not ',
            COALESCE(CAST(prm.ideal AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                (
                  SELECT
                    COUNT(DISTINCT x)
                  FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', prm.gains), ',([0-9]+)=')) AS x
                ) = ARRAY_LENGTH(SPLIT(prm.gains, ','))
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg: gains must be level=gain pairs with each level once, not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                REGEXP_CONTAINS(
                  prm.gains,
                  '^((0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*)$'
                )
                AND prm.ideal = 'judgments'
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg: gains must be level=gain pairs such as \'1=3,2=9\', levels without leading zeros (with ideal judgments), not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.ideal <> 'cutoff' OR prm.k BETWEEN 1 AND 1000
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg: k must be a cutoff from 1 to 1000 with ideal \'cutoff\', not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN (
            prm.log_base - prm.log_base IS NULL OR prm.log_base - prm.log_base <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg: log_base must be a finite number, not ',
            COALESCE(CAST(prm.log_base AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_ndcg: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a grade too high for exponential gain in rm_ndcg (2^grade - 1 overflows past grade 1023)'
      ) AS fault
    FROM judgment_items AS x
    CROSS JOIN params AS prm
    WHERE
      prm.gain = 'exponential' AND x.grade >= 1024
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a negative grade, which rm_ndcg with raw gain does not take (nor does scikit-learn ndcg_score)'
      ) AS fault
    FROM judgment_items AS x
    CROSS JOIN params AS prm
    WHERE
      prm.gain = 'raw' AND x.grade < 0
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND prm.ties = 'average'
              THEN CASE
                WHEN prm.gains <> ''
                AND f.grade >= 0
                AND f.grade = FLOOR(f.grade)
                AND INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )) > 0
                THEN CAST(SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                  )),
                  INSTR(
                    SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      ))
                    ),
                    ','
                  ) - 1
                ) AS FLOAT64)
                ELSE CASE
                  WHEN prm.gain = 'raw'
                  THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                  WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                  THEN CAST(0 AS FLOAT64)
                  WHEN prm.gain = 'exponential'
                  THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                  WHEN prm.gain = 'binary'
                  THEN CAST(1 AS FLOAT64)
                  ELSE CAST(f.grade AS FLOAT64)
                END
              END * f.tie_discount
              WHEN f.kind = 'R' AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN CASE
                WHEN prm.gains <> ''
                AND f.grade >= 0
                AND f.grade = FLOOR(f.grade)
                AND INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )) > 0
                THEN CAST(SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                  )),
                  INSTR(
                    SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      ))
                    ),
                    ','
                  ) - 1
                ) AS FLOAT64)
                ELSE CASE
                  WHEN prm.gain = 'raw'
                  THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                  WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                  THEN CAST(0 AS FLOAT64)
                  WHEN prm.gain = 'exponential'
                  THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                  WHEN prm.gain = 'binary'
                  THEN CAST(1 AS FLOAT64)
                  ELSE CAST(f.grade AS FLOAT64)
                END
              END * (
                LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
              )
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            CASE
              WHEN prm.ideal = 'cutoff'
              THEN (
                LN(CAST(prm.log_base AS FLOAT64)) * (
                  -0.24323834289098076 + (
                    0.5772156649015329 + LN(LN(CAST((
                      (
                        prm.k + 1
                      ) + 12
                    ) AS FLOAT64))) + SQRT(CAST((
                      (
                        prm.k + 1
                      ) + 12
                    ) AS FLOAT64)) * (
                      1.0 * LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)) + -0.25 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 2) + 0.05555555555555555 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 3) + -0.006944444444444444 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 4) + 0.0007986111111111112 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 5) + -6.655092592592593e-05 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 6) + 5.196523053665911e-06 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 7) + -3.2478269085411943e-07 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 8) + 1.92395470276588e-08 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 9) + -9.619773513829401e-10 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 10) + 4.595032957151163e-11 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 11) + -1.9145970654796514e-12 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 12) + 7.665424482554353e-14 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 13) + -2.737651600912269e-15 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 14) + 9.436669225201533e-17 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 15) + -2.9489591328754792e-18 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 16) + 8.925758821411961e-20 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 17) + -2.479377450392211e-21 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 18) + 6.689726105226863e-23 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 19) + -1.6724315263067158e-24 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 20) + 4.07086654448594e-26 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 21) + -9.251969419286227e-28 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 22) + 2.0513952492276501e-29 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 23) + -4.273740102557604e-31 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 24) + 8.701187477749344e-33 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 25) + -1.6733052841825663e-34 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 26) + 3.14939780145465e-36 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 27) + -5.623924645454731e-38 * POWER(LN(CAST((
                        (
                          prm.k + 1
                        ) + 12
                      ) AS FLOAT64)), 28)
                    )
                  ) + 1 / NULLIF(2 * LN(CAST((
                    prm.k + 1
                  ) + 12 AS FLOAT64)), 0) - 1 / NULLIF(
                    12 * CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64) * POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 2),
                    0
                  ) + (
                    POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 2) + 3 * LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)) + 3
                  ) / NULLIF(
                    360 * POWER(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64), 3) * POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 4),
                    0
                  ) - (
                    12 * POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 4) + 50 * POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 3) + 105 * POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 2) + 120 * LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)) + 60
                  ) / NULLIF(
                    15120 * POWER(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64), 5) * POWER(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 6),
                    0
                  ) - (
                    1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 1 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 2 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 3 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 4 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 5 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 6 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 7 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 8 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 9 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 10 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 11 AS FLOAT64)), 0) + 1 / NULLIF(LN(CAST((
                      prm.k + 1
                    ) + 12 AS FLOAT64)), 0)
                  )
                )
              )
              ELSE SUM(
                CASE
                  WHEN prm.gains <> ''
                  AND f.kind = 'J'
                  AND (
                    prm.k IS NULL OR f.gain_pos <= prm.k
                  )
                  AND CASE
                    WHEN prm.gains <> ''
                    AND f.grade >= 0
                    AND f.grade = FLOOR(f.grade)
                    AND INSTR(',' || prm.gains, (
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    )) > 0
                    THEN CAST(SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      )),
                      INSTR(
                        SUBSTRING(
                          ',' || prm.gains || ',',
                          INSTR(',' || prm.gains, (
                            ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                          )) + LENGTH((
                            ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                          ))
                        ),
                        ','
                      ) - 1
                    ) AS FLOAT64)
                    ELSE CASE
                      WHEN prm.gain = 'raw'
                      THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                      WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                      THEN CAST(0 AS FLOAT64)
                      WHEN prm.gain = 'exponential'
                      THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                      WHEN prm.gain = 'binary'
                      THEN CAST(1 AS FLOAT64)
                      ELSE CAST(f.grade AS FLOAT64)
                    END
                  END > 0
                  THEN CASE
                    WHEN prm.gains <> ''
                    AND f.grade >= 0
                    AND f.grade = FLOOR(f.grade)
                    AND INSTR(',' || prm.gains, (
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    )) > 0
                    THEN CAST(SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                      )),
                      INSTR(
                        SUBSTRING(
                          ',' || prm.gains || ',',
                          INSTR(',' || prm.gains, (
                            ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                          )) + LENGTH((
                            ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                          ))
                        ),
                        ','
                      ) - 1
                    ) AS FLOAT64)
                    ELSE CASE
                      WHEN prm.gain = 'raw'
                      THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                      WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                      THEN CAST(0 AS FLOAT64)
                      WHEN prm.gain = 'exponential'
                      THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                      WHEN prm.gain = 'binary'
                      THEN CAST(1 AS FLOAT64)
                      ELSE CAST(f.grade AS FLOAT64)
                    END
                  END * (
                    LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.gain_pos AS FLOAT64) + 1), 0)
                  )
                  WHEN prm.gains <> ''
                  THEN 0
                  WHEN prm.ideal = 'judgments' AND f.kind = 'J' AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN CASE
                    WHEN prm.gain = 'raw'
                    THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                    WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                    THEN CAST(0 AS FLOAT64)
                    WHEN prm.gain = 'exponential'
                    THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                    WHEN prm.gain = 'binary'
                    THEN CAST(1 AS FLOAT64)
                    ELSE CAST(f.grade AS FLOAT64)
                  END * (
                    LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
                  )
                  WHEN prm.ideal = 'candidates'
                  AND f.kind = 'R'
                  AND (
                    prm.k IS NULL OR f.ipos <= prm.k
                  )
                  THEN CASE
                    WHEN prm.gain = 'raw'
                    THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                    WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                    THEN CAST(0 AS FLOAT64)
                    WHEN prm.gain = 'exponential'
                    THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                    WHEN prm.gain = 'binary'
                    THEN CAST(1 AS FLOAT64)
                    ELSE CAST(f.grade AS FLOAT64)
                  END * (
                    LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.ipos AS FLOAT64) + 1), 0)
                  )
                  WHEN prm.ideal = 'retrieved' AND f.kind = 'R' AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN CASE
                    WHEN prm.gain = 'raw'
                    THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                    WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                    THEN CAST(0 AS FLOAT64)
                    WHEN prm.gain = 'exponential'
                    THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                    WHEN prm.gain = 'binary'
                    THEN CAST(1 AS FLOAT64)
                    ELSE CAST(f.grade AS FLOAT64)
                  END * (
                    LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.ideal_pos_within AS FLOAT64) + 1), 0)
                  )
                  ELSE 0
                END
              )
            END,
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        AVG(
          CASE
            WHEN (
              prm.k IS NULL OR s.pos <= prm.k
            )
            THEN (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(s.pos AS FLOAT64) + 1), 0)
            )
            ELSE 0
          END
        ) OVER (PARTITION BY s.query_id, s.kind, s.score)
      ) AS tie_discount,
      (
        SUM(CASE WHEN (
          prm.k IS NULL OR s.pos <= prm.k
        ) THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY COALESCE(s.grade, 0) DESC, s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS ideal_pos_within,
      (
        ROW_NUMBER() OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY CASE
            WHEN prm.gains <> ''
            AND s.grade >= 0
            AND s.grade = FLOOR(s.grade)
            AND INSTR(',' || prm.gains, (
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )) > 0
            THEN CAST(SUBSTRING(
              ',' || prm.gains || ',',
              INSTR(',' || prm.gains, (
                ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
              )) + LENGTH((
                ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
              )),
              INSTR(
                SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  ))
                ),
                ','
              ) - 1
            ) AS FLOAT64)
            ELSE CASE
              WHEN prm.gain = 'raw'
              THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
              WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < prm.rel
              THEN CAST(0 AS FLOAT64)
              WHEN prm.gain = 'exponential'
              THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
              WHEN prm.gain = 'binary'
              THEN CAST(1 AS FLOAT64)
              ELSE CAST(s.grade AS FLOAT64)
            END
          END DESC
        )
      ) AS gain_pos
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.gain,
    prm.gains,
    prm.ideal,
    prm.judged_only,
    prm.k,
    prm.log_base,
    prm.queries,
    prm.rel,
    prm.ties
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_ideal_dcg(k INT64, gain STRING, rel FLOAT64, log_base FLOAT64, gains STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(gain, 'linear') AS gain,
    COALESCE(rel, 1) AS rel,
    COALESCE(log_base, 2) AS log_base,
    COALESCE(gains, '') AS gains,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.gain IN ('linear', 'exponential', 'binary', 'raw'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: gain must be one of linear, exponential, binary, raw, not ',
            COALESCE(CAST(prm.gain AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.log_base <= 1
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: log_base must be a number > 1, not ',
            COALESCE(CAST(prm.log_base AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                (
                  SELECT
                    COUNT(DISTINCT x)
                  FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', prm.gains), ',([0-9]+)=')) AS x
                ) = ARRAY_LENGTH(SPLIT(prm.gains, ','))
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: gains must be level=gain pairs with each level once, not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                REGEXP_CONTAINS(
                  prm.gains,
                  '^((0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*)$'
                )
                AND 'judgments' = 'judgments'
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: gains must be level=gain pairs such as \'1=3,2=9\', levels without leading zeros (with ideal judgments), not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN (
            prm.log_base - prm.log_base IS NULL OR prm.log_base - prm.log_base <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: log_base must be a finite number, not ',
            COALESCE(CAST(prm.log_base AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_ideal_dcg: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a grade too high for exponential gain in rm_ideal_dcg (2^grade - 1 overflows past grade 1023)'
      ) AS fault
    FROM judgment_items AS x
    CROSS JOIN params AS prm
    WHERE
      prm.gain = 'exponential' AND x.grade >= 1024
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        SUM(
          CASE
            WHEN prm.gains <> ''
            AND f.kind = 'J'
            AND (
              prm.k IS NULL OR f.gain_pos <= prm.k
            )
            AND CASE
              WHEN prm.gains <> ''
              AND f.grade >= 0
              AND f.grade = FLOOR(f.grade)
              AND INSTR(',' || prm.gains, (
                ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
              )) > 0
              THEN CAST(SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )),
                INSTR(
                  SUBSTRING(
                    ',' || prm.gains || ',',
                    INSTR(',' || prm.gains, (
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    )) + LENGTH((
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    ))
                  ),
                  ','
                ) - 1
              ) AS FLOAT64)
              ELSE CASE
                WHEN prm.gain = 'raw'
                THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                THEN CAST(0 AS FLOAT64)
                WHEN prm.gain = 'exponential'
                THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                WHEN prm.gain = 'binary'
                THEN CAST(1 AS FLOAT64)
                ELSE CAST(f.grade AS FLOAT64)
              END
            END > 0
            THEN CASE
              WHEN prm.gains <> ''
              AND f.grade >= 0
              AND f.grade = FLOOR(f.grade)
              AND INSTR(',' || prm.gains, (
                ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
              )) > 0
              THEN CAST(SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                )),
                INSTR(
                  SUBSTRING(
                    ',' || prm.gains || ',',
                    INSTR(',' || prm.gains, (
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    )) + LENGTH((
                      ',' || CAST(CAST(f.grade AS INT64) AS STRING) || '='
                    ))
                  ),
                  ','
                ) - 1
              ) AS FLOAT64)
              ELSE CASE
                WHEN prm.gain = 'raw'
                THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
                WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
                THEN CAST(0 AS FLOAT64)
                WHEN prm.gain = 'exponential'
                THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
                WHEN prm.gain = 'binary'
                THEN CAST(1 AS FLOAT64)
                ELSE CAST(f.grade AS FLOAT64)
              END
            END * (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.gain_pos AS FLOAT64) + 1), 0)
            )
            WHEN prm.gains <> ''
            THEN 0
            WHEN 'judgments' = 'judgments'
            AND f.kind = 'J'
            AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN CASE
              WHEN prm.gain = 'raw'
              THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
              WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
              THEN CAST(0 AS FLOAT64)
              WHEN prm.gain = 'exponential'
              THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
              WHEN prm.gain = 'binary'
              THEN CAST(1 AS FLOAT64)
              ELSE CAST(f.grade AS FLOAT64)
            END * (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
            )
            WHEN 'judgments' = 'candidates'
            AND f.kind = 'R'
            AND (
              prm.k IS NULL OR f.ipos <= prm.k
            )
            THEN CASE
              WHEN prm.gain = 'raw'
              THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
              WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
              THEN CAST(0 AS FLOAT64)
              WHEN prm.gain = 'exponential'
              THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
              WHEN prm.gain = 'binary'
              THEN CAST(1 AS FLOAT64)
              ELSE CAST(f.grade AS FLOAT64)
            END * (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.ipos AS FLOAT64) + 1), 0)
            )
            WHEN 'judgments' = 'retrieved'
            AND f.kind = 'R'
            AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN CASE
              WHEN prm.gain = 'raw'
              THEN COALESCE(CAST(f.grade AS FLOAT64), CAST(0 AS FLOAT64))
              WHEN f.grade IS NULL OR f.grade <= 0 OR f.grade < prm.rel
              THEN CAST(0 AS FLOAT64)
              WHEN prm.gain = 'exponential'
              THEN POWER(CAST(2 AS FLOAT64), f.grade) - 1
              WHEN prm.gain = 'binary'
              THEN CAST(1 AS FLOAT64)
              ELSE CAST(f.grade AS FLOAT64)
            END * (
              LN(CAST(prm.log_base AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
            )
            ELSE 0
          END
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        ROW_NUMBER() OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY CASE
            WHEN prm.gains <> ''
            AND s.grade >= 0
            AND s.grade = FLOOR(s.grade)
            AND INSTR(',' || prm.gains, (
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )) > 0
            THEN CAST(SUBSTRING(
              ',' || prm.gains || ',',
              INSTR(',' || prm.gains, (
                ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
              )) + LENGTH((
                ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
              )),
              INSTR(
                SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  ))
                ),
                ','
              ) - 1
            ) AS FLOAT64)
            ELSE CASE
              WHEN prm.gain = 'raw'
              THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
              WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < prm.rel
              THEN CAST(0 AS FLOAT64)
              WHEN prm.gain = 'exponential'
              THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
              WHEN prm.gain = 'binary'
              THEN CAST(1 AS FLOAT64)
              ELSE CAST(s.grade AS FLOAT64)
            END
          END DESC
        )
      ) AS gain_pos
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.gain,
    prm.gains,
    prm.judged_only,
    prm.k,
    prm.log_base,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_err(k INT64, max_grade FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(max_grade, 4) AS max_grade,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_err: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_err: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_err: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_err: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_err: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_grade IS NULL
              AND prm.max_grade >= 1
              AND prm.max_grade <= 1023
              AND prm.max_grade = FLOOR(prm.max_grade)
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_err: max_grade must be a whole number from 1 to 1023 (2^max_grade must fit a double), not ',
            COALESCE(CAST(prm.max_grade AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.max_grade - prm.max_grade IS NULL OR prm.max_grade - prm.max_grade <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_err: max_grade must be a finite number, not ',
            COALESCE(CAST(prm.max_grade AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_err: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        SUM(
          CASE
            WHEN f.kind = 'R' AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN f.reach * CASE
              WHEN f.grade IS NULL OR f.grade <= 0
              THEN CAST(0 AS FLOAT64)
              WHEN f.grade >= prm.max_grade
              THEN (
                POWER(CAST(2 AS FLOAT64), prm.max_grade) - 1
              ) / NULLIF(POWER(CAST(2 AS FLOAT64), prm.max_grade), 0)
              ELSE (
                POWER(CAST(2 AS FLOAT64), f.grade) - 1
              ) / NULLIF(POWER(CAST(2 AS FLOAT64), prm.max_grade), 0)
            END / NULLIF(f.pos, 0)
            ELSE 0
          END
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      EXP(
        COALESCE(
          SUM(
            LN(
              1 - CASE
                WHEN s.grade IS NULL OR s.grade <= 0
                THEN CAST(0 AS FLOAT64)
                WHEN s.grade >= prm.max_grade
                THEN (
                  POWER(CAST(2 AS FLOAT64), prm.max_grade) - 1
                ) / NULLIF(POWER(CAST(2 AS FLOAT64), prm.max_grade), 0)
                ELSE (
                  POWER(CAST(2 AS FLOAT64), s.grade) - 1
                ) / NULLIF(POWER(CAST(2 AS FLOAT64), prm.max_grade), 0)
              END
            )
          ) OVER (
            PARTITION BY s.query_id, s.kind
            ORDER BY s.pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        )
      ) AS reach
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.max_grade,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_f1(k INT64, rel FLOAT64, beta FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(beta, 1) AS beta,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_f1: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_f1: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_f1: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_f1: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_f1: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.beta IS NULL AND prm.beta >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_f1: beta must be a number >= 0, not ',
            COALESCE(CAST(prm.beta AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_f1: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN (
            prm.beta - prm.beta IS NULL OR prm.beta - prm.beta <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_f1: beta must be a finite number, not ',
            COALESCE(CAST(prm.beta AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_f1: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        CASE
          WHEN SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN 1
              ELSE 0
            END
          ) > 0
          THEN (
            prm.beta + 1
          ) * (
            CAST(SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  prm.k IS NULL OR f.pos <= prm.k
                )
                THEN 1
                ELSE 0
              END
            ) AS FLOAT64) / NULLIF(
              COALESCE(
                prm.k,
                SUM(
                  CASE WHEN f.kind = 'R' AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  ) THEN 1 ELSE 0 END
                )
              ),
              0
            )
          ) * (
            CAST(SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  prm.k IS NULL OR f.pos <= prm.k
                )
                THEN 1
                ELSE 0
              END
            ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
          ) / NULLIF(
            prm.beta * (
              CAST(SUM(
                CASE
                  WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN 1
                  ELSE 0
                END
              ) AS FLOAT64) / NULLIF(
                COALESCE(
                  prm.k,
                  SUM(
                    CASE WHEN f.kind = 'R' AND (
                      prm.k IS NULL OR f.pos <= prm.k
                    ) THEN 1 ELSE 0 END
                  )
                ),
                0
              )
            ) + (
              CAST(SUM(
                CASE
                  WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN 1
                  ELSE 0
                END
              ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
            ),
            0
          )
          ELSE (
            CAST(0 AS FLOAT64) / NULLIF(
              (
                COALESCE(
                  prm.k,
                  SUM(
                    CASE WHEN f.kind = 'R' AND (
                      prm.k IS NULL OR f.pos <= prm.k
                    ) THEN 1 ELSE 0 END
                  )
                ) + prm.beta * SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
              ),
              0
            )
          )
        END,
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.beta,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_fallout(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_fallout: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_fallout: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_fallout: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_fallout: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_fallout: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_fallout: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_fallout: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    (
      CAST(SUM(
        CASE
          WHEN f.kind = 'R' AND f.grade < prm.rel AND (
            prm.k IS NULL OR f.pos <= prm.k
          )
          THEN 1
          ELSE 0
        END
      ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade < prm.rel THEN 1 ELSE 0 END), 0)
    ) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_g(rel FLOAT64, gains STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(gains, '') AS gains,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_g: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_g: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_g: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_g: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                (
                  SELECT
                    COUNT(DISTINCT x)
                  FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', prm.gains), ',([0-9]+)=')) AS x
                ) = ARRAY_LENGTH(SPLIT(prm.gains, ','))
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_g: gains must be level=gain pairs with each level once, not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                REGEXP_CONTAINS(
                  prm.gains,
                  '^((0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*)$'
                )
                AND 'judgments' = 'judgments'
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_g: gains must be level=gain pairs such as \'1=3,2=9\', levels without leading zeros (with ideal judgments), not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_g: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_g: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.tgain <> 0
              THEN f.tgain * LN(CAST(2 AS FLOAT64)) / NULLIF(LN(2 + f.pos + f.g_ideal_extra - f.g_gained), 0)
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.tgain > 0 THEN f.tgain ELSE 0 END), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN s.kind = 'J'
            THEN CASE WHEN s.tgain > 1 THEN s.tgain - 1 ELSE 0 END
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id
          ORDER BY CASE
            WHEN 2 * s.gpos + CASE WHEN s.kind = 'J' THEN 0 ELSE 1 END IS NULL
            THEN 1
            ELSE 0
          END ASC, 2 * s.gpos + CASE WHEN s.kind = 'J' THEN 0 ELSE 1 END
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS g_ideal_extra,
      SUM(s.tgain) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY s.pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS g_gained
    FROM (
      SELECT
        s.*,
        CASE
          WHEN prm.gains <> ''
          AND s.grade >= 0
          AND s.grade = FLOOR(s.grade)
          AND INSTR(',' || prm.gains, (
            ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
          )) > 0
          THEN CAST(SUBSTRING(
            ',' || prm.gains || ',',
            INSTR(',' || prm.gains, (
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )) + LENGTH((
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )),
            INSTR(
              SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                ))
              ),
              ','
            ) - 1
          ) AS FLOAT64)
          ELSE CASE
            WHEN 'linear' = 'raw'
            THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
            WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < 0
            THEN CAST(0 AS FLOAT64)
            WHEN 'linear' = 'exponential'
            THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
            WHEN 'linear' = 'binary'
            THEN CAST(1 AS FLOAT64)
            ELSE CAST(s.grade AS FLOAT64)
          END
        END AS tgain,
        CASE
          WHEN prm.gains <> '' AND s.kind = 'J'
          THEN (
            ROW_NUMBER() OVER (
              PARTITION BY s.query_id, s.kind
              ORDER BY CASE
                WHEN prm.gains <> ''
                AND s.grade >= 0
                AND s.grade = FLOOR(s.grade)
                AND INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                )) > 0
                THEN CAST(SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )),
                  INSTR(
                    SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                      ))
                    ),
                    ','
                  ) - 1
                ) AS FLOAT64)
                ELSE CASE
                  WHEN 'linear' = 'raw'
                  THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
                  WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < 0
                  THEN CAST(0 AS FLOAT64)
                  WHEN 'linear' = 'exponential'
                  THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
                  WHEN 'linear' = 'binary'
                  THEN CAST(1 AS FLOAT64)
                  ELSE CAST(s.grade AS FLOAT64)
                END
              END DESC
            )
          )
          ELSE s.pos
        END AS gpos
      FROM item_stream AS s
      CROSS JOIN params AS prm
    ) AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_ndcg_rel(rel FLOAT64, gains STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(gains, '') AS gains,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                (
                  SELECT
                    COUNT(DISTINCT x)
                  FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', prm.gains), ',([0-9]+)=')) AS x
                ) = ARRAY_LENGTH(SPLIT(prm.gains, ','))
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: gains must be level=gain pairs with each level once, not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                REGEXP_CONTAINS(
                  prm.gains,
                  '^((0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*)$'
                )
                AND 'judgments' = 'judgments'
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: gains must be level=gain pairs such as \'1=3,2=9\', levels without leading zeros (with ideal judgments), not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_ndcg_rel: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        CASE
          WHEN (
            SUM(
              CASE
                WHEN f.kind = 'R' AND f.tgain > 0
                THEN f.rel_dcg_upto / NULLIF(f.rel_ideal_upto, 0)
                ELSE 0
              END
            ) + (
              SUM(CASE WHEN f.kind = 'J' AND f.tgain > 0 THEN 1 ELSE 0 END) - SUM(CASE WHEN f.kind = 'R' AND f.tgain > 0 THEN 1 ELSE 0 END)
            ) * COALESCE(
              SUM(
                CASE
                  WHEN f.kind = 'R'
                  THEN f.tgain * (
                    LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
                  )
                  ELSE 0
                END
              ) / NULLIF(
                SUM(
                  CASE
                    WHEN f.kind = 'J' AND f.tgain > 0
                    THEN f.tgain * (
                      LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.gpos AS FLOAT64) + 1), 0)
                    )
                    ELSE 0
                  END
                ),
                0
              ),
              0
            )
          ) > 0
          THEN (
            CAST((
              SUM(
                CASE
                  WHEN f.kind = 'R' AND f.tgain > 0
                  THEN f.rel_dcg_upto / NULLIF(f.rel_ideal_upto, 0)
                  ELSE 0
                END
              ) + (
                SUM(CASE WHEN f.kind = 'J' AND f.tgain > 0 THEN 1 ELSE 0 END) - SUM(CASE WHEN f.kind = 'R' AND f.tgain > 0 THEN 1 ELSE 0 END)
              ) * COALESCE(
                SUM(
                  CASE
                    WHEN f.kind = 'R'
                    THEN f.tgain * (
                      LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
                    )
                    ELSE 0
                  END
                ) / NULLIF(
                  SUM(
                    CASE
                      WHEN f.kind = 'J' AND f.tgain > 0
                      THEN f.tgain * (
                        LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.gpos AS FLOAT64) + 1), 0)
                      )
                      ELSE 0
                    END
                  ),
                  0
                ),
                0
              )
            ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.tgain > 0 THEN 1 ELSE 0 END), 0)
          )
          ELSE CAST(0 AS FLOAT64)
        END,
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      SUM(
        s.tgain * (
          LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(s.pos AS FLOAT64) + 1), 0)
        )
      ) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY s.pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS rel_dcg_upto,
      (
        SUM(
          CASE
            WHEN s.kind = 'J'
            THEN CASE
              WHEN s.tgain > 0
              THEN s.tgain * (
                LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(s.gpos AS FLOAT64) + 1), 0)
              )
              ELSE 0
            END
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id
          ORDER BY CASE
            WHEN 2 * s.gpos + CASE WHEN s.kind = 'J' THEN 0 ELSE 1 END IS NULL
            THEN 1
            ELSE 0
          END ASC, 2 * s.gpos + CASE WHEN s.kind = 'J' THEN 0 ELSE 1 END
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS rel_ideal_upto
    FROM (
      SELECT
        s.*,
        CASE
          WHEN prm.gains <> ''
          AND s.grade >= 0
          AND s.grade = FLOOR(s.grade)
          AND INSTR(',' || prm.gains, (
            ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
          )) > 0
          THEN CAST(SUBSTRING(
            ',' || prm.gains || ',',
            INSTR(',' || prm.gains, (
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )) + LENGTH((
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )),
            INSTR(
              SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                ))
              ),
              ','
            ) - 1
          ) AS FLOAT64)
          ELSE CASE
            WHEN 'linear' = 'raw'
            THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
            WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < 0
            THEN CAST(0 AS FLOAT64)
            WHEN 'linear' = 'exponential'
            THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
            WHEN 'linear' = 'binary'
            THEN CAST(1 AS FLOAT64)
            ELSE CAST(s.grade AS FLOAT64)
          END
        END AS tgain,
        CASE
          WHEN prm.gains <> '' AND s.kind = 'J'
          THEN (
            ROW_NUMBER() OVER (
              PARTITION BY s.query_id, s.kind
              ORDER BY CASE
                WHEN prm.gains <> ''
                AND s.grade >= 0
                AND s.grade = FLOOR(s.grade)
                AND INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                )) > 0
                THEN CAST(SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )),
                  INSTR(
                    SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                      ))
                    ),
                    ','
                  ) - 1
                ) AS FLOAT64)
                ELSE CASE
                  WHEN 'linear' = 'raw'
                  THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
                  WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < 0
                  THEN CAST(0 AS FLOAT64)
                  WHEN 'linear' = 'exponential'
                  THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
                  WHEN 'linear' = 'binary'
                  THEN CAST(1 AS FLOAT64)
                  ELSE CAST(s.grade AS FLOAT64)
                END
              END DESC
            )
          )
          ELSE s.pos
        END AS gpos
      FROM item_stream AS s
      CROSS JOIN params AS prm
    ) AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_rndcg(rel FLOAT64, gains STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(gains, '') AS gains,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rndcg: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rndcg: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rndcg: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rndcg: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                (
                  SELECT
                    COUNT(DISTINCT x)
                  FROM UNNEST(REGEXP_EXTRACT_ALL(CONCAT(',', prm.gains), ',([0-9]+)=')) AS x
                ) = ARRAY_LENGTH(SPLIT(prm.gains, ','))
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_rndcg: gains must be level=gain pairs with each level once, not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.gains = ''
              OR (
                REGEXP_CONTAINS(
                  prm.gains,
                  '^((0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)(,(0|[1-9][0-9]*)=[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+))*)$'
                )
                AND 'judgments' = 'judgments'
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_rndcg: gains must be level=gain pairs such as \'1=3,2=9\', levels without leading zeros (with ideal judgments), not ',
            COALESCE(CAST(prm.gains AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rndcg: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_rndcg: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        CASE
          WHEN SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
          THEN CAST(0 AS FLOAT64)
          ELSE (
            CAST((
              SUM(
                CASE
                  WHEN f.kind = 'J' AND f.r_level_end
                  THEN f.r_dcg_upto / NULLIF(f.r_ideal_upto, 0)
                  ELSE 0
                END
              ) + CASE
                WHEN SUM(CASE WHEN f.kind = 'R' AND (
                  NULL IS NULL OR f.pos <= NULL
                ) THEN 1 ELSE 0 END) >= SUM(CASE WHEN f.kind = 'J' AND f.tgain > 0 THEN 1 ELSE 0 END) + 2
                THEN COALESCE(
                  SUM(
                    CASE
                      WHEN f.kind = 'R'
                      THEN f.tgain * (
                        LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.pos AS FLOAT64) + 1), 0)
                      )
                      ELSE 0
                    END
                  ) / NULLIF(
                    SUM(
                      CASE
                        WHEN f.kind = 'J' AND f.tgain > 0
                        THEN f.tgain * (
                          LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(f.gpos AS FLOAT64) + 1), 0)
                        )
                        ELSE 0
                      END
                    ),
                    0
                  ),
                  0
                )
                ELSE 0
              END
            ) AS FLOAT64) / NULLIF(
              (
                SUM(CASE WHEN f.kind = 'J' AND f.r_level_end THEN 1 ELSE 0 END) + CASE
                  WHEN SUM(CASE WHEN f.kind = 'R' AND (
                    NULL IS NULL OR f.pos <= NULL
                  ) THEN 1 ELSE 0 END) >= SUM(CASE WHEN f.kind = 'J' AND f.tgain > 0 THEN 1 ELSE 0 END) + 2
                  THEN 1
                  ELSE 0
                END
              ),
              0
            )
          )
        END,
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN s.kind = 'R'
            THEN (
              s.tgain * (
                LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(s.pos AS FLOAT64) + 1), 0)
              )
            )
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id
          ORDER BY CASE
            WHEN 2 * s.gpos + CASE WHEN s.kind = 'R' THEN 0 ELSE 1 END IS NULL
            THEN 1
            ELSE 0
          END ASC, 2 * s.gpos + CASE WHEN s.kind = 'R' THEN 0 ELSE 1 END
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS r_dcg_upto,
      SUM(
        CASE
          WHEN s.tgain > 0
          THEN s.tgain * (
            LN(CAST(2 AS FLOAT64)) / NULLIF(LN(CAST(s.gpos AS FLOAT64) + 1), 0)
          )
          ELSE 0
        END
      ) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY CASE WHEN s.gpos IS NULL THEN 1 ELSE 0 END ASC, s.gpos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS r_ideal_upto,
      s.tgain > 0
      AND s.gpos = MAX(s.gpos) OVER (PARTITION BY s.query_id, s.kind, s.tgain) AS r_level_end
    FROM (
      SELECT
        s.*,
        CASE
          WHEN prm.gains <> ''
          AND s.grade >= 0
          AND s.grade = FLOOR(s.grade)
          AND INSTR(',' || prm.gains, (
            ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
          )) > 0
          THEN CAST(SUBSTRING(
            ',' || prm.gains || ',',
            INSTR(',' || prm.gains, (
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )) + LENGTH((
              ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
            )),
            INSTR(
              SUBSTRING(
                ',' || prm.gains || ',',
                INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                )) + LENGTH((
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                ))
              ),
              ','
            ) - 1
          ) AS FLOAT64)
          ELSE CASE
            WHEN 'linear' = 'raw'
            THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
            WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < 0
            THEN CAST(0 AS FLOAT64)
            WHEN 'linear' = 'exponential'
            THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
            WHEN 'linear' = 'binary'
            THEN CAST(1 AS FLOAT64)
            ELSE CAST(s.grade AS FLOAT64)
          END
        END AS tgain,
        CASE
          WHEN prm.gains <> '' AND s.kind = 'J'
          THEN (
            ROW_NUMBER() OVER (
              PARTITION BY s.query_id, s.kind
              ORDER BY CASE
                WHEN prm.gains <> ''
                AND s.grade >= 0
                AND s.grade = FLOOR(s.grade)
                AND INSTR(',' || prm.gains, (
                  ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                )) > 0
                THEN CAST(SUBSTRING(
                  ',' || prm.gains || ',',
                  INSTR(',' || prm.gains, (
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )) + LENGTH((
                    ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                  )),
                  INSTR(
                    SUBSTRING(
                      ',' || prm.gains || ',',
                      INSTR(',' || prm.gains, (
                        ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                      )) + LENGTH((
                        ',' || CAST(CAST(s.grade AS INT64) AS STRING) || '='
                      ))
                    ),
                    ','
                  ) - 1
                ) AS FLOAT64)
                ELSE CASE
                  WHEN 'linear' = 'raw'
                  THEN COALESCE(CAST(s.grade AS FLOAT64), CAST(0 AS FLOAT64))
                  WHEN s.grade IS NULL OR s.grade <= 0 OR s.grade < 0
                  THEN CAST(0 AS FLOAT64)
                  WHEN 'linear' = 'exponential'
                  THEN POWER(CAST(2 AS FLOAT64), s.grade) - 1
                  WHEN 'linear' = 'binary'
                  THEN CAST(1 AS FLOAT64)
                  ELSE CAST(s.grade AS FLOAT64)
                END
              END DESC
            )
          )
          ELSE s.pos
        END AS gpos
      FROM item_stream AS s
      CROSS JOIN params AS prm
    ) AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_hits(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_hits: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_hits: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_hits: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_hits: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_hits: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_hits: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_hits: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN 1
            ELSE 0
          END
        ) AS FLOAT64),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_infap(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_infap: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_infap: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_infap: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_infap: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_infap: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_infap: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel
              THEN CASE
                WHEN f.pos = 1
                THEN CAST(1 AS FLOAT64)
                ELSE 1 / NULLIF(CAST(f.pos AS FLOAT64), 0) + (
                  (
                    f.pos - 1
                  ) / NULLIF(CAST(f.pos AS FLOAT64), 0)
                ) * (
                  (
                    f.running_rel - 1 + f.running_nonrel + f.running_unjudged
                  ) / NULLIF(CAST(f.pos - 1 AS FLOAT64), 0)
                ) * (
                  (
                    f.running_rel - 1 + 0.00001
                  ) / NULLIF(f.running_rel - 1 + f.running_nonrel + 2 * 0.00001, 0)
                )
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel,
      SUM(CASE WHEN s.grade >= 0 AND s.grade < prm.rel THEN 1 ELSE 0 END) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY s.pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS running_nonrel,
      SUM(CASE WHEN s.grade < 0 THEN 1 ELSE 0 END) OVER (
        PARTITION BY s.query_id, s.kind
        ORDER BY s.pos
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS running_unjudged
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_intersection(k INT64, ref_k FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    ref_k AS ref_k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), rm_referenceless_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), reference_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_reference AS r
), reference_ranks AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM reference_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM reference_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
  ) AS ranked
  LEFT JOIN judgment_items AS j
    ON j.query_id = ranked.query_id AND j.item_id = ranked.item_id
), item_stream AS (
  SELECT
    s.*,
    rf.ref_pos
  FROM rm_referenceless_stream AS s
  LEFT JOIN (
    SELECT
      x.query_id AS ref_query_id,
      x.item_id AS ref_item_id,
      x.pos AS ref_pos
    FROM reference_ranks AS x
    WHERE
      x.kind = 'R'
  ) AS rf
    ON rf.ref_query_id = s.query_id AND rf.ref_item_id = s.item_id
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
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' appears ',
        CAST(COUNT(*) AS STRING),
        ' times for query ',
        x.query_id,
        ' in the reference'
      ) AS fault
    FROM reference_items AS x
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
        THEN 'rankmetrics: a row of the reference has no query id or no item id (NULL or empty)'
        WHEN (
          x.score - x.score IS NULL OR x.score - x.score <> 0
        )
        THEN CONCAT(
          'rankmetrics: item ',
          x.item_id,
          ' of query ',
          x.query_id,
          ' has a score (or rank) that is NULL, NaN or infinite in the reference'
        )
      END AS fault
    FROM reference_items AS x
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
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_intersection: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.ref_k < 1 OR prm.ref_k <> FLOOR(prm.ref_k)
          THEN CONCAT(
            'rankmetrics: rm_intersection: ref_k must be a whole number >= 1, or NULL (k), not ',
            COALESCE(CAST(prm.ref_k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intersection: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intersection: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intersection: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intersection: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              prm.ref_k IS NULL
              OR (
                NOT prm.ref_k IS NULL AND prm.ref_k >= 1 AND prm.ref_k = FLOOR(prm.ref_k)
              )
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_intersection: ref_k must be a whole number >= 1, or NULL (k), not ',
            COALESCE(CAST(prm.ref_k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT prm.ref_k IS NULL
          AND (
            prm.ref_k - prm.ref_k IS NULL OR prm.ref_k - prm.ref_k <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_intersection: ref_k must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.ref_k AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_intersection: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    (
      CAST(SUM(
        CASE
          WHEN f.kind = 'R'
          AND (
            prm.k IS NULL OR f.pos <= prm.k
          )
          AND NOT f.ref_pos IS NULL
          AND (
            COALESCE(prm.ref_k, prm.k) IS NULL OR f.ref_pos <= COALESCE(prm.ref_k, prm.k)
          )
          THEN 1
          ELSE 0
        END
      ) AS FLOAT64) / NULLIF(
        SUM(
          CASE WHEN f.kind = 'R' AND (
            prm.k IS NULL OR f.pos <= prm.k
          ) THEN 1 ELSE 0 END
        ),
        0
      )
    ) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.ref_k
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_intra_list_diversity(k INT64, distance STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(distance, 'cosine') AS distance,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), rm_vectorless_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_vectors AS (
  SELECT
    CAST(v.item_id AS STRING) AS vec_item_id,
    rm_pos AS vec_dim,
    CAST(rm_item AS FLOAT64) AS vec_value
  FROM `my-project`.rm.native_items AS v
  CROSS JOIN UNNEST(v.embedding) AS rm_item WITH OFFSET AS rm_pos
), vector_rows AS (
  SELECT
    CAST(v.item_id AS STRING) AS vec_item_id
  FROM `my-project`.rm.native_items AS v
), item_stream AS (
  SELECT
    s.*,
    a.dims,
    a.sim_above,
    a.same_above
  FROM rm_vectorless_stream AS s
  LEFT JOIN (
    SELECT
      e.query_id,
      e.pos,
      COUNT(*) AS dims,
      SUM(e.unit * e.unit_above) AS sim_above,
      SUM(e.same_above) AS same_above
    FROM (
      SELECT
        r.query_id,
        r.pos,
        u.unit,
        SUM(u.unit) OVER (
          PARTITION BY r.query_id, u.vec_dim
          ORDER BY r.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) - u.unit AS unit_above,
        COUNT(*) OVER (
          PARTITION BY r.query_id, u.vec_dim, u.vec_value
          ORDER BY r.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) - 1 AS same_above
      FROM rm_vectorless_stream AS r
      JOIN (
        SELECT
          iv.vec_item_id,
          iv.vec_dim,
          iv.vec_value,
          COALESCE(
            iv.vec_value / NULLIF(SQRT(SUM(iv.vec_value * iv.vec_value) OVER (PARTITION BY iv.vec_item_id)), 0),
            0
          ) AS unit
        FROM item_vectors AS iv
      ) AS u
        ON u.vec_item_id = r.item_id
      WHERE
        r.kind = 'R'
    ) AS e
    GROUP BY
      e.query_id,
      e.pos
  ) AS a
    ON a.query_id = s.query_id AND a.pos = s.pos
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.distance IN ('cosine', 'hamming'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: distance must be one of cosine, hamming, not ',
            COALESCE(CAST(prm.distance AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_intra_list_diversity: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      vf.fault
    FROM (
      SELECT
        'rankmetrics: item ' || r.vec_item_id || ' has ' || CAST(COUNT(*) AS STRING) || ' rows in the vectors table (give one row per item)' AS fault
      FROM vector_rows AS r
      GROUP BY
        r.vec_item_id
      HAVING
        COUNT(*) > 1
      UNION ALL
      SELECT
        'rankmetrics: item ' || COALESCE(r.vec_item_id, 'NULL') || ' of the vectors table has no list of finite numbers (NULL or empty)' AS fault
      FROM vector_rows AS r
      LEFT JOIN (
        SELECT DISTINCT
          iv.vec_item_id
        FROM item_vectors AS iv
      ) AS d
        ON d.vec_item_id = r.vec_item_id
      WHERE
        d.vec_item_id IS NULL
      UNION ALL
      SELECT
        'rankmetrics: item ' || iv.vec_item_id || ' of the vectors table has a value that is not a finite number (' || COALESCE(CAST(iv.vec_value AS STRING), 'NULL') || ')' AS fault
      FROM item_vectors AS iv
      WHERE
        (
          iv.vec_value - iv.vec_value IS NULL OR iv.vec_value - iv.vec_value <> 0
        )
      UNION ALL
      SELECT
        CASE
          WHEN MIN(n.dims) <> MAX(n.dims)
          THEN 'rankmetrics: the vectors table has lists of different lengths (' || CAST(MIN(n.dims) AS STRING) || ' to ' || CAST(MAX(n.dims) AS STRING) || '; give one length)'
        END AS fault
      FROM (
        SELECT
          iv.vec_item_id,
          COUNT(*) AS dims
        FROM item_vectors AS iv
        GROUP BY
          iv.vec_item_id
      ) AS n
    ) AS vf
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN SUM(
        CASE WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        ) THEN 1 ELSE 0 END
      ) = 0
      THEN NULL
      WHEN SUM(
        CASE WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        ) THEN 1 ELSE 0 END
      ) < 2
      THEN CAST(0 AS FLOAT64)
      ELSE CASE
        WHEN prm.distance = 'hamming'
        THEN MAX(CASE WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        ) THEN f.dims END)
        ELSE 1
      END - (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R' AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN CASE
              WHEN prm.distance = 'hamming'
              THEN CAST(f.same_above AS FLOAT64)
              ELSE f.sim_above
            END
          END
        ) AS FLOAT64) / NULLIF(
          (
            SUM(
              CASE
                WHEN f.kind = 'R' AND (
                  prm.k IS NULL OR f.pos <= prm.k
                ) AND NOT f.dims IS NULL
                THEN 1
                ELSE 0
              END
            ) * (
              SUM(
                CASE
                  WHEN f.kind = 'R' AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  ) AND NOT f.dims IS NULL
                  THEN 1
                  ELSE 0
                END
              ) - 1
            ) / 2.0
          ),
          0
        )
      )
    END AS value
  FROM item_stream AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.distance,
    prm.judged_only,
    prm.k,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_iprec_at_recall(at_recall FLOAT64, rel FLOAT64, iprec_rounding STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(at_recall, 0.0) AS at_recall,
    COALESCE(rel, 1) AS rel,
    COALESCE(iprec_rounding, 'nearest') AS iprec_rounding,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.iprec_rounding IN ('nearest', 'v9'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: iprec_rounding must be one of nearest, v9, not ',
            COALESCE(CAST(prm.iprec_rounding AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.at_recall IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: at_recall must be a finite number (a recall level), not ',
            COALESCE(CAST(prm.at_recall AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.at_recall - prm.at_recall IS NULL OR prm.at_recall - prm.at_recall <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: at_recall must be a finite number, not ',
            COALESCE(CAST(prm.at_recall AS STRING), 'NULL')
          )
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_iprec_at_recall: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        COALESCE(
          MAX(
            CASE
              WHEN f.kind = 'R'
              AND f.grade >= prm.rel
              AND f.running_rel >= CASE
                WHEN FLOOR(
                  CAST(prm.at_recall AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                ) < 1
                THEN 1
                ELSE FLOOR(
                  CAST(prm.at_recall AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                )
              END
              THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
            END
          ),
          CAST(0 AS FLOAT64)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel,
      (
        SUM(CASE WHEN s.kind = 'J' AND s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id)
      ) AS query_num_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.at_recall,
    prm.empty,
    prm.iprec_rounding,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_eleven_pt_avg(rel FLOAT64, iprec_rounding STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(iprec_rounding, 'nearest') AS iprec_rounding,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.iprec_rounding IN ('nearest', 'v9'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: iprec_rounding must be one of nearest, v9, not ',
            COALESCE(CAST(prm.iprec_rounding AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_eleven_pt_avg: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          (
            COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.0 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.0 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.1 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.1 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.2 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.2 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.3 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.3 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.4 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.4 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.5 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.5 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.6 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.6 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.7 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.7 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.8 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.8 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(0.9 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(0.9 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            ) + COALESCE(
              MAX(
                CASE
                  WHEN f.kind = 'R'
                  AND f.grade >= prm.rel
                  AND f.running_rel >= CASE
                    WHEN FLOOR(
                      CAST(1.0 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    ) < 1
                    THEN 1
                    ELSE FLOOR(
                      CAST(1.0 AS FLOAT64) * f.query_num_rel + CASE WHEN prm.iprec_rounding = 'v9' THEN 0.9 ELSE 0.5 END
                    )
                  END
                  THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                END
              ),
              CAST(0 AS FLOAT64)
            )
          ) / 11
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel,
      (
        SUM(CASE WHEN s.kind = 'J' AND s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id)
      ) AS query_num_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.iprec_rounding,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_judged(k INT64, judged_count STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(judged_count, 'unj') AS judged_count,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_judged: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.judged_count IN ('unj', 'any'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_judged: judged_count must be one of unj, any, not ',
            COALESCE(CAST(prm.judged_count AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_judged: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_judged: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_judged: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_judged: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_judged: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND (
                f.grade >= 0 OR (
                  prm.judged_count = 'any' AND NOT f.grade IS NULL
                )
              )
              AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            CASE
              WHEN prm.judged_count = 'any'
              THEN SUM(
                CASE WHEN f.kind = 'R' AND (
                  prm.k IS NULL OR f.pos <= prm.k
                ) THEN 1 ELSE 0 END
              )
              ELSE COALESCE(
                prm.k,
                SUM(
                  CASE WHEN f.kind = 'R' AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  ) THEN 1 ELSE 0 END
                )
              )
            END,
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_count,
    prm.judged_only,
    prm.k,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_unjudged(k INT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_unjudged: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_unjudged: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_unjudged: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_unjudged: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_unjudged: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_unjudged: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    COALESCE(
      (
        CAST(SUM(
          CASE
            WHEN f.kind = 'R'
            AND (
              f.grade IS NULL OR f.grade < 0
            )
            AND (
              prm.k IS NULL OR f.pos <= prm.k
            )
            THEN 1
            ELSE 0
          END
        ) AS FLOAT64) / NULLIF(
          COALESCE(
            prm.k,
            SUM(
              CASE WHEN f.kind = 'R' AND (
                prm.k IS NULL OR f.pos <= prm.k
              ) THEN 1 ELSE 0 END
            )
          ),
          0
        )
      ),
      CAST(0 AS FLOAT64)
    ) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_nerr8(k INT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_nerr8: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr8: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr8: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr8: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr8: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr8: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr8: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr8: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr8: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_nerr8: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
              THEN CASE
                WHEN COALESCE(f.full_before, 0) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(COALESCE(f.log_before, 0))
              END * CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              SUM(
                CASE
                  WHEN f.kind = 'R'
                  AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                  THEN CASE
                    WHEN COALESCE(f.full_before, 0) > 0
                    THEN CAST(0 AS FLOAT64)
                    ELSE EXP(COALESCE(f.log_before, 0))
                  END
                  ELSE 0
                END
              ) + (
                CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END - SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                    THEN 1
                    ELSE 0
                  END
                )
              ) * CASE
                WHEN SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                    AND CASE
                      WHEN f.grade IS NULL
                      THEN CAST(0 AS FLOAT64)
                      ELSE (
                        LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                      ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                    END >= 1
                    THEN 1
                    ELSE 0
                  END
                ) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(
                  SUM(
                    CASE
                      WHEN f.kind = 'R'
                      AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                      AND CASE
                        WHEN f.grade IS NULL
                        THEN CAST(0 AS FLOAT64)
                        ELSE (
                          LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                        ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                      END < 1
                      THEN LN(
                        1 - CASE
                          WHEN f.grade IS NULL
                          THEN CAST(0 AS FLOAT64)
                          ELSE (
                            LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                          ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                        END
                      )
                      ELSE 0
                    END
                  )
                )
              END
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END >= 1
            THEN 1
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS full_before,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END < 1
            THEN LN(
              1 - CASE
                WHEN s.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
            )
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS log_before
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.max_rel,
    prm.min_rel,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_nerr10(p FLOAT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(p, 0.9) AS p,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.p <= 0 OR prm.p >= 1
          THEN CONCAT(
            'rankmetrics: rm_nerr10: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr10: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr10: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr10: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr10: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.p IS NULL AND prm.p > 0 AND prm.p < 1
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr10: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr10: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr10: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.p - prm.p IS NULL OR prm.p - prm.p <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr10: p must be a finite number, not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr10: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr10: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_nerr10: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.pos <= 1000
              THEN CASE
                WHEN COALESCE(f.full_before, 0) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(COALESCE(f.log_before, 0))
              END * POWER(CAST(prm.p AS FLOAT64), f.pos - 1) * CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              SUM(
                CASE
                  WHEN f.kind = 'R' AND f.pos <= 1000
                  THEN CASE
                    WHEN COALESCE(f.full_before, 0) > 0
                    THEN CAST(0 AS FLOAT64)
                    ELSE EXP(COALESCE(f.log_before, 0))
                  END * POWER(CAST(prm.p AS FLOAT64), f.pos - 1)
                  ELSE 0
                END
              ) + CASE
                WHEN SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= 1000
                    AND CASE
                      WHEN f.grade IS NULL
                      THEN CAST(0 AS FLOAT64)
                      ELSE (
                        LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                      ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                    END >= 1
                    THEN 1
                    ELSE 0
                  END
                ) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(
                  SUM(
                    CASE
                      WHEN f.kind = 'R'
                      AND f.pos <= 1000
                      AND CASE
                        WHEN f.grade IS NULL
                        THEN CAST(0 AS FLOAT64)
                        ELSE (
                          LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                        ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                      END < 1
                      THEN LN(
                        1 - CASE
                          WHEN f.grade IS NULL
                          THEN CAST(0 AS FLOAT64)
                          ELSE (
                            LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                          ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                        END
                      )
                      ELSE 0
                    END
                  )
                )
              END * POWER(
                CAST(prm.p AS FLOAT64),
                SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END)
              ) * (
                1 - POWER(
                  CAST(prm.p AS FLOAT64),
                  1000 - SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END)
                )
              ) / NULLIF(1 - CAST(prm.p AS FLOAT64), 0)
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END >= 1
            THEN 1
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS full_before,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END < 1
            THEN LN(
              1 - CASE
                WHEN s.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
            )
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS log_before
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.max_rel,
    prm.min_rel,
    prm.p,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_nerr9(k INT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_nerr9: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr9: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr9: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr9: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr9: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr9: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr9: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr9: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr9: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_nerr9: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
              THEN CASE
                WHEN COALESCE(f.full_before, 0) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(COALESCE(f.log_before, 0))
              END / NULLIF(f.pos, 0) * CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              SUM(
                CASE
                  WHEN f.kind = 'R'
                  AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                  THEN CASE
                    WHEN COALESCE(f.full_before, 0) > 0
                    THEN CAST(0 AS FLOAT64)
                    ELSE EXP(COALESCE(f.log_before, 0))
                  END / NULLIF(f.pos, 0)
                  ELSE 0
                END
              ) + CASE
                WHEN SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                    AND CASE
                      WHEN f.grade IS NULL
                      THEN CAST(0 AS FLOAT64)
                      ELSE (
                        LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                      ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                    END >= 1
                    THEN 1
                    ELSE 0
                  END
                ) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(
                  SUM(
                    CASE
                      WHEN f.kind = 'R'
                      AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                      AND CASE
                        WHEN f.grade IS NULL
                        THEN CAST(0 AS FLOAT64)
                        ELSE (
                          LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                        ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                      END < 1
                      THEN LN(
                        1 - CASE
                          WHEN f.grade IS NULL
                          THEN CAST(0 AS FLOAT64)
                          ELSE (
                            LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                          ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                        END
                      )
                      ELSE 0
                    END
                  )
                )
              END * (
                (
                  LN(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10) + 0.5772156649015329 + 1 / NULLIF(
                    2 * CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                    0
                  ) - 1 / NULLIF(
                    12 * POWER(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    120 * POWER(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                      4
                    ),
                    0
                  ) - 1 / NULLIF(
                    252 * POWER(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                      6
                    ),
                    0
                  ) + 1 / NULLIF(
                    240 * POWER(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                      8
                    ),
                    0
                  ) - 1 / NULLIF(
                    132 * POWER(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                      10
                    ),
                    0
                  ) - (
                    1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 2 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 3 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 4 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 5 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 6 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 7 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 8 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 9 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 10 AS FLOAT64),
                      0
                    )
                  )
                ) - (
                  LN(
                    SUM(
                      CASE
                        WHEN f.kind = 'R'
                        AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                        THEN 1
                        ELSE 0
                      END
                    ) + 10
                  ) + 0.5772156649015329 + 1 / NULLIF(
                    2 * CAST(SUM(
                      CASE
                        WHEN f.kind = 'R'
                        AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                        THEN 1
                        ELSE 0
                      END
                    ) + 10 AS FLOAT64),
                    0
                  ) - 1 / NULLIF(
                    12 * POWER(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 10 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    120 * POWER(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 10 AS FLOAT64),
                      4
                    ),
                    0
                  ) - 1 / NULLIF(
                    252 * POWER(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 10 AS FLOAT64),
                      6
                    ),
                    0
                  ) + 1 / NULLIF(
                    240 * POWER(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 10 AS FLOAT64),
                      8
                    ),
                    0
                  ) - 1 / NULLIF(
                    132 * POWER(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 10 AS FLOAT64),
                      10
                    ),
                    0
                  ) - (
                    1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 1 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 2 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 3 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 4 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 5 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 6 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 7 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 8 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 9 AS FLOAT64),
                      0
                    ) + 1 / NULLIF(
                      CAST(SUM(
                        CASE
                          WHEN f.kind = 'R'
                          AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                          THEN 1
                          ELSE 0
                        END
                      ) + 10 AS FLOAT64),
                      0
                    )
                  )
                )
              )
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END >= 1
            THEN 1
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS full_before,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END < 1
            THEN LN(
              1 - CASE
                WHEN s.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
            )
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS log_before
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.max_rel,
    prm.min_rel,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_nerr11(t FLOAT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(t, 1.0) AS t,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr11: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr11: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr11: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr11: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.t IS NULL AND prm.t > 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr11: t must be a number > 0 (T), not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_nerr11: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr11: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.t - prm.t IS NULL OR prm.t - prm.t <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr11: t must be a finite number, not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr11: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_nerr11: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_nerr11: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.pos <= 1000
              THEN CASE
                WHEN COALESCE(f.full_before, 0) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(COALESCE(f.log_before, 0))
              END * POWER(2 * prm.t / NULLIF(f.pos + 2 * prm.t - 1, 0), 2) * CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              SUM(
                CASE
                  WHEN f.kind = 'R' AND f.pos <= 1000
                  THEN CASE
                    WHEN COALESCE(f.full_before, 0) > 0
                    THEN CAST(0 AS FLOAT64)
                    ELSE EXP(COALESCE(f.log_before, 0))
                  END * POWER(2 * prm.t / NULLIF(f.pos + 2 * prm.t - 1, 0), 2)
                  ELSE 0
                END
              ) + CASE
                WHEN SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= 1000
                    AND CASE
                      WHEN f.grade IS NULL
                      THEN CAST(0 AS FLOAT64)
                      ELSE (
                        LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                      ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                    END >= 1
                    THEN 1
                    ELSE 0
                  END
                ) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(
                  SUM(
                    CASE
                      WHEN f.kind = 'R'
                      AND f.pos <= 1000
                      AND CASE
                        WHEN f.grade IS NULL
                        THEN CAST(0 AS FLOAT64)
                        ELSE (
                          LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                        ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                      END < 1
                      THEN LN(
                        1 - CASE
                          WHEN f.grade IS NULL
                          THEN CAST(0 AS FLOAT64)
                          ELSE (
                            LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                          ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                        END
                      )
                      ELSE 0
                    END
                  )
                )
              END * POWER(2 * CAST(prm.t AS FLOAT64), 2) * (
                (
                  1 / NULLIF(
                    CAST((
                      SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                    ) + 10 AS FLOAT64),
                    0
                  ) + 1 / NULLIF(
                    2 * POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 10 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    6 * POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 10 AS FLOAT64),
                      3
                    ),
                    0
                  ) - 1 / NULLIF(
                    30 * POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 10 AS FLOAT64),
                      5
                    ),
                    0
                  ) + 1 / NULLIF(
                    42 * POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 10 AS FLOAT64),
                      7
                    ),
                    0
                  ) - 1 / NULLIF(
                    30 * POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 10 AS FLOAT64),
                      9
                    ),
                    0
                  ) + 5 / NULLIF(
                    66 * POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 10 AS FLOAT64),
                      11
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 1 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 2 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 3 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 4 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 5 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 6 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 7 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 8 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        SUM(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN 1 ELSE 0 END) + 2 * prm.t
                      ) + 9 AS FLOAT64),
                      2
                    ),
                    0
                  )
                ) - (
                  1 / NULLIF(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 0) + 1 / NULLIF(2 * POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 2), 0) + 1 / NULLIF(6 * POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 3), 0) - 1 / NULLIF(30 * POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 5), 0) + 1 / NULLIF(42 * POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 7), 0) - 1 / NULLIF(30 * POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 9), 0) + 5 / NULLIF(66 * POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 10 AS FLOAT64), 11), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 1 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 2 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 3 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 4 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 5 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 6 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 7 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 8 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                    1000 + 2 * prm.t
                  ) + 9 AS FLOAT64), 2), 0)
                )
              )
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END >= 1
            THEN 1
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS full_before,
      (
        SUM(
          CASE
            WHEN CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE (
                LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
              ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            END < 1
            THEN LN(
              1 - CASE
                WHEN s.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
            )
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS log_before
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.max_rel,
    prm.min_rel,
    prm.queries,
    prm.t
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_insq(t FLOAT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(t, 1.0) AS t,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_insq: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_insq: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_insq: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_insq: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.t IS NULL AND prm.t > 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_insq: t must be a number > 0 (T), not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_insq: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_insq: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.t - prm.t IS NULL OR prm.t - prm.t <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_insq: t must be a finite number, not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_insq: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_insq: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_insq: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.pos <= 1000
              THEN CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END / NULLIF(POWER(CAST(f.pos + 2 * prm.t - 1 AS FLOAT64), 2), 0)
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              (
                1 / NULLIF(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 0) + 1 / NULLIF(2 * POWER(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 2), 0) + 1 / NULLIF(6 * POWER(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 3), 0) - 1 / NULLIF(30 * POWER(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 5), 0) + 1 / NULLIF(42 * POWER(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 7), 0) - 1 / NULLIF(30 * POWER(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 9), 0) + 5 / NULLIF(66 * POWER(CAST((
                  2 * prm.t
                ) + 10 AS FLOAT64), 11), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 1 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 2 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 3 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 4 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 5 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 6 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 7 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 8 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  2 * prm.t
                ) + 9 AS FLOAT64), 2), 0)
              ) - (
                1 / NULLIF(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 0) + 1 / NULLIF(2 * POWER(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 2), 0) + 1 / NULLIF(6 * POWER(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 3), 0) - 1 / NULLIF(30 * POWER(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 5), 0) + 1 / NULLIF(42 * POWER(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 7), 0) - 1 / NULLIF(30 * POWER(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 9), 0) + 5 / NULLIF(66 * POWER(CAST((
                  1000 + 2 * prm.t
                ) + 10 AS FLOAT64), 11), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 1 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 2 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 3 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 4 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 5 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 6 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 7 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 8 AS FLOAT64), 2), 0) + 1 / NULLIF(POWER(CAST((
                  1000 + 2 * prm.t
                ) + 9 AS FLOAT64), 2), 0)
              )
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.max_rel,
    prm.min_rel,
    prm.queries,
    prm.t
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_mean_inv_user_freq(k INT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), interaction_items AS (
  SELECT
    x.user_id AS user_id,
    x.item_id AS item_id
  FROM `my-project`.rm.native_interactions AS x
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), item_stats AS (
  SELECT
    c.stats_item_id,
    c.item_users,
    c.item_count,
    DENSE_RANK() OVER (ORDER BY c.item_count DESC) AS pop_rank,
    SUM(c.item_users) OVER (
      ORDER BY c.item_users DESC, CASE WHEN c.stats_item_id IS NULL THEN 1 ELSE 0 END ASC, c.stats_item_id ASC
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - c.item_users AS users_before,
    SUM(c.item_users) OVER () AS pair_count
  FROM (
    SELECT
      CAST(i.item_id AS STRING) AS stats_item_id,
      COUNT(DISTINCT CAST(i.user_id AS STRING)) AS item_users,
      COUNT(*) AS item_count
    FROM interaction_items AS i
    GROUP BY
      CAST(i.item_id AS STRING)
  ) AS c
), train_totals AS (
  SELECT
    COUNT(DISTINCT CAST(i.user_id AS STRING)) AS train_users,
    COUNT(*) AS train_count,
    (
      SELECT
        COUNT(DISTINCT CAST(c.item_id AS STRING))
      FROM catalog_items AS c
    ) AS catalog_size
  FROM interaction_items AS i
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    st.item_users,
    st.item_count,
    st.pop_rank,
    st.users_before,
    st.pair_count,
    t.train_users,
    t.train_count,
    t.catalog_size
  FROM rm_plain_stream AS s
  LEFT JOIN item_stats AS st
    ON st.stats_item_id = s.item_id
  CROSS JOIN train_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_mean_inv_user_freq: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_mean_inv_user_freq: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_mean_inv_user_freq: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_mean_inv_user_freq: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_mean_inv_user_freq: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_mean_inv_user_freq: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    AVG(
      CASE
        WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        )
        THEN -LN(CAST(COALESCE(f.item_users, 1) AS FLOAT64) / NULLIF(f.train_users, 0)) / NULLIF(LN(2), 0)
      END
    ) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_avg_rec_popularity(k INT64, normalize STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(normalize, 'false') AS normalize,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), interaction_items AS (
  SELECT
    x.user_id AS user_id,
    x.item_id AS item_id
  FROM `my-project`.rm.native_interactions AS x
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), item_stats AS (
  SELECT
    c.stats_item_id,
    c.item_users,
    c.item_count,
    DENSE_RANK() OVER (ORDER BY c.item_count DESC) AS pop_rank,
    SUM(c.item_users) OVER (
      ORDER BY c.item_users DESC, CASE WHEN c.stats_item_id IS NULL THEN 1 ELSE 0 END ASC, c.stats_item_id ASC
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - c.item_users AS users_before,
    SUM(c.item_users) OVER () AS pair_count
  FROM (
    SELECT
      CAST(i.item_id AS STRING) AS stats_item_id,
      COUNT(DISTINCT CAST(i.user_id AS STRING)) AS item_users,
      COUNT(*) AS item_count
    FROM interaction_items AS i
    GROUP BY
      CAST(i.item_id AS STRING)
  ) AS c
), train_totals AS (
  SELECT
    COUNT(DISTINCT CAST(i.user_id AS STRING)) AS train_users,
    COUNT(*) AS train_count,
    (
      SELECT
        COUNT(DISTINCT CAST(c.item_id AS STRING))
      FROM catalog_items AS c
    ) AS catalog_size
  FROM interaction_items AS i
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    st.item_users,
    st.item_count,
    st.pop_rank,
    st.users_before,
    st.pair_count,
    t.train_users,
    t.train_count,
    t.catalog_size
  FROM rm_plain_stream AS s
  LEFT JOIN item_stats AS st
    ON st.stats_item_id = s.item_id
  CROSS JOIN train_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.normalize IN ('false', 'true'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: normalize must be one of false, true, not ',
            COALESCE(CAST(prm.normalize AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.normalize IN ('false', 'true')
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: normalize must be \'false\' or \'true\', not ',
            COALESCE(CAST(prm.normalize AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_avg_rec_popularity: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    AVG(
      CASE
        WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        )
        THEN CAST(COALESCE(f.item_count, 0) AS FLOAT64) / NULLIF(CASE WHEN prm.normalize = 'true' THEN f.train_count ELSE 1 END, 0)
      END
    ) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.normalize,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_serendipity(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), interaction_items AS (
  SELECT
    x.user_id AS user_id,
    x.item_id AS item_id
  FROM `my-project`.rm.native_interactions AS x
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), item_stats AS (
  SELECT
    c.stats_item_id,
    c.item_users,
    c.item_count,
    DENSE_RANK() OVER (ORDER BY c.item_count DESC) AS pop_rank,
    SUM(c.item_users) OVER (
      ORDER BY c.item_users DESC, CASE WHEN c.stats_item_id IS NULL THEN 1 ELSE 0 END ASC, c.stats_item_id ASC
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - c.item_users AS users_before,
    SUM(c.item_users) OVER () AS pair_count
  FROM (
    SELECT
      CAST(i.item_id AS STRING) AS stats_item_id,
      COUNT(DISTINCT CAST(i.user_id AS STRING)) AS item_users,
      COUNT(*) AS item_count
    FROM interaction_items AS i
    GROUP BY
      CAST(i.item_id AS STRING)
  ) AS c
), train_totals AS (
  SELECT
    COUNT(DISTINCT CAST(i.user_id AS STRING)) AS train_users,
    COUNT(*) AS train_count,
    (
      SELECT
        COUNT(DISTINCT CAST(c.item_id AS STRING))
      FROM catalog_items AS c
    ) AS catalog_size
  FROM interaction_items AS i
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    st.item_users,
    st.item_count,
    st.pop_rank,
    st.users_before,
    st.pair_count,
    t.train_users,
    t.train_count,
    t.catalog_size
  FROM rm_plain_stream AS s
  LEFT JOIN item_stats AS st
    ON st.stats_item_id = s.item_id
  CROSS JOIN train_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_serendipity: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_serendipity: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_serendipity: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_serendipity: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_serendipity: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_serendipity: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_serendipity: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    AVG(
      CASE
        WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        )
        THEN CASE
          WHEN f.grade >= prm.rel
          THEN GREATEST(
            CAST(f.catalog_size + 1 - f.pos AS FLOAT64) / NULLIF(f.catalog_size, 0) - COALESCE(CAST(f.catalog_size + 1 - f.pop_rank AS FLOAT64) / NULLIF(f.catalog_size, 0), 0),
            CAST(0 AS FLOAT64)
          )
          ELSE CAST(0 AS FLOAT64)
        END
      END
    ) AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_long_tail(k INT64, head_share FLOAT64, share STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(head_share, 0.8) AS head_share,
    COALESCE(share, 'true') AS share,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
), interaction_items AS (
  SELECT
    x.user_id AS user_id,
    x.item_id AS item_id
  FROM `my-project`.rm.native_interactions AS x
), catalog_items AS (
  SELECT
    x.item_id AS item_id
  FROM `my-project`.rm.native_items AS x
), item_stats AS (
  SELECT
    c.stats_item_id,
    c.item_users,
    c.item_count,
    DENSE_RANK() OVER (ORDER BY c.item_count DESC) AS pop_rank,
    SUM(c.item_users) OVER (
      ORDER BY c.item_users DESC, CASE WHEN c.stats_item_id IS NULL THEN 1 ELSE 0 END ASC, c.stats_item_id ASC
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - c.item_users AS users_before,
    SUM(c.item_users) OVER () AS pair_count
  FROM (
    SELECT
      CAST(i.item_id AS STRING) AS stats_item_id,
      COUNT(DISTINCT CAST(i.user_id AS STRING)) AS item_users,
      COUNT(*) AS item_count
    FROM interaction_items AS i
    GROUP BY
      CAST(i.item_id AS STRING)
  ) AS c
), train_totals AS (
  SELECT
    COUNT(DISTINCT CAST(i.user_id AS STRING)) AS train_users,
    COUNT(*) AS train_count,
    (
      SELECT
        COUNT(DISTINCT CAST(c.item_id AS STRING))
      FROM catalog_items AS c
    ) AS catalog_size
  FROM interaction_items AS i
), rm_plain_stream AS (
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
), item_stream AS (
  SELECT
    s.*,
    st.item_users,
    st.item_count,
    st.pop_rank,
    st.users_before,
    st.pair_count,
    t.train_users,
    t.train_count,
    t.catalog_size
  FROM rm_plain_stream AS s
  LEFT JOIN item_stats AS st
    ON st.stats_item_id = s.item_id
  CROSS JOIN train_totals AS t
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_long_tail: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.share IN ('false', 'true'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: share must be one of false, true, not ',
            COALESCE(CAST(prm.share AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.share IN ('false', 'true')
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: share must be \'false\' or \'true\', not ',
            COALESCE(CAST(prm.share AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.head_share IS NULL AND prm.head_share BETWEEN 0 AND 1
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_long_tail: head_share must be a share from 0 to 1, not ',
            COALESCE(CAST(prm.head_share AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.head_share - prm.head_share IS NULL OR prm.head_share - prm.head_share <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_long_tail: head_share must be a finite number, not ',
            COALESCE(CAST(prm.head_share AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_long_tail: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.share = 'true'
      THEN AVG(
        CASE
          WHEN f.kind = 'R' AND (
            prm.k IS NULL OR f.pos <= prm.k
          )
          THEN CAST(CASE
            WHEN NOT f.item_users IS NULL
            AND f.users_before >= CAST(prm.head_share AS FLOAT64) * f.pair_count
            THEN 1
            ELSE 0
          END AS FLOAT64)
        END
      )
      ELSE CAST(SUM(
        CASE
          WHEN f.kind = 'R' AND (
            prm.k IS NULL OR f.pos <= prm.k
          )
          THEN CASE
            WHEN NOT f.item_users IS NULL
            AND f.users_before >= CAST(prm.head_share AS FLOAT64) * f.pair_count
            THEN 1
            ELSE 0
          END
        END
      ) AS FLOAT64)
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.head_share,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.share
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_precision(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_precision: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_precision: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_precision: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_precision: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_precision: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_precision: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_precision: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            COALESCE(
              prm.k,
              SUM(
                CASE WHEN f.kind = 'R' AND (
                  prm.k IS NULL OR f.pos <= prm.k
                ) THEN 1 ELSE 0 END
              )
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_r_precision(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_r_precision: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_r_precision: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_r_precision: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_r_precision: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_r_precision: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_r_precision: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND f.pos <= f.query_num_rel
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.kind = 'J' AND s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id)
      ) AS query_num_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_rbp(k INT64, p FLOAT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, scale STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(p, 0.8) AS p,
    rel AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(scale, 'max') AS scale,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_rbp: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.p <= 0 OR prm.p >= 1
          THEN CONCAT(
            'rankmetrics: rm_rbp: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.scale IN ('max', 'raw'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: scale must be one of max, raw, not ',
            COALESCE(CAST(prm.scale AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.rel IS NULL OR NOT prm.rel IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: rel must be a finite number, or NULL for graded gain, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.p IS NULL AND prm.p > 0 AND prm.p < 1
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.p - prm.p IS NULL OR prm.p - prm.p <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rbp: p must be a finite number, not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
          WHEN NOT prm.rel IS NULL AND (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rbp: rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_rbp: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= COALESCE(prm.rel, 1) THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          (
            1 - CAST(prm.p AS FLOAT64)
          ) * CASE
            WHEN prm.scale = 'raw'
            THEN SUM(
              CASE
                WHEN f.kind = 'R'
                AND f.grade > 0
                AND f.grade >= COALESCE(prm.rel, 1)
                AND (
                  prm.k IS NULL OR f.pos <= prm.k
                )
                THEN f.grade * POWER(CAST(prm.p AS FLOAT64), f.pos - 1)
                ELSE 0
              END
            )
            WHEN prm.rel IS NULL
            THEN (
              CAST(SUM(
                CASE
                  WHEN f.kind = 'R' AND f.grade > 0 AND (
                    prm.k IS NULL OR f.pos <= prm.k
                  )
                  THEN f.grade * POWER(CAST(prm.p AS FLOAT64), f.pos - 1)
                  ELSE 0
                END
              ) AS FLOAT64) / NULLIF(MAX(CASE WHEN f.kind = 'J' AND f.grade > 0 THEN f.grade END), 0)
            )
            ELSE SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  prm.k IS NULL OR f.pos <= prm.k
                )
                THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1)
                ELSE 0
              END
            )
          END
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.p,
    prm.queries,
    prm.rel,
    prm.scale
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_rbp_resid(p FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(p, 0.9) AS p,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.p <= 0 OR prm.p >= 1
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.p IS NULL AND prm.p > 0 AND prm.p < 1
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: p must be a number between 0 and 1 (exclusive), not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.p - prm.p IS NULL OR prm.p - prm.p <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: p must be a finite number, not ',
            COALESCE(CAST(prm.p AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_rbp_resid: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN SUM(
        CASE WHEN f.kind = 'R' AND (
          f.grade IS NULL OR f.grade < 0
        ) THEN 1 ELSE 0 END
      ) > 0
      THEN POWER(
        CAST(prm.p AS FLOAT64),
        SUM(CASE WHEN f.kind = 'R' AND (
          NULL IS NULL OR f.pos <= NULL
        ) THEN 1 ELSE 0 END)
      ) + (
        1 - CAST(prm.p AS FLOAT64)
      ) * SUM(
        CASE
          WHEN f.kind = 'R' AND (
            f.grade IS NULL OR f.grade < 0
          )
          THEN POWER(CAST(prm.p AS FLOAT64), f.pos - 1)
          ELSE 0
        END
      )
      ELSE CAST(0 AS FLOAT64)
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.p,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_recall(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_recall: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_recall: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_recall: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_recall: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_recall: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_recall: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_recall: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_sufficient_reco(k INT64, deep STRING, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(deep, 'false') AS deep,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k IS NULL OR prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.deep IN ('false', 'true'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: deep must be one of false, true, not ',
            COALESCE(CAST(prm.deep AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            prm.deep IN ('false', 'true')
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: deep must be \'false\' or \'true\', not ',
            COALESCE(CAST(prm.deep AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.k IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_sufficient_reco: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN SUM(CASE WHEN f.kind = 'R' AND (
        NULL IS NULL OR f.pos <= NULL
      ) THEN 1 ELSE 0 END) = 0
      THEN NULL
      WHEN prm.deep = 'true'
      THEN LEAST(
        CAST(SUM(
          CASE WHEN f.kind = 'R' AND (
            prm.k IS NULL OR f.pos <= prm.k
          ) THEN 1 ELSE 0 END
        ) AS FLOAT64) / NULLIF(prm.k, 0),
        CAST(1 AS FLOAT64)
      )
      WHEN SUM(
        CASE WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        ) THEN 1 ELSE 0 END
      ) >= prm.k
      THEN CAST(1 AS FLOAT64)
      ELSE CAST(0 AS FLOAT64)
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.deep,
    prm.judged_only,
    prm.k,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_covered_users(k INT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_covered_users: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_covered_users: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_covered_users: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_covered_users: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_covered_users: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_covered_users: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) = 0
      THEN NULL
      WHEN SUM(
        CASE WHEN f.kind = 'R' AND (
          prm.k IS NULL OR f.pos <= prm.k
        ) THEN 1 ELSE 0 END
      ) > 0
      THEN CAST(1 AS FLOAT64)
      ELSE CAST(0 AS FLOAT64)
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.judged_only,
    prm.k,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_relative_precision(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_relative_precision: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            CASE
              WHEN COALESCE(
                prm.k,
                SUM(CASE WHEN f.kind = 'R' AND (
                  NULL IS NULL OR f.pos <= NULL
                ) THEN 1 ELSE 0 END)
              ) < SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
              THEN COALESCE(
                prm.k,
                SUM(CASE WHEN f.kind = 'R' AND (
                  NULL IS NULL OR f.pos <= NULL
                ) THEN 1 ELSE 0 END)
              )
              ELSE SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
            END,
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_rprec_mult(mult FLOAT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(mult, 1.0) AS mult,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.mult IS NULL AND prm.mult > 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: mult must be a number > 0, not ',
            COALESCE(CAST(prm.mult AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.mult - prm.mult IS NULL OR prm.mult - prm.mult <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: mult must be a finite number, not ',
            COALESCE(CAST(prm.mult AS STRING), 'NULL')
          )
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_rprec_mult: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.grade >= prm.rel
              AND f.pos <= FLOOR(CAST(prm.mult AS FLOAT64) * f.query_num_rel + 0.9)
              THEN 1
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(MAX(FLOOR(CAST(prm.mult AS FLOAT64) * f.query_num_rel + 0.9)), 0)
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.kind = 'J' AND s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (PARTITION BY s.query_id)
      ) AS query_num_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.mult,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_rr(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_rr: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rr: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rr: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rr: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_rr: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_rr: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_rr: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(1 AS FLOAT64) / NULLIF(
            MIN(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  prm.k IS NULL OR f.pos <= prm.k
                )
                THEN f.pos
              END
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_set_map(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_set_map: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_set_map: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_set_map: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_set_map: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_set_map: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_set_map: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST((
            CAST(SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  NULL IS NULL OR f.pos <= NULL
                )
                THEN 1
                ELSE 0
              END
            ) AS FLOAT64) * SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  NULL IS NULL OR f.pos <= NULL
                )
                THEN 1
                ELSE 0
              END
            )
          ) AS FLOAT64) / NULLIF(
            (
              CAST(SUM(CASE WHEN f.kind = 'R' AND (
                NULL IS NULL OR f.pos <= NULL
              ) THEN 1 ELSE 0 END) AS FLOAT64) * SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_success(k INT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_success: k must be a whole number >= 1, or NULL for no cutoff, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_success: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_success: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_success: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_success: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_success: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_success: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        CASE
          WHEN SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                prm.k IS NULL OR f.pos <= prm.k
              )
              THEN 1
              ELSE 0
            END
          ) > 0
          THEN CAST(1 AS FLOAT64)
          ELSE CAST(0 AS FLOAT64)
        END,
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_bpm(k INT64, t FLOAT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(t, 1.0) AS t,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k IS NULL OR prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_bpm: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_bpm: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.t IS NULL AND prm.t > 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: t must be a number > 0 (T), not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.k IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_bpm: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.t - prm.t IS NULL OR prm.t - prm.t <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_bpm: t must be a finite number, not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_bpm: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_bpm: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_bpm: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
              AND COALESCE(f.level_before, 0) < prm.t * (
                prm.max_rel - prm.min_rel
              )
              THEN CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              SUM(
                CASE
                  WHEN f.kind = 'R'
                  AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                  AND COALESCE(f.level_before, 0) < prm.t * (
                    prm.max_rel - prm.min_rel
                  )
                  THEN 1
                  ELSE 0
                END
              ) + CASE
                WHEN SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                    THEN CASE
                      WHEN f.grade IS NULL
                      THEN CAST(0 AS FLOAT64)
                      ELSE CAST(LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel AS FLOAT64)
                    END
                    ELSE 0
                  END
                ) < prm.t * (
                  prm.max_rel - prm.min_rel
                )
                THEN CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END - SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
                    THEN 1
                    ELSE 0
                  END
                )
                ELSE 0
              END
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN s.grade IS NULL
            THEN CAST(0 AS FLOAT64)
            ELSE CAST(LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel AS FLOAT64)
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS level_before
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.max_rel,
    prm.min_rel,
    prm.queries,
    prm.t
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_sdcg(k INT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    k AS k,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN prm.k IS NULL OR prm.k < 1
          THEN CONCAT(
            'rankmetrics: rm_sdcg: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sdcg: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sdcg: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sdcg: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sdcg: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sdcg: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_sdcg: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.k IS NULL
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_sdcg: k must be a whole number >= 1, not ',
            COALESCE(CAST(prm.k AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_sdcg: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_sdcg: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_sdcg: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R'
              AND f.pos <= CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END
              THEN CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END / NULLIF(LN(CAST(f.pos + 1 AS FLOAT64)), 0)
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              -0.24323834289098076 + (
                0.5772156649015329 + LN(
                  LN(
                    CAST((
                      (
                        CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                      ) + 12
                    ) AS FLOAT64)
                  )
                ) + SQRT(
                  CAST((
                    (
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12
                  ) AS FLOAT64)
                ) * (
                  1.0 * LN(
                    CAST((
                      (
                        CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                      ) + 12
                    ) AS FLOAT64)
                  ) + -0.25 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    2
                  ) + 0.05555555555555555 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    3
                  ) + -0.006944444444444444 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    4
                  ) + 0.0007986111111111112 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    5
                  ) + -6.655092592592593e-05 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    6
                  ) + 5.196523053665911e-06 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    7
                  ) + -3.2478269085411943e-07 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    8
                  ) + 1.92395470276588e-08 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    9
                  ) + -9.619773513829401e-10 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    10
                  ) + 4.595032957151163e-11 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    11
                  ) + -1.9145970654796514e-12 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    12
                  ) + 7.665424482554353e-14 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    13
                  ) + -2.737651600912269e-15 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    14
                  ) + 9.436669225201533e-17 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    15
                  ) + -2.9489591328754792e-18 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    16
                  ) + 8.925758821411961e-20 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    17
                  ) + -2.479377450392211e-21 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    18
                  ) + 6.689726105226863e-23 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    19
                  ) + -1.6724315263067158e-24 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    20
                  ) + 4.07086654448594e-26 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    21
                  ) + -9.251969419286227e-28 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    22
                  ) + 2.0513952492276501e-29 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    23
                  ) + -4.273740102557604e-31 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    24
                  ) + 8.701187477749344e-33 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    25
                  ) + -1.6733052841825663e-34 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    26
                  ) + 3.14939780145465e-36 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    27
                  ) + -5.623924645454731e-38 * POWER(
                    LN(
                      CAST((
                        (
                          CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                        ) + 12
                      ) AS FLOAT64)
                    ),
                    28
                  )
                )
              ) + 1 / NULLIF(
                2 * LN(
                  CAST((
                    CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                  ) + 12 AS FLOAT64)
                ),
                0
              ) - 1 / NULLIF(
                12 * CAST((
                  CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                ) + 12 AS FLOAT64) * POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  2
                ),
                0
              ) + (
                POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  2
                ) + 3 * LN(
                  CAST((
                    CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                  ) + 12 AS FLOAT64)
                ) + 3
              ) / NULLIF(
                360 * POWER(
                  CAST((
                    CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                  ) + 12 AS FLOAT64),
                  3
                ) * POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  4
                ),
                0
              ) - (
                12 * POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  4
                ) + 50 * POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  3
                ) + 105 * POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  2
                ) + 120 * LN(
                  CAST((
                    CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                  ) + 12 AS FLOAT64)
                ) + 60
              ) / NULLIF(
                15120 * POWER(
                  CAST((
                    CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                  ) + 12 AS FLOAT64),
                  5
                ) * POWER(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  6
                ),
                0
              ) - (
                1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 1 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 2 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 3 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 4 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 5 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 6 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 7 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 8 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 9 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 10 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 11 AS FLOAT64)
                  ),
                  0
                ) + 1 / NULLIF(
                  LN(
                    CAST((
                      CASE WHEN prm.k IS NULL OR prm.k > 1000 THEN 1000 ELSE prm.k END + 1
                    ) + 12 AS FLOAT64)
                  ),
                  0
                )
              )
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.k,
    prm.max_rel,
    prm.min_rel,
    prm.queries
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_inst(t FLOAT64, min_rel FLOAT64, max_rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(t, 1.0) AS t,
    COALESCE(min_rel, 0) AS min_rel,
    max_rel AS max_rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_inst: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_inst: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_inst: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_inst: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.t IS NULL AND prm.t > 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_inst: t must be a number > 0 (T), not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE((
            NOT prm.min_rel IS NULL AND prm.min_rel >= 0
          ), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_inst: min_rel must be a number >= 0, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.max_rel IS NULL AND NOT prm.max_rel IS NULL AND prm.max_rel > prm.min_rel
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_inst: max_rel must be a number above min_rel (the top grade; it has no default), not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.t - prm.t IS NULL OR prm.t - prm.t <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_inst: t must be a finite number, not ',
            COALESCE(CAST(prm.t AS STRING), 'NULL')
          )
          WHEN (
            prm.min_rel - prm.min_rel IS NULL OR prm.min_rel - prm.min_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_inst: min_rel must be a finite number, not ',
            COALESCE(CAST(prm.min_rel AS STRING), 'NULL')
          )
          WHEN NOT prm.max_rel IS NULL
          AND (
            prm.max_rel - prm.max_rel IS NULL OR prm.max_rel - prm.max_rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_inst: max_rel must be a finite number, or NULL, not ',
            COALESCE(CAST(prm.max_rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_inst: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= 1 THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(SUM(
            CASE
              WHEN f.kind = 'R' AND f.pos <= 1000
              THEN CASE
                WHEN COALESCE(f.zero_before, 0) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(COALESCE(f.log_before, 0))
              END * CASE
                WHEN f.grade IS NULL
                THEN CAST(0 AS FLOAT64)
                ELSE (
                  LEAST(GREATEST(GREATEST(f.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel
                ) / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
              END
              ELSE 0
            END
          ) AS FLOAT64) / NULLIF(
            (
              SUM(
                CASE
                  WHEN f.kind = 'R' AND f.pos <= 1000
                  THEN CASE
                    WHEN COALESCE(f.zero_before, 0) > 0
                    THEN CAST(0 AS FLOAT64)
                    ELSE EXP(COALESCE(f.log_before, 0))
                  END
                  ELSE 0
                END
              ) + CASE
                WHEN SUM(
                  CASE
                    WHEN f.kind = 'R'
                    AND f.pos <= 1000
                    AND (
                      f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                    ) = 1
                    THEN 1
                    ELSE 0
                  END
                ) > 0
                THEN CAST(0 AS FLOAT64)
                ELSE EXP(
                  SUM(
                    CASE
                      WHEN f.kind = 'R' AND f.pos <= 1000
                      THEN CASE
                        WHEN (
                          f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                        ) = 1
                        THEN CAST(0 AS FLOAT64)
                        ELSE 2 * (
                          LN(
                            ABS(
                              (
                                f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                              ) - 1
                            )
                          ) - LN(
                            (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          )
                        )
                      END
                      ELSE 0
                    END
                  )
                )
              END * POWER(
                MAX(
                  CASE
                    WHEN f.kind = 'R' AND f.pos <= 1000
                    THEN (
                      f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                    )
                  END
                ),
                2
              ) * (
                (
                  1 / NULLIF(
                    CAST(MAX(
                      CASE
                        WHEN f.kind = 'R' AND f.pos <= 1000
                        THEN (
                          f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                        )
                      END
                    ) + 10 AS FLOAT64),
                    0
                  ) + 1 / NULLIF(
                    2 * POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 10 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    6 * POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 10 AS FLOAT64),
                      3
                    ),
                    0
                  ) - 1 / NULLIF(
                    30 * POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 10 AS FLOAT64),
                      5
                    ),
                    0
                  ) + 1 / NULLIF(
                    42 * POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 10 AS FLOAT64),
                      7
                    ),
                    0
                  ) - 1 / NULLIF(
                    30 * POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 10 AS FLOAT64),
                      9
                    ),
                    0
                  ) + 5 / NULLIF(
                    66 * POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 10 AS FLOAT64),
                      11
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 1 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 2 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 3 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 4 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 5 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 6 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 7 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 8 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST(MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 9 AS FLOAT64),
                      2
                    ),
                    0
                  )
                ) - (
                  1 / NULLIF(
                    CAST((
                      MAX(
                        CASE
                          WHEN f.kind = 'R' AND f.pos <= 1000
                          THEN (
                            f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                          )
                        END
                      ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                    ) + 10 AS FLOAT64),
                    0
                  ) + 1 / NULLIF(
                    2 * POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 10 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    6 * POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 10 AS FLOAT64),
                      3
                    ),
                    0
                  ) - 1 / NULLIF(
                    30 * POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 10 AS FLOAT64),
                      5
                    ),
                    0
                  ) + 1 / NULLIF(
                    42 * POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 10 AS FLOAT64),
                      7
                    ),
                    0
                  ) - 1 / NULLIF(
                    30 * POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 10 AS FLOAT64),
                      9
                    ),
                    0
                  ) + 5 / NULLIF(
                    66 * POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 10 AS FLOAT64),
                      11
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 1 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 2 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 3 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 4 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 5 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 6 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 7 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 8 AS FLOAT64),
                      2
                    ),
                    0
                  ) + 1 / NULLIF(
                    POWER(
                      CAST((
                        MAX(
                          CASE
                            WHEN f.kind = 'R' AND f.pos <= 1000
                            THEN (
                              f.pos + 2 * CAST(prm.t AS FLOAT64) - f.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                            )
                          END
                        ) + 1000 - MAX(CASE WHEN f.kind = 'R' AND f.pos <= 1000 THEN f.pos END)
                      ) + 9 AS FLOAT64),
                      2
                    ),
                    0
                  )
                )
              )
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(
          CASE
            WHEN (
              s.pos + 2 * CAST(prm.t AS FLOAT64) - s.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            ) = 1
            THEN 1
            ELSE 0
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS zero_before,
      (
        SUM(
          CASE
            WHEN (
              s.pos + 2 * CAST(prm.t AS FLOAT64) - s.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
            ) = 1
            THEN CAST(0 AS FLOAT64)
            ELSE 2 * (
              LN(
                ABS(
                  (
                    s.pos + 2 * CAST(prm.t AS FLOAT64) - s.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                  ) - 1
                )
              ) - LN(
                (
                  s.pos + 2 * CAST(prm.t AS FLOAT64) - s.level_upto / NULLIF(CAST(prm.max_rel - prm.min_rel AS FLOAT64), 0)
                )
              )
            )
          END
        ) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        )
      ) AS log_before
    FROM (
      SELECT
        s.*,
        (
          SUM(
            CASE
              WHEN s.grade IS NULL
              THEN CAST(0 AS FLOAT64)
              ELSE CAST(LEAST(GREATEST(GREATEST(s.grade, 0), prm.min_rel), prm.max_rel) - prm.min_rel AS FLOAT64)
            END
          ) OVER (
            PARTITION BY s.query_id, s.kind
            ORDER BY s.pos
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
          )
        ) AS level_upto
      FROM item_stream AS s
      CROSS JOIN params AS prm
    ) AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.max_rel,
    prm.min_rel,
    prm.queries,
    prm.t
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_utility(utility_a FLOAT64, utility_b FLOAT64, utility_c FLOAT64, utility_d FLOAT64, num_docs FLOAT64, rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(utility_a, 1.0) AS utility_a,
    COALESCE(utility_b, -1.0) AS utility_b,
    COALESCE(utility_c, 0.0) AS utility_c,
    COALESCE(utility_d, 0.0) AS utility_d,
    COALESCE(num_docs, 0) AS num_docs,
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_utility: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_utility: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_utility: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_utility: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.num_docs IS NULL
              AND prm.num_docs >= 0
              AND prm.num_docs = FLOOR(prm.num_docs)
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: num_docs must be a whole number >= 0 (the documents in the collection, trec_eval -N), not ',
            COALESCE(CAST(prm.num_docs AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(
            (
              NOT prm.utility_a IS NULL
              AND NOT prm.utility_b IS NULL
              AND NOT prm.utility_c IS NULL
              AND NOT prm.utility_d IS NULL
            ),
            FALSE
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: utility_a to utility_d must be finite numbers, not ',
            COALESCE(CAST(prm.utility_a AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.utility_a - prm.utility_a IS NULL OR prm.utility_a - prm.utility_a <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: utility_a must be a finite number, not ',
            COALESCE(CAST(prm.utility_a AS STRING), 'NULL')
          )
          WHEN (
            prm.utility_b - prm.utility_b IS NULL OR prm.utility_b - prm.utility_b <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: utility_b must be a finite number, not ',
            COALESCE(CAST(prm.utility_b AS STRING), 'NULL')
          )
          WHEN (
            prm.utility_c - prm.utility_c IS NULL OR prm.utility_c - prm.utility_c <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: utility_c must be a finite number, not ',
            COALESCE(CAST(prm.utility_c AS STRING), 'NULL')
          )
          WHEN (
            prm.utility_d - prm.utility_d IS NULL OR prm.utility_d - prm.utility_d <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: utility_d must be a finite number, not ',
            COALESCE(CAST(prm.utility_d AS STRING), 'NULL')
          )
          WHEN (
            prm.num_docs - prm.num_docs IS NULL OR prm.num_docs - prm.num_docs <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: num_docs must be a finite number, not ',
            COALESCE(CAST(prm.num_docs AS STRING), 'NULL')
          )
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_utility: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_utility: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan' AND 1 = 0
      THEN NULL
      ELSE COALESCE(
        (
          CAST(prm.utility_a AS FLOAT64) * SUM(
            CASE
              WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                NULL IS NULL OR f.pos <= NULL
              )
              THEN 1
              ELSE 0
            END
          ) + CAST(prm.utility_b AS FLOAT64) * (
            SUM(CASE WHEN f.kind = 'R' AND (
              NULL IS NULL OR f.pos <= NULL
            ) THEN 1 ELSE 0 END) - SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  NULL IS NULL OR f.pos <= NULL
                )
                THEN 1
                ELSE 0
              END
            )
          ) + CAST(prm.utility_c AS FLOAT64) * (
            SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) - SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  NULL IS NULL OR f.pos <= NULL
                )
                THEN 1
                ELSE 0
              END
            )
          ) + CAST(prm.utility_d AS FLOAT64) * (
            prm.num_docs + SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel AND (
                  NULL IS NULL OR f.pos <= NULL
                )
                THEN 1
                ELSE 0
              END
            ) - SUM(CASE WHEN f.kind = 'R' AND (
              NULL IS NULL OR f.pos <= NULL
            ) THEN 1 ELSE 0 END) - SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END)
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*
    FROM item_stream AS s
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.num_docs,
    prm.queries,
    prm.rel,
    prm.utility_a,
    prm.utility_b,
    prm.utility_c,
    prm.utility_d
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);

CREATE OR REPLACE TABLE FUNCTION metrics.rm_yaap(rel FLOAT64, ties STRING, judged_only BOOL, queries STRING, empty STRING, grades STRING)
AS (
WITH params AS (
  SELECT
    COALESCE(rel, 1) AS rel,
    COALESCE(ties, 'item_desc') AS ties,
    COALESCE(judged_only, FALSE) AS judged_only,
    COALESCE(queries, 'both') AS queries,
    COALESCE(empty, 'zero') AS empty,
    COALESCE(grades, 'truncate') AS grades
), run_items AS (
  SELECT
    CAST(r.query_id AS STRING) AS query_id,
    CAST(r.item_id AS STRING) AS item_id,
    CAST(r.score AS FLOAT64) AS score,
    CAST(r.rank AS FLOAT64) AS rank_in
  FROM `my-project`.rm.native_run AS r
), judgment_items AS (
  SELECT
    CAST(j.query_id AS STRING) AS query_id,
    CAST(j.item_id AS STRING) AS item_id,
    CASE
      WHEN prm.grades = 'truncate'
      AND NOT (
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
  FROM `my-project`.rm.native_judgments AS j
  CROSS JOIN params AS prm
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
      ROW_NUMBER() OVER (
        PARTITION BY r.query_id
        ORDER BY CASE WHEN CASE WHEN prm.ties = 'input' THEN r.rank_in END IS NULL THEN 1 ELSE 0 END ASC, CASE WHEN prm.ties = 'input' THEN r.rank_in END ASC, r.score DESC, CASE
          WHEN CASE WHEN prm.ties = 'item_asc' THEN r.item_id END IS NULL
          THEN 1
          ELSE 0
        END ASC, CASE WHEN prm.ties = 'item_asc' THEN r.item_id END ASC, r.item_id DESC
      ) AS pos
    FROM (
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      CROSS JOIN params AS prm
      WHERE
        NOT (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      UNION ALL
      SELECT
        ri.query_id,
        ri.item_id,
        ri.score,
        ri.rank_in
      FROM run_items AS ri
      JOIN judgment_items AS jo
        ON jo.query_id = ri.query_id AND jo.item_id = ri.item_id
      CROSS JOIN params AS prm
      WHERE
        (
          NOT prm.judged_only IS NULL AND prm.judged_only
        ) AND jo.grade >= 0
    ) AS r
    CROSS JOIN params AS prm
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
    UNION ALL
    SELECT
      a.fault
    FROM (
      SELECT
        CASE
          WHEN NOT COALESCE(prm.ties IN ('item_desc', 'item_asc', 'average', 'input'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_yaap: ties must be one of item_desc, item_asc, average, input, not ',
            COALESCE(CAST(prm.ties AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.queries IN ('both', 'judged', 'run', 'all'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_yaap: queries must be one of both, judged, run, all, not ',
            COALESCE(CAST(prm.queries AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.empty IN ('zero', 'nan'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_yaap: empty must be one of zero, nan, not ',
            COALESCE(CAST(prm.empty AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN NOT COALESCE(prm.grades IN ('truncate', 'as_given'), FALSE)
          THEN CONCAT(
            'rankmetrics: rm_yaap: grades must be one of truncate, as_given, not ',
            COALESCE(CAST(prm.grades AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
      UNION ALL
      SELECT
        CASE
          WHEN (
            prm.rel - prm.rel IS NULL OR prm.rel - prm.rel <> 0
          )
          THEN CONCAT(
            'rankmetrics: rm_yaap: rel must be a finite number, not ',
            COALESCE(CAST(prm.rel AS STRING), 'NULL')
          )
          WHEN prm.judged_only IS NULL
          THEN CONCAT(
            'rankmetrics: rm_yaap: judged_only must be true or false, not ',
            COALESCE(CAST(prm.judged_only AS STRING), 'NULL')
          )
        END AS fault
      FROM params AS prm
    ) AS a
    WHERE
      NOT a.fault IS NULL
    UNION ALL
    SELECT
      CONCAT(
        'rankmetrics: item ',
        x.item_id,
        ' of query ',
        x.query_id,
        ' has a score (or rank) that is NULL, NaN or infinite in the run'
      ) AS fault
    FROM run_items AS x
    WHERE
      NOT x.rank_in IS NULL
      AND (
        x.rank_in - x.rank_in IS NULL OR x.rank_in - x.rank_in <> 0
      )
  ) AS d
)
SELECT
  *
FROM (
  SELECT
    f.query_id,
    CASE
      WHEN prm.empty = 'nan'
      AND SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) = 0
      THEN NULL
      ELSE COALESCE(
        LN(
          (
            1.0 + SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel
                THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                ELSE 0
              END
            )
          ) / NULLIF(
            1.0 + CAST(SUM(CASE WHEN f.kind = 'J' AND f.grade >= prm.rel THEN 1 ELSE 0 END) AS FLOAT64) - SUM(
              CASE
                WHEN f.kind = 'R' AND f.grade >= prm.rel
                THEN CAST(f.running_rel AS FLOAT64) / NULLIF(f.pos, 0)
                ELSE 0
              END
            ),
            0
          )
        ),
        CAST(0 AS FLOAT64)
      )
    END AS value
  FROM (
    SELECT
      s.*,
      (
        SUM(CASE WHEN s.grade >= prm.rel THEN 1 ELSE 0 END) OVER (
          PARTITION BY s.query_id, s.kind
          ORDER BY s.pos
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
      ) AS running_rel
    FROM item_stream AS s
    CROSS JOIN params AS prm
  ) AS f
  CROSS JOIN params AS prm
  GROUP BY
    f.query_id,
    prm.empty,
    prm.judged_only,
    prm.queries,
    prm.rel
  HAVING
    (
      NOT (
        prm.queries = 'both' AND (
          NOT prm.judged_only IS NULL AND prm.judged_only
        )
      )
      AND CASE
        WHEN prm.queries = 'both'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'judged'
        THEN SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
        WHEN prm.queries = 'run'
        THEN SUM(CASE WHEN f.kind = 'R' THEN 1 ELSE 0 END) > 0
        ELSE TRUE
      END
    )
    OR (
      prm.queries = 'both'
      AND (
        NOT prm.judged_only IS NULL AND prm.judged_only
      )
      AND SUM(CASE WHEN f.kind = 'J' THEN 1 ELSE 0 END) > 0
      AND f.query_id IN (
        SELECT
          ri.query_id
        FROM run_items AS ri
      )
    )
) AS results
WHERE
  (
    SELECT
      ERROR(c.fault)
    FROM rm_checks AS c
    WHERE
      NOT c.fault IS NULL
  ) IS NULL
);
