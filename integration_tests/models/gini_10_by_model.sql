-- a catalog-wide metric per model of one recommendation table: one row per model, query_id NULL
{{ rankmetrics.gini(ref('recsys_recs'), ref('recsys_test'), items=ref('recsys_items'), k=10, preset='rectools',
                    query_column='user_id', rank_column='rank', by=['model']) }}
