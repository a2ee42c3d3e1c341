-- judgments whose columns are named in mixed case (quoted as the adapter quotes them)
{{ rankmetrics.ndcg(ref('recs_v1_app'), ref('labels_mixed'), k=10, query_column='UserID', item_column='MovieID',
                    score_column='pred', relevance_column='Rating') }}
