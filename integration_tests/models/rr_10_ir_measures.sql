-- RR@10 under ir_measures' preset: its msmarco provider orders tied scores by item id ascending (the popularity
-- model ties many), where RR without a cutoff (pytrec_eval) orders them descending
{{ rankmetrics.rr(ref('recsys_popularity'), ref('recsys_test'), k=10, preset='ir_measures', query_column='user_id') }}
