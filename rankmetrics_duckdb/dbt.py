"""The dbt package: every metric of sql/ as a dbt macro, rendered for each warehouse by the dialect layer.

`rankmetrics dbt -o DIR` writes a dbt package named `rankmetrics`. A model calls

    {{ rankmetrics.ndcg(ref('recs'), ref('labels'), k=10, query_column='user_id', by=['model_version']) }}

and gets a SELECT returning (<by columns>, query_id, value), one row per query the `queries` convention keeps.
Each macro dispatches (adapter.dispatch, as dbt-utils does) to one implementation per adapter: `default__`
(DuckDB) and one for each adapter whose dialect (dialects.Dialect.dbt_adapter) renders differently; an adapter
whose SQL is the same as another's points at it.

One definition, many renderings: an implementation is the metric's native-object body (native.query: the macro
of sql/ expanded with its parameters left as parameters, in the one-row CTE params), written by the dialect
layer with placeholders where dbt fills in the call's values: the tables ({{ run }}), the column names
(rankmetrics.column), each parameter as a SQL literal (rankmetrics.literal). The tables' shape is Jinja too:
  - by: the body is rendered with two placeholder group columns, and each list of the two (a select list, an
    ORDER BY, a join condition) is found and written as a loop over `by` (_loops); what differs without groups
    is chosen by `{% if by %}`, the lines both share written once (_if_else);
  - the CTEs that read the tables (run_items, judgment_items) are the same for every metric: each shape (groups
    or not, the judgments' groups or not, list columns or not) is rendered once per adapter into the macros
    rm_run_items and rm_judgment_items, which the metric bodies call.
Nothing is baked in: a parameter left out takes the value of the preset (default trec_eval, whose values are
sql/'s defaults), read off conventions.PRESETS and measures.Measure.values as `rankmetrics eval --convention`
reads them. `evaluate` reads measure names through a table built with measures.parse; the generic tests
metric_at_least and no_regression (Student's paired t-test, critical values from stats) gate a build.
"""
from __future__ import annotations

import concurrent.futures
import difflib
import functools
import math
import multiprocessing
import os
import re

from . import conventions, dialects, measures, native, paths, shape, sqlgen
from ._version import __version__
from .errors import UsageError

from ._lazy import LazyModule

exp = LazyModule("sqlglot.expressions")

PACKAGE = "rankmetrics"
_P = "rm_dbt_p_"        # a parameter's placeholder: rm_dbt_p_k
_C = "rm_dbt_c_"        # a column name's placeholder: rm_dbt_c_query_id
_RUN, _JUDGMENTS = "rm_dbt_run", "rm_dbt_judgments"
# the side tables of the recommender metrics (Metric.tables): the training interactions and the catalog (the
# macro's items, else the interactions: their items are then the catalog; with the items' vectors);
# Intersection's reference run, in the run's shape (read by rm_run_items as the run is)
_SIDES = {"interactions": "rm_dbt_interactions", "catalog": "rm_dbt_catalog", "reference": "rm_dbt_reference"}
# their columns' placeholders -> the implementation's argument naming the column: the interactions' (as the
# macro's interactions_user_column, ...: shape.SIDE_PARAMS) and the catalog's (the items', else the interactions')
_SIDE_COLUMNS = {"interactions": {ours: f"interactions_{ours.split('_')[0]}_column"
                                  for ours in shape.SIDE_COLUMNS["interactions"]},
                 "catalog": {ours: f"catalog_{ours.split('_')[0]}_column" for ours in shape.SIDE_COLUMNS["items"]}}
SIDE_ARGS = [arg for columns in _SIDE_COLUMNS.values() for arg in columns.values()]


SHAPE_ARGS = (("query_column", "query_id"), ("item_column", "item_id"), ("score_column", "score"),
              ("rank_column", None), ("relevance_column", "relevance"))


def adapters() -> list[tuple[str, dialects.Dialect]]:
    """(adapter, dialect) of every dialect with a dbt adapter, the default (DuckDB) first."""
    out = [(d.dbt_adapter, d) for d in dialects.DIALECTS.values() if d.dbt_adapter]
    return sorted(out, key=lambda a: a[0] != "default")


_LEVEL = r"(?:^|,)([0-9]+)="  # a gain map's levels ('1=3,2=9': 1 and 2)


def _jinja(value) -> str:
    """A Python value as a Jinja literal."""
    if value is None:
        return "none"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def _presets(macro_name: str, params: list, k: int | None = None) -> dict:
    """{preset: {parameter: value}} for this metric: what `eval --convention preset` passes to its macro (the
    preset's 'provider' values as the metric's ir_measures provider has them: measures.stream_conventions), called
    without a cutoff or, k, with one (RR@k's provider is not RR's)."""
    metric = measures.of_macro(macro_name)
    names = [name for name, _, _ in params if name != "k"]
    out = {}
    for preset in conventions.PRESETS:
        measure = measures.Measure(metric.name, metric, k, ())
        conv = measures.stream_conventions([measure], conventions.resolve(preset))
        values = {**conv, **measure.values(conv, request=False)}
        out[preset] = {n: (math.e if values[n] == "e" else values[n]) for n in names}  # log_base 'e': the number
    return out


_GROUPS = ("rm_dbt_g", "rm_dbt_h")  # two group columns' placeholders: a loop over `by` is what lies between them
_G_MARK = re.compile(r"rm_dbt_g|rm_g1\b")
_H_MARK = re.compile(r"rm_dbt_h|rm_g2\b")
_SEPARATOR = re.compile(r"\s*(,|AND)\s*")


def _template(macro_name: str, by: tuple, judgments_by: tuple, run_lists: bool, judgment_lists: str):
    """The metric's native.query_template for one shape of the tables, the same for every adapter (built once by
    native.query_template, which keeps the templates it built), the tables and columns as placeholders."""
    columns = {ours: _C + ours for ours in ("query_id", "item_id", "score", "rank", "relevance")}
    judgment_columns = {k: v for k, v in columns.items() if k != "relevance" or judgment_lists != "ones"}
    run = sqlgen.Source(exp.to_table(_RUN), has_score=True, has_rank=True, columns=columns, groups=by,
                        lists=run_lists)
    judgments = sqlgen.Source(exp.to_table(_JUDGMENTS), columns=judgment_columns, groups=judgments_by,
                              lists=bool(judgment_lists))
    sides = {name: sqlgen.Source(exp.to_table(_SIDES[name]), columns={ours: _C + arg for ours, arg in
                                                                      _SIDE_COLUMNS[name].items()})
             for name in native.sides_of(macro_name) if name != "reference"}
    if "reference" in native.sides_of(macro_name):  # the run's shape
        sides["reference"] = sqlgen.Source(exp.to_table(_SIDES["reference"]), has_score=True, has_rank=True,
                                           columns=columns, groups=by, lists=run_lists)
    return native.query_template(macro_name, run, judgments, by=by, group_text=False, rank_positions=True, **sides)


def _render(macro_name: str, d: dialects.Dialect, by: tuple, judgments_by: tuple, run_lists: bool,
            judgment_lists: str) -> str:
    """The metric's SQL for one shape of the tables, the call's values as placeholders. judgment_lists: '' (not
    a list), 'grades' (a list with a parallel list of grades) or 'ones' (a list of relevant items, grade 1)."""
    def ref(name, kind, default):  # the parameter's placeholder, cast to its type as the native objects declare it
        return exp.Cast(this=exp.column(_P + name), to=exp.DataType.build(native._type(kind, d), dialect=d.sqlglot))
    text = dialects.render(native.for_dialect(_template(macro_name, by, judgments_by, run_lists, judgment_lists),
                                              d.name, ref), d.name, copy=False)  # for_dialect's own copy
    if any(t in text for t in ("{{", "{%", "{#")):
        raise ValueError(f"{macro_name} for {d.name}: the SQL holds a Jinja delimiter")
    if any(line.replace("''", "").count("'") % 2 for line in text.splitlines()):  # _if_else reads no indentation
        raise ValueError(f"{macro_name} for {d.name}: a string literal spans lines")
    return text


@functools.lru_cache(maxsize=None)
def _reference(dialect: str, by: tuple, judgments_by: tuple, run_lists: bool, judgment_lists: str) -> str:
    """The SQL of one metric (the first that reads no side table) for one shape of the tables, as body() has each
    metric's before it takes out the pieces they share (_rank_positions' tags in): rendered once per dialect and
    shape, every shared piece read off it (_piece)."""
    macro_name = native.metric_macros(side_tables=False)[0]
    return _rank_positions(_render(macro_name, dialects.get(dialect), by, judgments_by, run_lists, judgment_lists),
                           f"{macro_name} for {dialect}")


@functools.lru_cache(maxsize=None)
def _piece(dialect: str, name: str, by: tuple, judgments_by: tuple, run_lists: bool, judgment_lists: str) -> str:
    """A piece of SHARED (a CTE's body, or the faults checked first or last) for one shape of the tables: the same
    for every metric (body() checks that it is), so read once per dialect and shape off _reference."""
    text = _reference(dialect, by, judgments_by, run_lists, judgment_lists)
    start, end = _locate(text, name, run_lists)
    return text[start:end]


def _locate(text: str, name: str, run_lists: bool) -> tuple[int, int]:
    """(start, end) of a piece every metric's SQL holds alike (SHARED): a CTE's body, or the faults checked first
    or last."""
    if name == INPUT_FAULTS:
        return _input_faults(text, run_lists)
    return _rank_faults(text, run_lists) if name == RANK_FAULTS else _cte(text, name)


