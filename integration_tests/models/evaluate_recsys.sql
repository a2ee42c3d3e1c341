-- evaluate with the recommender metrics that read side tables (their columns named), per model: the means
{{ rankmetrics.evaluate(ref('recsys_recs'), ref('recsys_test'),
                        metrics=['Gini@10', 'MeanInvUserFreq@10', 'Serendipity@5', 'IntraListDiversity@5',
                                 'Personalization@3', 'NDCG@10'],
                        per_query=false, preset='rectools', query_column='user_id', rank_column='rank', by=['model'],
                        interactions=ref('recsys_train_mapped'), items=ref('recsys_items_vectors'),
                        interactions_user_column='uid', interactions_item_column='iid', items_item_column='movie',
                        items_embedding_column='vec') }}
