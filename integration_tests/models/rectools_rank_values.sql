-- RecTools reads rank values as positions: under its preset, a user's ranks 1..n (user ok) give its numbers, in
-- rank order, not score order; the other users' ranks fail the model (the tests rank_values_*_fail in schema.yml).
-- Under the mllib preset (ranks read as an order) every user's ranks give numbers.
SELECT 'rectools' AS preset, 'P@2' AS measure, p.query_id, p.value FROM (
{{ rankmetrics.precision("(SELECT * FROM " ~ ref('rank_values') ~ " WHERE user_id = 'ok')",
                         "(SELECT * FROM " ~ ref('rank_values_test') ~ " WHERE user_id = 'ok')", k=2,
                         preset='rectools', query_column='user_id', rank_column='rank') }}
) AS p
UNION ALL
SELECT 'rectools' AS preset, e.* FROM (
{{ rankmetrics.evaluate("(SELECT * FROM " ~ ref('rank_values') ~ " WHERE user_id = 'ok')",
                        "(SELECT * FROM " ~ ref('rank_values_test') ~ " WHERE user_id = 'ok')", metrics=['P@1', 'Recall@2'],
                        preset='rectools', query_column='user_id', rank_column='rank', score_column=none) }}
) AS e
UNION ALL
SELECT 'mllib' AS preset, e.* FROM (
{{ rankmetrics.evaluate(ref('rank_values'), ref('rank_values_test'), metrics=['P@2'], preset='mllib',
                        query_column='user_id', rank_column='rank') }}
) AS e