INPUT_FAULTS, RANK_FAULTS = "input_faults", "rank_faults"
_ENDIF = "\n{% endif %}"  # the end of _rank_positions' block, which ends the faults every metric checks last


def _rank_faults(text: str, run_lists: bool) -> tuple[int, int]:
    """(start, end) of the faults every metric checks last, the same for every metric: the last branches of
    rm_checks' union of faults (sqlgen.rank_faults, a rank NaN or infinite beside the score: not with run_lists;
    then the ranks not 1..n, between _rank_positions' tags), from the line break before the first to the end of
    the endif."""
    start, end = _cte(text, "rm_checks")
    tag = text.find("\n{% if rank_positions %}\n", start, end)
    close = text.find("\n{% endif %}\n", tag, end)
    if tag < 0 or close < 0:
        raise ValueError("rm_checks: the check of the ranks is not tagged")
    if run_lists:
        return tag, close + len("\n{% endif %}")
    indent = re.match(r"[ \t]*", text[tag + len("\n{% if rank_positions %}\n"):])[0]
    return text.rfind("\n%sUNION ALL\n" % indent, start, tag), close + len("\n{% endif %}")


def _input_faults(text: str, run_lists: bool) -> tuple[int, int]:
    """(start, end) of the faults every metric checks first, the same for every metric: the first branches of
    rm_checks' union of faults (sqlgen.input_checks: an item twice in a query of the run or of the judgments, a
    row of either without an id or a number; with run_lists, an empty list without a query id), from the line
    break before the first to the one before the UNION ALL that follows the last."""
    start, end = _cte(text, "rm_checks")
    m = re.compile(r"FROM \(\n([ \t]*)SELECT\b").search(text, start, end)
    if m is None:
        raise ValueError("rm_checks: no subquery of faults")
    union = re.compile(r"\n%sUNION ALL\n" % m[1])
    at = m.start(1)
    for _ in range(5 if run_lists else 4):
        u = union.search(text, at, end)
        if u is None:
            raise ValueError("rm_checks: fewer faults than every metric checks")
        at = u.end()
    return m.start(1) - 1, u.start()


@functools.lru_cache(maxsize=None)
def _jinja_piece(dialect: str, name: str, by: tuple, judgments_by: tuple, run_lists: bool,
                 judgment_lists: str) -> str:
    """_piece as Jinja: the group columns' lists as loops, the column names as the call's."""
    return _columns(_loops(_piece(dialect, name, by, judgments_by, run_lists, judgment_lists),
                           "judgments_by" if name == "judgment_items" else "by"), f"{name} for {dialect}")


def _cte(text: str, name: str) -> tuple[int, int]:
    """(start, end) of the body of the CTE `name` in text: what lies between `name AS (` and its closing
    parenthesis (parentheses inside quotes aside)."""
    m = re.search(r"\b%s AS \(" % name, text)
    if m is None:
        raise ValueError(f"no CTE {name} in the SQL")
    depth, quote = 1, None
    for found in _BRACKETS_AND_QUOTES.finditer(text, m.end()):  # the characters that matter, not each character
        c = found[0]
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        else:
            depth -= 1
            if not depth:
                return m.end(), found.start()
    raise ValueError(f"the CTE {name} is not closed")


_BRACKETS_AND_QUOTES = re.compile(r"[()'\"`]")


def _loops(text: str, over: str) -> str:
    """text, rendered with the two group placeholders, with each list of the two (`A, B`, `A AND B`) written
    as a Jinja loop over the list `over` ('by', or 'judgments_by': the groups the judgments have, numbered as
    in by). Each item B (holding the second group's placeholders) is found as the longest balanced text around
    them whose first-group version A stands just before it, across a comma or an AND."""
    index = "loop.index" if over == "by" else "by.index(g) + 1"
    while True:
        m = _H_MARK.search(text)
        if m is None:
            return text
        found = _item_around(text, m, 200) or _item_around(text, m, 1000)  # a long item: ClickHouse's group form
        if found is None:
            raise ValueError(f"a group column's placeholder outside a list: {text[m.start() - 80:m.end() + 80]!r}")
        b_start, b_end, a_start, sep = found
        item = text[a_start:a_start + (b_end - b_start)]
        item = re.sub(r"[\"`\[]rm_dbt_g[\"`\]]", "{{ adapter.quote(g) }}", item)
        item = item.replace("rm_dbt_g", "{{ rankmetrics.column(g) }}")
        item = re.sub(r"\brm_g1\b", "rm_g{{ %s }}" % index, item)
        loop = "{%% for g in %s %%}%s{%% if not loop.last %%}%s{%% endif %%}{%% endfor %%}" % (over, item, sep)
        text = text[:a_start] + loop + text[b_end:]


def _item_around(text: str, m: re.Match, reach: int) -> tuple | None:
    """(B's start and end, A's start, the separator between them) of the list item B around the second group's
    placeholder m, within reach characters of it (_loops), or None."""
    found = None
    lo, hi = max(0, m.start() - reach), min(len(text), m.end() + reach)
    depth = [0]  # depth[i - lo]: parentheses open before text[i]
    for c in text[lo:hi]:
        depth.append(depth[-1] + (c == "(") - (c == ")"))
    g_marks = [(g.start(), g.end()) for g in _G_MARK.finditer(text, lo, hi)]
    starts = []  # (b_start, where A must end): B starts after a separator (`, ` or ` AND `)
    for b_start in range(lo, m.start() + 1):
        if text[b_start].isspace() or text[b_start] == ",":
            continue
        i = b_start
        while i > 0 and text[i - 1].isspace():
            i -= 1
        if text[i - 1:i] == ",":
            i -= 1
        elif text[i - 3:i] == "AND":
            i -= 3
        else:
            continue
        while i > 0 and text[i - 1].isspace():
            i -= 1
        starts.append((b_start, i))
    for b_end in range(hi, m.end() - 1, -1):
        if text[b_end - 1].isspace() or text[b_end - 1] == ",":
            continue
        for b_start, a_end in starts:
            if found and b_end - b_start <= found[1] - found[0]:
                break  # the later starts are shorter still
            if any(b_start <= gs and ge <= b_end for gs, ge in g_marks):
                continue
            d0 = depth[b_start - lo]
            if depth[b_end - lo] != d0 or min(depth[b_start - lo + 1:b_end - lo + 1]) < d0:
                continue  # not balanced
            b = text[b_start:b_end]
            a = b.replace("rm_dbt_h", "rm_dbt_g").replace("rm_g2", "rm_g1")
            if a_end < len(a) or text[a_end - len(a):a_end] != a:
                continue
            found = (b_start, b_end, a_end - len(a), text[a_end:b_start])
    return found


def _columns(text: str, what: str) -> str:
    """The column placeholders of text as the call's column names (rankmetrics.column: quoted when not a plain
    lower-case name); the run's score as a score column, else the negated rank (as sqlgen.run_items)."""
    score = re.compile(r"CAST\((\w+)\." + _C + r"score AS ([^()]+(?:\([^()]*\))?)\)")
    text, n = score.subn(lambda m: (f"{{% if score_column %}}CAST({m[1]}.{{{{ rankmetrics.column(score_column) }}}} "
                                    f"AS {m[2]}){{% else %}}-CAST({m[1]}.{{{{ rankmetrics.column(rank_column) }}}} "
                                    f"AS {m[2]}){{% endif %}}"), text)
    rank = re.compile(r"CAST\((\w+)\." + _C + r"rank AS ([^()]+(?:\([^()]*\))?)\)")
    text, m = rank.subn(lambda m: (f"{{% if rank_column %}}CAST({m[1]}.{{{{ rankmetrics.column(rank_column) }}}} "
                                   f"AS {m[2]}){{% else %}}CAST(NULL AS {m[2]}){{% endif %}}"), text)
    if (n, m) not in ((0, 0), (1, 1)):
        raise ValueError(f"{what}: expected one score and one rank expression, not {n} and {m}")
    text = re.sub(r"\b" + _C + "(" + "|".join(SIDE_ARGS) + r")\b",  # the side tables' columns
                  lambda m: "{{ rankmetrics.column(" + m[1] + ") }}", text)
    return re.sub(r"\b" + _C + r"(query_id|item_id|relevance)\b",
                  lambda m: "{{ rankmetrics.column(" + {"query_id": "query_column", "item_id": "item_column",
                                                         "relevance": "relevance_column"}[m[1]] + ") }}", text)


def _choose(cases: list[tuple[str, str]]) -> str:
    """Jinja choosing the text of the first case whose condition holds (the last case: else)."""
    if len({t for _, t in cases}) == 1:
        return cases[0][1]
    out = ""
    for i, (cond, t) in enumerate(cases):
        out += ("{%% if %s %%}" % cond if i == 0 else "{%% elif %s %%}" % cond if i < len(cases) - 1
                else "{% else %}") + t
    return out + "{% endif %}"


def _no_lists(d: dialects.Dialect) -> str:
    return ("{{ exceptions.raise_compiler_error(\"rankmetrics: %s has no list (array) type: run_lists and "
            "judgment_lists cannot be used on it\") }}" % d.name)


