{{ rankmetrics.ap(ref('run'), ref('qrels')) }}
