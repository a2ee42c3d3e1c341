{{ rankmetrics.precision(ref('run'), ref('qrels'), k=5) }}
