"""Metric specs and metric names.

A metric is a short declarative spec (name, the SQL table macro that defines it, its parameters with choices,
defaults and a one-line description), in the manner of ir_measures. Its definition is the macro in sql/.
Names are parsed ir_measures style, `nDCG(gain=exponential)@10`, and the names users already type in
trec_eval (`ndcg_cut_10`, `P.10`, `map`) and ranx (`ndcg_burges@10`, `mrr`, `hit_rate@10`) map onto them;
the name is echoed back as it was requested.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from . import conventions, shape
from ._lazy import LazyModule
from .errors import UsageError
from .paths import sql_files

exp = LazyModule("sqlglot.expressions")  # sqlglot, imported when SQL is first written (_lazy.py)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # 'choice' | 'level' | 'base' | 'prob' | 'grade' | 'fraction' | 'number' | 'positive' | 'nonnegative'
    #            | 'cutoff' (a whole number >= 1) | 'docs' (a whole number >= 0) | 'gains' (a gain map)
    description: str
    choices: tuple = ()
    required: bool = False  # no default: the name must give it (ir_measures' max_rel)


# --- how a metric's per-query values make its 'all' row ----------------------------------------------------------

MIN_GEO_MEAN = 0.00001  # trec_eval's floor of a value before its log in a geometric mean (trec_eval.h)
MISSING_ZSCORE = -1000000  # trec_eval -Z's value when the z-score file lacks the query and measure (trec_eval.h)


def _avg(value):
    return exp.Avg(this=value)


def _sum(value):
    return exp.Sum(this=value)


def _gmean(value):
    # exp(avg(ln(max(value, 0.00001)))), trec_eval's te_calc_avg_meas_s_gm; written as a CASE, not GREATEST, so that
    # a NULL value (a query left out, empty='nan') stays NULL and out of the AVG, as in the arithmetic mean
    return exp.Exp(this=exp.Avg(this=_log_floored(value)))


def _log_floored(value):
    """ln(max(value, 0.00001)): what trec_eval's gm_map and gm_bpref hold per query (m_gm_map.c)."""
    floor = exp.Literal.number(f"{MIN_GEO_MEAN:.5f}")  # 0.00001, not 1e-05
    floored = exp.Case(ifs=[exp.If(this=exp.LT(this=value.copy(), expression=floor), true=floor.copy())],
                       default=value.copy())
    return exp.Ln(this=floored)


def _same(value):
    return value


def _exp_avg(value):
    return exp.Exp(this=exp.Avg(this=value))


# the same in Python, for what pytrec_eval's API gives (api.RelevanceEvaluator, compute_aggregated_measure): a
# per-query value as trec_eval holds it, and the aggregate of held values (no value: NaN, a count's sum 0)
def _held_log(value: float) -> float:
    return math.log(max(value, MIN_GEO_MEAN))


def _held_mean(values: list) -> float:
    return added_in_order(values) / len(values) if values else math.nan


def _held_exp_mean(values: list) -> float:
    return math.exp(_held_mean(values))


@dataclass(frozen=True)
class Aggregate:
    """How a metric's per-query values make its 'all' row (ir_measures: Measure.aggregator()), and everything that
    follows from it, in one place: the SQL (mean_sql), how a paired difference scales (comparison), whether values
    print as whole numbers (the trec format) and how the native header says it."""
    name: str                   # 'avg' | 'sum' | 'gmean'
    code: int                   # its number in the fused query's list of measures (sqlgen: measure_list.summed)
    sql: Callable = field(repr=False, compare=False)  # value expression -> the aggregate's SQL expression
    summed_difference: bool     # a paired difference is a sum over the queries (delta = n * the mean difference)
    integer: bool               # values print as whole numbers in the trec format
    phrase: str                 # how the native objects' header says it
    # trec_eval -Z (convert_zscores.c) z-scores the value a measure holds per query, and its 'all' row is the
    # aggregate's own average of those: for gm_map and gm_bpref the log (m_gm_map.c) and exp(avg(z))
    # (te_calc_avg_meas_s_gm), not the geometric mean of z-scores of the values
    zscored: Callable = field(default=_same, repr=False, compare=False)     # per-query value -> the value z-scored
    zscore_mean: Callable = field(default=None, repr=False, compare=False)  # z-scores -> the 'all' row (None: sql)
    # the two in Python: a per-query value as held (gm_map's log), and held values -> the 'all' row
    held: Callable = field(default=lambda value: value, repr=False, compare=False)
    held_mean: Callable = field(default=_held_mean, repr=False, compare=False)

    def difference_scale(self, n: int) -> int:
        """The factor from the mean of n paired per-query differences to the difference of this aggregate."""
        return n if self.summed_difference else 1


AVG = Aggregate("avg", 0, _avg, False, False, "the mean is avg(value)")  # NULL (NaN) values left out
SUM = Aggregate("sum", 1, _sum, True, True, "trec_eval's counts sum", held_mean=lambda values: added_in_order(values))
GMEAN = Aggregate("gmean", 2, _gmean, False, False,
                  "gm_map and gm_bpref: exp(avg(ln(max(value, 0.00001))))", _log_floored, _exp_avg, _held_log,
                  _held_exp_mean)
AGGREGATES = (AVG, SUM, GMEAN)  # AVG first: the ELSE of mean_sql's CASE


def added_in_order(values) -> float:
    """The values added one by one in the order given, as trec_eval adds a mean's queries (te_acc_meas_s) and a
    query's judgment groups (m_*_avgjg.c): its last bit, which a correctly rounded sum (math.fsum) can miss."""
    total = 0.0
    for v in values:
        total += v
    return total


def mean_sql(value, condition: Callable, aggregates, zscores: bool = False) -> exp.Expression:
    """The SQL of the 'all' row over the per-query values `value` of several measures: CASE WHEN condition(a)
    THEN a's aggregate ... ELSE AVG END, one WHEN per aggregate of `aggregates` other than AVG (in AGGREGATES
    order); condition(a) is the SQL test that a row's measure is aggregated by a. Only AVG: AVG(value). When
    value is a column of a relation (v.value), DuckDB adds the terms in the order of the relation's query_id
    (determinism.in_order: trec_eval's order). zscores: the values are z-scores (Aggregate.zscore_mean)."""
    def of(a):
        return (a.zscore_mean if zscores and a.zscore_mean else a.sql)(value.copy())
    whens = [exp.If(this=condition(a), true=of(a)) for a in AGGREGATES if a in set(aggregates) and a != AVG]
    mean = exp.Case(ifs=whens, default=of(AVG)) if whens else of(AVG)
    if isinstance(value, exp.Column) and value.table:  # the values' query ids: the order DuckDB adds them in
        from .determinism import in_order
        in_order(mean, exp.column("query_id", table=value.table))
    return mean


def listed_aggregates(measures) -> tuple:
    """The aggregates a fused query's mean row names: those of the registry's metrics and of the measures, so
    that the query's shape does not depend on which measures are asked for."""
    used = {m.mean for m in METRICS.values()} | {m.metric.mean for m in measures}
    return tuple(a for a in AGGREGATES if a in used)


def aggregates_phrase() -> str:
    """How the native objects' header says the metrics are aggregated: each aggregate a registry metric uses."""
    return "; ".join(a.phrase for a in listed_aggregates(()))


# --- a metric's defaults: its macro's signature in sql/ ----------------------------------------------------------

_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)\s+AS\s+TABLE\b", re.I)


def _literal(text: str):
    """A default's SQL literal as Python: NULL, TRUE/FALSE, 'text', a whole number or a decimal number."""
    if text.upper() == "NULL":
        return None
    if text.upper() in ("TRUE", "FALSE"):
        return text.upper() == "TRUE"
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text)
    return float(text)


@functools.lru_cache(maxsize=1)
def _signatures() -> dict:
    """{table macro: {parameter: default}} read off the `CREATE OR REPLACE MACRO name(run, judgments, k := NULL,
    ...) AS TABLE` headers of sql/ (a regular expression, not sqlglot: a cached eval does not import sqlglot)."""
    out = {}
    for path in sql_files():
        with open(path, encoding="utf-8") as fh:
            text = re.sub(r"--[^\n]*", "", fh.read())
        for name, params in _MACRO.findall(text):
            defaults = {}
            for item in params.split(","):
                if ":=" in item:
                    key, value = (s.strip() for s in item.split(":=", 1))
                    key = key.strip('"').lower()
                    if key not in shape.MACRO_PARAMS:  # the tables' shape, not the metric's (shape.py)
                        defaults[key] = _literal(value)
            out[name.lower()] = defaults
    return out


def macro_defaults(macro: str) -> dict:
    """The defaults of a metric macro's parameters, as its signature in sql/ writes them."""
    return _signatures()[macro]


@dataclass(frozen=True)
class Metric:
    name: str
    macro: str
    description: str
    params: tuple = ()          # parameter names this metric takes (besides k)
    cutoff: str = "optional"    # 'optional' | 'none' | 'required' (PartialAUC@k: k is not a rank cutoff)
    mean: Aggregate = AVG       # how the 'all' row is formed from the per-query values (Aggregate)
    gain_metric: bool = False   # the relevance level reaches it only when the convention says so (nDCG, DCG)
    # Which retrieved rows the value depends on, so that a fused query may drop the others after ranking
    # (sqlgen.keep_rows): 'judged' only judged items ranked within the cutoff (unjudged ones only fill ranks);
    # 'judged_if_cut' the same with a cutoff, every retrieved item without one (the list length counts);
    # 'all' every retrieved item. Anything not sure to be 'judged' must say 'all'.
    reads: str = "judged"
    per_query_line: bool = True  # trec_eval -q prints its per-query values (not num_q, gm_map, gm_bpref: 'all' only)
    zscored: bool = True         # trec_eval -Z turns its values into z-scores (not num_q: the count of queries)
    # Tables beside the run and the judgments that the value reads (sqlgen.SIDE_CTES): ('interactions',) for the
    # recommender metrics computed from the training log (MeanInvUserFreq, AvgRecPopularity, Serendipity);
    # ('reference',) for Intersection: a second run, in the run's shape (sqlgen.reference_stream_ctes)
    tables: tuple = ()
    # 'query': a value per query, averaged by mean; 'catalog': one value for the whole run (CatalogCoverage, Gini,
    # Entropy: sqlgen.catalog_part), with no per-query values (so nothing to compare query by query)
    scope: str = "query"

    @property
    def defaults(self) -> dict:
        """Defaults that no convention sets: the parameters conventions do not know (ERR's max_grade, RBP's p and
        scale) and, for a gain metric, rel (the level reaches it only when the convention says so). Read off the
        macro's signature in sql/, the one place they are written."""
        signature = macro_defaults(self.macro)
        return {p: signature[p] for p in self.params
                if p not in conventions.PARAMETERS or (p == "rel" and self.gain_metric)}


