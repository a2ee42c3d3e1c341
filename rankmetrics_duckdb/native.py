"""Native reusable objects: every metric installed once in a warehouse, as that engine's own kind of object.

`rankmetrics macros --dialect D --run TABLE --judgments TABLE` prints DDL that creates, per metric, an object
returning rows (query_id, value) for every query the `queries` convention keeps, with the cutoff k and the
convention parameters as arguments:

    duckdb      table macros (the sql/ files as they are)        SELECT * FROM ndcg('run', 'qrels', 10)
    postgres    SQL functions RETURNS TABLE                      SELECT * FROM rm_ndcg(10)
    spark       SQL table functions (Spark 4)                    SELECT * FROM rm_ndcg(10)
    databricks  SQL table functions                              SELECT * FROM rm_ndcg(10)
    bigquery    table functions (every argument, NULL: default)  SELECT * FROM ds.rm_ndcg(10, NULL, ...)
    snowflake   SQL UDTFs                                        SELECT * FROM TABLE(rm_ndcg(10))
    clickhouse  parameterized views (omitted/NULL: default)      SELECT * FROM rm_ndcg(k=10)

One definition, many renderings: each object is the metric's table macro of sql/, expanded by
sqlsource.expand with the convention parameters left as parameters (not folded to literals). The parameters
enter the query once, as the one-row CTE `params` (the only place that differs between dialects: a function
argument, a BigQuery/Snowflake parameter name, a ClickHouse {name:Type} placeholder); every SELECT that uses a
parameter joins that row as `prm` (and groups by it), so no engine sees a parameter inside an aggregate or a
window (Spark 4 rejects an aggregate mixing a function argument with a column). The run and the judgments are
normalized as in sqlgen (run_items, judgment_items) and read through sql/01_stream.sql's rm_stream; the
dialect layer (dialects.render) then writes the body as it writes `rankmetrics sql`: byte-wise item ids,
explicit null order, NULLIF divisors, ClickHouse's join_use_nulls.
"""
from __future__ import annotations

import collections

from sqlglot import exp

from . import dialects, measures, shape, sqlgen, sqlsource
from .errors import UsageError

PREFIX = "rm_"
DIALECTS = tuple(dialects.native_names())  # the dialects of dialects.DIALECTS that have native objects
RUN_COLUMNS = ("score", "rank", "score,rank")
STREAM = sqlgen.STREAM  # not "stream": FROM STREAM is Spark 4's syntax for a streaming read


def metric_macros(side_tables: bool = True) -> list[str]:
    """The metric table macros of sql/ (ndcg, ap, precision, ...): those of the metric specs (measures.METRICS;
    not the file readers, rm_* pieces or fuse), in file order. side_tables=False leaves out those that read
    tables beside the run and the judgments (Metric.tables: MeanInvUserFreq, ..., the catalog-wide metrics,
    IntraListDiversity)."""
    specs = {m.macro for m in measures.METRICS.values() if side_tables or not m.tables}
    return [name for name, m in sqlsource.macros().items() if m.is_table and name in specs]


# The macros' parameters naming a side table (sql/01_stream.sql's rm_item_stream, rm_catalog_stream,
# rm_vector_stream, rm_reference_stream): the native objects read the tables given when they are generated
# (--interactions, --items: the catalog, with the items' vectors; --reference), as they do the run's.
SIDE_PARAMS = ("interactions", "catalog", "vectors", "reference")


def is_catalog_wide(macro_name: str) -> bool:
    """The macro returns one value for the whole run (Metric.scope 'catalog'), not one per query."""
    return measures.of_macro(macro_name).scope == "catalog"


def parameters(macro_name: str) -> list[tuple[str, str, exp.Expression]]:
    """(name, type, default) of a metric's parameters besides the two tables. The type is a generic SQL type
    (INT, DOUBLE, VARCHAR, BOOLEAN) read off the default: k is a whole number, judged_only a flag, a quoted
    default a text choice, any other a number."""
    macro = sqlsource.macros()[macro_name]
    out = []
    for p in macro.params:
        if p.lower() in ("run", "judgments", *SIDE_PARAMS) or p.strip('"').lower() in shape.MACRO_PARAMS:
            continue
        default = macro.defaults.get(p, exp.Null())
        if isinstance(default, exp.Neg) and isinstance(default.this, exp.Literal):  # utility_b := -1.0
            default = exp.Literal(this=f"-{default.this.this}", is_string=False)
        if p.lower() == "k":
            kind = "INT"
        elif isinstance(default, exp.Boolean):
            kind = "BOOLEAN"
        elif isinstance(default, exp.Literal) and default.is_string:
            kind = "VARCHAR"
        else:
            kind = "DOUBLE"
        out.append((p.lower(), kind, default))
    return out


def _param_ref(d: dialects.Dialect, function: exp.Table, name: str, kind: str) -> exp.Expression:
    """How the body of the object reads its parameter `name` (Native.param_ref)."""
    style = d.native.param_ref
    if style == "placeholder":
        return exp.Placeholder(this=exp.var(name), kind=exp.DataType.build(_type(kind, d), dialect=d.sqlglot))
    if style == "function.name":
        return exp.column(name, table=function.name)
    if style == "name":
        return exp.column(name)
    raise ValueError(f"dialect {d.name}: unknown parameter reference {style!r}")


def _prm(name: str) -> exp.Column:
    return exp.column(name, table="prm")


def _own_columns(select: exp.Select):
    """Columns of select itself, not of the subqueries nested in it."""
    for col in select.find_all(exp.Column):
        if col.find_ancestor(exp.Select) is select:
            yield col


