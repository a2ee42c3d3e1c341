"""Conventions: the choices on which evaluation tools disagree, as named parameters, and presets that reproduce
each tool. See ../shared/CONVENTIONS.md and the README's conventions table."""
from __future__ import annotations

import math
import re

from .errors import UsageError
from .textfiles import NUMBER

# Each convention parameter: its choices (None = free value checked by its own rule) and a one-line description.
PARAMETERS = {
    "ties": (("item_desc", "item_asc", "average", "input", "provider"),
             "order of tied scores: item id descending byte-wise (trec_eval), ascending, scikit-learn's tie-averaged "
             "DCG, the run's own rank column or a list's order (MLlib; without one, or between equal ranks, "
             "score then item id descending), or as ir_measures' provider of each measure orders them (descending "
             "for pytrec_eval's and gdeval's measures, ascending for msmarco's RR@k, judged's and compat's)"),
    "gain": (("linear", "exponential", "binary", "raw"),
             "DCG gain of a grade: grade, 2^grade - 1, or 1 (a grade above 0 and at the gain level), or raw: the "
             "grade as given, whatever it is (scikit-learn's y_true: 0.5 gives 0.5, a negative grade a negative "
             "gain)"),
    "ideal": (("judgments", "candidates", "retrieved", "cutoff"),
              "ideal ranking of nDCG: all judged items, the run's scored items, the top k retrieved re-sorted, or k "
              "items of gain 1 whatever the judgments (RecTools' default, divide_by_achievable=False)"),
    "denominator": (("judged", "capped", "retrieved"),
                    "AP denominator: |G|, min(k, |G|), or relevant items retrieved in the top k"),
    "empty": (("zero", "nan"), "queries with no relevant judgment: 0 and counted, or NaN and left out of means"),
    "queries": (("both", "judged", "run", "all"),
                "queries evaluated: in run and judgments (trec_eval), every judged one (trec_eval -c), every one "
                "of the run, or either side"),
    "rel": (None, "relevance level: a grade >= rel is relevant (trec_eval -l)"),
    "judged_only": (None, "drop unjudged items before ranking (trec_eval -J)"),
    "log_base": (None, "base of the DCG log discount (2, or e)"),
    "level_for_gain": (None, "whether -l also applies to gain metrics (nDCG, DCG): no in trec_eval, yes in ranx"),
    "grades": (("truncate", "as_given"),
               "fractional relevance grades: truncated toward zero (trec_eval reads grades with atol: 1.5 is 1, "
               "-0.5 is 0) or used as given"),
    "scores": (("double", "float32", "provider"),
               "precision in which scores are compared when ranking: double (trec_eval 10) or 32-bit float "
               "(pytrec_eval, whose older trec_eval code keeps scores as C floats), or as ir_measures' provider of "
               "each measure compares them (32-bit floats for pytrec_eval's measures, doubles for cwl_eval's, "
               "gdeval's, msmarco's, judged's, accuracy's and compat's)"),
    "num_docs": (None, "documents in the collection: utility's term for non-relevant items not retrieved counts "
                       "against it (trec_eval -N; 0 by default, as trec_eval's)"),
    "judged_count": (("unj", "any"),
                     "how Judged@k counts: 1 - trec_eval 10's unj_k (a grade >= 0 is judged; over k) or ir_measures' "
                     "(any judgment, a negative grade too; over the items ranked within k)"),
    "negative_grades": (("unjudged", "nonrelevant"),
                        "a judged item's negative grade in bpref: unjudged (trec_eval: neither relevant nor one of "
                        "bpref's judged non-relevant items) or judged non-relevant (ranx)"),
    "distance": (("cosine", "hamming"),
                 "IntraListDiversity's distance between two items' vectors (the catalog's embedding column): 1 - "
                 "their cosine similarity (Recommenders), or the positions at which they differ (RecTools' Hamming "
                 "over item features)"),
    "iprec_rounding": (("nearest", "v9"),
                       "how iprec_at_recall turns a recall level into a count of relevant items: rounded to the "
                       "nearest (trec_eval 10's lround) or trec_eval 9's level x |G| + 0.9 truncated (pytrec_eval)"),
}

BASE = dict(ties="item_desc", gain="linear", ideal="judgments", denominator="judged", empty="zero",
            queries="both", rel=1, judged_only=False, log_base=2, level_for_gain=False, grades="as_given",
            scores="double", iprec_rounding="nearest", num_docs=0, judged_count="unj", distance="cosine",
            negative_grades="unjudged")

