"""The diversity measures over subtopic judgments (sql/diversity.sql: alpha-nDCG, alpha-DCG, ERR-IA, nERR-IA,
NRBP, nNRBP, P-IA, AP-IA, subtopic recall; ndeval.c's definitions) on the evaluation routes: their names in
ir_measures' spelling (alpha_nDCG(alpha=0.5)@20, ERR_IA@20, StRecall@10, ...) and in ndeval's (alpha-nDCG@20,
ERR-IA@20, MAP-IA, strec@10), read from subtopic qrels (`query subtopic item grade`: the TREC Web track's form,
trec_eval's qrels with the second column meaningful) or a table with a subtopic column, and a run read by the
careful path. Each measure is its macro run in DuckDB over the loaded tables; the mean is over the queries with a
value, as ndeval's amean."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass


from . import connections, textfiles
from .engine import duckdb
from .errors import InputError, UsageError, first_line
from .inputs import RUN, Reader, no_common_query

# name (ir_measures' and ndeval's spellings) -> (macro, whether it takes a cutoff)
NAMES = {
    "alpha_nDCG": ("alpha_ndcg", True), "alpha-nDCG": ("alpha_ndcg", True),
    "alpha_DCG": ("alpha_dcg", True), "alpha-DCG": ("alpha_dcg", True),
    "ERR_IA": ("err_ia", True), "ERR-IA": ("err_ia", True),
    "nERR_IA": ("nerr_ia", True), "nERR-IA": ("nerr_ia", True),
    "NRBP": ("nrbp", False), "nNRBP": ("nnrbp", False),
    "P_IA": ("p_ia", True), "P-IA": ("p_ia", True),
    "AP_IA": ("ap_ia", False), "MAP-IA": ("ap_ia", False),
    "StRecall": ("st_recall", True), "strec": ("st_recall", True),
}
_NAME = re.compile(r"(?P<name>[A-Za-z_-]+?)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[0-9]+))?")
# the parameters a name may set (ir_measures' SUPPORTED_PARAMS), each the macro's parameter of that name
PARAMS = {"alpha": float, "beta": float, "rel": int, "judged_only": bool, "cutoff": int}
# ndeval orders tied scores by docno ascending (pyndeval, ir_measures' pyndeval provider): the default here, and
# what ties 'provider' (ir_measures' provider of each measure) means for them
TIES = "item_asc"


@dataclass(frozen=True)
class Diversity:
    requested: str
    macro: str
    k: int | None
    params: tuple  # ((name, value), ...) for the macro


def is_diversity(name) -> bool:
    """Whether a metric name is one of the diversity measures (they read subtopic judgments)."""
    if not isinstance(name, str):
        name = str(name) if type(name).__module__.split(".")[0] == "ir_measures" else ""
    m = _NAME.fullmatch(_spelled(name.strip()))
    return bool(m) and m.group("name") in NAMES


def _spelled(text: str) -> str:
    """ir_measures' Greek spellings (α_nDCG@10, α_DCG) as the ASCII ones (alpha_nDCG)."""
    return "alpha" + text[1:] if text.startswith("α") else text


def parse(name: str) -> Diversity:
    text = name.strip()
    m = _NAME.fullmatch(_spelled(text))
    if not m or m.group("name") not in NAMES:
        raise UsageError(f"'{text}' is not a diversity measure; they are {', '.join(sorted(NAMES))}")
    from . import sqlsource  # not at import: a cached eval imports no sqlglot
    macro, cut = NAMES[m.group("name")]
    params = dict(sqlsource.macros()[macro].defaults)
    given = {}
    for part in filter(None, (p.strip() for p in (m.group("params") or "").split(","))):
        key, _, value = (s.strip() for s in part.partition("="))
        kind = PARAMS.get(key)
        if kind is None or (key != "cutoff" and key not in params) or (key == "cutoff" and not cut):
            allowed = [p for p in PARAMS if p in params or (p == "cutoff" and cut)]
            raise UsageError(f"metric '{text}': unknown parameter '{key}'; it takes {', '.join(allowed)}")
        try:
            if kind is bool:
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(value)
                given[key] = value.lower() in ("true", "1")
            else:
                given[key] = kind(value)
        except ValueError:
            raise UsageError(f"metric '{text}': {key}={value} is not a {kind.__name__}") from None
    for key, low, high, closed in (("alpha", 0, 1, True), ("beta", 0, 1, False)):  # the macros' own ranges
        value = given.get(key)
        if value is not None and not (low <= value and (value <= high if closed else value < high)):
            raise UsageError(f"metric '{text}': {key} must be a number from {low} to {high}"
                             f"{'' if closed else ' (exclusive)'}, not {value:g}")
    k = int(m.group("k")) if m.group("k") else given.pop("cutoff", None)
    if k is not None and not cut:
        raise UsageError(f"metric '{text}': {m.group('name')} takes no cutoff (@k)")
    if k is not None and k < 1:
        raise UsageError(f"metric '{text}': the cutoff must be at least 1")
    if k is None and cut:  # the macro's k has no default (ir_measures' neither: its pyndeval provider fails)
        raise UsageError(f"metric '{text}': {m.group('name')} needs a cutoff, e.g. {m.group('name')}@20")
    return Diversity(text, macro, k, tuple(sorted(given.items())))