def _read(name: str, kind: str, default: exp.Expression) -> exp.Expression:
    """How the body reads a parameter: prm.name; a flag (judged_only) NULL as its default. rm_checks refuses the
    NULL (_value_checks), and the results' guard fails on their first row; but Spark's optimizer folded the filters
    that read a NULL flag to false, and dropped the empty results' guard with them: judged_only => NULL gave no
    rows and no error."""
    if kind != "BOOLEAN" or isinstance(default, exp.Null):
        return _prm(name)
    given = exp.Not(this=exp.Is(this=_prm(name), expression=exp.Null()))
    # not COALESCE(x, FALSE): SQL Server's flags are BIT, its FALSE a comparison, and the two do not mix
    return exp.Paren(this=exp.Or(this=exp.Not(this=given), expression=_prm(name)) if default.this
                     else exp.And(this=given, expression=_prm(name)))


def _join_params(tree: exp.Expression) -> exp.Expression:
    """Every SELECT that reads a parameter (prm.x) joins the one-row params CTE as prm; one that groups also
    groups by the parameters it reads (constant, so the groups do not change)."""
    for select in list(tree.find_all(exp.Select)):
        used = sorted({c.name for c in _own_columns(select) if c.table == "prm"})
        if not used:
            continue
        select.append("joins", exp.Join(this=exp.Table(this=exp.to_identifier("params"),
                                                       alias=exp.TableAlias(this=exp.to_identifier("prm"))),
                                         kind="CROSS"))
        group = select.args.get("group")
        if group is not None:
            for name in used:
                group.append("expressions", _prm(name))
        elif any(a.find_ancestor(exp.Select) is select and not isinstance(a.parent, exp.Window)
                 for a in select.find_all(exp.AggFunc)):
            # an aggregate over every row (a catalog-wide value) grouped by the one row of parameters
            select.group_by(*[_prm(name) for name in used], copy=False)
    return tree


def _stream(bindings: dict, listed: bool = False) -> exp.Select:
    """sql/01_stream.sql's rm_stream with its parameters bound to expressions (not folded), reading the
    run_items and judgment_items CTEs (and, listed, the EMPTY_LISTS CTE of a run of lists: its 'Q' rows)."""
    return sqlgen.stream_body(bindings, listed=listed)


# what a metric macro reads (sql/01_stream.sql)
STREAMS = ("rm_stream", "rm_item_stream", "rm_catalog_stream", "rm_vector_stream", "rm_reference_stream")


def query(macro_name: str, dialect: str, run: sqlgen.Source, judgments: sqlgen.Source,
          function: exp.Table | None, by: tuple = (), group_text: bool = True,
          interactions: sqlgen.Source | None = None, catalog: sqlgen.Source | None = None,
          reference: sqlgen.Source | None = None) -> exp.Select:
    """The native object's body for one dialect: query_template with the dialect's parameter references
    (Native.param_ref) and its column aliases."""
    d = dialects.get(dialect)

    def param(name, kind, default):
        value = _param_ref(d, function, name, kind)
        if not d.native.arg_defaults and not isinstance(default, exp.Null):
            value = exp.Coalesce(this=value, expressions=[default.copy()])
        return value
    return for_dialect(query_template(macro_name, run, judgments, by, group_text, interactions, catalog,
                                      reference), d.name,
                       param)


_TEMPLATE_PARAM = "rm_template_param_"  # a parameter in query_template's params CTE, before for_dialect
_RUN_LISTS = "rm_run_lists"  # meta of the macro's run_lists bound to the object's shape (folded up: fold_up)


def for_dialect(template: exp.Select, dialect: str, param) -> exp.Select:
    """A query_template (not changed: copied) for one dialect: each parameter read as param(name, kind, default)
    gives, the select lists aliased where the dialect needs it (Native.alias_columns)."""
    d = dialects.get(dialect)
    placeholders = {_TEMPLATE_PARAM + name: (name, kind, default) for name, kind, default in template.meta["rm_params"]}
    out = template.transform(lambda n: param(*placeholders[n.name])
                             if isinstance(n, exp.Column) and n.name in placeholders else n)
    if d.native is not None and d.native.alias_columns:
        for select in out.find_all(exp.Select):
            select.set("expressions", [exp.alias_(e, e.name) if isinstance(e, exp.Column) and not e.is_star else e
                                       for e in select.expressions])
    return out


def sides_of(macro_name: str) -> list[str]:
    """The side tables a metric's implementations take (its Metric.tables): the reference run, or the training
    interactions and the catalog (the catalog, else the interactions' items), or none. The native templates are
    keyed by them (query_template), the dbt macros take them as arguments."""
    tables = {t for m in measures.METRICS.values() if m.macro == macro_name for t in m.tables}
    if "reference" in tables:
        return ["reference"]
    return ["interactions", "catalog"] if tables else []


def _source_key(source: sqlgen.Source | None):
    """What a Source is, as a key of _TEMPLATES (its expression written out in full: repr, quoting included)."""
    if source is None:
        return None
    return (repr(source.expression), source.has_score, source.has_rank, tuple(sorted(source.columns.items())),
            source.groups, source.lists)


# query_template's trees, the same for every dialect: built once (tens of ms each), the last _TEMPLATES_KEPT kept
# (about 0.45 MB each: a script's 51 objects over the same tables, for two sets of tables)
_TEMPLATES: collections.OrderedDict = collections.OrderedDict()
_TEMPLATES_KEPT = 128
# rank_positions' check, marked in the tree for dbt._rank_positions: a comment on the UNION ALL that adds it to
# rm_checks' faults (written on a line of its own before that UNION ALL) and one on the subquery of the faults
# (written after its closing parenthesis), the check being their last branch
RANK_POSITIONS_MARKS = ("rm_dbt_rank_positions_begin", "rm_dbt_rank_positions_end")


