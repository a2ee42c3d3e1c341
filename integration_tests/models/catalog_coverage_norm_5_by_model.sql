-- the catalog from the training interactions' items (no items given)
{{ rankmetrics.catalog_coverage(ref('recsys_recs'), ref('recsys_test'), interactions=ref('recsys_train'), k=5,
                                normalize='true', preset='rectools', query_column='user_id', rank_column='rank',
                                by=['model']) }}