PARAMS = {
    "rel": Param("rel", "level", "relevance level: grades >= rel are relevant"),
    "gain": Param("gain", "choice", "DCG gain", conventions.PARAMETERS["gain"][0]),
    "ideal": Param("ideal", "choice", "ideal ranking", conventions.PARAMETERS["ideal"][0]),
    "denominator": Param("denominator", "choice", "AP denominator", conventions.PARAMETERS["denominator"][0]),
    "log_base": Param("log_base", "base", "base of the log discount"),
    "p": Param("p", "prob", "persistence of the rank-biased precision user"),
    "max_grade": Param("max_grade", "grade", "highest grade of the ERR stopping probability"),
    "at_recall": Param("at_recall", "number", "recall level of the interpolated precision, from 0 to 1 (another "
                       "number is taken as trec_eval takes it: see IPrec)"),
    "mult": Param("mult", "positive", "multiple of |G| at which Rprec_mult takes the precision"),
    "min_rel": Param("min_rel", "nonnegative", "grade scaled to gain 0 (cwl_eval's gains: clipped to [min_rel, "
                     "max_rel], scaled to [0, 1])"),
    "max_rel": Param("max_rel", "nonnegative", "grade scaled to gain 1 (the top grade of the judgments)",
                     required=True),
    "t": Param("t", "positive", "the gain the user wants (T of INST, INSQ and NERR11; ir_measures writes T=)"),
    "beta": Param("beta", "nonnegative", "weight of recall against precision, (beta + 1) PR / (beta P + R) as "
                  "trec_eval's set_F.x and ir_measures' SetF(beta=x); 1 is F1"),
    "utility_a": Param("utility_a", "number", "utility of a relevant item retrieved"),
    "utility_b": Param("utility_b", "number", "utility of a non-relevant item retrieved"),
    "utility_c": Param("utility_c", "number", "utility of a relevant item not retrieved"),
    "utility_d": Param("utility_d", "number", "utility of a non-relevant item not retrieved"),
    "num_docs": Param("num_docs", "docs", conventions.PARAMETERS["num_docs"][1]),
    "iprec_rounding": Param("iprec_rounding", "choice", "how a recall level becomes a count of relevant items",
                            conventions.PARAMETERS["iprec_rounding"][0]),
    "gains": Param("gains", "gains", "a gain per relevance level, 'level=gain,...' (trec_eval's ndcg.1=3,2=9; "
                   "ir_measures' gains={1:3,2:9}); other levels keep the gain convention's"),
    "judged_count": Param("judged_count", "choice", "Judged@k as trec_eval's 1 - unj_k (grades >= 0, over k) or "
                          "ir_measures' (any judgment, over min(k, retrieved))", conventions.PARAMETERS["judged_count"][0]),
    "negative_grades": Param("negative_grades", "choice", "bpref: a negative grade is unjudged (trec_eval) or "
                             "judged non-relevant (ranx)", conventions.PARAMETERS["negative_grades"][0]),
    "deep": Param("deep", "choice", "SufficientReco: 1 only for a full list of k (false) or the share of k "
                  "the list fills (true)", ("false", "true")),
    "normalize": Param("normalize", "choice", "AvgRecPopularity: training interactions as counts (false) or as a "
                       "share of all training interactions (true); CatalogCoverage: / the catalog's size (true); "
                       "Compat: over the ideal ranking's own overlap (true) or not (false)", ("false", "true")),
    "weighted": Param("weighted", "choice", "GAUC: each query's AUC weighted by its impressions (true) or not",
                      ("false", "true")),
    "share": Param("share", "choice", "APLT: the long-tail items' share of the top k (true) or their count (false: "
                   "ACLT)", ("false", "true")),
    "distance": Param("distance", "choice", "IntraListDiversity's distance", conventions.PARAMETERS["distance"][0]),
    "head_share": Param("head_share", "fraction", "APLT, ACLT: the share of the training (user, item) pairs the "
                        "short head of the most popular items covers (Elliot's pop_ratio)"),
    "ref_k": Param("ref_k", "cutoff", "Intersection: the depth of the reference's list the top k is looked for in "
                   "(default: k, as RecTools)"),
    "scale": Param("scale", "choice", "RBP gain of a grade: grade / the query's top judged grade (max: trec_eval, "
                   "ir_measures) or the grade itself, grades >= rel counting (raw: ranx)", ("max", "raw")),
}