RUN_ITEMS_ARGS = "run, query_column, item_column, score_column, rank_column, by, run_lists"
JUDGMENT_ITEMS_ARGS = "judgments, query_column, item_column, relevance_column, by, judgments_by, judgment_lists"
# what every metric's SQL holds alike, per adapter and shape of the tables, as a macro of _shape.sql the metric
# bodies call (shape_bodies; body() checks that each metric's is the same): piece (a CTE's body, or
# INPUT_FAULTS/RANK_FAULTS) -> (macro, its arguments)
SHARED = {"run_items": ("rm_run_items", RUN_ITEMS_ARGS),
          "judgment_items": ("rm_judgment_items", JUDGMENT_ITEMS_ARGS),
          "rm_groups": ("rm_groups", "run, by"),
          sqlgen.EMPTY_LISTS: ("rm_empty_lists", "run, query_column, item_column, by"),
          RANK_FAULTS: ("rm_rank_faults", "by, run_lists, rank_positions"),
          INPUT_FAULTS: ("rm_input_faults", "by, run_lists")}


def _finish(text: str, what: str) -> str:
    """text with the placeholders of the call's values, tables and parameters, as Jinja."""
    text = re.sub(r"\b" + _P + r"(\w+)\b", lambda m: "{{ rankmetrics.literal(" + m[1] + ") }}", text)
    text = re.sub(r"\b" + _RUN + r"\b", "{{ run }}", text)
    text = re.sub(r"\b" + _JUDGMENTS + r"\b", "{{ judgments }}", text)
    for name, table in _SIDES.items():
        text = re.sub(r"\b" + table + r"\b", "{{ %s }}" % name, text)
    if any(t in text for t in (_P, _C, _RUN, _JUDGMENTS, "rm_dbt_")):
        raise ValueError(f"{what}: a placeholder is left in the SQL")
    return text


def shape_bodies(dialect: str) -> dict[str, str]:
    """{macro: Jinja} of the dialect's rm_run_items and rm_judgment_items: the CTEs that read the user's tables
    (the same for every metric), for every shape of the tables: with or without groups (by; judgments_by, the
    groups the judgments have), item lists or not (run_lists; judgment_lists, with a parallel list of grades
    when relevance_column names one, else grade 1)."""
    d = dialects.get(dialect)

    def piece(name, by, jby, run_lists, judgment_lists):
        if (run_lists or judgment_lists) and d.lists is None:
            return _no_lists(d)
        return _jinja_piece(d.name, name, by, jby, run_lists, judgment_lists)
    run = _choose([(f"by and run_lists", piece("run_items", _GROUPS, _GROUPS, True, "")),
                   ("by", piece("run_items", _GROUPS, _GROUPS, False, "")),
                   ("run_lists", piece("run_items", (), (), True, "")),
                   ("true", piece("run_items", (), (), False, ""))])
    cases = []
    for cond, by, jby in (("by and judgments_by", _GROUPS, _GROUPS), ("by", _GROUPS, ()), ("true", (), ())):
        cases.append((cond, _choose([
            ("judgment_lists and relevance_column", piece("judgment_items", by, jby, False, "grades")),
            ("judgment_lists", piece("judgment_items", by, jby, False, "ones")),
            ("true", piece("judgment_items", by, jby, False, ""))])))
    def faults(name):  # the checks every metric makes first (or last): by, run_lists
        shaped = {by: _if_else("run_lists", piece(name, by, by, True, ""), piece(name, by, by, False, ""),
                               own_lines=True) if d.lists is not None else piece(name, by, by, False, "")
                  for by in (_GROUPS, ())}
        return _if_else("by", shaped[_GROUPS], shaped[()])
    texts = {"run_items": run, "judgment_items": _choose(cases),
             "rm_groups": piece("rm_groups", _GROUPS, _GROUPS, False, ""),  # called with by only
             sqlgen.EMPTY_LISTS: _if_else("by", piece(sqlgen.EMPTY_LISTS, _GROUPS, _GROUPS, True, ""),  # run_lists
                                          piece(sqlgen.EMPTY_LISTS, (), (), True, "")) if d.lists is not None
             else _no_lists(d),
             RANK_FAULTS: faults(RANK_FAULTS), INPUT_FAULTS: faults(INPUT_FAULTS)}
    return {SHARED[name][0]: _finish(text, f"{name} for {dialect}") for name, text in texts.items()}


def _rank_positions(text: str, what: str) -> str:
    """text with the check of ranks not 1..n (the last branch of rm_checks: native.query_template's
    rank_positions, sqlgen.rank_positions_faults) kept only for a call whose preset reads rank values as
    positions (the argument rank_positions: rm_rank_positions, conventions.reads_rank_values): its lines between
    {% if rank_positions %} and {% endif %} (each on a line of its own, as _if_else's blocks: the run_lists
    variants are then compared block by block), so that every other call's SQL is what it was. The tree marks
    the branch (native.RANK_POSITIONS_MARKS): the comment on the line before its UNION ALL becomes the if, the
    one after the closing parenthesis of rm_checks' faults an endif on the line before that parenthesis."""
    begin, end = (re.escape(f"/* {mark} */") for mark in native.RANK_POSITIONS_MARKS)
    text, n = re.subn(r"^[ \t]*%s\n(?=[ \t]*UNION ALL\n)" % begin, "{% if rank_positions %}\n", text, flags=re.M)
    text, m = re.subn(r"^([ \t]*\).*) %s$" % end, "{% endif %}\n\\1", text, flags=re.M)
    if (n, m) != (1, 1):
        raise ValueError(f"{what}: the check of the ranks is not marked once, its marks on lines of their own")
    return text


_INDENT = re.compile(r"^[ \t]+", re.M)