def query_template(macro_name: str, run: sqlgen.Source, judgments: sqlgen.Source, by: tuple = (),
                   group_text: bool = True, interactions: sqlgen.Source | None = None,
                   catalog: sqlgen.Source | None = None, reference: sqlgen.Source | None = None,
                   rank_positions: bool = False) -> exp.Select:
    """The template of _query_template (below), built once per metric and tables in a process: not to be changed
    (for_dialect copies it)."""
    # the side tables it does not read left out: one template serves a script given other side tables
    read = sides_of(macro_name)
    interactions, catalog, reference = (source if name in read else None for name, source in
                                        (("interactions", interactions), ("catalog", catalog),
                                         ("reference", reference)))
    key = (macro_name, by, group_text, rank_positions) + tuple(_source_key(s) for s in (run, judgments, interactions,
                                                                                       catalog, reference))
    if key in _TEMPLATES:
        _TEMPLATES.move_to_end(key)
    else:
        _TEMPLATES[key] = _query_template(macro_name, run, judgments, by, group_text, interactions, catalog,
                                          reference, rank_positions)
        while len(_TEMPLATES) > _TEMPLATES_KEPT:
            _TEMPLATES.popitem(last=False)
    return _TEMPLATES[key]


def _query_template(macro_name: str, run: sqlgen.Source, judgments: sqlgen.Source, by: tuple = (),
                    group_text: bool = True, interactions: sqlgen.Source | None = None,
                    catalog: sqlgen.Source | None = None, reference: sqlgen.Source | None = None,
                    rank_positions: bool = False) -> exp.Select:
    """The body of the native object of one metric: WITH params, run_items, judgment_items, item_stream, then the
    metric's own SELECT (query_id, value), each parameter read from the one-row params CTE. group_text: the
    group columns are returned as text (the objects declare their result types without seeing the tables);
    False keeps them as the run has them (the dbt package).

    interactions, catalog: the side tables of the metrics that read them (Metric.tables), read as sqlgen reads
    them (item_stream_ctes, catalog_stream_ctes; the catalog, else the interactions' items; the items' vectors,
    the catalog's embedding lists: vector_stream_ctes, where the dialect has lists). A catalog-wide metric
    (sql/catalog.sql) returns one row, its query_id NULL (per group with by: sqlgen.per_group).
    reference: Intersection's reference run, in the run's shape (sqlgen.reference_stream_ctes), ranked by the same
    parameters as the run. The tree is the same for every dialect: each parameter is a placeholder column that
    for_dialect replaces.
    rank_positions: rm_checks also fails on a query of the run whose given ranks are not 1..n
    (sqlgen.rank_positions_faults, to_sql's check), as its last branch. The objects take no preset, so they never
    ask for it; the dbt package, whose macros take one, asks for it and keeps the branch only for a call under a
    preset that reads rank values as positions (dbt._rank_positions, where RANK_POSITIONS_MARKS are; the macro
    rm_rank_positions decides, its table read off conventions.reads_rank_values).
    """
    macro = sqlsource.macros()[macro_name]
    params = parameters(macro_name)
    # the table's shape is the object's (run_lists: the terms of a run of lists' empty lists in rm_reported and
    # rm_sufficient, folded away for other runs below)
    listed = exp.Boolean(this=run.lists)
    listed.meta[_RUN_LISTS] = True
    body = sqlsource.substitute(sqlsource.unchecked(macro.body), {**{name: _read(name, kind, default)
                                                                     for name, kind, default in params},
                                                                  "run_lists": listed})
    # the macro unnests its key (a STRUCT of the groups and the query id, DuckDB's way of grouping, see
    # sql/01_stream.sql) into columns; here the key is the query id itself
    body = body.transform(lambda n: n.this if isinstance(n, exp.Explode) and isinstance(n.this, exp.Column)
                          and n.this.name == "query_id" else n)
    catalog_wide = is_catalog_wide(macro_name)  # one value for the run (GAUC, Personalization read rm_stream)
    if catalog_wide:  # its group key: ours with groups, none without (sqlgen.per_group)
        body = sqlgen.per_group(body, macro_name, bool(by))
    call = sqlgen.stream_call(body)  # the innermost FROM (a macro may nest features over features: INST)
    if not (isinstance(call, exp.Table) and isinstance(call.this, exp.Anonymous)
            and call.this.name.lower() in STREAMS):
        raise ValueError(f"macro {macro_name}: expected FROM (SELECT ... FROM one of {', '.join(STREAMS)}) AS f")
    kind = call.this.name.lower()
    plain_params = sqlsource.macros()["rm_stream"].params
    stream_bindings = {p.lower(): a for p, a in zip(sqlsource.macros()[kind].params, call.this.expressions)
                       if p.lower() not in ("run", "judgments") and p in plain_params}
    if kind in ("rm_catalog_stream", "rm_vector_stream"):  # (SELECT s.* FROM ... AS s) AS f: the stream, as f
        call.find_ancestor(exp.Subquery).replace(exp.Table(this=exp.to_identifier(STREAM),
                                                           alias=exp.TableAlias(this=exp.to_identifier("f"))))
    else:
        call.replace(exp.Table(this=exp.to_identifier(STREAM), alias=call.args.get("alias")))
    body = sqlgen.read_items(sqlsource.expand(body))  # rm_reported reads the run's queries (trec_eval -J)
    for flag in [b for b in body.find_all(exp.Boolean) if b.meta.get(_RUN_LISTS)]:
        sqlsource.fold_up(flag)
    body = _join_params(body)
    stream = _join_params(_stream(stream_bindings, run.lists))

    params_select = exp.select(*[exp.alias_(exp.column(_TEMPLATE_PARAM + name), name, quoted=False)
                                 for name, _, _ in params])
    out = body
    ctes = [("params", params_select), ("run_items", sqlgen.run_items(run, by=by)),
            ("judgment_items", _join_params(sqlgen.judgment_items(judgments, grades=_prm("grades"), by=by)))]
    if run.lists:  # the queries whose list is empty: 'Q' rows of the stream
        ctes.append((sqlgen.EMPTY_LISTS, sqlgen.empty_lists(run, by)))
    if kind == "rm_item_stream":
        if interactions is None:
            raise UsageError(f"{macro_name} reads the training interactions: give their table (--interactions)")
        ctes += sqlgen.item_stream_ctes({}, interactions, catalog, plain=stream)
    elif kind == "rm_catalog_stream":
        if catalog is None and interactions is None:
            raise UsageError(f"{macro_name} reads the catalog: give its table (--items, or --interactions)")
        ctes += sqlgen.catalog_stream_ctes({}, catalog if catalog is not None else interactions, plain=stream)
    elif kind == "rm_vector_stream":
        if catalog is None:
            raise UsageError(f"{macro_name} reads the items' vectors: give the catalog's table, with its embedding "
                             f"list column (--items)")
        ctes += sqlgen.vector_stream_ctes([(STREAM, stream)], catalog)
    elif kind == "rm_reference_stream":
        if reference is None:
            raise UsageError(f"{macro_name} reads a reference run: give its table (--reference)")
        ctes += sqlgen.reference_stream_ctes([(STREAM, stream)], reference, {}, by,
                                             ranks=_join_params(_stream(stream_bindings)))
    else:
        ctes.append((STREAM, stream))
    b = exp.TableAlias(this=exp.to_identifier("b"))
    if catalog_wide:  # one row (per group), query_id NULL
        null_id = exp.alias_(exp.Cast(this=exp.Null(), to=exp.DataType.build("VARCHAR")), "query_id")
        out = exp.select(*sqlgen.group_columns(by, text=group_text), null_id, exp.column("value", table="b")).from_(
            exp.Subquery(this=body, alias=b))
        if by:
            out = out.join(exp.Table(this=exp.to_identifier("rm_groups"), alias=exp.TableAlias(
                this=exp.to_identifier("g"))), on=exp.EQ(this=exp.column("group_key", table="g"),
                                                         expression=exp.column("group_key", table="b")))
            ctes.insert(1, ("rm_groups", sqlgen.groups_cte(run, by)))
    elif by:  # the rows gain the group columns
        out, query_id = sqlgen.ungroup(exp.select(*sqlgen.group_columns(by, text=group_text)).from_(
            exp.Subquery(this=body, alias=b)), "b", by)
        out = out.select(exp.alias_(query_id, "query_id"), exp.column("value", table="b"))
        ctes.insert(1, ("rm_groups", sqlgen.groups_cte(run, by)))
    # a duplicate item or judgment, or an argument outside its range, fails the call with the engine's error
    # (sqlgen.input_checks, _argument_checks)
    out = sqlgen.guarded(out)
    checks = sqlgen.input_checks(by, reference=kind == "rm_reference_stream", listed=run.lists)
    faults = [f for f in (_argument_checks(macro_name, params),) if f is not None]
    if any(name == "gain" for name, _, _ in params):  # the grades the gain given cannot take
        faults += [_join_params(f) for f in sqlgen.gain_grade_faults(macro_name, _prm("gain"), by,
                                                                     label=PREFIX + macro_name)]
    if kind == "rm_vector_stream":  # the items' vectors
        faults.append(sqlgen.vector_faults())
    if run.has_score and run.has_rank and not run.lists:  # a NaN or infinite rank beside the score
        faults.append(sqlgen.rank_faults(by))
    positions = sqlgen.rank_positions_checks(by, kind == "rm_reference_stream") if rank_positions else []
    faults += positions  # last, and marked (RANK_POSITIONS_MARKS)
    if faults:
        inner = checks.args["from_"].this
        inner.set("this", sqlgen.union_all([inner.this, *faults]))
        if positions:  # on the UNION ALL that adds the first of them (the run's; the reference's follows it)
            union = inner.this
            for _ in positions[1:]:
                union = union.this
            union.add_comments([RANK_POSITIONS_MARKS[0]])
            inner.add_comments([RANK_POSITIONS_MARKS[1]])
    ctes.append(("rm_checks", checks))
    for name, cte in ctes:
        out = out.with_(name, as_=cte, copy=False)  # our own tree: no copy per CTE
    out.meta["rm_params"] = params
    return out


