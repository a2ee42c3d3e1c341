{{ rankmetrics.evaluate(ref('recs'), ref('labels'), metrics=['nDCG@10', 'AP', 'num_ret', 'gm_map', 'iprec_at_recall_0.10'],
                        per_query=false, query_column='user_id', item_column='movie_id', score_column='pred',
                        relevance_column='rating', by=['model_version', 'segment'], gain='exponential') }}
