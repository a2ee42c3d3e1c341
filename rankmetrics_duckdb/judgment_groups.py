"""trec_eval's judgment groups (-R qrels_jg): judgments in groups, several users' qrels for one query, read
from lines `query group item relevance` (get_qrels_jg.c), and the measures averaged over a query's groups
(map_avgjg, P_avgjg, Rprec_mult_avgjg; measures.judgment_group_measures).

Each group is one more `by` group of an ordinary evaluation: the run is repeated for each group its query has
in the judgments, evaluated against that group's judgments by the same SQL as every other measure, and the
values of a query's groups are averaged (form_res_rels_jg.c: a group without relevant items counts 0, as AP and
P do). The mean over queries is the mean of those averages, as trec_eval's."""
from __future__ import annotations

import pyarrow as pa

from . import connections, conventions, measures, textfiles
from .api import Evaluation, max_retrieved_of, top_filter
from .errors import InputError, UsageError
from .inputs import RUN, Reader, no_common_query

GROUP = "judgment_group"


def read_qrels_jg(path: str) -> pa.Table:
    """The judgments of a qrels_jg file: lines 'query group item relevance' (white space between fields); a line
    starting with # is a comment (get_qrels_jg.c). One clear error names the file and line of a bad line."""
    if not isinstance(path, str):
        raise UsageError("judgment groups (-R qrels_jg) are read from a qrels_jg text file")
    queries, groups, items, grades = [], [], [], []
    seen: dict[tuple, int] = {}
    for number, fields in textfiles.field_lines(path, ("query", "judgment group", "item", "relevance"), "qrels_jg"):
        grade = textfiles.finite(fields[3])
        if grade is None:
            raise InputError(f"{path}, line {number}: relevance '{fields[3]}' is not a number")
        key = (fields[0], fields[1], fields[2])
        if key in seen:  # trec_eval: "duplicate docs", whatever the grades
            raise InputError(f"{path}, line {number}: item {fields[2]} of query {fields[0]} (judgment group "
                             f"{fields[1]}) is judged again (first on line {seen[key]})")
        seen[key] = number
        queries.append(fields[0])
        groups.append(fields[1])
        items.append(fields[2])
        grades.append(grade)
    if not queries:
        raise InputError(f"{path}: no judgments (an empty qrels_jg file)")
    return pa.table({"query_id": queries, GROUP: groups, "item_id": items, "relevance": grades})


def _avg_over_groups(values: list[tuple]) -> float:
    """A query's value: its groups' values added one by one in the groups' byte order (get_qrels_jg.c sorts
    them), divided by their number when there are several (m_P_avgjg.c, m_map_avgjg.c)."""
    total = measures.added_in_order(v for _, v in sorted(values))
    return total / len(values) if len(values) > 1 else total


def evaluate(judgments: str, run, names=None, *, convention: str = "trec_eval", nan_scores: str = "error",
             max_retrieved=None, **overrides) -> list[tuple]:
    """(measure, query_id, value) rows of the judgment-group measures the names ask for (None: trec_eval's
    qrels_jg set): per query, then the mean over queries (query_id None); num_q when asked for. max_retrieved:
    each query's top N retrieved items only, as ranked (trec_eval -M; form_res_rels_jg.c cuts as form_res_rels.c)."""
    wanted = measures.judgment_group_measures(names)
    conv = conventions.resolve(convention, **overrides)
    cut = max_retrieved_of(max_retrieved, conv, False, nan_scores)
    qrels = read_qrels_jg(judgments)
    con = connections.private()
    reader = Reader(con, True, nan_scores)
    try:
        loaded = reader.load(run, RUN)
        con.register("rm_jg_qrels", qrels)
        order = "score" if loaded.has_score else "rank"
        source = loaded.relation.sql(dialect="duckdb")
        if cut is not None:  # each query's top `cut` only
            source = f"(SELECT * FROM {source} AS t {top_filter(conv, loaded.has_score, cut)})"
        source += " AS r"
        repeated = con.sql(
            f"SELECT r.query_id, g.{GROUP}, r.item_id, r.{order} FROM {source} "
            f"JOIN (SELECT DISTINCT query_id, {GROUP} FROM rm_jg_qrels) AS g ON g.query_id = r.query_id"
        ).to_arrow_table()
    finally:
        reader.close()
        con.close()
    if repeated.num_rows == 0:
        raise no_common_query(loaded.label, judgments)
    # with -c (queries 'judged' or 'all'), a judged query the run lacks counts, its groups' values 0 (trec_eval -c;
    # no retrieved item: AP, P and R-precision are 0); the groups are `by` groups of the run, so the evaluation
    # below fills such a query only under a group some query of the run has
    judged = set(qrels.column("query_id").to_pylist()) if conv["queries"] in ("judged", "all") else set()
    rows: list[tuple] = []
    values: dict[tuple, list[tuple]] = {}
    if wanted:
        ev = Evaluation(qrels, repeated, [m.requested for _, m in wanted], convention=convention, by=[GROUP],
                        nan_scores=nan_scores, **overrides)
        try:
            by_group = ev.rows()
        finally:
            ev.close()
        label = {m.requested: lab for lab, m in wanted}
        for measure, group, query, value in by_group:
            if query is not None:
                values.setdefault((label[measure], query), []).append((str(group), value))
        for lab, _ in wanted:  # added as trec_eval adds them, to its last bit (m_*_avgjg.c, te_acc_meas_s)
            per_query = {q: _avg_over_groups(v) for (m, q), v in values.items() if m == lab}
            per_query.update({q: 0.0 for q in judged if q not in per_query})
            rows += [(lab, q, per_query[q]) for q in sorted(per_query)]
            total = measures.added_in_order(per_query[q] for q in sorted(per_query))  # te_calc_avg_meas_s
            rows.append((lab, None, total / len(per_query) if per_query else 0.0))
    if measures.wants_num_q(names):  # the queries evaluated: in the run and the judgments (with -c, every judged one)
        evaluated = {q for (_, q) in values} | set(repeated.column("query_id").to_pylist()) | judged
        rows.append((measures.NUM_Q, None, float(len(evaluated))))
    return rows