def read_subtopic_qrels(path: str) -> pa.Table:
    """Subtopic judgments from a file of lines `query subtopic item grade` (# comment lines skipped): one clear
    error names the file and line of a bad line or of an item judged twice for one subtopic."""
    cols = {"query_id": [], "subtopic": [], "item_id": [], "relevance": []}
    seen: dict[tuple, int] = {}
    for number, fields in textfiles.field_lines(path, ("query", "subtopic", "item", "grade"), "subtopic qrels"):
        grade = textfiles.finite(fields[3])
        if grade is None:
            raise InputError(f"{path}, line {number}: grade '{fields[3]}' is not a number")
        key = tuple(fields[:3])
        if key in seen:
            raise InputError(f"{path}, line {number}: item {fields[2]} of query {fields[0]} is judged again for "
                             f"subtopic {fields[1]} (first on line {seen[key]})")
        seen[key] = number
        for column, value in zip(cols, (*fields[:3], grade)):
            cols[column].append(value)
    if not cols["query_id"]:
        raise InputError(f"{path}: no judgments (an empty file)")
    import pyarrow as pa  # here, not on import: `rankmetrics eval` of other measures needs no pyarrow (0.1 s)
    return pa.table(cols)


def _judgments(con, judgments) -> None:
    """The subtopic judgments as the view rm_div_judgments (query_id, subtopic, item_id, relevance): a file of
    subtopic qrels (a path; the connection is private, so a name is never one of the caller's tables), or a
    pyarrow Table, pandas or polars DataFrame with those columns."""
    if isinstance(judgments, str):
        table = read_subtopic_qrels(judgments)
    else:
        import pyarrow as pa
        module = type(judgments).__module__.split(".")[0]
        try:
            table = (judgments if isinstance(judgments, pa.Table) else pa.Table.from_pandas(judgments)
                     if module == "pandas" else judgments.to_arrow())
        except Exception as e:
            raise InputError(f"cannot read the subtopic judgments: {first_line(e)}") from None
        missing = [c for c in ("query_id", "subtopic", "item_id", "relevance") if c not in table.column_names]
        if missing:
            raise InputError(f"the subtopic judgments lack the column(s) {', '.join(missing)} (diversity measures "
                             f"read query_id, subtopic, item_id, relevance)")
    con.register("rm_div_judgments", table)
    _check_judgments(con)


def _check_judgments(con) -> None:
    """The checks read_subtopic_qrels makes of a file, for a table or frame as well: an id missing (NULL or
    blank), a grade that is not a finite number, an item judged twice for one subtopic. Before, a NULL grade in
    a frame counted as not relevant (StRecall@2 1 for 1/2 of the subtopics judged), with no word."""
    text = lambda c: f"CAST(j.{c} AS VARCHAR)"  # noqa: E731
    blank = " OR ".join(f"j.{c} IS NULL OR trim({text(c)}, ' ') = ''" for c in ("query_id", "subtopic", "item_id"))
    grade = "TRY_CAST(j.relevance AS DOUBLE)"
    bad = con.execute(f"SELECT {text('query_id')}, {text('subtopic')}, {text('item_id')}, {text('relevance')}, "
                      f"{blank} FROM rm_div_judgments AS j WHERE {blank} OR {grade} IS NULL OR NOT isfinite({grade}) "
                      f"LIMIT 1").fetchone()
    if bad:
        q, subtopic, item, value, missing = bad
        what = "an id missing (NULL or blank)" if missing else "relevance missing (NULL or NaN)" if value is None \
            else f"relevance {value!r}, not a finite number,"
        raise InputError(f"the subtopic judgments: {what} for query {q}, subtopic {subtopic}, item {item}")
    twice = con.execute(f"SELECT {text('query_id')}, {text('subtopic')}, {text('item_id')}, count(*) "
                        f"FROM rm_div_judgments AS j GROUP BY ALL HAVING count(*) > 1 LIMIT 1").fetchone()
    if twice:
        raise InputError(f"the subtopic judgments: item {twice[2]} of query {twice[0]} is judged {twice[3]} times "
                         f"for subtopic {twice[1]}")