METRICS = {m.name: m for m in (
    Metric("P", "precision", "precision at k: relevant in the top k / k", ("rel",), reads="judged_if_cut"),
    Metric("R", "recall", "recall at k: relevant in the top k / |G|", ("rel",)),
    Metric("F1", "f1", "harmonic mean of P@k and R@k", ("rel", "beta"), reads="judged_if_cut"),
    Metric("AP", "ap", "average precision (MAP once averaged)", ("rel", "denominator")),
    Metric("RR", "rr", "reciprocal rank of the first relevant item (MRR once averaged)", ("rel",)),
    Metric("nDCG", "ndcg", "normalized discounted cumulative gain", ("gain", "rel", "log_base", "ideal", "gains"),
           gain_metric=True),
    Metric("DCG", "dcg", "discounted cumulative gain", ("gain", "rel", "log_base", "gains"), gain_metric=True),
    Metric("IdealDCG", "ideal_dcg", "DCG of the ideal ranking of the judged items (trec_eval ideal_dcg)",
           ("gain", "rel", "log_base", "gains"), gain_metric=True),
    Metric("Rprec", "r_precision", "R-precision: precision at rank |G|", ("rel",), cutoff="none"),
    Metric("Success", "success", "1 when a relevant item is in the top k (hit rate)", ("rel",)),
    Metric("Hits", "hits", "relevant items retrieved in the top k (ranx hits@k)", ("rel",)),
    Metric("NERR8", "nerr8", "C/W/L ERR truncated at k (cwl_eval NERReq8): continue with 1 - gain before k",
           ("min_rel", "max_rel"), reads="all"),
    Metric("NERR10", "nerr10", "C/W/L ERR with RBP patience (cwl_eval NERReq10): continue with p (1 - gain)",
           ("p", "min_rel", "max_rel"), cutoff="none", reads="all"),
    Metric("NERR9", "nerr9", "C/W/L ERR truncated at k with a rank discount (cwl_eval NERReq9): continue with "
           "i / (i + 1) (1 - gain) before k", ("min_rel", "max_rel"), reads="all"),
    Metric("NERR11", "nerr11", "C/W/L ERR with INST's patience (cwl_eval NERReq11): continue with ((i + 2T - 1) / "
           "(i + 2T))^2 (1 - gain)", ("t", "min_rel", "max_rel"), cutoff="none", reads="all"),
    Metric("INSQ", "insq", "C/W/L INSQ (Moffat et al. 2012; cwl_eval): continue with ((i + 2T - 1) / (i + 2T))^2",
           ("t", "min_rel", "max_rel"), cutoff="none", reads="all"),
    Metric("BPM", "bpm", "C/W/L Bejeweled Player Model (Zhang et al. 2017; cwl_eval's static BPM): read ranks up to k "
           "until the gain reaches T; the gain read over the ranks read", ("t", "min_rel", "max_rel"),
           cutoff="required", reads="all"),
    Metric("INST", "inst", "C/W/L INST (Moffat et al. 2015; cwl_eval): continue with ((i + 2T - G_i - 1) / "
           "(i + 2T - G_i))^2, G_i the gain to rank i", ("t", "min_rel", "max_rel"), cutoff="none", reads="all"),
    Metric("Compat", "compat", "compatibility (Clarke et al. 2021; ir_measures' compat): rank-biased overlap of the "
           "run with the ideal ranking (grade, then the run's score), over that of the ideal with itself",
           ("p", "normalize"), cutoff="none", reads="all"),
    Metric("SDCG", "sdcg", "scaled DCG (cwl_eval's NDCG-k): DCG@k of the gains scaled to [0, 1] over the DCG of k items "
           "of gain 1", ("min_rel", "max_rel"), cutoff="required"),
    Metric("Accuracy", "accuracy", "share of (relevant, non-relevant) pairs of the top k ranked in that order "
           "(ir_measures Accuracy; undefined without both)", ("rel",), reads="all"),
    Metric("bpref", "bpref", "binary preference (trec_eval bpref)", ("rel", "negative_grades"), cutoff="none"),
    Metric("AUC", "auc", "ROC AUC of the list: relevant items against the other retrieved ones, relevant items not "
           "retrieved ranked last", ("rel",), cutoff="none", reads="all"),
    Metric("PartialAUC", "partial_auc", "pAUC@k (RecTools PartialAUC): AUC of every relevant item against the k "
           "top-ranked non-relevant retrieved items", ("rel",), cutoff="required", reads="all"),
    Metric("PAP", "pap", "pAp@k (RecTools PAP): AUC of the top min(k, |G|) relevant items against the k top-ranked "
           "non-relevant retrieved items", ("rel",), cutoff="required", reads="all"),
    Metric("Fallout", "fallout", "fall-out at k: judged non-relevant in the top k / judged non-relevant",
           ("rel",), reads="judged_if_cut"),
    Metric("SufficientReco", "sufficient_reco", "1 when the query has k recommendations (RecTools SufficientReco; "
           "deep=true: the share of k); queries without a retrieved item left out", ("deep",), cutoff="required",
           reads="all"),
    Metric("MeanInvUserFreq", "mean_inv_user_freq", "novelty (RecTools MeanInvUserFreq): mean over the top k of "
           "-log2(users who interacted with the item in training / users in training)", (), reads="all",
           tables=("interactions",)),
    Metric("AvgRecPopularity", "avg_rec_popularity", "popularity bias (RecTools AvgRecPopularity): mean training "
           "interactions of the top k items (normalize=true: / all training interactions)", ("normalize",),
           reads="all", tables=("interactions",)),
    Metric("Serendipity", "serendipity", "RecTools Serendipity: mean over the top k of max((n + 1 - rank) / n - "
           "(n + 1 - popularity rank) / n, 0) for relevant items, n the catalog's size", ("rel",), reads="all",
           tables=("interactions",)),
    Metric("APLT", "long_tail", "average percentage of long tail items (Elliot APLT): share of the top k outside "
           "the short head of the training interactions (the most popular items covering head_share of them); "
           "share=false: their count (Elliot ACLT)", ("head_share", "share"), reads="all", tables=("interactions",)),
    Metric("IntraListDiversity", "intra_list_diversity", "RecTools IntraListDiversity: mean distance between the "
           "pairs of the top k items' vectors (the catalog's embedding column; distance cosine or hamming)",
           ("distance",), reads="all", tables=("vectors",)),
    Metric("Intersection", "intersection", "RecTools Intersection: share of the top k also in the top ref_k of a "
           "reference run (another model's recommendations; ref_k default k); a query the reference lacks scores 0",
           ("ref_k",), reads="all", tables=("reference",)),
    Metric("CatalogCoverage", "catalog_coverage", "catalog-wide: distinct items recommended in the top k (RecTools "
           "CatalogCoverage; normalize=true: / the catalog's size)", ("normalize",), reads="all", tables=("catalog",),
           scope="catalog", per_query_line=False),
    Metric("Gini", "gini", "catalog-wide: Gini index of how often each catalog item is recommended in the top k "
           "(RecBole GiniIndex)", (), reads="all", tables=("catalog",), scope="catalog", per_query_line=False),
    Metric("Entropy", "entropy", "catalog-wide: Shannon entropy (bits) of how often each item is recommended in the "
           "top k (Recommenders distributional_coverage)", (), reads="all", tables=("catalog",), scope="catalog",
           per_query_line=False),
    Metric("GAUC", "gauc", "run-wide: group AUC, each query's AUC over its impressions (judged items the run scores; "
           "scikit-learn's roc_auc_score) averaged weighted by its impressions (weighted=false: plainly)",
           ("rel", "weighted"), cutoff="none", reads="all", scope="catalog", per_query_line=False),
    Metric("Personalization", "personalization", "run-wide: 1 - the mean cosine similarity between every two "
           "queries' top k lists (recmetrics personalization)", (), reads="all", scope="catalog",
           per_query_line=False),
    Metric("CoveredUsers", "covered_users", "1 when a judged query has a recommendation in the top k (RecTools "
           "CoveredUsers)", (), reads="judged_if_cut"),
    Metric("YAAP", "yaap", "yet another average precision (trec_eval yaap; Robertson 2012): ln((1 + S) / (1 + "
           "|G| - S)), S the sum of the precisions at the relevant ranks", ("rel",), cutoff="none"),
    Metric("GMAP", "ap", "AP averaged geometrically (trec_eval gm_map): exp(mean(ln(max(AP, 0.00001))))",
           ("rel", "denominator"), mean=GMEAN, per_query_line=False),
    Metric("GMbpref", "bpref", "bpref averaged geometrically (trec_eval gm_bpref)", ("rel", "negative_grades"),
           cutoff="none",
           mean=GMEAN, per_query_line=False),
    Metric("IPrec", "iprec_at_recall", "interpolated precision at a recall level (trec_eval iprec_at_recall_r, "
           "ir_measures IPrec@r): the highest precision at or below the rank reaching that recall",
           ("rel", "at_recall", "iprec_rounding"), cutoff="none"),
    Metric("ERR", "err", "expected reciprocal rank (Chapelle et al. 2009)", ("max_grade",)),
    Metric("RBP", "rbp", "rank-biased precision (Moffat & Zobel 2008); graded (grade / the query's top grade) "
           "unless rel is given; scale=raw sums raw grades (ranx)", ("p", "rel", "scale"), gain_metric=True),
    Metric("Judged", "judged", "fraction of the top k that is judged", ("judged_count",), reads="judged_if_cut"),
    Metric("Unjudged", "unjudged", "fraction of the top k that is unjudged, divided by k (trec_eval unj_k)",
           (), reads="all"),
    Metric("RelP", "relative_precision", "relevant in the top k / min(k, |G|) (trec_eval relative_P_k; without a "
           "cutoff, over the retrieved: set_relative_P)", ("rel",), reads="judged_if_cut"),
    Metric("SetAP", "set_map", "unranked AP: set precision x set recall (trec_eval set_map)", ("rel",),
           cutoff="none", reads="all"),
    Metric("RprecMult", "rprec_mult", "precision at rank mult x |G| + 0.9 truncated (trec_eval Rprec_mult_x)",
           ("rel", "mult"), cutoff="none"),
    Metric("IPrecAvg11", "eleven_pt_avg", "mean interpolated precision at recall 0.0, 0.1, ..., 1.0 (trec_eval "
           "11pt_avg)", ("rel", "iprec_rounding"), cutoff="none"),
    Metric("binG", "bin_g", "binary G: 1 / log2(2 + non-relevant above) summed over relevant retrieved / |G| "
           "(trec_eval binG)", ("rel",), cutoff="none", reads="all"),
    Metric("Utility", "utility", "a x rel_ret + b x nonrel_ret + c x rel_not_ret + d x nonrel_not_ret (trec_eval "
           "utility; 1, -1, 0, 0)", ("rel", "utility_a", "utility_b", "utility_c", "utility_d", "num_docs"),
           cutoff="none", reads="all"),
    Metric("G", "g", "trec_eval's normalized gain G: gain / log2(2 + ideal cost - gain so far) over the retrieved, "
           "over the ideal gain", ("rel", "gains"), cutoff="none", reads="all"),
    Metric("nDCGRel", "ndcg_rel", "nDCG averaged over the items with a gain (trec_eval ndcg_rel)", ("rel", "gains"),
           cutoff="none", reads="all"),
    Metric("RnDCG", "rndcg", "nDCG averaged at the ranks where the ideal gain drops (trec_eval Rndcg)", ("rel", "gains"),
           cutoff="none", reads="all"),
    Metric("infAP", "infap", "inferred AP (Yilmaz & Aslam 2006, trec_eval infAP): AP from a sampled pool, a grade "
           "below 0 being in the pool but unjudged", ("rel",), cutoff="none"),
    Metric("RBPResid", "rbp_resid", "RBP's residual: the most RBP could rise if every unjudged retrieved item were "
           "relevant (trec_eval rbp_resid, p 0.9)", ("p",), cutoff="none", reads="all"),
    Metric("NumNonrelJudgedRet", "num_nonrel_judged_ret", "judged non-relevant items retrieved", ("rel",),
           cutoff="none", mean=SUM),
    Metric("NumQ", "num_q", "number of queries evaluated", (), cutoff="none", mean=SUM, per_query_line=False,
           zscored=False),
    Metric("NumRet", "num_ret", "items retrieved", (), cutoff="none", mean=SUM, reads="all"),
    Metric("NumRel", "num_rel", "relevant judged items", ("rel",), cutoff="none", mean=SUM),
    Metric("NumRelRet", "num_rel_ret", "relevant items retrieved", ("rel",), cutoff="none", mean=SUM),
)}


def of_macro(macro: str) -> Metric:
    """The metric spec whose macro (sql/'s function) is macro: the first METRICS lists, where metrics share one
    (the native objects and the dbt package are one per macro)."""
    for m in METRICS.values():
        if m.macro == macro:
            return m
    raise ValueError(f"no metric spec for macro {macro}")


_CANONICAL = {name.lower(): name for name in METRICS}

# trec_eval names: measure -> (metric, fixed params); `P_10`, `P.10`, `ndcg_cut.10` carry the cutoff.
TREC_NAMES = {
    "map": ("AP", {}), "map_cut": ("AP", {}), "p": ("P", {}), "recall": ("R", {}), "ndcg": ("nDCG", {}),
    "ndcg_cut": ("nDCG", {}), "recip_rank": ("RR", {}), "rprec": ("Rprec", {}), "bpref": ("bpref", {}),
    "success": ("Success", {}), "num_q": ("NumQ", {}), "num_ret": ("NumRet", {}), "num_rel": ("NumRel", {}),
    "num_rel_ret": ("NumRelRet", {}), "rbp": ("RBP", {"p": 0.9}), "gm_map": ("GMAP", {}),
    "gm_bpref": ("GMbpref", {}), "unj": ("Unjudged", {}), "relative_p": ("RelP", {}),
    "set_relative_p": ("RelP", {}), "set_p": ("P", {}), "set_recall": ("R", {}), "set_f": ("F1", {}),
    "set_map": ("SetAP", {}), "bing": ("binG", {}), "num_nonrel_judged_ret": ("NumNonrelJudgedRet", {}),
    "infap": ("infAP", {}), "rbp_resid": ("RBPResid", {}), "dcg": ("DCG", {}), "ideal_dcg": ("IdealDCG", {}),
    "g": ("G", {}), "ndcg_rel": ("nDCGRel", {}), "rndcg": ("RnDCG", {}), "yaap": ("YAAP", {}),
}
# trec_eval's set measures: the whole retrieved set, no cutoff (set_P is P without one)
_TREC_NO_CUT = {"set_p", "set_recall", "set_f", "set_relative_p", "set_map"}
# trec_eval's measures that take no parameters (meas_init.c's te_init_meas_s_long and _s_double): given some
# (-m map.1), trec_eval ignores them and prints the measure under its own name
_TREC_PARAMLESS = {"map", "gm_map", "recip_rank", "rprec", "bpref", "gm_bpref", "infap", "bing", "set_p", "set_map",
                   "set_recall", "set_relative_p", "num_q", "num_ret", "num_rel", "num_rel_ret",
                   "num_nonrel_judged_ret", "yaap"}
# trec_eval's default cutoffs for a family named without one (`-m P`).
TREC_CUTOFFS = {
    "p": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10), "unj": (5, 10, 20), "relative_p": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
}
# trec_eval families whose bare name means "no cutoff" (map, ndcg) vs. "every default cutoff" (P, ndcg_cut).
_TREC_CUT_ONLY = {"p", "recall", "ndcg_cut", "map_cut", "success", "unj", "relative_p"}

# ranx names: name -> (metric, fixed params).
RANX_NAMES = {
    "ndcg": ("nDCG", {}), "ndcg_burges": ("nDCG", {"gain": "exponential"}), "map": ("AP", {}),
    "mrr": ("RR", {}), "precision": ("P", {}), "recall": ("R", {}), "hit_rate": ("Success", {}),
    "hits": ("Hits", {}), "f1": ("F1", {}), "r-precision": ("Rprec", {}), "r_precision": ("Rprec", {}),
    "bpref": ("bpref", {}), "dcg": ("DCG", {}), "dcg_burges": ("DCG", {"gain": "exponential"}),
    "rbp": ("RBP", {}), "err": ("ERR", {}), "success": ("Success", {}),
}