PRESETS = {
    # trec_eval 10: score then item id descending, linear gain, ideal from all judgments, AP over
    # |G|, queries in both run and judgments, -l ignored by nDCG, fractional grades truncated (atol).
    "trec_eval": dict(BASE, grades="truncate"),
    # ranx: like trec_eval, but every judged query is evaluated (missing ones 0, make_comparable=True), the
    # relevance level applies to nDCG too, and bpref counts a negative grade as judged non-relevant. Its grades
    # are integers: Qrels.from_dict truncates 1.5 to 1 (toward zero, as trec_eval's atol), its TREC reader refuses
    # fractions.
    "ranx": dict(BASE, queries="judged", level_for_gain=True, negative_grades="nonrelevant", grades="truncate"),
    # Spark MLlib RankingMetrics: the run's own order, binary relevance, MAP@k over min(k, |G|), every query of
    # either side (an empty label set or prediction list scores 0).
    "mllib": dict(BASE, ties="input", gain="binary", denominator="capped", queries="all", level_for_gain=True),
    # scikit-learn ndcg_score / dcg_score: tie-averaged DCG, the grade itself as the gain (y_true as given: below
    # 1 and negative too), ideal from the scored candidates, one sample per query of the run, zero-ideal rows 0.
    "sklearn": dict(BASE, ties="average", ideal="candidates", queries="run", gain="raw"),
    # Seed note 001 ("confusion over IR metrics in RecSys"): AP over the relevant items retrieved, ideal from
    # the top k retrieved re-sorted, exponential gain, queries without relevant labels NaN and left out,
    # judged queries with an empty list 0.
    "retrieved": dict(BASE, gain="exponential", ideal="retrieved", denominator="retrieved", empty="nan",
                      queries="all"),
    # pytrec_eval: trec_eval's, with scores compared as 32-bit floats (its trec_eval code reads them into floats)
    "pytrec_eval": dict(BASE, grades="truncate", scores="float32", iprec_rounding="v9"),
    # ir_measures: pytrec_eval's numbers (its provider for the trec_eval measures) over every judged query (a query
    # missing from the run scores 0, as ir_measures adds it), and its Judged@k counting any
    # judgment, a negative grade too; scores compared as each measure's provider compares them (pytrec_eval's
    # 32-bit floats, the Python providers' doubles: measures.stream_conventions), and tied scores ordered as each
    # measure's provider orders them (item id descending in pytrec_eval and gdeval, ascending in msmarco, judged
    # and compat)
    "ir_measures": dict(BASE, queries="judged", grades="truncate", scores="provider", ties="provider",
                        iprec_rounding="v9", judged_count="any"),
    # RecTools (rectools.metrics): the recommendations' own rank column, binary relevance (every test interaction
    # is a positive), each metric over its own users: the accuracy metrics over the test users (a user without
    # recommendations 0), the recommendation-only ones (SufficientReco, ...) over the users recommended to (NULL,
    # and left out, elsewhere); IntraListDiversity with its Hamming distance over item features.
    "rectools": dict(BASE, ties="input", gain="binary", level_for_gain=True, queries="all", empty="nan",
                     distance="hamming", ideal="cutoff"),
}


# Metrics a preset does not reproduce yet: refused under it (rather than a number the library would not give)
# unless the named convention is switched explicitly. preset -> metric -> (convention parameter, reason).
GAPS: dict = {}


def refuse_gaps(convention: str, overrides: dict, metric_names) -> None:
    """UsageError when a requested metric is one the preset does not reproduce (GAPS) and its switch is not set."""
    for name in metric_names:
        gap = GAPS.get(convention, {}).get(name)
        if gap and gap[0] not in overrides:
            raise UsageError(f"metric {name} under --convention {convention}: {gap[1]}")


def resolve(convention: str = "trec_eval", **overrides) -> dict:
    """The full set of convention values: a preset, with the given switches overriding it."""
    if convention not in PRESETS:
        raise UsageError(f"unknown convention '{convention}'; choose one of: {', '.join(PRESETS)}")
    values = dict(PRESETS[convention])
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in PARAMETERS:
            raise UsageError(f"unknown convention parameter '{key}'; known: {', '.join(PARAMETERS)}")
        values[key] = check(key, value)
    if values.get("grades") == "truncate" and values.get("rel") is not None and values["rel"] != int(values["rel"]):
        raise UsageError(f"relevance level {values['rel']} is not a whole number: trec_eval reads -l as one (atol: "
                         f"{int(values['rel'])}) and its grades are whole numbers (grades 'truncate'); give a whole "
                         f"number, or grades 'as_given' for fractional grades")
    return values


