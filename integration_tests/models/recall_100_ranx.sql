{{ rankmetrics.recall(ref('run'), ref('qrels'), k=100, preset='ranx') }}
