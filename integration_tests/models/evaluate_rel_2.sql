{# rel=2 under trec_eval's conventions: the relevance level reaches P and AP, not nDCG's gains (level_for_gain) #}
SELECT 'preset' AS how, e.* FROM (
{{ rankmetrics.evaluate(ref('recs'), ref('labels'), metrics=['nDCG@10', 'P@5', 'AP'], per_query=false,
                        query_column='user_id', item_column='movie_id', score_column='pred',
                        relevance_column='rating', by=['model_version', 'segment'], rel=2) }}
) AS e
UNION ALL
SELECT 'level_for_gain' AS how, e.* FROM (
{{ rankmetrics.evaluate(ref('recs'), ref('labels'), metrics=['nDCG@10', 'P@5', 'AP'], per_query=false,
                        query_column='user_id', item_column='movie_id', score_column='pred',
                        relevance_column='rating', by=['model_version', 'segment'], rel=2, level_for_gain=true) }}
) AS e
UNION ALL
{# level_for_gain without rel: the preset's level (1) reaches RBP, binary (it kept its graded default) #}
SELECT 'rbp_binary' AS how, e.* FROM (
{{ rankmetrics.evaluate(ref('recs'), ref('labels'), metrics=['rbp'], per_query=false,
                        query_column='user_id', item_column='movie_id', score_column='pred',
                        relevance_column='rating', by=['model_version', 'segment'], level_for_gain=true) }}
) AS e