def reads_rank(conv: dict) -> bool:
    """Whether the ranking follows the run's rank column (ties 'input'); otherwise the rank field of a TREC text
    run is not read at all, as trec_eval, pytrec_eval and ranx do not read it (inputs.Reader's trec_rank)."""
    return conv["ties"] == "input"


# The presets whose library reads a run's rank values as positions (RecTools: an item is in the top k when its
# rank is at most k, tied ranks share a position, a gap is a position no item holds), where rankmetrics ranks a
# query's items 1, 2, ... in rank order: the same only for ranks 1..n (inputs.check_rank_positions refuses others).
RANK_VALUES = ("rectools",)


def reads_rank_values(convention: str, conv: dict) -> bool:
    """Whether the run's ranks must be 1..n per query under this preset and conventions (RANK_VALUES): checked by
    inputs.check_rank_positions on the Python routes, in the SQL of to_sql (sqlgen.plan's rank_positions) and by
    the dbt macros (their rm_rank_positions, a table of this function's answers for every preset, ties and
    judged_only: dbt._rank_values; a condition on another convention must be added to that table's keys).
    Not with judged_only, which ranks the judged items alone 1, 2, ... (no library of RANK_VALUES drops them)."""
    return convention in RANK_VALUES and reads_rank(conv) and not conv.get("judged_only")


# a number given as text to an option trec_eval reads with atol (-l, -M, -N): digits, a sign, decimals; not
# '1_000' (Python's int and float read 10 for '1_0') nor '1e3' (1000 here), both of which atol reads as 1
PLAIN_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)\s*", re.ASCII)


def plain_number(key: str, value):
    """value, refused (a usage error naming key) when it is a bool or text that Python reads as a number and is
    not PLAIN_NUMBER: trec_eval would read such text as another number. Other text is the caller's to refuse."""
    if isinstance(value, str) and not PLAIN_NUMBER.fullmatch(value):
        try:
            float(value)
        except ValueError:
            return value
    elif not isinstance(value, bool):
        return value
    raise UsageError(f"{key} must be a number written in digits, not '{value}' (trec_eval reads '1_000' and "
                     f"'1e3' as 1)")


def to_float(value) -> float:
    """float(value), but text must be a number as C's strtod reads it (textfiles.NUMBER, spaces around): Python's
    float also reads '1_0' as 10 and Unicode digits ('\uff15' as 5). ValueError otherwise, as float's own."""
    if isinstance(value, str) and not NUMBER.fullmatch(value.strip(" \t")):
        raise ValueError(f"not a number: {value!r}")
    return float(value)


def check(key: str, value):
    choices = PARAMETERS[key][0]
    if choices is not None:
        if value not in choices:
            raise UsageError(f"unknown value '{value}' for {key}; choose one of: {', '.join(choices)}")
        return value
    if key in ("judged_only", "level_for_gain"):
        if isinstance(value, str):
            if value.lower() in ("true", "1", "yes"):
                return True
            if value.lower() in ("false", "0", "no"):
                return False
            raise UsageError(f"{key} must be true or false, not '{value}'")
        return bool(value)
    if key == "rel":
        plain_number("relevance level", value)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"relevance level must be a number, not '{value}'") from None
        if not math.isfinite(number):
            raise UsageError(f"relevance level must be a finite number, not '{value}'")
        return int(number) if number == int(number) else number
    if key == "num_docs":
        plain_number("num_docs", value)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise UsageError(f"num_docs must be a whole number >= 0, not '{value}'") from None
        if not (math.isfinite(number) and number >= 0 and number == int(number)):
            raise UsageError(f"num_docs must be a whole number >= 0, not '{value}'")
        return int(number)
    if key == "log_base":
        if str(value).lower() == "e":
            return "e"
        try:
            number = to_float(value)
        except (TypeError, ValueError):
            raise UsageError(f"log_base must be a number greater than 1 or 'e', not '{value}'") from None
        if not (number > 1 and math.isfinite(number)):
            raise UsageError(f"log_base must be a finite number greater than 1 or 'e', not '{value}'")
        return int(number) if number == int(number) else number
    return value
