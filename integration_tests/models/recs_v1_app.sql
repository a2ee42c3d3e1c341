-- one model's recommendations, under the judgments' mixed-case column names
SELECT user_id AS {{ adapter.quote('UserID') }}, movie_id AS {{ adapter.quote('MovieID') }}, pred
FROM {{ ref('recs') }}
WHERE model_version = 'v1' AND segment = 'app'