# Recommender libraries' names (RecTools' class names; snake_case): name -> (metric, fixed params). The metrics'
# own names (PartialAUC, SufficientReco, ...) are found case-blind without an entry here.
RECSYS_NAMES = {
    "hitrate": ("Success", {}), "hit_rate": ("Success", {}), "partial_auc": ("PartialAUC", {}),
    "pauc": ("PartialAUC", {}), "sufficient_reco": ("SufficientReco", {}), "covered_users": ("CoveredUsers", {}),
    "fall_out": ("Fallout", {}), "miuf": ("MeanInvUserFreq", {}),
    "mean_inv_user_freq": ("MeanInvUserFreq", {}), "arp": ("AvgRecPopularity", {}),
    "avg_rec_popularity": ("AvgRecPopularity", {}), "catalog_coverage": ("CatalogCoverage", {}),
    # Elliot's ItemCoverage@k: the distinct items recommended in the top k, CatalogCoverage unnormalized
    "itemcoverage": ("CatalogCoverage", {"normalize": "false"}), "item_coverage": ("CatalogCoverage", {"normalize": "false"}),
    "gini_index": ("Gini", {}), "giniindex": ("Gini", {}), "shannon_entropy": ("Entropy", {}),
    "distributional_coverage": ("Entropy", {}), "ild": ("IntraListDiversity", {}),
    "aclt": ("APLT", {"share": "false"}),
    "intra_list_diversity": ("IntraListDiversity", {}),
}

# trec_eval's interpolated precision levels (m_iprec_at_recall.c), printed as iprec_at_recall_0.10
IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RUNID = "runid"  # trec_eval's line naming the run (the tag of its last line): text, written by the trec format

# trec_eval's measures in the order it prints them (te_trec_measures of its measures.c), whatever the order of -m
TREC_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
              "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility",
              "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut",
              "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
              "num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
              "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
              "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj")
# trec_eval's measure sets (te_trec_measure_nicknames): official is its default; all_trec names measures we lack
TREC_SETS = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}
TREC_SETS["all_trec"] = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                         "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                         "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                         "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P",
                         "set_map", "set_F", "num_nonrel_judged_ret")
# -R qrels_jg: judgments in judgment groups (several users' qrels per query), and its measures
TREC_SETS["qrels_jg"] = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
# -R prefs / qrels_prefs: preference judgments and trec_eval's measures of them (m_prefs_*.c; sql/prefs.sql's
# trec_prefs columns); the counts are summed over queries, the others averaged
PREFS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
         "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
         "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
PREFS_COUNTS = PREFS[:3]
TREC_SETS["all_prefs"] = ("runid", "num_q") + PREFS
TREC_SETS["prefs"] = ("runid", "num_q") + PREFS[:6]
NUM_Q = "num_q"

# trec_eval's judgment-group measures (m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c): a measure computed
# against each judgment group's qrels, then averaged over the query's groups; the family of the measure by group
AVGJG = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
_AVGJG_NAME = re.compile(r"(?P<fam>map_avgjg|P_avgjg|Rprec_mult_avgjg)(?P<rest>(?:[._].*)?)")


def is_judgment_group_name(name) -> bool:
    return isinstance(name, str) and (_AVGJG_NAME.fullmatch(name.strip()) is not None
                                      or name.strip() == "qrels_jg")


def judgment_group_measures(names) -> list[tuple[str, "Measure"]]:
    """(the name trec_eval prints, the measure of each judgment group) for the judgment-group measures the names
    ask for (-R qrels_jg): map_avgjg is map by group, P_avgjg.5,10 is P.5,10 by group (P_avgjg_5, P_avgjg_10),
    Rprec_mult_avgjg is Rprec_mult at its 0.2 ... 2.0. runid and num_q are lines of their own; any other measure
    needs plain qrels, as in trec_eval (its measures refuse a qrels_jg file)."""
    names = list(TREC_SETS["qrels_jg"]) if names is None else [names] if isinstance(names, str) else list(names)
    out, seen = [], set()
    for raw in [part for n in names for part in split_names(_name_of(n))]:
        name = raw.strip()
        if name == "qrels_jg":
            out += [x for x in judgment_group_measures([n for n in TREC_SETS["qrels_jg"]]) if x[0] not in seen]
            seen.update(x[0] for x in out)
            continue
        if name in (RUNID, NUM_Q):
            continue
        m = _AVGJG_NAME.fullmatch(name)
        if not m:
            needs = ("preference judgments (-R prefs or -R qrels_prefs)"
                     if name in PREFS or name in ("prefs", "all_prefs") else "plain qrels")
            raise UsageError(f"metric '{name}': with judgment groups (-R qrels_jg) the measures are trec_eval's "
                             f"map_avgjg, P_avgjg and Rprec_mult_avgjg (and runid, num_q); '{name}' needs "
                             f"{needs}")
        fam, base = m.group("fam"), AVGJG[m.group("fam")]
        for measure in parse(base + m.group("rest")):
            label = fam + measure.requested[len(base):]
            if label not in seen:
                seen.add(label)
                out.append((label, measure))
    return out


def prefs_measures(names) -> list[str]:
    """The preference measures the names ask for (-R prefs / qrels_prefs; None: trec_eval's prefs set), in the
    order asked, each once. runid and num_q are lines of their own; any other measure needs plain qrels."""
    names = list(TREC_SETS["prefs"]) if names is None else [names] if isinstance(names, str) else list(names)
    out: list[str] = []
    for raw in [part for n in names for part in split_names(_name_of(n))]:
        name = raw.strip()
        for one in TREC_SETS.get(name, (name,)) if name in ("prefs", "all_prefs") else (name,):
            if one in (RUNID, NUM_Q) or one in out:
                continue
            if one not in PREFS:
                raise UsageError(f"metric '{one}': with preference judgments (-R prefs, -R qrels_prefs) the "
                                 f"measures are trec_eval's prefs_* ({', '.join(PREFS)}), runid and num_q; "
                                 f"'{one}' needs plain qrels")
            out.append(one)
    return out


def wants_num_q(names, default: str = "qrels_jg") -> bool:
    """Whether the names ask for num_q (None: the default set of that judgment format)."""
    names = list(TREC_SETS[default]) if names is None else [names] if isinstance(names, str) else list(names)
    return any(isinstance(n, str) and (n.strip() == NUM_Q or NUM_Q in TREC_SETS.get(n.strip(), ())) for n in names)


def trec_sort_key(requested: str):
    """Where trec_eval prints a measure named in its own spelling: its family's place in TREC_ORDER, then the
    parameter value (trec_eval sorts a family's values: -m P.10,5 prints P_5 first); None for other names."""
    for i, fam in sorted(enumerate(TREC_ORDER), key=lambda x: -len(x[1])):  # ndcg_cut before ndcg
        if requested == fam:
            return (i, 0.0)
        if requested.startswith(fam + "_"):
            first = requested[len(fam) + 1:].split(",")[0]
            try:
                return (i, float(first))
            except ValueError:
                return (i, 0.0)
    return None


# trec_eval's default measures (its `official` set), in its order
TREC_DEFAULT = list(TREC_SETS["official"])


@dataclass(frozen=True)
class Measure:
    """One requested measure: the name as typed, its metric, cutoff and explicitly given parameters."""
    requested: str
    metric: Metric
    k: int | None
    params: tuple  # ((name, value), ...) given in the name
    average_of: tuple = ()  # ((name, value), ...) per part: the value is the mean of the metric's at each part

    def values(self, conv: dict, request: bool = True) -> dict:
        """All macro arguments of this measure under the conventions conv (name parameters win). request=False:
        for a metric's defaults (the dbt package's macros), not a measure asked for: a cutoff is not required."""
        out = {"k": self.k}
        for p in self.metric.params:
            if p == "rel":
                if self.metric.gain_metric and not conv.get("level_for_gain"):
                    out["rel"] = self.metric.defaults["rel"]
                else:
                    out["rel"] = conv["rel"]
            elif p in self.metric.defaults:  # set by the metric, never by a convention (RBP's p and scale)
                out[p] = self.metric.defaults[p]
            else:
                out[p] = conv[p]
        out.update(dict(self.params))
        if out.get("max_rel") is not None and not out["max_rel"] > out.get("min_rel", 0):
            raise UsageError(f"metric '{self.requested}': max_rel must be above min_rel ({out['max_rel']:g} <= "
                             f"{out.get('min_rel', 0):g}): gains are scaled from min_rel to max_rel")
        for key in STREAM_PARAMS:
            if key in out and out[key] != conv[key]:
                raise UsageError(f"metric '{self.requested}': {key}={out[key]} for this measure, {conv[key]} for "
                                 f"the evaluation; the measures of one evaluation read the run one way: set "
                                 f"{key} for the evaluation (-J, judged_only=)")
        if request and out.get("ideal") == "cutoff" and not (self.k is not None and 1 <= self.k <= 1000):
            raise UsageError(f"metric '{self.requested}': ideal cutoff (the DCG of k items of gain 1, RecTools' "
                             f"default) needs a cutoff from 1 to 1000, e.g. nDCG@10")
        if out.get("gains") and out.get("ideal", "judgments") != "judgments":
            raise UsageError(f"metric '{self.requested}': a gain map orders the judged items by their gains; it "
                             f"applies with ideal judgments, not {out['ideal']}")
        return out


# Conventions of how the run is read (ranked, filtered) that ir_measures writes into a measure's name
# (P(judged_only=True)@10, pytrec_eval's -J): one stream serves every measure of an evaluation, so they hold for all
STREAM_PARAMS = ("judged_only",)


def ir_measures_provider(measure: Measure) -> str:
    """The provider ir_measures 0.4.3 computes the measure with (its DefaultPipeline: the first that supports it),
    for the measures we share with it: what decides how it compares scores (scores='provider')."""
    name = measure.metric.name
    if name in ("RBP", "INSQ", "INST", "NERR8", "NERR9", "NERR10", "NERR11", "BPM", "SDCG"):
        return "cwl_eval"
    if name == "ERR" or (name == "nDCG" and dict(measure.params).get("gain") == "exponential"):
        return "gdeval"  # ERR@k, nDCG(dcg='exp-log2')
    if name == "RR" and measure.k is not None:
        return "msmarco"  # RR@k, RR(cutoff=k)
    return {"Judged": "judged", "Accuracy": "accuracy", "Compat": "compat"}.get(name, "pytrec_eval")


def ir_measures_scores(measure: Measure) -> str:
    """How the measure's ir_measures provider compares scores (scores='provider'): 'float32' for pytrec_eval, which
    reads them into C floats, 'double' for the Python providers."""
    return "float32" if ir_measures_provider(measure) == "pytrec_eval" else "double"


def ir_measures_ties(measure: Measure) -> str | None:
    """How the measure's ir_measures provider orders tied scores (ties='provider'): 'item_desc' for pytrec_eval
    (trec_eval's code) and gdeval (gdeval.pl's runOrder: docno descending), 'item_asc' for msmarco, judged and
    compat (each sorts by (-score, doc id)); None for cwl_eval and accuracy, whose stable sort by score keeps the
    run's file order, which no convention names (they take the order the other measures ask for)."""
    provider = ir_measures_provider(measure)
    if provider in ("cwl_eval", "accuracy"):
        return None
    return "item_asc" if provider in ("msmarco", "judged", "compat") else "item_desc"