def _if_else(cond: str, yes: str, no: str, own_lines: bool = False) -> str:
    """Jinja giving yes when cond holds, else no, with the lines they share written once. own_lines: each tag on
    a line of its own, so that a later _if_else over two such texts finds them as lines of their own (and nests
    its own tags around or inside them, never across). Lines are compared without their indentation, which SQL
    does not read (no string literal of ours spans lines): the groups' subquery indents the SQL it wraps, which
    is otherwise the same line for line; the lines shared keep yes's indentation."""
    a, b = _units(yes), _units(no)
    end = "\n" if own_lines else ""
    out = []
    matcher = difflib.SequenceMatcher(None, [_INDENT.sub("", u) for u in a], [_INDENT.sub("", u) for u in b],
                                      autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out += a[i1:i2]
        else:
            out.append("{%% if %s %%}" % cond + end + "".join(a[i1:i2]) + "{% else %}" + end + "".join(b[j1:j2])
                       + "{% endif %}" + end)
    return "".join(out)


def _units(text: str) -> list[str]:
    """text's lines, each block of an _if_else(own_lines=True) (from its `{% if ... %}` line to its `{% endif %}`
    line) one unit: a later _if_else then puts a block that differs in one of its branches whole, never its tags
    apart (which would close a block opened outside the branch)."""
    units, depth = [], 0
    for line in text.splitlines(keepends=True):
        if depth:
            units[-1] += line
        else:
            units.append(line)
        if re.fullmatch(r"{% if [^%]* %}\n", line):
            depth += 1
        elif line == "{% endif %}\n" and depth:
            depth -= 1
    return units


def body(macro_name: str, dialect: str) -> str:
    """The SQL of one metric for one dialect as Jinja: the call's values filled in, the lists of group columns
    written as loops, the CTEs reading the tables as calls of rm_run_items and rm_judgment_items (dispatched
    per adapter, shape_bodies), and what differs with groups (by) chosen by Jinja."""
    d = dialects.get(dialect)

    def shaped(by, lists):
        text = _rank_positions(_render(macro_name, d, by, by, lists, ""), f"{macro_name} for {dialect}")
        for name, (macro, args) in SHARED.items():  # the faults last: the CTEs' positions change
            if name in ("rm_groups", sqlgen.EMPTY_LISTS) and f"{name} AS (" not in text:
                continue  # by, run_lists only
            start, end = _locate(text, name, lists)  # the same for every metric: rendered once (_piece)
            region, piece, own = text[start:end], _piece(d.name, name, by, by, lists, ""), ""
            if region != piece:  # only Intersection's rank faults: the reference's ranks after the run's, under the
                head = piece[:-len(_ENDIF)]  # same if, written here as a branch of its own after the shared call
                extra = region[len(head):-len(_ENDIF)]
                if not (name == RANK_FAULTS and region.startswith(head) and region.endswith(_ENDIF)
                        and extra.lstrip().startswith("UNION ALL") and sqlgen.REFERENCE_ITEMS in extra):
                    raise ValueError(f"{macro_name} for {dialect}: its {name} differs from the other metrics'")
                own = "\n{% if rank_positions %}" + extra + _ENDIF
            call = "{{ rankmetrics.%s(%s) }}" % (macro, args)
            text = text[:start] + (call + own if name in (RANK_FAULTS, INPUT_FAULTS) else f"\n  {call}\n") + text[end:]
        if sqlgen.REFERENCE_ITEMS + " AS (" in text:  # Intersection's reference run: read as the run is
            start, end = _cte(text, sqlgen.REFERENCE_ITEMS)
            if text[start:end] != re.sub(r"\b" + _RUN + r"\b", _SIDES["reference"], _piece(d.name, "run_items", by, by,
                                                                                        lists, "")):
                raise ValueError(f"{macro_name} for {dialect}: its reference_items differ from its run_items")
            args = RUN_ITEMS_ARGS.replace("run, ", "reference, ", 1)
            text = text[:start] + "\n  {{ rankmetrics.rm_run_items(%s) }}\n" % args + text[end:]
        return text

    def whole(by):
        text = shaped(by, False)
        if d.lists is not None:  # a run of lists: its empty lists are queries of the run ('Q' rows; the rest alike)
            text = _if_else("run_lists", shaped(by, True), text, own_lines=True)
        return _columns(_loops(text, "by"), f"{macro_name} for {dialect}")

    return _finish(_if_else("by", whole(_GROUPS), whole(())), f"{macro_name} for {dialect}")


GROUP_ARGS = (("by", "none"), ("judgments_by", "none"), ("run_lists", "false"), ("judgment_lists", "false"))
# the side tables' column names, as the macros of the metrics that read them take them (shape.SIDE_PARAMS), with
# their defaults: our names
SIDE_SIGNATURE = [(param, ours) for params in shape.SIDE_PARAMS.values() for ours, param in params.items()]
# what a metric's side tables are (Metric.tables), and the Jinja test of their missing
_READS = {("interactions",): "the training interactions (interactions: user_id, item_id; items, the catalog: "
                             "item_id, by default the interactions' items)",
          ("catalog",): "the catalog (items: item_id; or the items of interactions)",
          ("vectors",): "the items' vectors (items: item_id, embedding, a list of numbers per item)",
          ("reference",): "a reference run (reference: another model's recommendations, in the run's shape and "
                          "column names)"}
_NEEDED = {("interactions",): "interactions is none", ("catalog",): "interactions is none and items is none",
           ("vectors",): "items is none", ("reference",): "reference is none"}


_JINJA = re.compile(r"{{(.*?)}}|{%(.*?)%}", re.S)
_JINJA_OWN = {"if", "elif", "else", "endif", "for", "in", "endfor", "not", "and", "or", "is", "none", "true",
              "false", "loop", "rankmetrics", "adapter", "exceptions", "return", "set", "do"}


def _names_read(text: str) -> set[str]:
    """The names text's Jinja reads (not those of its loops and modules, nor attributes or quoted text)."""
    names, bound = set(), set()
    for m in _JINJA.finditer(text):
        code = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", m[1] or m[2])
        names |= set(re.findall(r"(?<![.\w])[A-Za-z_]\w*", code))
        bound |= set(re.findall(r"^\s*(?:for|set)\s+(\w+)", code))
    return names - bound - _JINJA_OWN


def _implementations(name: str, args: str, texts: dict) -> list[str]:
    """The macros `<adapter>__<name>(args)`, one per adapter (texts: {adapter: SQL}); an adapter whose SQL is
    the same as another's points at it, as dbt-utils does."""
    lines, seen = [], {}
    for adapter, text in texts.items():
        unknown = _names_read(text) - set(re.findall(r"\w+", args))
        if unknown:  # Jinja would render a name it is not given as nothing
            raise ValueError(f"{adapter}__{name} reads {', '.join(sorted(unknown))}, which it does not take")
        same = next((a for a, t in seen.items() if t == text), None)
        seen[adapter] = text
        lines.append(f"{{% macro {adapter}__{name}({args}) %}}")
        if same is not None:
            lines.append(f"  {{{{ return(rankmetrics.{same}__{name}({args})) }}}}")
        else:
            lines.append(text.rstrip())
        lines += ["{% endmacro %}", ""]
    return lines


def _metric_file(macro_name: str) -> str:
    params = native.parameters(macro_name)
    names = [name for name, _, _ in params]
    presets = _presets(macro_name, params)
    cut = _presets(macro_name, params, k=10) if "k" in names else presets  # where a cutoff changes the values
    shape = [name for name, _ in SHAPE_ARGS] + [name for name, _ in GROUP_ARGS]
    metric = measures.of_macro(macro_name)
    sides_taken = native.sides_of(macro_name)
    side_tables = sides_taken != ["reference"] and bool(sides_taken)  # the interactions and the catalog
    # the recommender metrics' side tables, as the call names them (the catalog: items)
    tables = [{"catalog": "items"}.get(n, n) for n in sides_taken]
    side_columns = SIDE_SIGNATURE if side_tables else []  # their column names
    signature = ", ".join(["run", "judgments"] + [f"{n}=none" for n in tables + names] + ["preset='trec_eval'"]
                          + [f"{n}={_jinja(v)}" for n, v in SHAPE_ARGS] + [f"{n}={v}" for n, v in GROUP_ARGS]
                          + [f"{n}={_jinja(v)}" for n, v in side_columns])
    impl_sides = sides_taken + (SIDE_ARGS if side_tables else [])
    impl_args = ", ".join(["run", "judgments"] + impl_sides + names + shape + ["rank_positions"])
    returns = ("Returns (<by columns>, query_id, value): one row (per group), query_id NULL, for the whole run."
               if metric.scope == "catalog" else None)
    reads = _READS.get(tuple(metric.tables))
    sides = []
    if "reference" in metric.tables:
        sides = [f"  {{%- if reference is none -%}}{{{{ exceptions.raise_compiler_error("
                 f"{_jinja(f'rankmetrics.{macro_name} reads {reads}: give it')}) }}}}{{%- endif -%}}"]
    elif metric.tables:
        sides = [f"  {{%- if {_NEEDED[tuple(metric.tables)]} -%}}{{{{ exceptions.raise_compiler_error("
                 f"{_jinja(f'rankmetrics.{macro_name} reads {reads}: give them')}) }}}}{{%- endif -%}}",
                 "  {%- set catalog = items if items is not none else interactions -%}",
                 "  {%- set catalog_item_column = items_item_column if items is not none else "
                 "interactions_item_column -%}",
                 "  {%- set catalog_embedding_column = items_embedding_column -%}"]
    def preset_dict(table):
        return "{" + ", ".join(f"{_jinja(p)}: {{" + ", ".join(f"{_jinja(n)}: {_jinja(v)}" for n, v in values.items())
                               + "}" for p, values in table.items()) + "}"
    # the preset's values under a name no metric parameter takes (RBP's persistence is p); log_base 'e': the number,
    # as eval's --log-base e
    given = {n: (f"({_jinja(math.e)} if {n} == 'e' else {n})" if n == "log_base" else n) for n in names}
    resolved = ["k" if n == "k" else f"({given[n]} if {n} is not none else rm_preset[{_jinja(n)}])" for n in names]
    # whether the run's ranks must be 1..n per query (conventions.reads_rank_values: the preset, ties, judged_only)
    rank_positions = (f"rankmetrics.rm_rank_positions(preset, {resolved[names.index('ties')]}, "
                      f"{resolved[names.index('judged_only')]}, rank_column, run_lists)"
                      if {"ties", "judged_only"} <= set(names) else "false")
    lines = [
        f"{{# rankmetrics {__version__}: generated by `rankmetrics dbt` from sql/{macro_name}.sql. Do not edit. #}}",
        *_header_lines(metric, returns, reads),
        f"{{% macro {macro_name}({signature}) %}}",
        f"  {{%- set presets = {preset_dict(presets)} -%}}",
        "  {%- if preset not in presets -%}",
        f"    {{{{ exceptions.raise_compiler_error(\"rankmetrics.{macro_name}: unknown preset '\" ~ preset ~ \"'; "
        f"choose one of: {', '.join(conventions.PRESETS)}\") }}}}",
        "  {%- endif -%}",
        # a metric the preset does not reproduce yet (conventions.GAPS): refused unless its switch is given
        *[f"  {{%- if preset == {_jinja(preset)} and {gaps[metric.name][0]} is none -%}}"
          f"{{{{ exceptions.raise_compiler_error({_jinja(f'rankmetrics.{macro_name} under preset {preset}: ' + gaps[metric.name][1])}) }}}}"
          "{%- endif -%}"
          for preset, gaps in conventions.GAPS.items() if metric.name in gaps and gaps[metric.name][0] in names],
        *sides,
        # a gain map's level given twice: the SQL's check of the form cannot see it (sql/00_common.sql's
        # rm_valid_gains reads it with DuckDB's list functions), and the map's first gain was taken
        *([f"  {{%- if gains is string and modules.re.findall({_jinja(_LEVEL)}, gains) | unique | list | length "
           f"!= modules.re.findall({_jinja(_LEVEL)}, gains) | length -%}}"
           f"{{{{ exceptions.raise_compiler_error({_jinja(f'rankmetrics.{macro_name}: gains must be level=gain pairs with each level once, not ')} ~ gains) }}}}"
           "{%- endif -%}"] if "gains" in names else []),
        *_number_checks(macro_name, params),
        *([f"  {{%- set rm_preset = ({preset_dict(cut)} if k is not none else presets)[preset] -%}}"] if cut != presets
          else ["  {%- set rm_preset = presets[preset] -%}"]),
        *([f"  {{%- if rel is number and rel != rel | int and (grades if grades is not none else rm_preset['grades']) "
           f"== 'truncate' -%}}{{{{ exceptions.raise_compiler_error({_jinja(f'rankmetrics.{macro_name}: rel ')} ~ rel ~ "
           f"{_jinja(' is not a whole number: trec_eval reads -l as one and its grades are whole numbers (grades truncate); give a whole number, or grades=' + chr(39) + 'as_given' + chr(39) + ' for fractional grades')}) }}}}"
           "{%- endif -%}"] if {"rel", "grades"} <= set(names) else []),
        f"  {{%- set shape = rankmetrics.rm_shape({_jinja('rankmetrics.' + macro_name)}, judgments, score_column, "
        "rank_column, relevance_column, by, judgments_by, run_lists, judgment_lists) -%}",
        f"  {{{{ return(adapter.dispatch({_jinja(macro_name)}, 'rankmetrics')(run, judgments, "
        f"{''.join(n + ', ' for n in impl_sides)}{', '.join(resolved)}, "
        "query_column, item_column, score_column, rank_column, relevance_column, "
        f"shape.by, shape.judgments_by, run_lists, judgment_lists, {rank_positions})) }}}}",
        "{% endmacro %}",
        "",
    ]
    lines += _implementations(macro_name, impl_args, {a: _lacking(metric, d) or body(macro_name, d.name)
                                                      for a, d in adapters()})
    return "\n".join(lines)


def _number_checks(macro_name: str, params: list) -> list[str]:
    """Jinja refusing, when the macro is compiled, a number argument given as anything but a number (text, true;
    log_base also 'e'), and k or ref_k given as anything but a whole number >= 1: the SQL's casts read them
    otherwise (1.5 as 2 or 1; 'x' as 0 on MariaDB and ClickHouse; -1 as 2^64 - 1 in ClickHouse's UInt64), where
    eval and the macros of sql/ refuse them."""
    raise_ = "{{ exceptions.raise_compiler_error(%s ~ %s) }}"
    lines = []
    for name, kind, _ in params:
        if kind not in ("INT", "DOUBLE"):
            continue
        text = f" and {name} != 'e'" if name == "log_base" else ""
        lines.append(f"  {{%- if {name} is not none and ({name} is boolean or {name} is not number){text} -%}}"
                     + raise_ % (_jinja(f"rankmetrics.{macro_name}: {name} must be a number, not "), name)
                     + "{%- endif -%}")
        if name in ("k", "ref_k"):
            rule = "a whole number >= 1, or none " + ("for no cutoff" if name == "k" else "(k)")
            lines.append(f"  {{%- if {name} is number and {name} is not boolean and ({name} != {name} | int or "
                         f"{name} < 1) -%}}" + raise_ % (_jinja(f"rankmetrics.{macro_name}: {name} must be {rule}, "
                                                                  f"not "), name) + "{%- endif -%}")
    return lines


def _header_lines(metric: measures.Metric, returns: str | None, reads: str | None) -> list[str]:
    """The comment heading a metric's macro file: what it returns (one row per query, or per group for a
    catalog-wide metric) and which side tables it reads."""
    if returns is None and reads is None:
        return [f"{{# {metric.name}: {metric.description}. Returns (<by columns>, query_id, value), one row per "
                "query (and",
                "   group) the queries convention keeps. A parameter left out (none) takes the preset's value "
                "(trec_eval:",
                "   sql/'s defaults). See the package's README for the arguments. #}"]
    returns = returns or "Returns (<by columns>, query_id, value), one row per query (and group) the queries " \
                         "convention keeps."
    return [f"{{# {metric.name}: {metric.description}. {returns}",
            f"   Reads {reads}. A parameter left out (none) takes the preset's value (trec_eval: sql/'s defaults).",
            "   See the package's README for the arguments. #}"]


def _lacking(metric: measures.Metric, d: dialects.Dialect) -> str | None:
    """The compile error of a metric the dialect cannot compute (Dialect.lacks; the items' vectors where it has
    no lists), or None."""
    if "vectors" in metric.tables and d.lists is None:
        return ("{{ exceptions.raise_compiler_error(\"rankmetrics: the %s adapter cannot compute %s: %s has no list "
                "(array) type for the items' vectors\") }}" % (d.dbt_adapter, metric.name, d.name))
    if metric.name not in d.lacks:
        return None
    return ("{{ exceptions.raise_compiler_error(\"rankmetrics: the %s adapter cannot compute %s: %s\") }}"
            % (d.dbt_adapter, metric.name, d.lacks[metric.name].replace('"', "'")))


def _shape_file() -> str:
    lines = [f"{{# rankmetrics {__version__}: generated by `rankmetrics dbt`. Do not edit. #}}",
             "{# What every metric's SQL holds alike, per adapter: how it reads the user's tables (the CTEs "
             "run_items, judgment_items, rm_groups, empty_lists) and the checks of the tables every metric makes. #}"]
    for macro, args in SHARED.values():
        lines += [f"{{% macro {macro}({args}) %}}{{{{ return(adapter.dispatch('{macro}', 'rankmetrics')({args})) }}}}"
                  "{% endmacro %}", ""]
    bodies = {a: shape_bodies(d.name) for a, d in adapters()}
    for macro, args in SHARED.values():
        lines += _implementations(macro, args, {a: b[macro] for a, b in bodies.items()})
    return "\n".join(lines)


_HELPERS = """\
{# rankmetrics: helpers of the generated macros. Do not edit. #}
{# A Jinja value as a SQL literal: none as NULL, text quoted, booleans and numbers as written. #}
{% macro literal(value) %}{{ return(adapter.dispatch('literal', 'rankmetrics')(value)) }}{% endmacro %}

{% macro default__literal(value) -%}
  {%- if value is none -%}NULL
  {%- elif value is sameas true -%}TRUE
  {%- elif value is sameas false -%}FALSE
  {%- elif value is string -%}'{{ value | replace("'", "''") }}'
  {%- else -%}{{ value }}
  {%- endif -%}
{%- endmacro %}

{% macro sqlserver__literal(value) -%}
  {%- if value is sameas true -%}1
  {%- elif value is sameas false -%}0
  {%- elif value is string -%}N'{{ value | replace("'", "''") }}'
  {%- else -%}{{ rankmetrics.default__literal(value) }}
  {%- endif -%}
{%- endmacro %}

{# A column name as SQL: as given when a plain lower-case name or already quoted, else quoted by the adapter
   (as `rankmetrics sql` writes the user's columns, so that their case survives engines that fold names). #}
{% macro column(name) -%}
  {%- if modules.re.match('^[a-z_][a-z0-9_]*$', name) or name[:1] in ['"', '`', '['] -%}{{ name }}
  {%- else -%}{{ adapter.quote(name) }}
  {%- endif -%}
{%- endmacro %}

{# Column names given as one name or a list (none: no names), as a list. #}
{% macro rm_names(value, what) %}
  {%- if value is none -%}{{ return([]) }}{%- endif -%}
  {%- set names = [value] if value is string else value | list -%}
  {%- for n in names if n is not string or not n | trim -%}
    {{ exceptions.raise_compiler_error(what ~ " must be column names, not " ~ value) }}
  {%- endfor -%}
  {{ return(names) }}
{% endmacro %}

{# The tables' shape as a metric reads it: the group columns (by) and those of them the judgments have
   (judgments_by; when not given, read off the judgments relation's columns, as `rankmetrics eval` does); a
   run without a score or rank column is refused. #}
{% macro rm_shape(what, judgments, score_column, rank_column, relevance_column, by, judgments_by, run_lists,
                  judgment_lists) %}
  {%- set by = rankmetrics.rm_names(by, what ~ ": by") -%}
  {%- for g in by if g | lower in @OUTPUT_COLUMNS@ -%}
    {{ exceptions.raise_compiler_error(what ~ ": by: a group column named '" ~ g ~ "' would clash with the results' own columns (@OUTPUT_NAMES@); rename it in a view or query") }}
  {%- endfor -%}
  {%- for g in by if g | lower in @OUR_COLUMNS@ or g in [score_column, rank_column, relevance_column] -%}
    {{ exceptions.raise_compiler_error(what ~ ": by: " ~ g ~ " is one of the run's id, score or rank columns, or has one of their names (@OUR_NAMES@); rename the group column in a view or query") }}
  {%- endfor -%}
  {%- if judgments_by is not none -%}
    {%- set jby = rankmetrics.rm_names(judgments_by, what ~ ": judgments_by") -%}
    {%- for g in jby if g not in by -%}
      {{ exceptions.raise_compiler_error(what ~ ": judgments_by: " ~ g ~ " is not a group column (by)") }}
    {%- endfor -%}
  {%- elif by and execute and judgments is not string -%}
    {%- set names = [] -%}
    {%- for c in adapter.get_columns_in_relation(judgments) -%}{%- do names.append(c.name | lower) -%}{%- endfor -%}
    {%- set jby = [] -%}
    {%- for g in by if (g | lower) in names -%}{%- do jby.append(g) -%}{%- endfor -%}
  {%- else -%}
    {%- set jby = [] -%}
  {%- endif -%}
  {%- if not run_lists and score_column is none and rank_column is none -%}
    {{ exceptions.raise_compiler_error(what ~ ": the run needs a score_column or a rank_column (or run_lists=true)") }}
  {%- endif -%}
  {{ return({'by': by, 'judgments_by': jby}) }}
{% endmacro %}

{# Whether the run's ranks must be 1..n per query: under a preset whose library reads rank values as positions
   (RecTools'), the ranking following the rank column, not judged_only (conventions.reads_rank_values, read off
   for every preset, ties and judged_only); the metric then fails on a query whose ranks are not, as
   `rankmetrics sql` does. A list's positions are 1..n. #}
{% macro rm_rank_positions(preset, ties, judged_only, rank_column, run_lists) %}
  {{- return(rank_column is not none and not run_lists and judged_only in @RANK_POSITIONS@.get(preset, {}).get(ties, [])) -}}
{% endmacro %}

{# A group value as GROUP BY and the paired t-test compare it: the value itself, and beside it its byte-wise form
   where the adapter's default collation holds values equal that differ in case or trailing spaces (MySQL, SQL
   Server: dialects.Dialect.bytewise_value), as the metrics' own groups are kept apart. #}
{% macro rm_group_keys(value) %}{{ return(adapter.dispatch('rm_group_keys', 'rankmetrics')(value)) }}{% endmacro %}

{% macro default__rm_group_keys(value) %}{{ return(value) }}{% endmacro %}
@GROUP_KEYS@
{% macro mysql__literal(value) -%}
  {%- if value is string -%}'{{ value | replace("\\\\", "\\\\\\\\") | replace("'", "''") }}'
  {%- else -%}{{ rankmetrics.default__literal(value) }}
  {%- endif -%}
{%- endmacro %}
"""
# the results' own columns (shape.OUTPUT_COLUMNS), which a group column may not be named like (shape.Shape refuses
# it on the other routes), and ours (shape.COLUMNS: a group named score was read from score_column)
_HELPERS = _HELPERS.replace("@OUTPUT_COLUMNS@", repr(list(shape.OUTPUT_COLUMNS))).replace(
    "@OUTPUT_NAMES@", ", ".join(shape.OUTPUT_COLUMNS)).replace("@OUR_COLUMNS@", repr(list(shape.COLUMNS))).replace(
    "@OUR_NAMES@", ", ".join(shape.COLUMNS)).replace("@GROUP_KEYS@", "".join(
        "{%% macro %s__rm_group_keys(value) %%}{{ return(value ~ ', ' ~ %s) }}{%% endmacro %%}\n" % (
            d.dbt_adapter, " ~ value ~ ".join(_jinja(part) for part in d.bytewise_value.split("{x}")))
        for d in dialects.DIALECTS.values() if d.dbt_adapter and d.bytewise_value))


def _rank_values() -> dict:
    """{preset: {ties: [judged_only, ...]}}: the calls whose run's ranks must be 1..n per query, as
    conventions.reads_rank_values decides for every preset and the two conventions it reads (ties, judged_only),
    which every metric macro takes (rm_rank_positions reads the table)."""
    out: dict = {}
    for preset in conventions.PRESETS:
        for ties in conventions.PARAMETERS["ties"][0]:
            for judged_only in (False, True):
                if conventions.reads_rank_values(preset, conventions.resolve(preset, ties=ties,
                                                                             judged_only=judged_only)):
                    out.setdefault(preset, {}).setdefault(ties, []).append(judged_only)
    return out


# --- evaluate: several measures by name, in long rows ----------------------------------------------------------

def _names() -> dict:
    """{spelling: [macro, fixed parameters, aggregate, side tables]} of the measure names `rankmetrics.evaluate`
    reads (side tables: Metric.tables, checked by evaluate before the call): every
    spelling of measures.parse's tables (ir_measures, ranx and trec_eval names, in their usual cases), bare or
    with a cutoff written '#' (nDCG@#, ndcg_cut_#, P.#), and the names trec_eval's families with decimal
    parameters print (iprec_at_recall_0.10, Rprec_mult_0.20), each as measures.parse reads it, with the
    aggregate of its mean (GMAP: the geometric mean); a spelling that names several measures (trec_eval's bare
    P) is left out."""
    # and the spellings as their libraries write them: trec_eval's (set_F, relative_P), ir_measures' SetP,
    # RecTools' classes (HitRate, PartialAUC, MeanInvUserFreq)
    bases = (set(measures.METRICS) | set(measures._CANONICAL) | set(measures.RANX_NAMES) | set(measures.TREC_NAMES)
             | set(measures.RECSYS_NAMES) | set(measures.TREC_ORDER) | set(measures.IRM_SET_NAMES)
             | {"HitRate", "PartialAUC", "SufficientReco", "CoveredUsers", "MeanInvUserFreq", "AvgRecPopularity",
                "CatalogCoverage", "IntraListDiversity", "Precision", "Recall", "MAP", "MRR", "NDCG"})
    spellings = [(spelling, form) for base in sorted(bases)
                 for spelling in sorted({base, base.lower(), base.upper(), base[:1].upper() + base[1:]})
                 for form in ("", "@#", "_#", ".#")]
    spellings += [(m.requested, "") for fam in measures._FRACTION_FAMILIES for m in measures.parse(fam)]
    out = {}
    for spelling, form in spellings:
        try:
            parsed = measures.parse(spelling + form.replace("#", "7"))
        except UsageError:
            continue
        if len(parsed) == 1 and parsed[0].k == (7 if form else None):
            m = parsed[0]
            out[spelling + form] = [m.metric.macro, dict(m.params), m.metric.mean.name, list(m.metric.tables)]
    return out


# the SQL of each aggregate of a mean over rm_m.value (measures.AGGREGATES; portable: LN, EXP, AVG, SUM)
_MEANS = {"avg": "AVG(rm_m.value)", "sum": "SUM(rm_m.value)",
          "gmean": f"EXP(AVG(LN(CASE WHEN rm_m.value < {measures.MIN_GEO_MEAN:.5f} THEN {measures.MIN_GEO_MEAN:.5f} "
                   f"ELSE rm_m.value END)))"}


def _evaluate_file() -> str:
    macros = native.metric_macros()
    params = {m: [n for n, _, _ in native.parameters(m)] for m in macros}
    names = _names()
    # the relevance level reaches a gain metric (nDCG, DCG) only under level_for_gain, as Measure.values reads it
    gain_macros = sorted({m.macro for m in measures.METRICS.values() if m.gain_metric})
    for_gain = {p: bool(v.get("level_for_gain")) for p, v in conventions.PRESETS.items()}
    # ... and then the preset's level (or the one given); otherwise the metric's own (RBP: none, graded), whatever
    # the metric macro's preset default holds (ranx's RBP there has rel 1, for ranx's level_for_gain)
    preset_rel = {p: conventions.resolve(p)["rel"] for p in conventions.PRESETS}
    own_rel = {m: measures.of_macro(m).defaults.get("rel") for m in gain_macros}
    # a metric macro reads rel=none as "the preset's": where that is a level and the metric's own is none (ranx's
    # RBP), the graded measure cannot be asked for through it, and evaluate says so rather than compute binary RBP
    bound_rel = {m: [p for p, values in _presets(m, native.parameters(m)).items() if values.get("rel") is not None]
                 for m in gain_macros if own_rel[m] is None}
    known = sorted({n for ps in params.values() for n in ps})  # (level_for_gain is evaluate's own argument)
    if {n[2] for n in names.values()} - set(_MEANS):
        raise ValueError("an aggregate without its SQL in dbt._MEANS")
    # the side tables and their column names (the metrics that read them: Metric.tables)
    side_args = ", ".join(["interactions=none", "items=none", "reference=none"]
                          + [f"{n}={_jinja(v)}" for n, v in SIDE_SIGNATURE])
    pass_tables = ", ".join(f"{n}={n}" for n in ["interactions", "items"] + [n for n, _ in SIDE_SIGNATURE])
    pass_sides = pass_tables + ", reference=reference"

    def sides_of(m):  # what rm_call passes on to the metric macro m
        taken = native.sides_of(m)
        return "reference=reference, " if taken == ["reference"] else pass_tables + ", " if taken else ""
    shape_args = ", ".join(f"{n}={_jinja(v)}" for n, v in SHAPE_ARGS) + ", " + ", ".join(
        f"{n}={v}" for n, v in GROUP_ARGS)
    pass_shape = ", ".join(f"{n}={n}" for n, _ in SHAPE_ARGS + GROUP_ARGS)
    calls = "\n".join(f"  {{%- if macro == {_jinja(m)} -%}}{{{{ return(rankmetrics.{m}(run, judgments, preset=preset, "
                      f"{pass_shape}, {sides_of(m)}**kwargs)) }}}}{{%- endif -%}}"
                      for m in macros)
    missing = "\n".join(
        f"    {{%- if {_jinja(table)} in spec[3] and {test} -%}}\n"
        f"      {{{{ exceptions.raise_compiler_error(\"rankmetrics.evaluate: measure '\" ~ text ~ \"' reads {what}: "
        f"give {give}\") }}}}\n    {{%- endif -%}}"
        for (table,), test in _NEEDED.items()
        for what, give in [{"interactions": ("the training interactions", "interactions=ref(...)"),
                            "catalog": ("the catalog", "items=ref(...) (or interactions=, whose items are then the "
                                                       "catalog)"),
                            "vectors": ("the items' vectors", "items=ref(...), with an embedding column"),
                            "reference": ("a reference run", "reference=ref(...), in the run's shape")}[table]])
    return f"""{{# rankmetrics {__version__}: generated by `rankmetrics dbt`. Do not edit. #}}
{{# Several measures by name, in long rows: (measure, <by columns>, query_id, value) with per_query=true, else
   (measure, <by columns>, value), each measure's mean over its queries (trec_eval's counts: their sum), as
   `rankmetrics eval` prints it. A name is read as `rankmetrics eval` reads it (nDCG@10, AP, P@5, ndcg_cut_10,
   recip_rank, mrr@10, ...); conventions given as keyword arguments (gain='exponential') go to every measure
   that takes them (rel to nDCG, DCG and RBP only under level_for_gain, the preset's unless given, as -l in
   trec_eval); one no metric takes fails the compile. The recommender metrics read the side tables interactions= and items= (and their column
   names), Intersection a reference run (reference=, in the run's shape); a catalog-wide one gives one row (per
   group), query_id NULL. #}}
{{% macro evaluate(run, judgments, metrics, per_query=true, preset='trec_eval', {shape_args}, {side_args}, level_for_gain=none) %}}
  {{%- set names = {_jinja_value(names)} -%}}
  {{%- for key in kwargs if key not in {_jinja_value(known)} -%}}
    {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: unknown argument '" ~ key ~ "'; conventions are those of the metric macros (gain, rel, ties, queries, ...)") }}}}
  {{%- endfor -%}}
  {{%- set for_gain = level_for_gain if level_for_gain is not none else {_jinja_value(for_gain)}.get(preset, false) -%}}
  {{%- set params = {_jinja_value(params)} -%}}
  {{%- set means = {_jinja_value(_MEANS)} -%}}
  {{%- if adapter.type() == 'sqlserver' -%}}
    {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: SQL Server allows no WITH inside a subquery; call the metric macros one by one") }}}}
  {{%- endif -%}}
  {{%- set metrics = [metrics] if metrics is string else metrics -%}}
  {{%- if not metrics -%}}
    {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: metrics must name at least one measure") }}}}
  {{%- endif -%}}
  {{%- set by_list = rankmetrics.rm_names(by, "rankmetrics.evaluate: by") -%}}
  {{%- for name in metrics -%}}
    {{%- set text = name | trim -%}}
    {{%- set m = modules.re.fullmatch('(.*?)([@_.])([0-9]+)', text) -%}}
    {{%- if m and (m.group(1) ~ m.group(2) ~ '#') in names -%}}
      {{%- set spec, k = names[m.group(1) ~ m.group(2) ~ '#'], m.group(3) | int -%}}
    {{%- elif text in names -%}}
      {{%- set spec, k = names[text], none -%}}
    {{%- elif m and m.group(1) in names -%}}
      {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: measure '" ~ text ~ "' takes no cutoff") }}}}
    {{%- else -%}}
      {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: cannot read measure name '" ~ text ~ "'; write e.g. nDCG@10, AP, P@5, ndcg_cut_10 or recip_rank, one measure per name, and conventions as arguments") }}}}
    {{%- endif -%}}
{missing}
    {{%- set args = {{}} -%}}
    {{%- for key, value in kwargs.items() if key in params[spec[0]] and not (key == 'rel' and spec[0] in {_jinja_value(gain_macros)} and not for_gain) -%}}{{%- do args.update({{key: value}}) -%}}{{%- endfor -%}}
    {{%- if not for_gain and 'rel' not in spec[1] and preset in {_jinja_value(bound_rel)}.get(spec[0], []) -%}}
      {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: measure '" ~ text ~ "' without level_for_gain is graded, which the preset '" ~ preset ~ "' of rankmetrics." ~ spec[0] ~ " does not give (its rel is a level there); call rankmetrics." ~ spec[0] ~ " with preset='trec_eval' and the conventions as arguments") }}}}
    {{%- endif -%}}
    {{%- if spec[0] in {_jinja_value(gain_macros)} and 'rel' in params[spec[0]] -%}}
      {{%- do args.update({{'rel': (kwargs['rel'] if 'rel' in kwargs else {_jinja_value(preset_rel)}.get(preset, 1)) if for_gain else {_jinja_value(own_rel)}[spec[0]]}}) -%}}
    {{%- endif -%}}
    {{%- do args.update(spec[1]) -%}}
    {{%- if 'k' in params[spec[0]] -%}}
      {{%- do args.update({{'k': k}}) -%}}
    {{%- elif k is not none -%}}
      {{{{ exceptions.raise_compiler_error("rankmetrics.evaluate: measure '" ~ text ~ "' takes no cutoff") }}}}
    {{%- endif -%}}
    {{%- set sql = rankmetrics.rm_call(spec[0], run, judgments, preset, {pass_shape}, {pass_sides}, **args) -%}}
    {{%- if not loop.first %}}
UNION ALL
{{% endif -%}}
    {{%- if per_query %}}
SELECT {{{{ rankmetrics.literal(text) }}}} AS measure, rm_m.* FROM (
{{{{ sql }}}}
) AS rm_m
    {{%- else %}}
SELECT {{{{ rankmetrics.literal(text) }}}} AS measure, {{% for g in by_list %}}rm_m.{{{{ adapter.quote(g) }}}}, {{% endfor %}}{{{{ means[spec[2]] }}}} AS value FROM (
{{{{ sql }}}}
) AS rm_m
{{% if by_list %}}GROUP BY {{% for g in by_list %}}{{{{ rankmetrics.rm_group_keys('rm_m.' ~ adapter.quote(g)) }}}}{{% if not loop.last %}}, {{% endif %}}{{% endfor %}}{{% endif %}}
    {{%- endif -%}}
  {{%- endfor -%}}
{{% endmacro %}}

{{# The metric macro named `macro`, called (each by name, so that dbt sees every call: a test compiles with the
   macros it is seen to call). #}}
{{% macro rm_call(macro, run, judgments, preset, {shape_args}, {side_args}) %}}
{calls}
  {{{{ exceptions.raise_compiler_error("rankmetrics: no metric macro " ~ macro) }}}}
{{% endmacro %}}
"""


def _jinja_value(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_jinja(k)}: {_jinja_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_jinja_value(v) for v in value) + "]"
    return _jinja(value)


# --- generic tests ----------------------------------------------------------------------------------------------

ALPHAS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1)
_TABLE_DF = 300   # degrees of freedom with a tabled critical value; above, the Cornish-Fisher expansion (< 1e-10)


