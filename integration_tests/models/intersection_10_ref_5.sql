-- two models' lists: item-kNN's top 10 against the popularity model's top 5 (a second run, in the run's shape)
{{ rankmetrics.intersection(ref('recsys_itemknn'), ref('recsys_test'), reference=ref('recsys_popularity'), k=10,
                            ref_k=5, preset='rectools', query_column='user_id', rank_column='rank') }}
