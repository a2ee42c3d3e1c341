-- each user's recommendations as an array in rank order
{{ rankmetrics.ap(ref('recs_lists'), ref('labels'), query_column='user_id', item_column='movie_id',
                  relevance_column='rating', by=['model_version', 'segment'], run_lists=true) }}
