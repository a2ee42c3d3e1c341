-- the catalog under other column names (movie, vec), its vectors as arrays (the seed's text '0.1|0.7|...')
{% if target.type == 'postgres' %}
SELECT item_id AS movie, CAST(string_to_array(embedding_text, '|') AS DOUBLE PRECISION[]) AS vec
{% else %}
SELECT item_id AS movie, CAST(string_split(embedding_text, '|') AS DOUBLE[]) AS vec
{% endif %}
FROM {{ ref('recsys_items') }}