def _critical(alpha: float) -> dict:
    """The two-sided critical values of Student's t at level alpha for 1.._TABLE_DF degrees of freedom (the
    inverse of stats.t_two_sided, by bisection), and the coefficients of the Cornish-Fisher expansion beyond:
    t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4 (Abramowitz & Stegun 26.7.5), z the normal quantile."""
    from statistics import NormalDist
    from . import stats

    def inverse(df):
        lo, hi = 0.0, 1e6
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid in (lo, hi):  # lo and hi are neighbouring floats: no step would change them
                break
            lo, hi = (mid, hi) if stats.t_two_sided(mid, df) > alpha else (lo, mid)
        return (lo + hi) / 2
    z = NormalDist().inv_cdf(1 - alpha / 2)
    g = [z, (z ** 3 + z) / 4, (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
         (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
         (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160]
    return {"table": [inverse(df) for df in range(1, _TABLE_DF + 1)], "g": g}


_PAIRED = """
WITH rm_v AS (SELECT rm_vv.* FROM rm_dbt_values AS rm_vv),
rm_d AS (
  SELECT c.rm_dbt_c_model AS candidate, c.value - b.value AS diff
  FROM rm_v AS c JOIN rm_v AS b ON b.query_id = c.query_id
  WHERE b.rm_dbt_c_model = rm_dbt_p_baseline AND NOT c.rm_dbt_c_model = rm_dbt_p_baseline
    AND NOT c.value IS NULL AND NOT b.value IS NULL
),
rm_s AS (
  SELECT d.candidate, COUNT(*) AS n, AVG(d.diff) AS mean_difference, STDDEV_SAMP(d.diff) AS sd
  FROM rm_d AS d GROUP BY d.candidate
),
rm_x AS (
  SELECT s.candidate, s.n, s.mean_difference, s.sd, s.n - 1 AS df, s.mean_difference / NULLIF(s.sd / SQRT(s.n), 0) AS t
  FROM rm_s AS s
)
SELECT x.candidate, x.n, x.mean_difference, x.t, rm_dbt_critical AS critical
FROM rm_x AS x
WHERE x.mean_difference < 0 AND x.n >= 2 AND (x.sd = 0 OR -x.t > rm_dbt_critical)
"""


def paired_body(dialect: str) -> str:
    """The paired t-test of no_regression for one dialect, as Jinja: the rows of the candidates whose mean is
    significantly below the baseline's (two-sided, as `rankmetrics compare --test t`)."""
    import sqlglot
    tree = sqlglot.parse_one(_PAIRED, read="duckdb")
    # the models compared as the metrics' groups are (dialects.group_keys): MySQL's case-blind = held a model V1
    # for the baseline v1, and its GROUP BY merged V2 with v2
    for eq in list(tree.find_all(exp.EQ)):
        if not (isinstance(eq.expression, exp.Column) and eq.expression.name == _P + "baseline"):
            continue
        keys = list(zip(dialects.group_keys(eq.this, dialect), dialects.group_keys(eq.expression, dialect)))
        if len(keys) > 1:
            eq.replace(exp.Paren(this=exp.and_(*[exp.EQ(this=a.copy(), expression=b.copy()) for a, b in keys])))
    for group in tree.find_all(exp.Group):
        group.set("expressions", [k for e in group.expressions for k in dialects.group_keys(e, dialect)])
    text = dialects.render(tree, dialect)
    critical = ("CASE {% for c in critical.table %}WHEN x.df = {{ loop.index }} THEN {{ c }} {% endfor %}"
                "ELSE {{ critical.g[0] }} + {{ critical.g[1] }} / x.df + {{ critical.g[2] }} / (x.df * x.df) + "
                "{{ critical.g[3] }} / (x.df * x.df * x.df) + {{ critical.g[4] }} / (x.df * x.df * x.df * x.df) END")
    text = re.sub(r"\brm_dbt_critical\b", lambda m: critical, text)
    text = re.sub(r"\b(?:\w+\.)?rm_dbt_values\b", "({{ values }})", text)
    text = re.sub(r"\brm_dbt_c_model\b", "{{ rankmetrics.column(model_column) }}", text)
    text = re.sub(r"\brm_dbt_p_baseline\b", "{{ rankmetrics.literal(baseline) }}", text)
    if "rm_dbt_" in text:
        raise ValueError(f"paired t-test for {dialect}: a placeholder is left in the SQL")
    return text


def _tests_file() -> str:
    shape_args = ", ".join(f"{n}={_jinja(v)}" for n, v in SHAPE_ARGS)
    pass_shape = ", ".join(f"{n}={n}" for n, _ in SHAPE_ARGS)
    critical = {str(a): _critical(a) for a in ALPHAS}
    lines = [f"{{# rankmetrics {__version__}: generated by `rankmetrics dbt`. Do not edit. #}}", f"""
{{# A model's quality gates the build. Applied to a run (the model: its rows are the recommendations):

     metric_at_least: every group's mean of `metric` (evaluate's, per_query=false) is at least `threshold`;
       the failing rows are the groups below it (or without a value). With `by`, each group is a run.
     no_regression: no group of `model_column` has a mean significantly below the `baseline` group's: Student's
       paired t-test over the queries both have, two-sided at level `alpha` (one of {", ".join(map(str, ALPHAS))}),
       as `rankmetrics compare --test t`; the failing rows are those candidates (their n, mean difference, t
       and critical value).
#}}
{{% test metric_at_least(model, judgments, metric, threshold, by=none, preset='trec_eval', {shape_args}, judgments_by=none, run_lists=false, judgment_lists=false) %}}
  {{%- set run = "(SELECT * FROM " ~ model ~ ")" -%}}
  SELECT rm_t.* FROM (
    {{{{ rankmetrics.evaluate(run, judgments, [metric], per_query=false, preset=preset, {pass_shape}, by=by, judgments_by=judgments_by, run_lists=run_lists, judgment_lists=judgment_lists, **kwargs) }}}}
  ) AS rm_t
  WHERE rm_t.value IS NULL OR rm_t.value < {{{{ threshold }}}}
{{% endtest %}}

{{% test no_regression(model, judgments, metric, model_column, baseline, alpha=0.05, preset='trec_eval', {shape_args}, run_lists=false, judgment_lists=false) %}}
  {{%- set table = {_jinja_value(critical)} -%}}
  {{%- if (alpha | string) not in table -%}}
    {{{{ exceptions.raise_compiler_error("rankmetrics.no_regression: alpha must be one of {", ".join(map(str, ALPHAS))}, not " ~ alpha) }}}}
  {{%- endif -%}}
  {{%- set run = "(SELECT * FROM " ~ model ~ ")" -%}}
  {{%- set values = rankmetrics.evaluate(run, judgments, [metric], per_query=true, preset=preset, {pass_shape}, by=[model_column], judgments_by=[], run_lists=run_lists, judgment_lists=judgment_lists, **kwargs) -%}}
  {{{{ adapter.dispatch('rm_paired_t', 'rankmetrics')(values, model_column, baseline, table[alpha | string]) }}}}
{{% endtest %}}
""", "{% macro rm_paired_t(values, model_column, baseline, critical) %}{{ return(adapter.dispatch('rm_paired_t', "
         "'rankmetrics')(values, model_column, baseline, critical)) }}{% endmacro %}", ""]
    lines += _implementations("rm_paired_t", "values, model_column, baseline, critical",
                              {a: paired_body(d.name) for a, d in adapters()})
    return "\n".join(lines)


def _project() -> str:
    return (f"name: '{PACKAGE}'\nversion: '{__version__}'\nconfig-version: 2\n"
            f"require-dbt-version: ['>=1.6.0', '<2.0.0']\nmacro-paths: ['macros']\n")


def _readme() -> str:
    listed = "\n".join(f"- `{a}__`: written as the `{d.name}` dialect of rankmetrics ({d.note or d.name})"
                       for a, d in adapters())
    return f"""# rankmetrics (dbt package)

Generated by `rankmetrics dbt` (rankmetrics-duckdb {__version__}) from the package's SQL; do not edit by hand,
generate it again.

```yaml
# packages.yml
packages:
  - local: path/to/this/folder
```

```sql
-- models/ndcg_by_user.sql
{{{{ rankmetrics.ndcg(ref('recs'), ref('labels'), k=10, query_column='user_id', item_column='movie_id',
                     score_column='pred', relevance_column='rating') }}}}
```

Every metric is a macro returning `(<by columns>, query_id, value)`, one row per query (and group) the `queries`
convention keeps: {", ".join(f"`{m}`" for m in native.metric_macros())}. Arguments: the run and judgments
relations; `k` (none: no cutoff) and the metric's conventions (`gain`, `ties`, `queries`, ...), each none by
default, which takes the value of `preset` (`{"`, `".join(conventions.PRESETS)}`; default `trec_eval`, whose
values are the defaults of the package's SQL); the column names (`query_column`, `item_column`, `score_column`,
`rank_column`, `relevance_column`; quoted by the adapter unless plain lower-case names); `by` (the run's group
columns: each group is a run of its own), `judgments_by` (those the judgments have too; by default read off the
judgments relation's columns), `run_lists` / `judgment_lists` (the item column is an array: the run's in rank
order; the judgments' relevant items, their grades in a parallel array named by `relevance_column`, or grade 1
with `relevance_column=none`). A duplicate item in a query of the run, a conflicting judgment or an argument
outside its range fails the query with the engine's error, naming it; under `preset='rectools'` with a
`rank_column` (not `judged_only`), so does a query whose ranks are not 1..n (tied, with a gap, not from 1, not
whole): RecTools reads rank values as positions, and only ranks 1..n give its numbers.

The recommender metrics that read tables beside the run take them as relations: `interactions` (the training
log: `user_id`, `item_id`) and `items` (the catalog: `item_id`, by default the interactions' items; with an
`embedding` array column for `intra_list_diversity`), their columns named by `interactions_user_column`,
`interactions_item_column`, `items_item_column` and `items_embedding_column` where they differ. The catalog-wide
ones (`catalog_coverage`, `gini`, `entropy`; and `gauc`, `personalization`) return one row per group, query_id NULL.

`evaluate(run, judgments, metrics=['nDCG@10', 'AP'], per_query=true, ...)` returns long rows `(measure, <by
columns>, query_id, value)`, or with `per_query=false` each measure's mean `(measure, <by columns>, value)`;
measure names are read as `rankmetrics eval` reads them, one measure per name with at most a whole cutoff (a
decimal parameter only in trec_eval's printed names, iprec_at_recall_0.50; call the metric's macro for others);
conventions given as keyword arguments go to every
measure that takes them (`rel` reaches the gain metrics, nDCG, DCG and RBP, only under `level_for_gain`: the
preset's, false under trec_eval's, unless given), and one that no metric takes fails the compile; the side tables and their column names as above (`interactions=ref('train'),
items=ref('items')`), a measure that needs a missing one failing the compile.

Generic tests on the relation holding the run: `metric_at_least` (judgments, metric, threshold, by, column
names: fails with each group whose mean is below the threshold) and `no_regression` (judgments, metric,
model_column, baseline, alpha: fails with each group of model_column whose mean is significantly below the
baseline group's, by Student's paired t-test over the common queries, two-sided, as `rankmetrics compare`).

Adapters (`adapter.dispatch('<metric>', 'rankmetrics')`):
{listed}
"""


def _metric_files(names: list[str]) -> list[str]:
    """Each metric's file (_metric_file), in the order of names. Each is seconds of sqlglot's work and they share
    nothing but the pieces the first renders (_piece, cached), so after the first the rest are written by a pool of
    forked processes, one per core, which inherit those pieces; one core, or no fork: one after the other. The
    text is the same either way."""
    first = [_metric_file(names[0])] if names else []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores < 2 or len(names) < 3 or "fork" not in multiprocessing.get_all_start_methods():
        return first + [_metric_file(name) for name in names[1:]]
    with concurrent.futures.ProcessPoolExecutor(min(cores, 8), mp_context=multiprocessing.get_context("fork")) as pool:
        return first + list(pool.map(_metric_file, names[1:]))


def write(folder: str) -> list[str]:
    """Write the package into folder (created if missing, or empty, or a package written here before, whose files
    are replaced); the paths written. Any other folder is refused: its dbt_project.yml, README.md or macros would
    be overwritten (a user's own files are never modified)."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"{folder}: not a folder")
    if os.path.isdir(folder) and os.listdir(folder) and not _ours(folder):
        raise UsageError(f"{folder}: the folder holds files that are not a rankmetrics dbt package (written by "
                         f"rankmetrics dbt); give a new or empty folder, e.g. {os.path.join(folder, 'rankmetrics')}")
    try:
        os.makedirs(os.path.join(folder, "macros"), exist_ok=True)
    except OSError as e:
        raise UsageError(f"{folder}: cannot create the folder ({e.strerror or e})") from None
    files = {"dbt_project.yml": _project(), "README.md": _readme(),
             os.path.join("macros", "_rankmetrics.sql"): _HELPERS.replace("@RANK_POSITIONS@",
                                                                          _jinja_value(_rank_values()))}
    names = native.metric_macros()
    for name, text in zip(names, _metric_files(names)):
        files[os.path.join("macros", f"{name}.sql")] = text
    files[os.path.join("macros", "_shape.sql")] = _shape_file()
    files[os.path.join("macros", "evaluate.sql")] = _evaluate_file()
    files[os.path.join("macros", "tests.sql")] = _tests_file()
    written = []
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        paths.write_text(path, text)  # a file it cannot write: "cannot write PATH: reason", exit 1
        written.append(path)
    return written


def _ours(folder: str) -> bool:
    """Whether folder holds a package rankmetrics dbt wrote: its project file names the project rankmetrics, and
    its helper macros are there."""
    try:
        with open(os.path.join(folder, "dbt_project.yml"), encoding="utf-8") as fh:
            first = fh.readline()
    except (OSError, UnicodeDecodeError):
        return False
    return (first.strip() == f"name: '{PACKAGE}'"  # _project()'s first line
            and os.path.isfile(os.path.join(folder, "macros", "_rankmetrics.sql")))