def _choices(name: str) -> tuple:
    """The values a text parameter may take (conventions.py, measures.PARAMS), or (). Not 'provider' (ties): the
    ir_measures preset's order per measure, which measures.stream_conventions resolves before any SQL is made."""
    from . import conventions
    if name in conventions.PARAMETERS and conventions.PARAMETERS[name][0]:
        return tuple(c for c in conventions.PARAMETERS[name][0] if c != "provider")
    return tuple(measures.PARAMS[name].choices) if name in measures.PARAMS else ()


def _macro_rules(macro_name: str, names: set) -> list[tuple]:
    """The macro's own argument checks (sql/'s rm_valid(condition, macro, param, rule, value) calls in its body)
    whose condition reads its parameters alone (names: those the native object takes), in portable SQL over
    params (prm): [(condition, param, rule, value)]. rm_valid_number(x) is x IS NOT NULL and TRY_CAST(x AS
    DOUBLE) is x, the parameters being typed; a check reading a table, a list or another function is left to
    _argument_checks' own rules (or not carried). Before, the native objects and dbt carried only those, and
    ndcg(ideal => 'cutoff') without k gave 0 for every query where the macro fails."""
    known = sqlsource.macros()
    body = known[macro_name].body
    calls = []
    for call in body.find_all(exp.Anonymous):
        helper = known.get(call.name.lower())
        if call.name.lower() == "rm_valid":
            calls.append(call)
        elif helper is not None and not helper.is_table and call.name.lower().startswith("rm_valid_") and \
                len(call.expressions) == len(helper.params):  # a shared check (rm_valid_rel_range): inlined
            given = dict(zip(helper.params, call.expressions))
            inlined = helper.body.transform(
                lambda n: given[n.name].copy() if isinstance(n, exp.Column) and not n.table and n.name in given
                else n)
            # a range the helper checks (min_rel below max_rel), not what _argument_checks' own rules check
            # (k, p, log_base, choices) nor a bare NOT NULL (each would add a branch to every object)
            # or a form it matches (rm_valid_gains' pattern of a gain map)
            calls += [c for c in inlined.find_all(exp.Anonymous) if c.name.lower() == "rm_valid"
                      and len(c.expressions) == 5 and isinstance(c.expressions[2], exp.Literal)
                      and c.expressions[2].this not in ("k", "p", "log_base", "ref_k") and not _choices(
                          c.expressions[2].this) and c.expressions[0].find(exp.LT, exp.LTE, exp.GT, exp.GTE,
                                                                           exp.Between, exp.RegexpFullMatch) is not None]
    rules = []
    for call in calls:
        if len(call.expressions) != 5:
            continue
        condition, _, param, rule, value = (e.copy() for e in call.expressions)
        if not (isinstance(param, exp.Literal) and isinstance(rule, exp.Literal)):
            continue
        allowed = (exp.Column, exp.Identifier, exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.And, exp.Or,
                   exp.Not, exp.Is, exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.Between, exp.In,
                   exp.Floor, exp.TryCast, exp.DataType, exp.Anonymous, exp.RegexpFullMatch)
        nodes = list(condition.walk())
        if any(not isinstance(n, allowed) for n in nodes) or any(
                isinstance(n, exp.Anonymous) and n.name.lower() != "rm_valid_number" for n in nodes) or any(
                n.name not in names for n in nodes if isinstance(n, exp.Column)) or not (
                isinstance(value, exp.Column) and value.name in names):
            continue

        def portable(node):
            if isinstance(node, exp.Anonymous):  # rm_valid_number(x)
                return exp.Not(this=exp.Is(this=node.expressions[0].copy(), expression=exp.Null()))
            if isinstance(node, exp.TryCast):
                return node.this.copy()
            if isinstance(node, exp.RegexpFullMatch) and isinstance(node.expression, exp.Literal):
                # the whole text matches: anchored, as every engine's match reads (dialects.Dialect.regexp)
                return exp.RegexpLike(this=node.this.copy(),
                                      expression=exp.Literal.string(f"^({node.expression.this})$"))
            return node
        condition = condition.transform(portable).transform(
            lambda n: exp.column(n.name, table="prm") if isinstance(n, exp.Column) else n)
        rules.append((condition, param.this, rule.this, exp.column(value.name, table="prm")))
    return rules


