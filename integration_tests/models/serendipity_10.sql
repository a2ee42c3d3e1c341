-- a metric of the training interactions and the catalog, one model
{{ rankmetrics.serendipity(ref('recsys_itemknn'), ref('recsys_test'), interactions=ref('recsys_train'),
                           items=ref('recsys_items'), k=10, preset='rectools', query_column='user_id',
                           rank_column='rank') }}
