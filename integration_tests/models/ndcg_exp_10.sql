{{ rankmetrics.ndcg(ref('run'), ref('qrels'), k=10, gain='exponential') }}
