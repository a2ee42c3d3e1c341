-- the seed's text lists ('3|1|2') as arrays
{% if target.type == 'postgres' %}
SELECT model_version, segment, user_id, CAST(string_to_array(movie_ids, '|') AS BIGINT[]) AS movie_id
{% else %}
SELECT model_version, segment, user_id, CAST(string_split(movie_ids, '|') AS BIGINT[]) AS movie_id
{% endif %}
FROM {{ ref('recs_lists_text') }}
