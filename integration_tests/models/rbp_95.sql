{{ rankmetrics.rbp(ref('run'), ref('qrels'), p=0.95) }}