def evaluate(judgments, run, names, *, per_query: bool = True, ties: str | None = None, queries: str = "both",
             nan_scores: str = "error") -> list[tuple]:
    """(measure, query_id, value) rows of the diversity measures named: per query (queries sorted) when
    per_query, then the mean over the queries with a value (query_id None). queries: 'both' (ndeval: the queries
    of the run and the judgments) or 'judged' (ir_measures: a judged query the run lacks scores 0)."""
    from . import sqlsource
    wanted = [parse(n) for n in names]
    con = connections.private()
    reader = Reader(con, True, nan_scores)
    rows: list[tuple] = []
    try:
        loaded = reader.load(run, RUN)
        con.execute(sqlsource.script())
        _judgments(con, judgments)
        con.sql(f"CREATE TEMP VIEW rm_div_run AS SELECT * FROM {loaded.relation.sql(dialect='duckdb')}")
        _overlap(con, loaded.label, judgments)
        order = TIES if ties in (None, "provider") else ties
        for m in wanted:
            args = "".join(f", {key} := {sqlsource.literal(value).sql(dialect='duckdb')}" for key, value in m.params)
            k = "NULL" if m.k is None else str(m.k)
            result = con.sql(f"SELECT CAST(query_id AS VARCHAR), value FROM {m.macro}('rm_div_run', "
                             f"'rm_div_judgments', {k}, ties := '{order}', queries := '{queries}'{args})").fetchall()
            values = {q: (math.nan if v is None else float(v)) for q, v in result}
            if per_query:
                rows += [(m.requested, q, values[q]) for q in sorted(values)]
            kept = [v for v in values.values() if not math.isnan(v)]
            rows.append((m.requested, None, math.fsum(kept) / len(kept) if kept else math.nan))
    except duckdb.Error as e:
        raise InputError(first_line(e).replace("Invalid Input Error: ", "")) from None
    finally:
        reader.close()
        con.close()
    return rows


def _overlap(con, run_label: str, judgments) -> None:
    """Refuse subtopic judgments without rows, or sharing no query with the run, as every other route refuses
    them (a mean of NaN, exit 0, before)."""
    label = judgments if isinstance(judgments, str) else f"the subtopic judgments ({type(judgments).__name__})"
    ran, judged, common = con.execute(
        "SELECT (SELECT count(DISTINCT query_id) FROM rm_div_run), (SELECT count(DISTINCT query_id) FROM "
        "rm_div_judgments), (SELECT count(*) FROM (SELECT CAST(query_id AS VARCHAR) FROM rm_div_run INTERSECT "
        "SELECT CAST(query_id AS VARCHAR) FROM rm_div_judgments))").fetchall()[0]
    if not judged:
        raise InputError(f"{label}: the subtopic judgments have no rows")
    if not common:
        raise no_common_query(run_label, label, (ran, judged))


def partition(metrics) -> tuple[list[str], list]:
    """(the diversity measures, the other names) among the metrics asked for (one string may name several)."""
    from .measures import split_names
    if metrics is None:
        return [], []
    # one name, or one object that is no list of names (5: parse_all refuses it by its type, as measures'
    # _name_of words it; list(5) raised "TypeError: 'int' object is not iterable")
    names = [metrics] if isinstance(metrics, str) or not hasattr(metrics, "__iter__") else list(metrics)
    div, other = [], []
    for n in names:
        text = n if isinstance(n, str) else str(n) if type(n).__module__.split(".")[0] == "ir_measures" else None
        if text is None:
            other.append(n)
            continue
        for part in split_names(text):
            (div if is_diversity(part) else other).append(part)
    return div, other


def refuse(metrics, route: str) -> None:
    """A usage error when the metrics name a diversity measure, on a route that does not take them (route: how
    the message names it): they read subtopic judgments, which `rankmetrics eval` and evaluate() read."""
    div, _ = partition(metrics)
    if div:
        raise UsageError(f"{', '.join(div)}: diversity measures read subtopic judgments; `rankmetrics eval` and "
                         f"evaluate() compute them ({route} does not take them yet)")


def refuse_mixed(div: list, other: list) -> None:
    if div and other:
        raise UsageError(f"{', '.join(div)} read subtopic judgments and {', '.join(map(str, other))} plain ones: "
                         f"evaluate the diversity measures on their own")


def refuse_unapplied(names) -> None:
    """The conventions given that the diversity route does not apply (it takes ties and queries; a measure's own
    parameters, StRecall(rel=2)@10, take the rest): refused, on the command line and in evaluate() alike, where
    evaluate(rel=2) gave rel 1's numbers with no word."""
    if names:
        raise UsageError(f"diversity measures do not take {', '.join(names)} yet (a measure's own parameters do: "
                         f"StRecall(rel=2)@10, alpha_nDCG(judged_only=true)@20)")
