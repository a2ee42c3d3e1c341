-- another model of recsys_recs: the reference run of intersection_10_ref_5
SELECT user_id, item_id, rank, score FROM {{ ref('recsys_recs') }} WHERE model = 'popularity'