def _argument_checks(macro_name: str, params) -> exp.Select | None:
    """One row per argument outside its range, its message as fault (the DuckDB macros' rm_valid_* checks, in
    portable SQL): a choice not among its values, k not a whole number >= 1, log_base not > 1, p not in (0, 1);
    and one row for what every parameter must be (_value_checks): a number finite, a flag true or false, neither
    NULL unless NULL is its default."""
    lit = exp.Literal.string
    faults = []

    def fault_row(*branches):  # the row over params: the message of the first (bad, name, rule, value) that holds
        ifs = [exp.If(this=bad, true=exp.Concat(expressions=[
            lit(f"rankmetrics: {PREFIX}{macro_name}: {name} must be {rule}, not "),
            exp.Coalesce(this=exp.cast(value, "VARCHAR"), expressions=[lit("NULL")])]))
            for bad, name, rule, value in branches]
        return exp.select(exp.alias_(exp.Case(ifs=ifs), "fault")).from_(
            exp.Table(this=exp.to_identifier("params"), alias=exp.TableAlias(this=exp.to_identifier("prm"))))
    for name, kind, _ in params:
        ref = exp.column(name, table="prm")
        rule = None
        if _choices(name):  # NULL is none of them
            bad = exp.Not(this=exp.Coalesce(this=exp.In(this=ref.copy(), expressions=[lit(c) for c in _choices(name)]),
                                            expressions=[exp.false()]))
            rule = "one of " + ", ".join(_choices(name))
        elif name == "k" and measures.of_macro(macro_name).cutoff == "required":  # PartialAUC@k: k counts negatives
            bad = exp.Or(this=exp.Is(this=ref.copy(), expression=exp.Null()),
                         expression=exp.LT(this=ref.copy(), expression=exp.Literal.number(1)))
            rule = "a whole number >= 1"
        elif name == "k":
            bad = exp.LT(this=ref.copy(), expression=exp.Literal.number(1))
            rule = "a whole number >= 1, or NULL for no cutoff"
        elif name == "ref_k":  # Intersection's depth of the reference, NULL: k
            bad = exp.Or(this=exp.LT(this=ref.copy(), expression=exp.Literal.number(1)),
                         expression=exp.NEQ(this=ref.copy(), expression=exp.Floor(this=ref.copy())))
            rule = "a whole number >= 1, or NULL (k)"
        elif name == "log_base":
            bad = exp.LTE(this=ref.copy(), expression=exp.Literal.number(1))
            rule = "a number > 1"
        elif name == "p":
            bad = exp.Or(this=exp.LTE(this=ref.copy(), expression=exp.Literal.number(0)),
                         expression=exp.GTE(this=ref.copy(), expression=exp.Literal.number(1)))
            rule = "a number between 0 and 1 (exclusive)"
        if rule is None:
            continue
        faults.append(fault_row((bad, name, rule, ref.copy())))
    if any(n == "gains" for n, _, _ in params):  # a level given twice (its form: _macro_rules' pattern), as the
        #                                          engine can tell (dialects.Dialect.distinct_levels)
        gains = exp.column("gains", table="prm")
        once = exp.or_(exp.EQ(this=gains.copy(), expression=lit("")),
                       exp.Anonymous(this=dialects.DISTINCT_LEVELS, expressions=[gains.copy()]))
        faults.append(fault_row((exp.Not(this=exp.Coalesce(this=exp.Paren(this=once), expressions=[exp.false()])),
                                 "gains", "level=gain pairs with each level once", gains.copy())))
    for condition, name, rule, value in _macro_rules(macro_name, {n for n, _, _ in params}):
        faults.append(fault_row((exp.Not(this=exp.Coalesce(this=exp.Paren(this=condition),
                                                            expressions=[exp.false()])), name, rule, value)))
    values = _value_checks(params)
    if values:
        faults.append(fault_row(*values))
    if not faults:
        return None
    return exp.select(exp.column("fault", table="a")).from_(
        exp.Subquery(this=sqlgen.union_all(faults), alias=exp.TableAlias(this=exp.to_identifier("a")))).where(
        exp.Not(this=exp.Is(this=exp.column("fault", table="a"), expression=exp.Null())))


