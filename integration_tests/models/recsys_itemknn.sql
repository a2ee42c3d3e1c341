-- one model of recsys_recs
SELECT user_id, item_id, rank, score FROM {{ ref('recsys_recs') }} WHERE model = 'itemknn'
