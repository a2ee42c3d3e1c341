"""The dbt package: every metric of sql/ as a dbt macro, rendered for each warehouse by the dialect layer.

`rankmetrics dbt -o DIR` writes a dbt package named `rankmetrics`. A model calls

    {{ rankmetrics.ndcg(ref('recs'), ref('labels'), k=10, query_column='user_id', preset='ranx') }}

and gets a SELECT returning (query_id, value), one row per query the `queries` convention keeps. Each macro
dispatches (adapter.dispatch, as dbt-utils does) to one implementation per adapter: `default__` (DuckDB) and
one for each adapter whose dialect (dialects.Dialect.dbt_adapter) renders differently; an adapter whose SQL is
the same as another's points at it.

One definition, many renderings: an implementation is the metric's native-object body (native.query: the macro
of sql/ expanded with its parameters left as parameters, in the one-row CTE params), written by the dialect
layer, with placeholders where dbt fills in the call's values: the tables ({{ run }}), the column names, and
each parameter as a SQL literal (rankmetrics.literal). Nothing is baked in: a parameter left out takes the
value of the preset (default trec_eval, whose values are sql/'s defaults), read off conventions.PRESETS and
measures.Measure.values as `rankmetrics eval --convention` reads them.
"""
from __future__ import annotations

import math
import os
import re

from . import conventions, dialects, measures, native, sqlgen
from ._version import __version__
from .errors import UsageError

from ._lazy import LazyModule

exp = LazyModule("sqlglot.expressions")

PACKAGE = "rankmetrics"
_P = "rm_dbt_p_"        # a parameter's placeholder: rm_dbt_p_k
_C = "rm_dbt_c_"        # a column name's placeholder: rm_dbt_c_query_id
_RUN, _JUDGMENTS = "rm_dbt_run", "rm_dbt_judgments"
SHAPE_ARGS = (("query_column", "query_id"), ("item_column", "item_id"), ("score_column", "score"),
              ("rank_column", None), ("relevance_column", "relevance"))


def adapters() -> list[tuple[str, dialects.Dialect]]:
    """(adapter, dialect) of every dialect with a dbt adapter, the default (DuckDB) first."""
    out = [(d.dbt_adapter, d) for d in dialects.DIALECTS.values() if d.dbt_adapter]
    return sorted(out, key=lambda a: a[0] != "default")


def _metric(macro_name: str) -> measures.Metric:
    for m in measures.METRICS.values():
        if m.macro == macro_name:
            return m
    raise ValueError(f"no metric spec for macro {macro_name}")


def _jinja(value) -> str:
    """A Python value as a Jinja literal."""
    if value is None:
        return "none"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


def _presets(macro_name: str, params: list) -> dict:
    """{preset: {parameter: value}} for this metric: what `eval --convention preset` passes to its macro."""
    metric = _metric(macro_name)
    names = [name for name, _, _ in params if name != "k"]
    out = {}
    for preset in conventions.PRESETS:
        conv = conventions.resolve(preset)
        values = {**conv, **measures.Measure(metric.name, metric, None, ()).values(conv)}
        out[preset] = {n: (math.e if values[n] == "e" else values[n]) for n in names}  # log_base 'e': the number
    return out


def body(macro_name: str, dialect: str) -> str:
    """The SQL of one metric for one dialect, with the Jinja placeholders of the call filled in."""
    d = dialects.get(dialect)
    columns = {ours: _C + ours for ours in ("query_id", "item_id", "score", "rank", "relevance")}
    run = sqlgen.Source(exp.to_table(_RUN), has_score=True, has_rank=True, columns=columns)
    judgments = sqlgen.Source(exp.to_table(_JUDGMENTS), columns=columns)

    def ref(name, kind):  # the parameter's placeholder, cast to its type as the native objects declare it
        return exp.Cast(this=exp.column(_P + name), to=exp.DataType.build(native._type(kind, d), dialect=d.sqlglot))
    text = dialects.render(native.query(macro_name, dialect, run, judgments, None, ref=ref), dialect)
    if any(t in text for t in ("{{", "{%", "{#")):
        raise ValueError(f"{macro_name} for {dialect}: the SQL holds a Jinja delimiter")
    # the run's score and rank: a score column, else the negated rank (as sqlgen.run_items); the rank if any
    score = re.compile(r"CAST\((\w+)\." + _C + r"score AS ([^()]+(?:\([^()]*\))?)\)")
    text, n = score.subn(lambda m: (f"{{% if score_column %}}CAST({m[1]}.{{{{ score_column }}}} AS {m[2]})"
                                    f"{{% else %}}-CAST({m[1]}.{{{{ rank_column }}}} AS {m[2]}){{% endif %}}"), text)
    rank = re.compile(r"CAST\((\w+)\." + _C + r"rank AS ([^()]+(?:\([^()]*\))?)\)")
    text, m = rank.subn(lambda m: (f"{{% if rank_column %}}CAST({m[1]}.{{{{ rank_column }}}} AS {m[2]})"
                                   f"{{% else %}}CAST(NULL AS {m[2]}){{% endif %}}"), text)
    if n != 1 or m != 1:
        raise ValueError(f"{macro_name} for {dialect}: expected one score and one rank expression, not {n} and {m}")
    text = re.sub(r"\b" + _C + r"(query_id|item_id|relevance)\b",
                  lambda m: "{{ " + {"query_id": "query_column", "item_id": "item_column",
                                     "relevance": "relevance_column"}[m[1]] + " }}", text)
    text = re.sub(r"\b" + _P + r"(\w+)\b", lambda m: "{{ rankmetrics.literal(" + m[1] + ") }}", text)
    text = re.sub(r"\b" + _RUN + r"\b", "{{ run }}", text)
    text = re.sub(r"\b" + _JUDGMENTS + r"\b", "{{ judgments }}", text)
    if any(t in text for t in (_P, _C, _RUN, _JUDGMENTS)):
        raise ValueError(f"{macro_name} for {dialect}: a placeholder is left in the SQL")
    return text