def _value_checks(params) -> list[tuple]:
    """[(bad, name, rule, value)] over params (prm) for what the DuckDB macros' rm_valid_number and judged_only
    checks refuse whatever the metric: a number that is NaN or infinite (sqlgen.not_finite, as the inputs' scores
    are checked on every engine), a number or flag that is NULL where the parameter has another
    default (PostgreSQL's functions pass an explicit NULL on; ClickHouse's views read it as the default). Before,
    rel NULL gave P@k 0 for every query on PostgreSQL, judged_only NULL no rows, log_base NaN NaN."""
    out = []
    for name, kind, default in params:
        ref = exp.column(name, table="prm")
        may_be_null = isinstance(default, exp.Null)
        if kind == "DOUBLE":  # (sql/'s rm_not_finite: NULL too, unless NULL is the default)
            bad = sqlgen.not_finite(ref.copy())
            if may_be_null:
                bad = exp.and_(exp.Not(this=exp.Is(this=ref.copy(), expression=exp.Null())), bad)
            out.append((bad, name, "a finite number, or NULL" if may_be_null else "a finite number", ref.copy()))
        elif kind == "BOOLEAN" and not may_be_null:
            out.append((exp.Is(this=ref.copy(), expression=exp.Null()), name, "true or false", ref.copy()))
    return out


def _function_name(macro_name: str, schema: str | None, dialect: str) -> exp.Table:
    fn = exp.Table(this=exp.to_identifier(PREFIX + macro_name))
    if schema:
        qualified = dialects.table(schema, dialect, "schema")
        if qualified.args.get("catalog") is not None:
            raise UsageError(f"schema '{schema}' has more than two parts (write schema or database.schema)")
        fn.set("db", qualified.this)
        if qualified.args.get("db") is not None:
            fn.set("catalog", qualified.args["db"])
    return fn


def _type(kind: str, d: dialects.Dialect) -> str:
    """The dialect's type of a parameter of generic type kind (INT, DOUBLE, VARCHAR, BOOLEAN)."""
    return dict(d.native.types if d.native else ()).get(kind) or exp.DataType.build(kind).sql(dialect=d.sqlglot)


def _arg_name(name: str, d: dialects.Dialect) -> str:
    """An argument's name as the dialect writes it: quoted when it is a keyword there (Dialect.keywords)."""
    return exp.to_identifier(name, quoted=name in d.keywords).sql(dialect=d.sqlglot)


def _quote_body(body: str, d: dialects.Dialect, what: str) -> str:
    tag = d.native.body_quote
    if tag is None:
        return body
    if tag in body:
        raise UsageError(f"{what}: a table name contains {tag}, which cannot be put in a {d.name} function body")
    return f"{tag}\n{body}\n{tag}"


