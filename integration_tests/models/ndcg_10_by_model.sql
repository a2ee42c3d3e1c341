-- several models in one table, other column names: one run per (model_version, segment)
{{ rankmetrics.ndcg(ref('recs'), ref('labels'), k=10, query_column='user_id', item_column='movie_id',
                    score_column='pred', relevance_column='rating', by=['model_version', 'segment']) }}