def _metric_file(macro_name: str) -> str:
    params = native.parameters(macro_name)
    names = [name for name, _, _ in params]
    presets = _presets(macro_name, params)
    shape = [name for name, _ in SHAPE_ARGS]
    signature = ", ".join(["run", "judgments"] + [f"{n}=none" for n in names] + ["preset='trec_eval'"]
                          + [f"{n}={_jinja(v)}" for n, v in SHAPE_ARGS])
    impl_args = ", ".join(["run", "judgments"] + names + shape)
    metric = _metric(macro_name)
    preset_dict = "{" + ", ".join(f"{_jinja(p)}: {{" + ", ".join(f"{_jinja(n)}: {_jinja(v)}"
                                                                   for n, v in values.items()) + "}"
                                   for p, values in presets.items()) + "}"
    lines = [
        f"{{# rankmetrics {__version__}: generated by `rankmetrics dbt` from sql/{macro_name}.sql. Do not edit. #}}",
        f"{{# {metric.name}: {metric.description}. Returns (query_id, value), one row per query the queries",
        "   convention keeps. A parameter left out (none) takes the preset's value (trec_eval: sql/'s defaults).",
        "   Column names are written into the SQL as given (quote them yourself if they need it). #}",
        f"{{% macro {macro_name}({signature}) %}}",
        f"  {{%- set presets = {preset_dict} -%}}",
        "  {%- if preset not in presets -%}",
        f"    {{{{ exceptions.raise_compiler_error(\"rankmetrics.{macro_name}: unknown preset '\" ~ preset ~ \"'; "
        f"choose one of: {', '.join(conventions.PRESETS)}\") }}}}",
        "  {%- endif -%}",
        "  {%- set p = presets[preset] -%}",
        "  {%- if score_column is none and rank_column is none -%}",
        f"    {{{{ exceptions.raise_compiler_error(\"rankmetrics.{macro_name}: the run needs a score_column or a "
        f"rank_column\") }}}}",
        "  {%- endif -%}",
    ]
    resolved = []
    for n in names:
        if n == "k":
            resolved.append("k")
        else:
            resolved.append(f"({n} if {n} is not none else p[{_jinja(n)}])")
    lines += [
        f"  {{{{ return(adapter.dispatch({_jinja(macro_name)}, 'rankmetrics')(run, judgments, "
        f"{', '.join(resolved)}, {', '.join(shape)})) }}}}",
        "{% endmacro %}",
        "",
    ]
    rendered = {}
    for adapter, d in adapters():
        text = body(macro_name, d.name)
        same = next((a for a, t in rendered.items() if t == text), None)
        rendered[adapter] = text
        lines.append(f"{{% macro {adapter}__{macro_name}({impl_args}) %}}")
        if same is not None:  # the same SQL as another adapter's: point at it (as dbt-utils does)
            lines.append(f"  {{{{ return(rankmetrics.{same}__{macro_name}({impl_args})) }}}}")
        else:
            lines.append(text.rstrip())
        lines += ["{% endmacro %}", ""]
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

{% macro mysql__literal(value) -%}
  {%- if value is string -%}'{{ value | replace("\\\\", "\\\\\\\\") | replace("'", "''") }}'
  {%- else -%}{{ rankmetrics.default__literal(value) }}
  {%- endif -%}
{%- endmacro %}
"""


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

Every metric is a macro returning `(query_id, value)`, one row per query the `queries` convention keeps:
{", ".join(f"`{m}`" for m in native.metric_macros())}. Arguments: the run and judgments relations; `k`
(none: no cutoff) and the metric's conventions (`gain`, `ties`, `queries`, ...), each none by default, which
takes the value of `preset` (`{"`, `".join(conventions.PRESETS)}`; default `trec_eval`, whose values are the
defaults of the package's SQL); the column names (`query_column`, `item_column`, `score_column`, `rank_column`,
`relevance_column`). A duplicate item in a query of the run, a conflicting judgment or an argument outside its
range fails the query with the engine's error, naming it.

Adapters (`adapter.dispatch('<metric>', 'rankmetrics')`):
{listed}
"""


def write(folder: str) -> list[str]:
    """Write the package into folder (created if missing; our files replaced); the paths written."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise UsageError(f"{folder}: not a folder")
    os.makedirs(os.path.join(folder, "macros"), exist_ok=True)
    files = {"dbt_project.yml": _project(), "README.md": _readme(),
             os.path.join("macros", "_rankmetrics.sql"): _HELPERS}
    for name in native.metric_macros():
        files[os.path.join("macros", f"{name}.sql")] = _metric_file(name)
    written = []
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        written.append(path)
    return written
