{{ rankmetrics.ndcg(ref('run'), ref('qrels'), k=10) }}