def ddl(macro_name: str, dialect: str, run: sqlgen.Source, judgments: sqlgen.Source,
        schema: str | None = None, by: tuple = (), interactions: sqlgen.Source | None = None,
        catalog: sqlgen.Source | None = None, reference: sqlgen.Source | None = None) -> str:
    """CREATE statement of the native object of one metric macro."""
    d = dialects.get(dialect)
    if d.native is None or d.native.sql_macros:
        raise UsageError(f"no native objects for dialect '{dialect}'")
    function = _function_name(macro_name, schema, dialect)
    fn_sql = function.sql(dialect=d.sqlglot)
    body = dialects.render(query(macro_name, dialect, run, judgments, function, by, interactions=interactions,
                                 catalog=catalog, reference=reference), dialect, copy=False)  # query's own tree
    args = []
    for name, kind, default in parameters(macro_name):
        text = f"{_arg_name(name, d)} {_type(kind, d)}"
        if d.native.arg_defaults:
            text += f" DEFAULT {default.sql(dialect=d.sqlglot)}"
        args.append(text)
    groups = "".join(f"{exp.to_identifier(g, quoted=True).sql(dialect=d.sqlglot)} {_type('VARCHAR', d)}, "
                     for g in by)
    return d.native.ddl.format(fn=fn_sql, args=", ".join(args), body=_quote_body(body, d, fn_sql), groups=groups)


def _dialect(name) -> dialects.Dialect:
    """The dialect of the registry (dialects.DIALECTS) called name, if it has native objects; else a one-line
    error listing the dialects that have them."""
    key = str(name or dialects.DEFAULT).strip().lower()
    if key in DIALECTS:
        return dialects.DIALECTS[key]
    if key in dialects.DIALECTS:
        raise UsageError(f"no native objects for dialect '{key}'; macros exist for: {', '.join(DIALECTS)} "
                         f"(`rankmetrics sql --dialect {key}` prints one SELECT instead)")
    raise UsageError(f"unknown SQL dialect '{name}'; macros exist for: {', '.join(DIALECTS)}")


def _header(d: dialects.Dialect, run: exp.Table, judgments: exp.Table, run_columns: str, schema, sides: dict,
            vectors: bool) -> str:
    columns = "score and rank" if run_columns == "score,rank" else run_columns
    interactions, catalog, reference = sides["interactions"], sides["catalog"], sides["reference"]

    def named(src: sqlgen.Source, names) -> str:  # the table and its columns as read
        return f"{src.expression.sql(dialect=d.sqlglot)} ({', '.join(src.columns.get(n, n) for n in names)})"
    if interactions is None and catalog is None:
        sides = ["-- The recommender metrics that read the training interactions or the catalog are left out: give",
                 "-- their tables (--interactions TABLE, --items TABLE) to create them too."]
    else:
        what = (f"the catalog {named(catalog, ('item_id', 'embedding') if vectors else ('item_id',))}"
                if catalog is not None else "the catalog: the items of the interactions")
        if interactions is not None:
            what = f"the training interactions {named(interactions, ('user_id', 'item_id'))} and {what}"
        sides = [f"-- The recommender metrics also read {what};",
                 "-- the catalog-wide ones return one row, query_id NULL" + (
                     "" if interactions is not None else " (those of the interactions are left out)") + "."]
        if catalog is not None and not vectors:
            sides.append("-- IntraListDiversity is left out: name the catalog's vectors (--items-embedding-column) "
                         "to create it.")
    sides.append("-- Intersection is left out: give the table of its reference run (--reference TABLE)." if reference is None
                 else f"-- Intersection compares the run with the reference run "
                      f"{reference.expression.sql(dialect=d.sqlglot)}, in the run's shape.")
    examples = [call("ndcg", d.name, {"k": 10}, schema=schema),
                call("ap", d.name, {"k": 100, "rel": 2}, schema=schema)]
    return "\n".join([
        f"-- rankmetrics for {d.name}: every metric as {d.native.kind} returning (query_id, value), one row per",
        f"-- query that the queries convention keeps ({measures.aggregates_phrase()}).",
        f"-- Reads the run table {run.sql(dialect=d.sqlglot)} (query_id, item_id, {columns})",
        f"-- and the judgments table {judgments.sql(dialect=d.sqlglot)} (query_id, item_id, relevance).",
        *sides,
        f"-- Call with {d.native.arguments};",
        "-- k NULL means no cutoff. For example:",
        *[f"--   {e};" for e in examples],
    ]) + "\n"


def _creatable(macro_name: str, sides: dict, d: dialects.Dialect, vectors: bool) -> bool:
    """Whether the side tables the metric reads were given (an object over a missing table or column cannot be
    created: PostgreSQL checks a function's body when it is created), and, for the items' vectors, their
    column named (vectors) and readable there (Dialect.lists)."""
    tables = measures.of_macro(macro_name).tables
    if "reference" in tables:
        return sides["reference"] is not None
    if "vectors" in tables:
        return (vectors and sides["catalog"] is not None and d.lists is not None
                and measures.of_macro(macro_name).name not in d.lacks)
    if "interactions" in tables:
        return sides["interactions"] is not None
    return "catalog" not in tables or sides["catalog"] is not None or sides["interactions"] is not None


