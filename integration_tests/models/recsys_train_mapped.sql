-- the training interactions under other column names (uid, iid)
SELECT user_id AS uid, item_id AS iid FROM {{ ref('recsys_train') }}
