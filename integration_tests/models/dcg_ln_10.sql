{{ rankmetrics.dcg(ref('run'), ref('qrels'), k=10, log_base='e') }}