class ProviderSplit(NamedTuple):
    """A convention the ir_measures preset takes from each measure's provider ('provider')."""
    values: tuple  # the two values its providers take; the first is the one a mix is evaluated with, run checked
    of: Callable  # the value a measure's provider takes (None: neither)
    words: str  # the refusal of a mix, {0} and {1} the measures of each value
    switch: str  # the switches that choose one value for all


PROVIDER_VALUES = {
    "scores": ProviderSplit(("float32", "double"), ir_measures_scores, "the scores are compared as 32-bit floats for "
                            "{0} and as doubles for {1}, and one read of the run", "--scores float32 or double"),
    "ties": ProviderSplit(("item_desc", "item_asc"), ir_measures_ties, "tied scores are ordered by item id "
                          "descending for {0} and ascending for {1}, and one ranking", "--ties item_desc or item_asc"),
}


def by_provider(key: str, measures: list) -> dict:
    """{value: [the measures, as 'name (provider)']} for a key of PROVIDER_VALUES: the value each measure's
    ir_measures provider takes (its `of`)."""
    split = PROVIDER_VALUES[key]
    out = {v: [] for v in split.values}
    for m in measures:
        value = split.of(m)
        if value:
            out[value].append(f"{m.requested} ({ir_measures_provider(m)})")
    return out


def mixed_providers(key: str, measures: list, conv: dict) -> dict | None:
    """by_provider when conv takes the key from each measure's provider ('provider') and the measures' providers
    take both values; otherwise None."""
    if conv.get(key) != "provider":
        return None
    split = by_provider(key, measures)
    return split if all(split.values()) else None


def stream_conventions(measures: list, conv: dict, checked: bool = False) -> dict:
    """conv with the stream conventions the measures' names set: when every measure reads the run the same way
    (judged_only=True named, or left to the evaluation's value), the evaluation reads it that way; measures that
    disagree are refused, since one read of the run serves them all (Measure.values checks the same for any route
    that skips this). The ir_measures preset's 'provider' values (PROVIDER_VALUES: scores, ties) become the one
    value the measures' providers share. When they differ: the first value with checked (the caller then checks
    that the run does not tell them apart: api._check_score_readers, api._check_tie_orders), else refused."""
    out = dict(conv)
    for key in STREAM_PARAMS:
        if not any(key in dict(m.params) for m in measures):
            continue
        values = {m.requested: dict(m.params).get(key, conv[key]) for m in measures}
        if len(set(values.values())) > 1:
            sides = ", ".join(f"{v} for " + ", ".join(f"'{n}'" for n, w in values.items() if w == v)
                              for v in sorted(set(values.values()), key=str))
            raise UsageError(f"{key} is {sides}: one read of the run serves every measure of an evaluation; "
                             f"evaluate them separately, or set {key} for the whole evaluation (-J, judged_only=)")
        out[key] = next(iter(values.values()))
    for key, ((first, second), _, words, switch) in PROVIDER_VALUES.items():
        if out.get(key) != "provider":
            continue
        split = by_provider(key, measures)
        if split[first] and split[second] and not checked:
            raise UsageError(f"{key}: under --convention ir_measures, "
                             f"{words.format(', '.join(split[first]), ', '.join(split[second]))} serves every "
                             f"measure here: evaluate them separately, or choose {switch}")
        out[key] = second if split[second] and not split[first] else first  # all the second, or the first
    return out


def _known_names() -> list[str]:
    names = list(METRICS) + [f"{m}@10" for m in METRICS if METRICS[m].cutoff != "none"]
    names += list(TREC_NAMES) + [f"{n}_10" for n in TREC_CUTOFFS] + ["P_10", "ndcg_cut_10", "map_cut_100"]
    names += [n for n, v in RANX_NAMES.items() if v] + ["ndcg@10", "ndcg_burges@10", "mrr@10", "precision@10"]
    return sorted(set(names))