def script(dialect: str = dialects.DEFAULT, run: str | None = None, judgments: str | None = None,
           schema: str | None = None, run_columns: str | None = None, form: shape.Shape | None = None,
           interactions: str | None = None, items: str | None = None, reference: str | None = None) -> str:
    """The DDL creating every metric as a native object of the dialect (DuckDB: the macros script). run,
    judgments (default: run, judgments), run_columns (default: score), the side tables (interactions; items, the
    catalog, default: the interactions' items: the recommender metrics that read them are left out without them;
    their column names in form, shape.Shape's interactions_columns and items_columns: IntraListDiversity's
    object is created only when the catalog's embedding column is named there, as a catalog without one could
    not be created over), the reference run (Intersection's, in the run's shape: left out without it) and schema
    are for the other dialects. A dialect without native objects whose SQL calls a helper function (MySQL's
    rm_fail) gets that helper."""
    given = [name for name, value in (("schema", schema), ("run", run), ("judgments", judgments),
                                      ("run columns", run_columns), ("interactions", interactions),
                                      ("items", items), ("reference", reference)) if value is not None]
    helper = dialects.DIALECTS.get(str(dialect or dialects.DEFAULT).strip().lower())
    sided = form is not None and any(form.sides.values())  # side inputs' column names given
    if helper is not None and helper.native is None and helper.helper:
        if given or form or sided:
            raise UsageError(f"{helper.name} has no metric objects, only the helper function its SQL calls, "
                             f"created in the current database: {', '.join(given) or 'the table shape'} does not "
                             f"apply here (the shape is an option of `rankmetrics sql --dialect {helper.name}`)")
        return helper.helper
    d = _dialect(dialect)
    if d.native.sql_macros:
        if form:
            raise UsageError("DuckDB's macros take the tables' shape as arguments (query_column := 'user_id', "
                             "\"by\" := ['model_version'], run_lists := true, ...), not as options")
        if sided:
            raise UsageError("DuckDB's macros read the side tables' columns by our names (user_id, item_id, "
                             "embedding): give them a view with those names; the column options are for another "
                             "--dialect")
        if given:  # DuckDB's macros take the tables as arguments and are created where the script runs
            raise UsageError(f"{' and '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to DuckDB's "
                             f"macros: they take the table names as arguments and are created in the current schema "
                             f"(USE it first); these options are for another --dialect")
        return sqlsource.script()
    run = "run" if run is None else run
    judgments = "judgments" if judgments is None else judgments
    run_columns = "score" if run_columns is None else run_columns
    if run_columns not in RUN_COLUMNS:
        raise UsageError(f"unknown run columns '{run_columns}'; choose one of: {', '.join(RUN_COLUMNS)}")
    if d.native.schema_required and not schema:
        raise UsageError(d.native.schema_required)
    form = form if form is not None else shape.Shape()
    run_src = sqlgen.Source(dialects.table(run, d.name, "run table"), has_score="score" in run_columns,
                            has_rank="rank" in run_columns, columns=form.columns, groups=form.by,
                            lists=form.run_lists)
    judgments_src = sqlgen.Source(dialects.table(judgments, d.name, "judgments table"), columns=form.columns,
                                  groups=form.judgments_by, lists=form.judgment_lists)
    sides = {name: None if table is None else sqlgen.Source(dialects.table(table, d.name, f"{role} table"),
                                                            columns=form.side_columns(role))
             for name, role, table in (("interactions", "interactions", interactions), ("catalog", "items", items))}
    # the reference run (Intersection's) has the run's shape
    sides["reference"] = None if reference is None else sqlgen.Source(
        dialects.table(reference, d.name, "reference table"), has_score=run_src.has_score, has_rank=run_src.has_rank,
        columns=form.columns, groups=form.by, lists=form.run_lists)
    vectors = "embedding" in form.sides["items"]  # the catalog's vectors named: IntraListDiversity is created
    parts = [_header(d, run_src.expression, judgments_src.expression, run_columns, schema, sides, vectors)]
    for name in metric_macros():
        if _creatable(name, sides, d, vectors):
            parts.append(ddl(name, d.name, run_src, judgments_src, schema, form.by, **sides))
    return "\n".join(parts)


def call(macro_name: str, dialect: str, args: dict, *, schema: str | None = None, run: str = "run",
         judgments: str = "judgments", interactions: str = "interactions", catalog: str | None = None,
         reference: str = "reference") -> str:
    """A SELECT (query_id, value) calling the native object of a metric with the given arguments, in the way
    the dialect calls it (named arguments where the dialect has them; BigQuery: every argument, in order).
    DuckDB's macros take the tables as arguments (interactions, catalog and reference: those the macro reads; a
    catalog-wide macro's one row has query_id NULL, as the other dialects' objects)."""
    d = _dialect(dialect)
    params = parameters(macro_name)
    unknown = set(args) - {name for name, _, _ in params}
    if unknown:
        raise UsageError(f"{macro_name}: unknown argument(s) {', '.join(sorted(unknown))}")

    def lit(value) -> str:
        return sqlsource.literal(value).sql(dialect=d.sqlglot)

    if d.native.sql_macros:  # sql/'s macros, under their own names (precision is a keyword), the tables first
        fn = exp.to_identifier(macro_name, quoted=True).sql(dialect=d.sqlglot)
        values = [exp.Literal.string(run).sql(dialect=d.sqlglot), exp.Literal.string(judgments).sql(dialect=d.sqlglot)]
        takes = [p.lower() for p in sqlsource.macros()[macro_name].params]
        sides = {"interactions": interactions, "catalog": catalog if catalog is not None else interactions,
                 "vectors": catalog, "reference": reference}
        values += [f"{name} := {exp.Literal.string(sides[name]).sql(dialect=d.sqlglot)}" for name in SIDE_PARAMS
                   if name in takes]
    else:
        fn = _function_name(macro_name, schema, d.name).sql(dialect=d.sqlglot)
        values = []
    if d.native.named_arg is None:
        values += [lit(args[name]) if name in args else default.sql(dialect=d.sqlglot) for name, _, default in params]
    else:
        values += [d.native.named_arg.format(name=_arg_name(name, d), value=lit(args[name])) for name, _, _ in params
                   if name in args]
    return "SELECT query_id, value FROM " + d.native.call.format(fn=fn, args=", ".join(values))
