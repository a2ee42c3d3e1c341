-- a metric of the training interactions, per user and model
{{ rankmetrics.mean_inv_user_freq(ref('recsys_recs'), ref('recsys_test'), interactions=ref('recsys_train'), k=10,
                                  preset='rectools', query_column='user_id', rank_column='rank', by=['model']) }}
