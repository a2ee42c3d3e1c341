{# names as their libraries write them: trec_eval's set_F and relative_P_5, ir_measures' SetP, RecTools' HitRate #}
{{ rankmetrics.evaluate(ref('run'), ref('qrels'), metrics=['set_F', 'SetP', 'HitRate@10', 'relative_P_5'],
                        per_query=false) }}
