{{ rankmetrics.rr(ref('run'), ref('qrels')) }}