def _suggest(name: str) -> str:
    close = difflib.get_close_matches(name, _known_names(), n=1, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(name.lower(), [n.lower() for n in _known_names()], n=1, cutoff=0.5)
    return f"; did you mean '{close[0]}'?" if close else f"; known metrics: {', '.join(METRICS)}"


def _cutoff(text: str, requested: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise UsageError(f"metric '{requested}': cutoff '{text}' is not a whole number; write e.g. P@10")
    value = int(text)
    if value <= 0:
        raise UsageError(f"metric '{requested}': cutoff must be a positive whole number, not {value}")
    return value


def _trec_cutoffs(text: str, requested: str) -> list[int]:
    """trec_eval's -m family.c1,c2 cutoffs as its get_long_cutoffs reads them (meas_init.c): each value through
    C's atol (23.4 is 23), sorted, every one positive and none twice."""
    ks = []
    for raw in text.split(","):
        whole = re.match(r"[0-9]*", raw).group(0)
        if not whole or int(whole) <= 0:
            raise UsageError(f"metric '{requested}': cutoff '{raw}' is not a positive number (trec_eval reads "
                             f"cutoffs as whole numbers: 23.4 is 23)")
        ks.append(int(whole))
    if len(set(ks)) != len(ks):
        raise UsageError(f"metric '{requested}': a cutoff is given twice (trec_eval reads 23.4 as 23)")
    return sorted(ks)


GRADE_LIMIT = 1023  # 2^1023 is the largest power of two a double holds: 2^g - 1 of a higher grade is infinite


_GAIN_PAIR = re.compile(r"\s*(?P<level>[-+]?[0-9]+)\s*[=:]\s*(?P<gain>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*")


def gain_map(raw: str, requested: str) -> str:
    """A gain map as the SQL reads it, 'level=gain,...' (sql/00_common.sql rm_gain_of), from trec_eval's
    '1=3,2=9,4=4.5' or ir_measures' '{0:0,1:1,2:3}'; '' for none. Levels are whole numbers >= 0, each once."""
    text = raw.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    if not text.strip():
        return ""
    pairs = {}
    for item in text.split(","):
        m = _GAIN_PAIR.fullmatch(item)
        if not m:
            raise UsageError(f"metric '{requested}': gains must be level=gain pairs such as 1=3,2=9 (or "
                             f"{{1: 3, 2: 9}}), not '{item.strip()}'")
        level = int(m.group("level"))
        if level < 0:  # trec_eval's -1 and -2 mark retrieved items not judged (or judged -1): not grades
            raise UsageError(f"metric '{requested}': gain levels are grades >= 0, not {level} ('{item.strip()}')")
        if level in pairs:
            raise UsageError(f"metric '{requested}': the gain of level {level} is given twice")
        gain = float(m.group("gain"))
        if not math.isfinite(gain):
            raise UsageError(f"metric '{requested}': the gain of level {level} must be a finite number, not "
                             f"{m.group('gain')}")
        pairs[level] = repr(int(gain)) if gain == int(gain) else repr(gain)
    return ",".join(f"{level}={gain}" for level, gain in pairs.items())


def _param_value(metric: Metric, key: str, raw: str, requested: str):
    if key not in metric.params:
        allowed = ", ".join(metric.params) or "none"
        raise UsageError(f"metric '{requested}': unknown parameter '{key}' for {metric.name} (parameters: {allowed})")
    spec = PARAMS[key]
    raw = raw.strip().strip("'\"")
    if spec.kind == "gains":
        return gain_map(raw, requested)
    if spec.kind == "choice":
        if raw not in spec.choices:
            raise UsageError(f"metric '{requested}': unknown value '{raw}' for {key}; choose one of: "
                             f"{', '.join(spec.choices)}")
        return raw
    if spec.kind in ("level", "base", "docs"):
        try:
            return conventions.check({"level": "rel", "base": "log_base", "docs": "num_docs"}[spec.kind], raw)
        except UsageError as e:
            raise UsageError(f"metric '{requested}': {key}: {e}") from None
    try:
        number = conventions.to_float(raw)
    except ValueError:
        raise UsageError(f"metric '{requested}': {key} must be a number, not '{raw}'") from None
    if not math.isfinite(number):
        raise UsageError(f"metric '{requested}': {key} must be a finite number, not {raw}")
    if spec.kind == "nonnegative" and not number >= 0:
        raise UsageError(f"metric '{requested}': {key} must be a number >= 0, not {raw}")
    if spec.kind == "positive" and not number > 0:
        raise UsageError(f"metric '{requested}': {key} must be a number > 0, not {raw}")
    if spec.kind == "fraction" and not 0 <= number <= 1:
        raise UsageError(f"metric '{requested}': {key} must be a number from 0 to 1, not {raw}")
    if spec.kind == "prob" and not 0 < number < 1:
        raise UsageError(f"metric '{requested}': {key} must be between 0 and 1 (exclusive), not {raw}")
    if spec.kind == "cutoff":
        if number < 1 or number != int(number):
            raise UsageError(f"metric '{requested}': {key} must be a whole number >= 1, not {raw}")
        return int(number)
    if spec.kind == "grade":
        if not (math.isfinite(number) and 0 < number <= GRADE_LIMIT and number == int(number)):
            raise UsageError(f"metric '{requested}': {key} must be a whole number from 1 to {GRADE_LIMIT} "
                             f"(2^{key} must fit a double), not {raw}")
        return int(number)
    return number


# ir_measures' measures of the whole retrieved list, by its names (SetRelP: the precision against the best possible)
IRM_SET_NAMES = {"SetP": "P", "SetR": "R", "SetF": "F1", "SetRelP": "RelP"}


def _irm_dcg(metric, raw, requested):
    """ir_measures' nDCG(dcg=...): 'log2' is the linear gain (trec_eval's), 'exp-log2' 2^grade - 1."""
    value = raw.strip("'\"")
    if metric.name == "SDCG" and value == "log2":  # SDCG's only DCG, cwl_eval's log2 discount
        return metric, None, None
    gains = {"log2": "linear", "exp-log2": "exponential"}
    if value not in gains or "gain" not in metric.params:
        raise UsageError(f"metric '{requested}': dcg='{value}' is not one we compute; ir_measures' dcg='log2' "
                         f"(gain linear) and dcg='exp-log2' (gain exponential) are")
    return metric, "gain", gains[value]


def _irm_relative(metric, raw, requested):
    """ir_measures' SetP(relative=True): the precision against the best possible (SetRelP, trec_eval's
    set_relative_P)."""
    value = raw.strip("'\"").lower()
    if value not in ("true", "false", "1", "0"):
        raise UsageError(f"metric '{requested}': relative must be True or False, not '{raw}'")
    if metric.name not in ("P", "RelP"):
        raise UsageError(f"metric '{requested}': relative= applies to SetP only")
    return METRICS["RelP" if value in ("true", "1") else "P"], None, None


def _irm_t(metric, raw, requested):
    """ir_measures' T= (INSQ(T=2.0)): our parameter t."""
    return metric, "t", raw


def _irm_rel(metric, raw, requested):
    """ir_measures' NumRet(rel=x): the retrieved items with a grade >= x, our NumRelRet(rel=x); elsewhere rel."""
    return (METRICS["NumRelRet"] if metric.name == "NumRet" else metric), "rel", raw


def _irm_normalize(metric, raw, requested):
    """ir_measures' Compat(normalize=True): Python's booleans as our choices 'true' and 'false'."""
    value = raw.strip().strip("'\"")
    return metric, "normalize", {"True": "true", "False": "false"}.get(value, value)


IRM_PARAMS = {"dcg": _irm_dcg, "relative": _irm_relative, "T": _irm_t, "rel": _irm_rel, "normalize": _irm_normalize}


_IRM = re.compile(r"^(?P<name>[A-Za-z][\w\-]*?)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>-?[^@()\-]*))?(?:-l(?P<lvl>[0-9]+))?$")


_RBP_RANX = re.compile(r"rbp\.(?P<p>[0-9]+)(?:-l(?P<lvl>[0-9]+))?", re.I)     # ranx: rbp.95 is p = 0.95
_RBP_TREC = re.compile(r"rbp[._]p=(?P<p>[^,]+)")                      # trec_eval: -m rbp.p=0.95, printed rbp_p=0.95
_RBP_RESID_TREC = re.compile(r"rbp_resid[._]p=(?P<p>[^,]+)")          # trec_eval: -m rbp_resid.p=0.95
_RBP_AMBIGUOUS = re.compile(r"rbp(?P<sep>[@_])(?P<rest>[^()]*)")     # rbp@10, rbp_10: p or cutoff?


def _parse_rbp(name: str, requested: str) -> list[Measure] | None:
    """RBP's spellings, one rule: p is set by an explicit p= (RBP(p=0.95), trec_eval's rbp.p=0.95) or by ranx's
    .NN suffix (rbp.95: p 0.95, with ranx's raw grades and no cutoff); otherwise by the spelling's default, RBP
    (ir_measures) 0.8 and rbp (trec_eval) 0.9. @k is a cutoff only where it cannot be read as ranx's p: a
    lower-case rbp@10 or rbp_10 is refused (ranx reads rbp@10 as p 0.10; trec_eval's rbp has no cutoff).
    trec_eval's rbp_resid is another measure."""
    if name.lower() == "rbp_resid" or (name.startswith("rbp_resid") and not _RBP_RESID_TREC.fullmatch(name)):
        return None  # rbp_resid, or its parameters unread (parse's message)
    m = _RBP_RESID_TREC.fullmatch(name)
    if m:  # trec_eval's rbp_resid with its p (m_rbp_resid.c), printed rbp_resid_p=0.5 as given
        metric = METRICS["RBPResid"]
        return [Measure(f"rbp_resid_p={m.group('p')}", metric, None,
                        (("p", _param_value(metric, "p", m.group("p"), requested)),))]
    metric = METRICS["RBP"]
    m = _RBP_RANX.fullmatch(name)
    if m:
        p = float("0." + m.group("p"))
        if not 0 < p < 1:
            raise UsageError(f"metric '{requested}': ranx's rbp.NN sets p = 0.NN, which must be above 0")
        rel = _param_value(metric, "rel", m.group("lvl") or "1", requested)
        return [Measure(requested, metric, None, tuple(sorted({"p": p, "rel": rel, "scale": "raw"}.items())))]
    m = _RBP_TREC.fullmatch(name)
    if m:
        p = _param_value(metric, "p", m.group("p"), requested)  # printed rbp_p=0.95, as trec_eval prints it
        return [Measure(f"rbp_p={m.group('p')}", metric, None,
                        tuple(sorted({**TREC_NAMES["rbp"][1], "p": p}.items())))]
    if re.fullmatch(r"rbp\.[0-9.,]+", name, re.I):  # rbp.9.5, rbp.95,99: neither ranx's p nor trec_eval's (read as cutoffs)
        raise UsageError(f"metric '{requested}': ranx's rbp.NN takes whole digits (rbp.95: p 0.95), trec_eval's rbp a "
                         f"p= (rbp.p=0.95); RBP(p=0.95)@10 adds a cutoff")
    m = _RBP_AMBIGUOUS.fullmatch(name)
    if m and name[:3] != "RBP":
        rest = m.group("rest")
        raise UsageError(
            f"metric '{requested}' is ambiguous: ranx reads rbp{m.group('sep')}{rest} as p = 0.{rest}, and "
            f"trec_eval's rbp takes no cutoff; write RBP@{rest} (cutoff {rest}, p 0.8 as ir_measures), "
            f"RBP(p=0.9)@{rest}, or rbp.{rest} (ranx: p 0.{rest}, raw grades)")
    return None


# trec_eval families whose parameters are decimal numbers, printed to two decimals: family -> (metric, parameter,
# default values). iprec_at_recall_0.10 as trec_eval prints it, -m iprec_at_recall..10,.20 as its parameters.
_FRACTION_FAMILIES = {
    "iprec_at_recall": ("IPrec", "at_recall", IPREC_LEVELS),
    "Rprec_mult": ("RprecMult", "mult", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
}
_FRACTION_TREC = re.compile(r"(?P<fam>iprec_at_recall|Rprec_mult)(?:(?:_|\.(?=[0-9.]))(?P<values>[0-9.,]+))?")
_IPREC_IRM = re.compile(r"IPrec@(?P<level>[0-9.]+)", re.I)                             # ir_measures: IPrec@0.1
# ir_measures' IPrec with parameters: IPrec(rel=2)@0.1, IPrec(judged_only=True)@0.1, IPrec(recall=0.1)
_IPREC_IRM_PARAMS = re.compile(r"IPrec\((?P<params>[^()]*)\)(?:@(?P<level>[0-9.]+))?")
_TREC_GAINS = re.compile(r"(?P<fam>ndcg_rel|ndcg|dcg|ideal_dcg|Rndcg|G)[._](?!cut[._])(?P<gains>[^=()@]*=[^()@]*)")  # ndcg.1=3,2=9 (gain_map
#                                                      reads it; not ndcg_burges(gain=linear)@10, ranx's spelling)
_ELEVEN_PT = re.compile(r"11pt_avg[._](?P<levels>[0-9.]*[0-9][0-9.]*(?:,[0-9.]*[0-9][0-9.]*)*)")  # 11pt_avg..25,.5,.75
_SET_F = re.compile(r"set_F[._](?P<beta>[0-9.]+)")                                     # set_F.0.5: beta 0.5
_UTILITY = re.compile(r"utility(?:[._](?P<coefficients>[-0-9.,]+))?")                  # utility.2,-1,0,0


# how trec_eval's families take parameters, for the message when they cannot be read (-m P.a)
_TREC_PARAMETER_FORMS = {
    **{fam: f"it takes positive whole cutoffs, e.g. {fam}.5,10" for fam in
       ("P", "recall", "ndcg_cut", "map_cut", "success", "unj", "relative_P", "P_avgjg")},
    **{fam: f"it takes a gain map of level=gain pairs, levels >= 0, e.g. {fam}.1=3,2=9" for fam in
       ("ndcg", "dcg", "ideal_dcg", "G", "Rndcg", "ndcg_rel")},
    **{fam: f"it takes decimal values, e.g. {fam}.0.2,0.5" for fam in
       ("iprec_at_recall", "Rprec_mult", "11pt_avg", "Rprec_mult_avgjg")},
    "set_F": "it takes one beta > 0, e.g. set_F.0.5", "relstring": "it takes one length, e.g. relstring.20",
    "utility": "it takes four coefficients, e.g. utility.1,-1,0,0",
    **{fam: f"it takes its persistence as p=value, e.g. {fam}.p=0.8" for fam in ("rbp", "rbp_resid")},
}


def _parse_trec_special(name: str, requested: str) -> list[Measure] | None:
    """trec_eval's families whose parameters are not whole cutoffs: iprec_at_recall and Rprec_mult (bare: their
    default values; iprec_at_recall_0.10 as trec_eval prints it; iprec_at_recall..10,.20 as its -m parameters),
    ir_measures' IPrec@0.1, utility (utility.2,-1,0,0: its four coefficients, printed utility_2,-1,0,0) and
    11pt_avg (trec_eval's eleven levels only)."""
    m = _IPREC_IRM.fullmatch(name)
    if m:
        metric = METRICS["IPrec"]
        return [Measure(requested, metric, None, (("at_recall", _param_value(metric, "at_recall", m.group("level"),
                                                                              requested)),))]
    m = _IPREC_IRM_PARAMS.fullmatch(name)
    if m and (m.group("level") or re.search(r"(^|,)\s*recall\s*=", m.group("params"))):
        # its recall level (@r, or recall=r) is our at_recall; the other parameters read as any measure's
        params = [p for p in (p.strip() for p in m.group("params").split(",")) if p]
        params = [re.sub(r"^recall\s*=", "at_recall=", p) for p in params]
        if m.group("level"):
            params.append(f"at_recall={m.group('level')}")
        spelled = f"IPrec({','.join(params)})"
        try:
            return [dataclasses.replace(x, requested=requested) for x in parse(spelled)]
        except UsageError as e:
            raise UsageError(str(e).replace(f"'{spelled}'", f"'{requested}'")) from None
    m = _FRACTION_TREC.fullmatch(name)
    if m:
        metric_name, param, defaults = _FRACTION_FAMILIES[m.group("fam")]
        metric = METRICS[metric_name]
        if m.group("values") is None:
            values = list(defaults)
        else:
            values = [_param_value(metric, param, v, requested) for v in m.group("values").split(",") if v]
            if not values:
                raise UsageError(f"metric '{requested}': give {param} values, e.g. {m.group('fam')}_0.20")
            if len({float(v) for v in values}) != len(values):  # meas_init.c's get_double_cutoffs refuses them too
                raise UsageError(f"metric '{requested}': a value of {param} is given twice")
        return [Measure(f"{m.group('fam')}_{v:.2f}", metric, None, ((param, float(v)),)) for v in values]
    m = _SET_F.fullmatch(name)
    if m:  # trec_eval's set_F with its parameter (m_set_F.c), printed set_F_0.5 as given
        metric = METRICS["F1"]
        return [Measure(f"set_F_{m.group('beta')}", metric, None,
                        (("beta", _param_value(metric, "beta", m.group("beta"), requested)),))]
    m = _UTILITY.fullmatch(name)
    if m:
        metric = METRICS["Utility"]
        if m.group("coefficients") is None:
            return [Measure(requested, metric, None, ())]
        raw = m.group("coefficients").split(",")
        if len(raw) != 4:
            raise UsageError(f"metric '{requested}': utility takes four coefficients (relevant retrieved, "
                             f"non-relevant retrieved, relevant not retrieved, non-relevant not retrieved), e.g. "
                             f"utility.1,-1,0,0")
        keys = ("utility_a", "utility_b", "utility_c", "utility_d")
        return [Measure(f"utility_{m.group('coefficients')}", metric, None,
                        tuple((k, _param_value(metric, k, v, requested)) for k, v in zip(keys, raw)))]
    if name == "11pt_avg":
        return [Measure(requested, METRICS["IPrecAvg11"], None, ())]
    m = _TREC_GAINS.fullmatch(name)
    if m:  # trec_eval's gain map (m_ndcg.c, m_G.c, ...): printed ndcg_1=3,2=9,4=4.5
        metric = METRICS[TREC_NAMES[m.group("fam").lower()][0]]
        return [Measure(f"{m.group('fam')}_{m.group('gains')}", metric, None,
                        (("gains", gain_map(m.group("gains"), requested)),))]
    m = _ELEVEN_PT.fullmatch(name)
    if m:  # trec_eval's 11pt_avg at the given recall levels (m_11pt_avg.c): the mean of iprec_at_recall at each
        metric = METRICS["IPrec"]
        levels = [_param_value(metric, "at_recall", v, requested) for v in m.group("levels").split(",")]
        if len(set(levels)) != len(levels):
            raise UsageError(f"metric '{requested}': a recall level is given twice")
        if levels != sorted(levels):  # m_11pt_avg.c walks them in the order given, as if ascending
            raise UsageError(f"metric '{requested}': give the recall levels in ascending order (trec_eval reads "
                             f"them as if they were and computes another value)")
        return [Measure(f"11pt_avg_{m.group('levels')}", metric, None, (),
                        tuple((("at_recall", float(v)),) for v in levels))]
    if name.startswith("11pt_avg"):
        raise UsageError(f"metric '{requested}': write 11pt_avg, or 11pt_avg.0.2,0.5,0.8 for other recall levels")
    return None


def parse(requested: str) -> list[Measure]:
    """Parse one metric name into measures (a trec_eval family such as `P` or `P.5,10` gives several)."""
    if not isinstance(requested, str):
        raise UsageError(f"a metric must be a name such as 'nDCG@10', not {type(requested).__name__} "
                         f"{requested!r}")
    name = requested.strip()
    if not name:
        raise UsageError("empty metric name")
    rbp = _parse_rbp(name, requested)
    if rbp:
        return rbp
    special = _parse_trec_special(name, requested)
    if special:
        return special
    # trec_eval style: family_k, family.k, family.k1,k2, or a bare family.
    m = re.fullmatch(r"(?P<fam>[A-Za-z_]+?)(?:_(?P<ks>[0-9,]+)|\.(?P<dotted>[0-9.,]+))?", name)
    fam = m.group("fam").lower() if m else None
    # A family whose trec_eval spec fixes parameters (rbp: p = 0.9) is taken as trec_eval's only when spelled as
    # trec_eval spells it, in lower case: `RBP` is the ir_measures metric with its own default (p = 0.8).
    if fam in TREC_NAMES and TREC_NAMES[fam][1] and m.group("fam") != fam:
        fam = None
    if fam in _TREC_PARAMLESS and m.group("dotted"):  # trec_eval's map.1 is map: parameters ignored
        return parse(m.group("fam"))
    if fam in TREC_NAMES and (m.group("ks") or m.group("dotted") or name.lower() in TREC_NAMES):
        metric_name, fixed = TREC_NAMES[fam]
        metric = METRICS[metric_name]
        if m.group("ks") or m.group("dotted"):
            ks = ([_cutoff(k, requested) for k in m.group("ks").split(",") if k] if m.group("ks")
                  else _trec_cutoffs(m.group("dotted"), requested))
            if metric.cutoff == "none" or fam in _TREC_NO_CUT:
                raise UsageError(f"metric '{requested}': " + ("set_F takes one parameter, beta > 0 (set_F.0.5)"
                                                              if fam == "set_f" else f"{fam} takes no cutoff"))
            # printed in trec_eval's spelling, one value or several: -m P.5 prints P_5, ndcg_cut.23.4 ndcg_cut_23
            return [Measure(f"{m.group('fam')}_{k}", metric, k, tuple(fixed.items())) for k in ks]
        if fam in _TREC_CUT_ONLY:
            return [Measure(f"{m.group('fam')}_{k}", metric, k, tuple(fixed.items())) for k in TREC_CUTOFFS[fam]]
        return [Measure(requested, metric, None, tuple(fixed.items()))]
    m = re.fullmatch(r"(?P<fam>[A-Za-z0-9_]+?)\.(?P<rest>.*)", name)
    if m and m.group("fam") in TREC_ORDER:  # trec_eval's family.parameters, parameters we cannot read
        if m.group("fam").lower() in _TREC_PARAMLESS:  # trec_eval ignores them (meas_init.c), as for map.1
            return parse(m.group("fam"))
        raise UsageError(f"metric '{requested}': cannot read '{m.group('rest')}' as the parameters of trec_eval's "
                         f"{m.group('fam')}; " + _TREC_PARAMETER_FORMS.get(m.group("fam"), "it takes none"))
    m = _IRM.match(name)
    if not m:
        raise UsageError(f"cannot read metric name '{requested}'; write e.g. nDCG@10, AP(rel=2)@100 or ndcg_cut_10"
                         + _suggest(name))
    base = m.group("name")
    metric, fixed = None, {}
    if base in IRM_SET_NAMES:  # ir_measures' SetP, SetR, SetF, SetRelP: the measure over the whole list
        metric = METRICS[IRM_SET_NAMES[base]]
        if m.group("k") is not None:
            raise UsageError(f"metric '{requested}': {base} takes no cutoff (it reads the whole list)")
    elif base in METRICS:
        metric = METRICS[base]
    elif base.lower() in RANX_NAMES and RANX_NAMES[base.lower()]:
        metric_name, fixed = RANX_NAMES[base.lower()]
        metric = METRICS[metric_name]
    elif base.lower() in _CANONICAL:
        metric = METRICS[_CANONICAL[base.lower()]]
    elif base.lower() in RECSYS_NAMES:
        metric_name, fixed = RECSYS_NAMES[base.lower()]
        metric = METRICS[metric_name]
    if metric is None:
        raise UsageError(f"unknown metric '{requested}'" + _suggest(name))
    params, given = dict(fixed), set()

    def put(key, value, how):
        if key in given:
            raise UsageError(f"metric '{requested}': parameter {key} is given twice{how}; give it once")
        if key in fixed and fixed[key] != value:
            raise UsageError(f"metric '{requested}': {base} already means {key}={fixed[key]}; "
                             f"{key}={value} contradicts it")
        given.add(key)
        params[key] = value
    k = None
    if m.group("params"):
        for item in _split_params(m.group("params")):
            if not item.strip():
                continue
            if "=" not in item:
                raise UsageError(f"metric '{requested}': parameter '{item.strip()}' must be written name=value")
            key, raw = (x.strip() for x in item.split("=", 1))
            if key in IRM_PARAMS:  # ir_measures' spelling of a parameter we name otherwise
                metric, key, raw = IRM_PARAMS[key](metric, raw, requested)
                if key is None:
                    continue
            if key in STREAM_PARAMS:  # ir_measures' judged_only=: how the run is read (see stream_conventions)
                put(key, conventions.check(key, raw.strip("'\"")), "")
                continue
            if key == "cutoff":  # ir_measures: RR(cutoff=10) is RR@10
                if metric.cutoff == "none":
                    raise UsageError(f"metric '{requested}': {metric.name} takes no cutoff")
                if k is not None or m.group("k") is not None:
                    raise UsageError(f"metric '{requested}': the cutoff is given twice; give it once")
                k = _cutoff(raw.strip("'\""), requested)
                continue
            put(key, _param_value(metric, key, raw, requested), "")
    if m.group("lvl"):
        put("rel", _param_value(metric, "rel", m.group("lvl"), requested), " (rel= and the -l suffix)")
    if m.group("k") is not None:
        if metric.cutoff == "none":
            raise UsageError(f"metric '{requested}': {metric.name} takes no cutoff")
        k = _cutoff(m.group("k"), requested)
    if metric.cutoff == "required" and k is None:
        raise UsageError(f"metric '{requested}': {metric.name} needs k, e.g. {metric.name}@10")
    for p in metric.params:
        if p in PARAMS and PARAMS[p].required and p not in params:
            raise UsageError(f"metric '{requested}': {p} has no default; give it, e.g. {metric.name}({p}=4)")
    return [Measure(requested, metric, k, tuple(sorted(params.items())))]


_RELSTRING = re.compile(r"relstring(?:[._][0-9]+)?")  # trec_eval's per-query text of the top grades: not a value


def relstrings_wanted(names) -> list[tuple[str, int]]:
    """(label, length) of each trec_eval relstring the names ask for (a text line per query, printed only with
    -q): relstring is the top 10 (m_relstring.c), relstring.20 or relstring_20 the top 20."""
    names = [] if names is None else [names] if isinstance(names, str) else list(names)
    names = [n.strip() for n in names if isinstance(n, str)]
    explicit = [n for n in names if _RELSTRING.fullmatch(n)]
    if not explicit:  # a set naming relstring (all_trec) means trec_eval's default, unless -m relstring.N sets it
        explicit = ["relstring" for n in names if "relstring" in TREC_SETS.get(n, ())][:1]
    out = []
    for n in explicit:
        m = _RELSTRING.fullmatch(n)
        if m:
            length = int(re.split(r"[._]", n)[1]) if n != "relstring" else 10
            label = "relstring" if n == "relstring" else f"relstring_{length}"
            if label not in [x[0] for x in out]:
                out.append((label, length))
    return out


def trec_first_parameters(names) -> tuple[list, list[tuple[str, str]]]:
    """The -m arguments as trec_eval reads them (trec_eval.c's mark_measure, meas_init.c's te_init_meas_*): a
    measure is computed once, with the first parameters given for it (`-m P.5 -m P.10`: P_5 only), and a bare
    name or a set naming it adds nothing once parameters are given (`-m P -m P.3`, `-m all_trec -m P.3`: P_3,
    not P's default cutoffs too). Returns (the names to evaluate, [(an argument left out, the one used
    instead)]: a set's measure taken with the parameters given is not one); names that are not trec_eval's
    `measure.parameters` spelling are left as they are."""
    names = [part for n in names for part in split_names(_name_of(n))]
    family = lambda n: n.split(".", 1)[0] if "." in n else None  # noqa: E731
    first = {}
    for n in names:
        if family(n.strip()) in TREC_ORDER:
            first.setdefault(family(n.strip()), n.strip())
    out, left_out = [], []
    for n in names:
        key = n.strip()
        f = family(key) if family(key) in first else key if key in first else None
        if f is not None:
            if key == first[f]:
                if key not in out:
                    out.append(key)
            elif (key, first[f]) not in left_out:
                left_out.append((key, first[f]))
        elif key in TREC_SETS and any(m in first for m in TREC_SETS[key]):
            out += [m for m in TREC_SETS[key] if m not in first]  # the set's measure: with its parameters
        else:
            out.append(n)
    return out, left_out


def wants_runid(names) -> bool:
    """Whether the names (None: the default set) ask for trec_eval's runid line."""
    if names is None:
        return RUNID in TREC_DEFAULT
    names = [names] if isinstance(names, str) else list(names)
    return any(isinstance(n, str) and (n.strip() == RUNID or RUNID in TREC_SETS.get(n.strip(), ())) for n in names)


def _name_of(obj) -> str:
    """A metric as a name: a string as it is, an ir_measures measure (nDCG@10, AP(rel=2)) by its string form,
    which is ir_measures' own name syntax; anything else is a usage error."""
    if isinstance(obj, str):
        return obj
    if type(obj).__module__.split(".")[0] == "ir_measures":
        return str(obj)
    raise UsageError(f"a metric must be a name such as 'nDCG@10' (or an ir_measures measure), not "
                     f"{type(obj).__name__} {obj!r}")


def _split_params(text: str) -> list[str]:
    """name=value items of a measure's parentheses, split at commas outside braces (gains={0:0,1:1})."""
    items, depth, current = [], 0, ""
    for c in text:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            items.append(current)
            current = ""
        else:
            current += c
    return items + [current]


def split_names(text: str) -> list[str]:
    """One string naming several measures, as ir_measures takes them: "nDCG@10 P(rel=2)@5 AP" (separated by
    white space outside parentheses, brackets and quotes, and not right after an @); a single name as it is."""
    parts, depth, quote, current = [], 0, None, ""
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c.isspace() and depth <= 0:
            if current.endswith("@"):  # "ndcg@ 3": a cutoff after a space (ranx's int(" 3") takes it), not a name
                continue
            if current:
                parts.append(current)
            current = ""
            continue
        current += c
    if current:
        parts.append(current)
    return parts or [text]


def valued(measures: list[Measure], where: str) -> list[Measure]:
    """The measures of parse_all, refused when none is left: only trec_eval's text lines (runid, relstring), which
    `rankmetrics eval` writes and `where` (compare, to_sql) has no value of."""
    if not measures:
        raise UsageError(f"{where}: runid and relstring are trec_eval's text lines, written by rankmetrics eval; "
                         f"name a measure with a value (map, ndcg_cut_10, P@10, ...)")
    return measures


def parse_all(names) -> list[Measure]:
    """The measures the names ask for, each once; trec_eval's runid is a line of the trec format, not a value to
    compute (wants_runid), and is left out."""
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        names = [names]
    out, seen = [], set()
    expanded = []
    for name in [part for n in names for part in split_names(_name_of(n))]:
        key = name.strip() if isinstance(name, str) else name
        if key in ("prefs", "all_prefs") or key in PREFS:
            raise UsageError(f"'{key}' names trec_eval's preference measures: give preference judgments with "
                             f"-R prefs (lines 'query group sub-group item level'), or qrels read as preferences "
                             f"with -R qrels_prefs")
        expanded += list(TREC_SETS[key]) if key in TREC_SETS else [name]
    for name in expanded:
        if name.strip() == RUNID or _RELSTRING.fullmatch(name.strip()):
            continue
        if isinstance(name, str) and _AVGJG_NAME.fullmatch(name.strip()):
            raise UsageError(f"metric '{name.strip()}' is a judgment-group measure: give the judgments in trec_eval's "
                             f"qrels_jg format (query group item relevance) with -R qrels_jg")
        for measure in parse(name):
            if measure.requested not in seen:
                seen.add(measure.requested)
                out.append(measure)
    return out


@dataclass(frozen=True)
class GradeRule:
    """Judgments a requested measure cannot take: grades `op` bound (op '<' or '>=') are refused for the measure
    (its requested name); kind 'overflow' (2^grade - 1 of exponential gain overflows a double past GRADE_LIMIT)
    or 'negative' (nDCG with raw gain: scikit-learn's ndcg_score refuses negative y_true; its dcg_score takes
    them, and so does DCG). The one decision of both routes: api._check_gain_grades and sqlgen's checks."""
    kind: str
    measure: str
    op: str
    bound: int


# (kind, the metric macros it applies to, the gain it applies under, op, bound) of each GradeRule; the native
# objects and the dbt macros, which take the gain as an argument, check the rule whose gain is given
# (sqlgen.gain_grade_faults), and sql/01_stream.sql's rm_valid_gain_grades writes the same for the DuckDB macros.
GAIN_GRADE_RULES = (("overflow", ("dcg", "ndcg", "ideal_dcg"), "exponential", ">=", GRADE_LIMIT + 1),
                    ("negative", ("ndcg",), "raw", "<", 0))


def grade_rules(measures: list[Measure], conv: dict) -> list[GradeRule]:
    """The GradeRules of the requested measures under conv: one per kind, for the first measure it applies to."""
    rules = []
    for kind, macros, gain, op, bound in GAIN_GRADE_RULES:
        names = [m.requested for m in measures if m.metric.macro in macros and m.values(conv).get("gain") == gain]
        if names:
            rules.append(GradeRule(kind, names[0], op, bound))
    return rules


def needs_side_tables(measures: list[Measure]) -> bool:
    """Whether a measure reads a table beside the run and the judgments (Metric.tables: the training interactions)."""
    return any(m.metric.tables for m in measures)


def side_inputs(measures, interactions, items, reference=None) -> dict:
    """{side table name: the input it is read from, 'interactions', 'items' or 'reference'} for the side tables
    the measures read (Metric.tables): the training interactions (required by the metrics computed from them),
    the items' vectors (the items given), the catalog (items; without it, the items of the interactions, which
    the catalog-wide metrics then read as their catalog) and the reference run (Intersection). interactions,
    items and reference are the inputs given (or None); a table given that no measure reads is left out."""
    tables = {t for m in measures for t in m.metric.tables}
    names = lambda t: ", ".join(m.requested for m in measures if t in m.metric.tables)  # noqa: E731
    if "interactions" in tables and interactions is None:
        raise UsageError(f"{names('interactions')}: computed from the training interactions (a table of user_id, "
                         f"item_id); give them (--interactions FILE; in Python interactions=)")
    if "vectors" in tables and items is None:
        raise UsageError(f"{names('vectors')}: computed from the items' vectors; give the catalog with an embedding "
                         f"column, a list of numbers per item (--items FILE; in Python items=)")
    if "catalog" in tables and interactions is None and items is None:
        raise UsageError(f"{names('catalog')}: computed over the catalog; give it (--items FILE, a table with an "
                         f"item_id column, or --interactions FILE for the items of the training interactions)")
    if "reference" in tables and reference is None:
        raise UsageError(f"{names('reference')}: compares the run with a reference run (another model's "
                         f"recommendations, in the run's shape); give it (--reference FILE; in Python reference=)")
    out = {}
    if "interactions" in tables:
        out["interactions"] = "interactions"
    if "vectors" in tables:
        out["vectors"] = "items"
    if tables - {"reference"} and items is not None:
        out["catalog"] = "items"
    elif "catalog" in tables and "interactions" not in tables:
        out["catalog"] = "interactions"  # the training interactions' items are the catalog
    if "reference" in tables:
        out["reference"] = "reference"
    return out


def read_depths(measures: list[Measure], conv: dict) -> list[int | None] | None:
    """Per measure, the deepest rank it reads on retrieved rows (None: judged rows at any depth), or None when
    some measure reads every retrieved row: NumRet, a cutoff-free P or Judged, tie-averaged DCG (discounts
    shared across tied groups), the 'candidates' ideal (the run's items ranked by grade). sqlgen.keep_rows."""
    depths = []
    for measure in measures:
        values = {**conv, **measure.values(conv)}
        reads, k = measure.metric.reads, values.get("k")
        if measure.metric.macro in ("dcg", "ndcg"):
            if values.get("ties") == "average":
                reads = "all"
            if values.get("ideal") == "candidates":
                k = None
        if measure.metric.macro == "judged" and values.get("judged_count") == "any":
            reads = "all"  # over the items ranked within k, judged or not
        if reads == "all" or (reads == "judged_if_cut" and k is None):
            return None
        depths.append(k)
    return depths


def deepest(depths: list[int | None] | None) -> int | None:
    """The largest of read_depths' depths when every one is a cutoff, else None."""
    return max(depths) if depths and None not in depths else None


def cutoff_depth(measures: list[Measure], conv: dict) -> int | None:
    """K when every requested measure reads retrieved rows ranked 1..K only (a cutoff-only request such as
    nDCG@10 P@10): the ranking can stop at K per query. None otherwise."""
    return deepest(read_depths(measures, conv))


# DuckDB's top-N window elimination (a heap of K rows per query instead of a sort of every row) pays off on
# lists much longer than K; on lists shorter than about 30 K, the heaps of many small groups cost more than the
# sort (measured with DuckDB 2.0 on 2 cores, 2M rows, K=10: 2,000 lists of 1,000 rows 0.20 s vs 0.60 s;
# 4,000 x 500: 0.33 s vs 0.59 s; 10,000 x 200: equal; 20,000 x 100: 0.78 s vs 0.52 s).
TOP_N_DEPTH_RATIO = 30


def top_n_need(measures: list[Measure], conv: dict) -> int | None:
    """The list length from which DuckDB's per-query heap pays (sqlgen.plan's top_n), or None when it cannot
    apply (not a cutoff-only request, or a tie order other than trec_eval's): callers measure the run's list
    length only when this is not None."""
    k = cutoff_depth(measures, conv)
    return TOP_N_DEPTH_RATIO * k if k is not None and conv.get("ties") == "item_desc" else None


def top_n_pays(measures: list[Measure], conv: dict, rows_per_query: float | None) -> bool:
    """Whether to rank with DuckDB's per-query heap (sqlgen.plan's top_n), given the run's list length."""
    need = top_n_need(measures, conv)
    return need is not None and rows_per_query is not None and rows_per_query >= need
