"""The Python surface: register the macros on a DuckDB connection, evaluate runs, get the rows as a relation."""
from __future__ import annotations

import functools
import math
import operator
import os


from . import checks, connections, conventions, diversity, measures as measures_mod, onepass, plancache, shape, textfiles
from ._lazy import LazyModule
from .engine import duckdb
from .errors import InputError, UsageError, first_line, flag
from .inputs import (JUDGMENTS, RUN, Reader, check_rank_positions, empty_queries, mean_list_length, query_overlap,
                     run_sql, table_like)

# the query builder and sqlglot, only when a query is built (a cached query needs neither: _lazy.py)
exp = LazyModule("sqlglot.expressions")
sqlgen = LazyModule("rankmetrics_duckdb.sqlgen")
sqlsource = LazyModule("rankmetrics_duckdb.sqlsource")

DEFAULT_METRICS = measures_mod.TREC_DEFAULT


def register(con: duckdb.DuckDBPyConnection) -> None:
    """Create every rankmetrics macro on con (ndcg, ap, precision, ...). No table or view is created. A connection
    whose default_order, default_null_order or default_collation is not DuckDB's default is refused: the macros
    would compute other numbers under it (connections.check_settings; set it back before calling them, too)."""
    connections.check_settings(con)
    con.execute(sqlsource.script())


def macros_sql(dialect: str = "duckdb", *, run: str | None = None, judgments: str | None = None, schema=None,
               run_columns: str | None = None, interactions: str | None = None, items: str | None = None,
               reference: str | None = None, interactions_columns: dict | None = None,
               items_columns: dict | None = None) -> str:
    """The SQL that installs every metric once, for use without Python: DuckDB table macros (the default), or
    for another dialect its native objects (PostgreSQL functions, Spark/BigQuery table functions, Snowflake
    UDTFs, ClickHouse parameterized views) reading the tables run and judgments (and the recommender metrics'
    training interactions and catalog, items: default the interactions' items; their column names where they
    differ from ours, interactions_columns and items_columns, as evaluate; IntraListDiversity's objects are
    created when the items' embedding column is named, items_columns={'embedding': ...}; Intersection's
    reference run, reference, in the run's shape); see native.py."""
    from . import native
    form = None
    if interactions_columns or items_columns:
        form = shape.Shape(interactions_columns=interactions_columns, items_columns=items_columns)
    return native.script(dialect, run=run, judgments=judgments, schema=schema, run_columns=run_columns,
                         interactions=interactions, items=items, reference=reference, form=form)


class Evaluation:
    """A prepared evaluation: the inputs loaded and checked, the query built. Keeps its connection alive.

    path says how the inputs were taken: 'one statement' (clean inputs read, checked and evaluated by a single
    query, onepass.py) or 'careful' (loaded and checked step by step; every message about bad input comes
    from there). ranking says how the rows were ranked once computed: 'input order' (a run already in rank
    order, numbered as it comes, checked in the query) or 'sort'; the numbers are the same either way. parts: how
    many parts of the queries the one-statement path evaluated one after the other (1; more for a run too large
    for the memory limit, onepass._parts), again with the same numbers. one_statement=False skips the first (for a
    lazy relation(), which evaluates later anyway)."""

    def __init__(self, judgments, run, metrics=None, *, con=None, convention="trec_eval", memory_limit=None,
                 threads=None, progress=False, nan_scores="error", one_statement=True, columns=None, by=None,
                 max_retrieved=None, zscores=None, interactions=None, items=None, reference=None,
                 interactions_columns=None, items_columns=None, **overrides):
        diversity.refuse(metrics, "Evaluation")
        self.measures = measures_mod.parse_all(metrics or DEFAULT_METRICS)
        self._side_inputs = measures_mod.side_inputs(self.measures, interactions, items, reference)  # {name: input}
        reference = reference if self._side_inputs.pop("reference", None) else None  # a run, read as runs are
        self._side_objects = {"interactions": interactions, "items": items}
        self.zscores = _zscores(zscores, by)
        self._run_input = run
        conventions.refuse_gaps(convention, overrides, [m.metric.name for m in self.measures])
        resolved = conventions.resolve(convention, **overrides)
        self.conv = measures_mod.stream_conventions(self.measures, resolved, checked=True)
        self._score_readers = measures_mod.mixed_providers("scores", self.measures, resolved)  # checked on the run
        self._tie_orders = measures_mod.mixed_providers("ties", self.measures, resolved)  # below
        # warehouse shapes (warehouse.py): column names, groups, lists; the side inputs' column names
        self.form = shape.Shape(columns, by, interactions_columns=interactions_columns, items_columns=items_columns)
        self.by = self.form.by
        self.convention = convention
        private = con is None
        if not private and not isinstance(con, duckdb.DuckDBPyConnection):
            raise UsageError(f"con must be a DuckDB connection (duckdb.connect()), not {type(con).__name__}")
        self._spill = None
        self.con = _connect(memory_limit, threads, progress, self) if private else con
        if not private and (memory_limit or threads or progress):
            raise UsageError("memory_limit, threads and progress apply to rankmetrics' own connection; on a "
                             "connection you pass, use SET memory_limit / threads / enable_progress_bar")
        self.reader = None
        self.sides = {}
        self.reference = None  # the reference run (Intersection's), loaded: inputs.Loaded
        self._plan = self._sql = self._rows = None
        self.ranking = None  # how the rows were ranked: 'input order' (a run already in rank order) or 'sort'
        self.parts = 1  # the one-statement path's parts of the queries (onepass._parts)
        try:
            self.reader = Reader(self.con, private, nan_scores, trec_rank=conventions.reads_rank(self.conv))
            judgments, run = table_like(judgments, JUDGMENTS), table_like(run, RUN)  # a stream read once, here
            # clean inputs: read, checked and evaluated in one statement; anything else: the careful path below
            cut = max_retrieved_of(max_retrieved, self.conv, bool(self.form), nan_scores)
            # the side tables (training interactions, catalog) of the metrics that read them: loaded and checked
            # first (a missing column is named before the run is read); the careful path then reads them
            self.sides = {name: self.reader.load_side(self._side_objects[role], name, role,
                                                      self.form.side_columns(role))
                          for name, role in self._side_inputs.items()}
            views = None
            from . import warehouse
            if reference is not None:  # in the run's shape; lists under our own names found as the run's are
                reference = table_like(reference, RUN)
                self.reference = _load_reference(self.reader, reference,
                                                 warehouse.with_lists(self.reader, self.form, judgments, [reference]))
            # lists of items under our own names are a warehouse shape too (warehouse.with_lists)
            self.form = warehouse.with_lists(self.reader, self.form, judgments, [run])
            if self.form:  # other column names, groups or lists: read as the standard shape (warehouse.py)
                judged, (ran,) = warehouse.views_all(self.reader, judgments, [run], self.form)
                views = (judged, ran)
            done = (onepass.evaluate(self.reader, self.measures, self.conv, *(views or (judgments, run)))
                    if one_statement and cut is None and not self.sides and self.reference is None and self.measures
                    else None)
            if done:
                self.judgments, self.run, self.summary, self._rows = done.judgments, done.run, done.summary, done.rows
                self.path = "one statement"
                self.ranking = "input order" if done.presorted else "sort"
                self.parts = done.parts
            elif views:  # the warehouse views, loaded and checked by the careful path
                self.path = "careful"
                self.judgments, self.run = (warehouse.loaded(self.reader, v) for v in views)
                if cut is not None:  # (a shape given is refused with -M: this is lists under our own names, or a
                    #                  dict's queries mapped to no item; no groups)
                    self.run = self._top(self.run, cut)
                self._check_overlap()
            else:
                self.path = "careful"
                self.judgments = self.reader.load(judgments, JUDGMENTS)
                self.run = self.reader.load(run, RUN)
                if cut is not None:
                    self.run = self._top(self.run, cut)
                self._check_overlap()
            self._check_gain_grades()
            if self.path == "careful":  # the one statement failed on such a score (its cast) and left it here
                _check_float32_scores(self.con, self.run, self.conv)
            if self._score_readers:
                _check_score_readers(self.con, self.run, self._score_readers)
            if self._tie_orders:
                _check_tie_orders(self.con, self.run, self._tie_orders, self.conv)
            if conventions.reads_rank_values(convention, self.conv):
                check_rank_positions(self.con, self.run)
                if self.reference is not None:  # RecTools' Intersection reads its ranks as positions too
                    check_rank_positions(self.con, self.reference, "the reference run: ")
        except BaseException as e:
            self.close()
            if private:  # nobody else holds it: close it, so that nothing more spills into the folder removed
                self.con.close()
            _raise_input_error(e)
            raise

    @property
    def plan(self) -> sqlgen.Plan:
        """The fused query as a sqlglot tree (for rendering to other dialects); built on first use."""
        if self._plan is None:
            from sqlglot import exp
            self._plan = sqlgen.plan(
                self.measures, self.conv,
                sqlgen.Source(self.run.relation, self.run.has_score, self.run.has_rank, groups=self.run.groups,
                              group_rows=self.run.group_rows and exp.maybe_parse(self.run.group_rows, into=exp.Table,
                                                                                    dialect="duckdb"),
                              empty_lists=self.run.empty_lists and exp.maybe_parse(self.run.empty_lists,
                                                                                   into=exp.Table, dialect="duckdb")),
                sqlgen.Source(self.judgments.relation, True, False, groups=self.judgments.groups), by=self.by,
                reference=None if self.reference is None else sqlgen.Source(
                    self.reference.relation, self.reference.has_score, self.reference.has_rank,
                    groups=self.reference.groups),
                **{name: sqlgen.Source(table) for name, table in self.sides.items()})
        return self._plan

    def _top(self, run, n: int):
        """The run cut to each query's top n as the measures rank it (trec_eval -M: form_res_rels.c sorts, then
        keeps the first n, before -J drops unjudged items)."""
        name = f"rm_top_{id(self)}"
        run_sql(self.con, f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {run.relation.sql(dialect='duckdb')} "
                          f"AS t {top_filter(self.conv, run.has_score, n)}")
        from sqlglot import exp
        top = run.derived(exp.to_table(name))
        top.empty_lists = run.empty_lists  # a run of lists' queries whose list is empty: retrieved nothing still
        return top

    def relstrings(self, n: int) -> dict:
        """trec_eval's relstring (m_relstring.c): {query_id: the grades of the query's top n retrieved items as
        text}, one character each: the grade 0-9, '>' above 9, '-' not judged, '.' judged below 0 (in the pool
        but unjudged). Ranked as the measures rank (the stream of sql/01_stream.sql under the conventions)."""
        if self.by:
            raise UsageError("relstring is not available with groups (by)")
        run = sqlgen.Source(self.run.relation, self.run.has_score, self.run.has_rank)
        judgments = sqlgen.Source(self.judgments.relation, True, False)
        char = ("CASE WHEN f.grade IS NULL THEN '-' WHEN f.grade < 0 THEN '.' WHEN f.grade > 9 THEN '>' "
                "ELSE CAST(CAST(FLOOR(f.grade) AS INTEGER) AS VARCHAR) END")
        sql = (f"WITH run_items AS ({sqlgen.run_items(run, self.conv).sql(dialect='duckdb')}), "
               f"judgment_items AS ({sqlgen.judgment_items(judgments, self.conv).sql(dialect='duckdb')}), "
               f"{sqlgen.STREAM} AS ({sqlgen.stream(self.conv).sql(dialect='duckdb')}) "
               f"SELECT f.query_id, string_agg({char}, '' ORDER BY f.pos) FROM {sqlgen.STREAM} AS f "
               f"WHERE f.kind = 'R' AND f.pos <= {int(n)} GROUP BY f.query_id")
        return dict(run_sql(self.con, sql).fetchall())

    def run_tag(self) -> str | None:
        """trec_eval's runid: the tag of the last line of a TREC run file (textfiles.trec_run_tag); None for a run
        that is not a TREC text file (Parquet, CSV, a table, standard input)."""
        run = self._run_input
        if isinstance(run, (str, os.PathLike)) and str(run) != "-" and os.path.isfile(run):
            return textfiles.trec_run_tag(str(run))
        return None

    def _check_overlap(self):
        self.summary = _overlap_summary(self.con, self.run, self.judgments)

    def _check_gain_grades(self):
        _check_gain_grades(self.con, self.judgments, self.measures, self.conv)

    def note(self) -> str | None:
        """One line on the queries found on one side only and what the convention did with them, or None."""
        return query_note(self.summary, self.conv)

    def sql(self, presorted: bool = False) -> str:
        """The fused query's DuckDB text over the loaded inputs. presorted: the run ranked in its input order
        (sqlgen.plan's presorted), which fails with checks.PRESORTED_FAULT when the run is not in rank order;
        rows() uses it when plancache.presorted says so, and falls back to the sort."""
        # floating-point sums in value order: the same bits from every input kind and row order (determinism.py);
        # the text is determinism.ordered(self.plan.query).sql(dialect="duckdb"), built once by plancache
        if presorted:
            return plancache.duckdb_sql(self.measures, self.conv, self.run, self.judgments, False, self.by,
                                        {name: t.sql(dialect="duckdb") for name, t in self.sides.items()},
                                        self.reference, presorted=True)
        if self._sql is None:
            top_n = False
            if measures_mod.top_n_need(self.measures, self.conv) is not None:  # else no need to scan the run
                length = mean_list_length(self.con, self.run.relation.sql(dialect="duckdb"))
                top_n = measures_mod.top_n_pays(self.measures, self.conv, length)
            self._sql = plancache.duckdb_sql(self.measures, self.conv, self.run, self.judgments, top_n, self.by,
                                             {name: t.sql(dialect="duckdb") for name, t in self.sides.items()},
                                             self.reference)
        return self._sql

    def _presorted_rows(self) -> list | None:
        """The rows of the fused query ranking the run in its input order, when the run's first rows come in rank
        order (plancache.presorted) and the query finds every row in order; None otherwise (then the sort)."""
        if self.sides or self.reference is not None:  # their streams are not the split shape (sqlgen.plan)
            return None
        if not self.reader.private:  # the caller's connection: a failing query would abort their transaction
            return None
        try:
            if not plancache.presorted(self.con, self.measures, self.conv, self.run.has_score, self.run.has_rank,
                                       self.run.relation.sql(dialect="duckdb"), by=self.by):
                return None
            return self.con.execute(self.sql(presorted=True)).fetchall()
        except duckdb.Error as e:
            if checks.PRESORTED_FAULT in str(e):
                return None
            raise

    def relation(self) -> duckdb.DuckDBPyRelation:
        """Rows (measure, query_id, value), lazily evaluated; the means have query_id NULL. With groups (by),
        the group columns come between measure and query_id."""
        self._open()
        return self.con.sql(self.sql())

    @property
    def columns(self) -> list[str]:
        """The names of the rows' columns: measure, the group columns, query_id, value."""
        return ["measure", *self.by, "query_id", "value"]

    def rows(self) -> list[tuple]:
        """(measure, query_id, value) rows: per measure as requested, queries sorted, then the mean, whose
        query_id is None (a query may be named 'all'). With groups (by): (measure, group values..., query_id,
        value), per measure and group (in sort order, NULL first)."""
        self._open()
        if not self.measures:  # only trec_eval's text lines (runid, relstring): no value to compute
            return []
        if self._rows is not None:  # computed with the checks (onepass)
            out, self._rows = self._rows, None
        else:
            out = self._presorted_rows()
            self.ranking = "sort" if out is None else "input order"
            if out is None:
                out = self.con.execute(self.sql()).fetchall()
        out = _as_numbers(out)
        if self.zscores is not None:
            out = self._zscored(out)
        return _ordered_rows(out, self.measures, len(self.by))

    def _zscored(self, rows: list[tuple]) -> list[tuple]:
        """trec_eval -Z (convert_zscores.c): each per-query value as (value - mean) / stddev with the mean and
        stddev of its (query, measure) in the z-score file; -1000000 when the pair is missing, or when the stddev
        is 0 and the value is not the mean (0 when it is). The 'all' rows are then each measure's aggregate
        (Metric.mean) of those values; num_q stays the count of queries."""
        import pyarrow as pa
        per_query = [r for r in rows if r[1] is not None]
        table = pa.table({"measure": pa.array([r[0] for r in per_query], pa.string()),
                          "query_id": pa.array([r[1] for r in per_query], pa.string()),
                          "value": pa.array([None if math.isnan(r[2]) else r[2] for r in per_query], pa.float64())})
        keys = list(self.zscores)
        z = pa.table({"query_id": pa.array([k[0] for k in keys], pa.string()),
                      "measure": pa.array([k[1] for k in keys], pa.string()),
                      "mean": pa.array([self.zscores[k][0] for k in keys], pa.float64()),
                      "stddev": pa.array([self.zscores[k][1] for k in keys], pa.float64())})
        codes = {m.requested: m.metric.mean.code for m in self.measures}
        kinds = pa.table({"measure": pa.array(list(codes), pa.string()),
                          "summed": pa.array(list(codes.values()), pa.int64())})
        from . import determinism
        listed = measures_mod.listed_aggregates(self.measures)
        is_ = lambda a, t: exp.EQ(this=exp.column("summed", t), expression=exp.Literal.number(a.code))  # noqa: E731
        mean = determinism.ordered(measures_mod.mean_sql(  # the z-scores added query by query, as trec_eval does
            exp.column("value", "v"), lambda a: is_(a, "v"), listed, zscores=True)).sql(dialect="duckdb")
        # the value each aggregate's measures hold per query, z-scored (Aggregate.zscored: gm_map's log)
        held = exp.Case(ifs=[exp.If(this=is_(a, "k"), true=a.zscored(exp.column("value", "r"))) for a in listed],
                        default=exp.column("value", "r")).sql(dialect="duckdb")
        missing = measures_mod.MISSING_ZSCORE
        con = connections.private()
        try:
            con.register("rm_rows", table)
            con.register("rm_zscores", z)
            con.register("rm_kinds", kinds)
            con.execute(f"""
                CREATE TEMP TABLE rm_zrows AS
                SELECT r.measure, r.query_id, k.summed,
                    CASE WHEN r.value IS NULL THEN NULL
                         WHEN z.mean IS NULL THEN {missing}
                         WHEN z.stddev <> 0 THEN ({held} - z.mean) / z.stddev
                         WHEN {held} = z.mean THEN 0
                         ELSE {missing} END AS value
                FROM rm_rows AS r JOIN rm_kinds AS k ON k.measure = r.measure
                LEFT JOIN rm_zscores AS z ON z.query_id = r.query_id AND z.measure = r.measure""")
            converted = con.execute("SELECT v.measure, v.query_id, v.value FROM rm_zrows AS v").fetchall()
            means = dict(con.execute(f"SELECT v.measure, {mean} FROM rm_zrows AS v GROUP BY v.measure, v.summed")
                         .fetchall())
        finally:
            con.close()
        out = [(m, q, math.nan if v is None else float(v)) for m, q, v in converted]
        for m, q, v in rows:
            if q is None:
                keep = any(x.requested == m and not x.metric.zscored for x in self.measures)
                out.append((m, None, v if keep else (math.nan if means.get(m) is None else float(means[m]))))
        return out

    def to_arrow(self):
        """The rows (measure, [group columns], query_id, value) as a pyarrow Table (NaN as null); the means have
        query_id null."""
        import pyarrow as pa
        rows = self.rows()
        columns = {"measure": pa.array([r[0] for r in rows], pa.string())}
        for i, g in enumerate(self.by):
            columns[g] = pa.array([r[1 + i] for r in rows])
        columns["query_id"] = pa.array([r[-2] for r in rows], pa.string())
        columns["value"] = pa.array([None if math.isnan(r[-1]) else r[-1] for r in rows], pa.float64())
        return pa.table(columns)

    def to_pandas(self):
        """The rows as a pandas DataFrame (needs pandas, which rankmetrics does not install)."""
        require_pandas("Evaluation.to_pandas()")
        return self.to_arrow().to_pandas()

    def close(self):
        """Free what it holds: the inputs it loaded and its spill folder (with `with`, on leaving the block)."""
        if self.reader is not None:
            self.reader.close()
        self.close_spill()
        self._closed = True

    def _open(self):
        """A UsageError once closed (its tables are gone), rather than DuckDB's error naming one of them."""
        if getattr(self, "_closed", False):
            raise UsageError("this Evaluation is closed: create it again (or read its rows before closing it)")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close_spill(self):
        """Remove the spill folder of a memory limit (_connect's finalizer), if any."""
        if self._spill is not None:
            self._spill()
            self._spill = None


class Prepared:
    """Judgments and a run read and checked once, to evaluate again and again in the same process (as ranx's
    Qrels and Run objects, built once and evaluated many times): prepare() loads and checks them as evaluate()'s
    careful path does, and each evaluate() reads the stream (the run ranked and joined with the judgments), which
    is computed on first use for its conventions and kept in memory, so that only the measures are computed
    again. The numbers are evaluate()'s, bit for bit. Plain inputs only: no columns=, by=, lists (refused:
    evaluate() reads them) or side tables.
    Close it (or use `with`) to free the memory."""

    def __init__(self, judgments, run, *, convention="trec_eval", memory_limit=None, threads=None,
                 nan_scores="error", **overrides):
        shaped = _evaluate_only(overrides)
        if shaped:
            raise UsageError(f"prepare() takes plain inputs under our column names: no {', '.join(shaped)} (those "
                             f"are evaluate()'s: evaluate(judgments, run, metrics, {shaped[0]}=...))")
        self.conv = conventions.resolve(convention, **overrides)  # a bad convention or switch is refused now
        self.convention, self.overrides = convention, overrides
        self.reader, self._spill = None, None
        self.con = _connect(memory_limit, threads, False, self)
        self._streams = {}  # the stream's conventions (sqlgen.STREAM_CONVENTIONS) -> its table
        try:
            self.reader = Reader(self.con, True, nan_scores, trec_rank=conventions.reads_rank(self.conv))
            judgments, run = table_like(judgments, JUDGMENTS), table_like(run, RUN)
            from . import warehouse
            listed = [kind for kind, obj in ((RUN, run), (JUDGMENTS, judgments))
                      if warehouse.item_lists(self.reader, obj)]
            if listed:  # (read as plain inputs, a run of lists had "neither a score nor a rank column")
                raise UsageError(f"prepare() takes plain inputs: the {listed[0]}'s item column is a list, which "
                                 f"evaluate() reads (evaluate(judgments, run, metrics))")
            named = empty_queries(run)
            if named is not None:  # (read as plain inputs, its rows would leave those queries out)
                raise UsageError(f"prepare() takes plain inputs: the run maps query {named[0]} to no item (a "
                                 f"query that retrieved nothing), which evaluate() reads (evaluate(judgments, run, "
                                 f"metrics))")
            self.judgments = self.reader.load(judgments, JUDGMENTS)
            self.run = self.reader.load(run, RUN)
            self.summary = _overlap_summary(self.con, self.run, self.judgments)
            # the stream of the convention as given, made now (a request whose names set other stream conventions,
            # judged_only say, or whose providers compare scores as doubles, makes its own on first use)
            first = measures_mod.stream_conventions([], self.conv)  # scores 'provider': pytrec_eval's float32
            _check_float32_scores(self.con, self.run, first)
            if conventions.reads_rank_values(convention, self.conv):
                check_rank_positions(self.con, self.run)
            self._stream(first)
        except BaseException as e:
            self.close()
            _raise_input_error(e)
            raise

    def _sources(self):
        return (sqlgen.Source(self.run.relation, self.run.has_score, self.run.has_rank),
                sqlgen.Source(self.judgments.relation, True, False))

    def _stream(self, conv: dict):
        key = tuple(conv[k] for k in sqlgen.STREAM_CONVENTIONS)
        if key not in self._streams:
            name = f"rm_prepared_stream_{len(self._streams) + 1}"
            query = sqlgen.stream_select(conv, *self._sources()).sql(dialect="duckdb")
            run_sql(self.con, f"CREATE TEMP TABLE {name} AS {query}")
            self._streams[key] = exp.to_table(name)
        return self._streams[key]

    def rows(self, metrics=None) -> list[tuple]:
        """(measure, query_id, value) rows as Evaluation.rows() gives them (the means' query_id is None)."""
        return self._measured(metrics)[0]

    def evaluate(self, metrics=None, *, per_query=False) -> dict:
        """evaluate()'s answer for these metrics: {measure: mean}, or {measure: {query_id: value}}."""
        return _result(*self._measured(metrics), flag("per_query", per_query))

    def _measured(self, metrics) -> tuple[list[tuple], list]:
        """(the rows, the measures asked for)."""
        from . import determinism
        if self.reader is None:
            raise UsageError("this prepare()d evaluation is closed: prepare() the inputs again")
        if isinstance(metrics, str):
            metrics = [metrics]
        div, _ = diversity.partition(metrics)
        if div:
            raise UsageError(f"{', '.join(div)}: evaluate() takes these, with their subtopic judgments (prepare() "
                             f"keeps plain judgments)")
        measures = measures_mod.parse_all(metrics or DEFAULT_METRICS)
        side = sorted({t for m in measures for t in m.metric.tables})
        if side:
            raise UsageError(f"{', '.join(m.requested for m in measures if m.metric.tables)}: evaluate() takes "
                             f"these, with their inputs (prepare() does not keep {', '.join(side)})")
        conventions.refuse_gaps(self.convention, self.overrides, [m.metric.name for m in measures])
        conv = measures_mod.stream_conventions(measures, self.conv)
        _check_gain_grades(self.con, self.judgments, measures, conv)
        if not measures:
            return [], measures
        plan = sqlgen.plan(measures, conv, *self._sources(), stream_table=self._stream(conv))
        rows = run_sql(self.con, determinism.ordered(plan.query).sql(dialect="duckdb")).fetchall()
        return _ordered_rows(_as_numbers(rows), measures), measures

    def note(self) -> str | None:
        """One line on the queries found on one side only and what the convention did with them, or None."""
        return query_note(self.summary, self.conv)

    close_spill = Evaluation.close_spill

    def close(self):
        self._streams = {}
        self.reader = None  # closed: evaluate() says so (_measured)
        self.con.close()  # its own connection: the loaded tables and the streams go with it
        self.close_spill()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class RelevanceEvaluator:
    """pytrec_eval's RelevanceEvaluator, computed here: RelevanceEvaluator(qrels, measures, relevance_level=1,
    judged_docs_only_flag=False).evaluate(run) gives {query_id: {key: value}} with pytrec_eval's keys and values
    (its preset, convention='pytrec_eval': trec_eval's measures with 32-bit scores), for the queries of the run
    that are judged. qrels and run: its dicts, or any input evaluate() takes. measures: trec_eval's names, families
    ('P', 'ndcg_cut') and parameters ('P.5,10'). As pytrec_eval: gm_map and gm_bpref hold ln(max(value, 0.00001))
    per query (trec_eval's accumulator), runid and relstring 0.0. Unlike it, an unknown measure is a UsageError
    and a run that is empty or shares no query with the judgments an InputError, where pytrec_eval gives {}; and
    for a query the run maps to no item ({}), iprec_at_recall at recall 0 (11pt_avg's term) is 0 where pytrec_eval
    gives trec_eval's 0 / 0, NaN (docs/conventions.md section 6)."""

    def __init__(self, query_relevance, measures, relevance_level=1, judged_docs_only_flag=False):
        names = [measures] if isinstance(measures, str) else sorted(measures)
        # trec_eval's text lines, which pytrec_eval gives as 0.0 per query
        self._text = {"runid" for n in names if n == measures_mod.RUNID} | {
            "relstring" for n in names if measures_mod.relstrings_wanted([n])}
        self._names = [n for n in names if n != measures_mod.RUNID and not measures_mod.relstrings_wanted([n])]
        measures_mod.parse_all(self._names)  # an unknown name now, where pytrec_eval raises its ValueError
        self._switches = {"rel": relevance_level, "judged_only": bool(judged_docs_only_flag)}
        self._qrels = table_like(query_relevance, JUDGMENTS)  # read once (an iterator, say), checked per run

    def evaluate(self, scores) -> dict:
        out: dict = {}
        names = self._names or ["num_q"]  # only text lines asked for: the queries they are given for
        with Evaluation(self._qrels, scores, names, convention="pytrec_eval", **self._switches) as ev:
            held = {m.requested: m.metric.mean.held for m in ev.measures}  # gm_map's log (measures.Aggregate)
            for measure, query, value in ev.rows():
                if query is not None:
                    out.setdefault(query, {})[measure] = held[measure](value)
        for values in out.values():
            if not self._names:
                values.clear()
            values.update(dict.fromkeys(self._text, 0.0))
        return out


# pytrec_eval.supported_measures, as RelevanceEvaluator takes them: trec_eval 10's measures (its all_trec), each of
# pytrec_eval's among them
supported_measures = frozenset(measures_mod.TREC_SETS["all_trec"])


def compute_aggregated_measure(measure: str, values) -> float:
    """pytrec_eval's: the per-query values of a RelevanceEvaluator key made one number, by the measure's own
    aggregate (measures.Aggregate, as its 'all' row): counts (num_*) summed, gm_map and gm_bpref exp of the mean
    of the logs RelevanceEvaluator gives per query, the others averaged; NaN for no value, as numpy's mean."""
    parsed = measures_mod.parse_all([measure])  # runid and relstring: none (their 0.0s are averaged)
    aggregate = parsed[0].metric.mean if parsed else measures_mod.AVG
    return aggregate.held_mean([float(v) for v in values])


def _evaluate_only(keys) -> list:
    """The keys that are arguments of evaluate() (or Evaluation) and not of prepare(): Prepared takes plain inputs
    only, and its other keyword arguments are conventions. Read from the signatures, so that they stay true."""
    import inspect
    unknown = [k for k in keys if k not in conventions.PARAMETERS]
    if not unknown:
        return []
    theirs = {p for f in (evaluate, Evaluation.__init__) for p in inspect.signature(f).parameters}
    return [k for k in unknown if k in theirs - set(inspect.signature(Prepared.__init__).parameters)]


def prepare(judgments, run, *, convention="trec_eval", memory_limit=None, threads=None, nan_scores="error",
            **overrides) -> Prepared:
    """Judgments and a run read and checked once, to evaluate many times (Prepared.evaluate(metrics)):
    evaluate()'s inputs (a file path, a DataFrame, a pyarrow Table, a relation), conventions and numbers."""
    return Prepared(judgments, run, convention=convention, memory_limit=memory_limit, threads=threads,
                    nan_scores=nan_scores, **overrides)


def _check_float32_scores(con, run, conv) -> None:
    """Under scores='float32', a finite score beyond the 32-bit float range (DuckDB's cast to FLOAT fails past
    about 3.4028235e38; pytrec_eval ranks 1e39 as +inf) is an input error naming it (the query failed with DuckDB's
    conversion error before). The test is DuckDB's own cast, so every path draws the line where the query does."""
    if conv.get("scores") != "float32" or not run.has_score:
        return
    r = run.relation.sql(dialect="duckdb")
    score = "CAST(t.score AS DOUBLE)"
    row = run_sql(con, f"SELECT CAST(t.query_id AS VARCHAR), CAST(t.item_id AS VARCHAR), t.score FROM {r} AS t "
                       f"WHERE isfinite({score}) AND TRY_CAST({score} AS FLOAT) IS NULL LIMIT 1").fetchone()
    if row:
        raise InputError(f"{run.label}: score {row[2]!r} for query {row[0]}, item {row[1]} {checks.FLOAT32_TOO_LARGE}")


def _check_score_readers(con, run, readers: dict) -> None:
    """Measures whose ir_measures providers compare scores in two precisions (measures.by_provider), evaluated
    as 32-bit floats: an input error when two scores of a query differ as doubles and not as 32-bit floats (the
    two providers rank them apart), naming them; otherwise one ranking serves both."""
    if not run.has_score:
        return
    r = run.relation.sql(dialect="duckdb")
    score = "CAST(t.score AS DOUBLE)"
    row = run_sql(con, f"SELECT CAST(t.query_id AS VARCHAR), arg_min(CAST(t.item_id AS VARCHAR), {score}), "
                       f"min({score}), arg_max(CAST(t.item_id AS VARCHAR), {score}), max({score}) FROM {r} AS t "
                       f"WHERE isfinite({score}) GROUP BY CAST(t.query_id AS VARCHAR), CAST({score} AS FLOAT) "
                       f"HAVING min({score}) < max({score}) ORDER BY 1 LIMIT 1").fetchone()
    if row:
        raise InputError(f"{run.label}: query {row[0]}: items {row[1]} and {row[3]} have scores {row[2]!r} and "
                         f"{row[4]!r}, tied as the 32-bit floats of {', '.join(readers['float32'])} and apart as the "
                         f"doubles of {', '.join(readers['double'])} (ir_measures' providers): evaluate them "
                         f"separately, or choose {measures_mod.PROVIDER_VALUES['scores'].switch}")


def _check_tie_orders(con, run, orders: dict, conv: dict) -> None:
    """Measures whose ir_measures providers order tied scores both ways (measures.by_provider), evaluated in one
    ranking: an input error when two items of a query tie as the ranking compares them (their scores in conv's
    precision, or the ranks of a run without scores), naming them; otherwise both orders rank alike."""
    r = run.relation.sql(dialect="duckdb")
    key = ranking_key(conv, run.has_score)
    row = run_sql(con, f"SELECT CAST(t.query_id AS VARCHAR), min(CAST(t.item_id AS VARCHAR)), "
                       f"max(CAST(t.item_id AS VARCHAR)), any_value({key}) FROM {r} AS t "
                       f"GROUP BY CAST(t.query_id AS VARCHAR), {key} HAVING count(*) > 1 ORDER BY 1 LIMIT 1").fetchone()
    if row:
        what = "score" if run.has_score else "rank"
        raise InputError(f"{run.label}: query {row[0]}: items {row[1]} and {row[2]} tie on {what} {row[3]!r}, and "
                         f"ir_measures' providers order tied items by id descending for "
                         f"{', '.join(orders['item_desc'])} and ascending for {', '.join(orders['item_asc'])}: "
                         f"evaluate them separately, or choose {measures_mod.PROVIDER_VALUES['ties'].switch}")


def _check_gain_grades(con, judgments, measures, conv) -> None:
    """The grades a gain cannot take (measures.grade_rules) are an input error, named with the first such
    judgment: not a NaN, or a number the reference refuses. judgments: the loaded judgments (inputs.Loaded). The
    grade tested is the one the measures read (sqlgen.grade_of: -0.5 is 0 under grades 'truncate')."""
    for rule in measures_mod.grade_rules(measures, conv):
        j = judgments.relation.sql(dialect="duckdb")  # (the text: sqlglot, only when a rule applies)
        grade = sqlgen.grade_of(exp.column("relevance", "t"), conv["grades"]).sql(dialect="duckdb")
        row = run_sql(con, f"SELECT CAST(t.query_id AS VARCHAR), CAST(t.item_id AS VARCHAR), t.relevance FROM {j} "
                           f"AS t WHERE {grade} {rule.op} {rule.bound} ORDER BY t.relevance "
                           f"{'ASC' if rule.op == '<' else 'DESC'} LIMIT 1").fetchone()
        if not row:
            continue
        at = f"{judgments.label}: grade {row[2]:g} (query {row[0]}, item {row[1]})"
        if rule.kind == "overflow":
            raise InputError(f"{at} is too high for exponential gain in {rule.measure}: 2^grade - 1 overflows past "
                             f"grade {measures_mod.GRADE_LIMIT}")
        raise InputError(f"{at} is negative: {rule.measure} with raw gain (scikit-learn's ndcg_score) is not defined "
                         f"for negative grades, as scikit-learn refuses them; DCG takes them, or choose another gain")


def _overlap_summary(con, run, judgments) -> dict:
    """The queries of the loaded run and judgments, and how many are on one side only (query_note reads it)."""
    run_queries, judged_queries, common = query_overlap(con, run, judgments)
    return {"run_queries": run_queries, "judged_queries": judged_queries, "common_queries": common,
            "judged_not_in_run": judged_queries - common, "run_not_judged": run_queries - common}


def _as_numbers(rows: list) -> list:
    """The result rows with each value a float, NULL as NaN (a row whose value is a float already, as is)."""
    return [r if type(r[-1]) is float else (*r[:-1], math.nan if r[-1] is None else float(r[-1])) for r in rows]


def _ordered_rows(rows: list, measures: list, n: int = 0) -> list:
    """The result rows per measure as requested, then by group (n group columns; in sort order, NULL first),
    queries sorted byte-wise and the mean (query_id None) last. Without groups, the rows of each measure are
    sorted apart, by their query ids alone (Python compares strings by code point, which is UTF-8's byte order):
    a third of the time of one sort with a composite key (500,000 rows: 0.34 s instead of 1.05 s). With groups,
    the same per measure and group, the groups sorted once (W2M's 5 models, 50,000 rows: 0.22 s with one sort)."""
    if n:
        buckets: dict = {}
        for r in rows:
            key = (r[0], r[1:1 + n])
            bucket = buckets.get(key)
            if bucket is None:
                bucket = buckets[key] = ([], [])
            bucket[r[-2] is None].append(r)
        order = {m.requested: i for i, m in enumerate(measures)}
        keys = sorted(buckets, key=lambda k: (order[k[0]], *[(g is not None, g) for g in k[1]]))
    else:
        buckets = {m.requested: ([], []) for m in measures}
        for r in rows:
            buckets[r[0]][r[1] is None].append(r)
        keys = list(buckets)
    out = []
    for key in keys:
        queries, means = buckets[key]
        queries.sort(key=operator.itemgetter(-2))
        out += queries
        out += means
    return out


def _result(rows: list, measures: list, per_query: bool) -> dict:
    """evaluate()'s answer from ordered rows without groups: {measure: mean}, or {measure: {query_id: value}}."""
    if per_query:
        out = {m.requested: {} for m in measures}
        for m, q, v in rows:
            if q is not None:  # the mean's query_id is None: a query named 'all' is a query like any other
                out[m][q] = v
        return out
    return {m: v for m, q, v in rows if q is None}


def _raise_input_error(e: BaseException) -> None:
    """An error of DuckDB's while the inputs were read and checked (an input the checks could not name: a view
    whose cast fails, say) raised as the InputError naming it, in one line; any other error is left to the
    caller to raise again."""
    if isinstance(e, duckdb.Error) and not isinstance(e, duckdb.InterruptException):
        raise InputError(f"cannot evaluate the inputs: {first_line(e)}") from None


def _load_reference(reader: Reader, obj, form: shape.Shape):
    """The reference run of Intersection, read and checked as a run is (the careful path: missing ids, numbers,
    duplicates), in the run's shape (form: its column names, groups and lists); a fault names it."""
    try:
        if form:
            from . import warehouse
            return warehouse.load(reader, obj, RUN, form)
        return reader.load(obj, RUN)
    except InputError as e:
        raise InputError(f"the reference run: {e}") from None


def ranking_key(conv: dict, has_score: bool, t: str = "t") -> str:
    """What the ranking compares of a run read as `t`, as a DOUBLE: the score (rounded to a 32-bit float under
    scores 'float32', pytrec_eval's), or the rank of a run without scores."""
    if not has_score:
        return f"CAST({t}.rank AS DOUBLE)"
    if conv.get("scores") == "float32":
        return f"CAST(CAST({t}.score AS FLOAT) AS DOUBLE)"
    return f"CAST({t}.score AS DOUBLE)"


def top_filter(conv: dict, has_score: bool, n: int, t: str = "t") -> str:
    """The QUALIFY clause keeping each query's top n rows of a run read as `t`, ranked as the measures rank
    under conv (trec_eval -M: form_res_rels.c sorts by score, then docno descending, and keeps the first n)."""
    item = f"CAST({t}.item_id AS VARCHAR)"
    order = []
    if conv["ties"] == "input":
        order.append(f"{t}.rank ASC NULLS LAST")
    order.append(f"{ranking_key(conv, has_score, t)} {'DESC' if has_score else 'ASC'} NULLS LAST")
    if conv["ties"] == "item_asc":
        order.append(f"{item} ASC")
    order.append(f"{item} DESC")
    return f"QUALIFY ROW_NUMBER() OVER (PARTITION BY {t}.query_id ORDER BY {', '.join(order)}) <= {int(n)}"


def _zscores(zscores, by) -> dict | None:
    """The z-score means and standard deviations (trec_eval -Z): a file of `qid measure mean stddev` lines, or
    {(query_id, measure): (mean, stddev)}; None without."""
    if zscores is None:
        return None
    if by:
        raise UsageError("z-scores (-Z) apply to one run, not to groups (by)")
    if isinstance(zscores, (str, os.PathLike)):
        return textfiles.read_zscores(os.fspath(zscores))
    if isinstance(zscores, dict):
        return {(str(q), str(m)): (float(a), float(b)) for (q, m), (a, b) in zscores.items()}
    raise UsageError(f"zscores must be a file path or a dict {{(query_id, measure): (mean, stddev)}}, not "
                     f"{type(zscores).__name__}")


def require_pandas(what: str) -> None:
    """pandas is optional: a one-line UsageError naming the install command when it is missing."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise UsageError(f"{what} needs pandas, which is not installed: pip install pandas "
                         f"(or use to_arrow() / output='arrow', which need only pyarrow)") from None


def query_note(summary: dict, conv: dict) -> str | None:
    """'2 judged queries are not in the run (skipped; ...), 1 run query has no judgments (skipped)', or None."""
    def count(n, what):
        return f"{n} {what[0] if n == 1 else what[1]}"
    parts = []
    missing, unjudged = summary["judged_not_in_run"], summary["run_not_judged"]
    if missing:
        if conv["queries"] in ("judged", "all"):
            how = "each scored as an empty ranking"
        else:
            how = "skipped" + ("; -c or queries='judged' scores them 0" if conv["queries"] == "both" else "")
        parts.append(f"{count(missing, ('judged query is', 'judged queries are'))} not in the run ({how})")
    if unjudged:
        if conv["queries"] in ("run", "all"):
            how = ("NaN, left out of the means" if conv["empty"] == "nan"
                   else "each scored as having no relevant item")
        else:
            how = "skipped"
        parts.append(f"{count(unjudged, ('run query has', 'run queries have'))} no judgments ({how})")
    return ", ".join(parts) or None


MAX_THREADS = 1024  # DuckDB starts them all at connect: 100,000 took 18 s before anything was read


def check_threads(threads) -> int:
    """threads as an int between 1 and MAX_THREADS, or a UsageError."""
    n = threads if isinstance(threads, int) and not isinstance(threads, bool) else None
    if isinstance(threads, str) and threads.strip().isdigit():
        n = int(threads)
    if n is None or not 1 <= n <= MAX_THREADS:
        raise UsageError(f"threads must be a whole number from 1 to {MAX_THREADS}, not {threads!r}")
    return n


def _connect(memory_limit, threads, progress, owner) -> duckdb.DuckDBPyConnection:
    """A private in-memory connection: a cursor of the process's database (connections.private), or, when
    memory_limit ('4GB') or threads bound its resources, a database of its own; with a memory limit it spills to
    a temporary folder of its own (removed on close), not to DuckDB's default '.tmp' in the working directory.
    progress shows DuckDB's progress bar on the terminal during long queries."""
    import shutil
    import tempfile
    import weakref
    config = {}
    if memory_limit:
        config["memory_limit"] = str(memory_limit)
    if threads is not None:
        config["threads"] = check_threads(threads)
    try:
        con = connections.private() if connections.shared(memory_limit, threads) else duckdb.connect(config=config)
    except duckdb.Error as e:
        first = first_line(e)
        raise UsageError(f"invalid memory limit or thread count ({memory_limit!r}, {threads!r}): {first}") from None
    if memory_limit:
        # removed by close(), also on errors; and, for an object never closed, when it is collected or Python exits
        folder = tempfile.mkdtemp(prefix="rankmetrics-spill-")
        owner._spill = weakref.finalize(owner, shutil.rmtree, folder, ignore_errors=True)
        try:
            con.execute(f"SET temp_directory = {sqlsource.literal(folder).sql(dialect='duckdb')}")
        except BaseException:
            con.close()
            owner.close_spill()
            raise
    # DuckDB's Python client shows its progress bar by default, on stdout, even into a pipe: say it each time
    con.execute(f"SET enable_progress_bar = {'true' if progress else 'false'}")
    if progress:
        con.execute("SET enable_progress_bar_print = true")
    return con


def max_retrieved_count(value) -> int | None:
    """trec_eval's -M as a count (None: all): a whole number >= 1, written in digits (conventions.plain_number)."""
    if value is None:
        return None
    conventions.plain_number("max_retrieved (-M)", value)
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise UsageError(f"max_retrieved (-M) must be a whole number >= 1, not {value!r}") from None
    if n < 1 or n != float(value):
        raise UsageError(f"max_retrieved (-M) must be a whole number >= 1, not {value!r}")
    return n


def max_retrieved_of(value, conv: dict, shaped: bool, nan_scores: str) -> int | None:
    """trec_eval's -M: at most this many retrieved items per query (None: all), checked."""
    n = max_retrieved_count(value)
    if n is None:
        return None
    if shaped:
        raise UsageError("max_retrieved (-M) applies to runs under our own column names (lists too), not with "
                         "columns= or groups")
    if conv["ties"] == "average":
        raise UsageError("max_retrieved (-M) cannot cut through tied scores whose discounts are averaged (ties average)")
    if nan_scores != "error":
        raise UsageError("max_retrieved (-M) needs every score finite (nan_scores 'error')")
    return n


def evaluate(judgments, run, metrics=None, *, con=None, convention="trec_eval", per_query=False, memory_limit=None,
             threads=None, columns=None, by=None, interactions=None, items=None, reference=None,
             interactions_columns=None, items_columns=None, **overrides):
    """Evaluate a run against judgments.

    judgments, run: a file path, a table or view name on con, a DuckDB relation, or a pandas/polars DataFrame
    or pyarrow Table with columns query_id, item_id and relevance (judgments) or score and/or rank (run); or
    pytrec_eval's and ranx's dicts {query_id: {item_id: grade or score}}, ranx's Qrels and Run, or ir_measures'
    Qrel and ScoredDoc rows (a list or an iterator).
    metrics: names such as "nDCG@10", "AP", "P@10", "ndcg_cut_10", "mrr" (default: a trec_eval-like set).
    convention: "trec_eval" (default), "ranx", "mllib", "sklearn" or "retrieved"; overrides (ties=, gain=,
    ideal=, denominator=, empty=, queries=, rel=, judged_only=, log_base=) switch single conventions.
    nan_scores: "error" (default) refuses NaN, infinite or missing scores; "last" ranks those items after every
    finite score, tied with each other.
    memory_limit ('4GB') and threads bound DuckDB's resources (a larger run spills to a temporary folder).
    interactions, items: the tables the recommender metrics MeanInvUserFreq, AvgRecPopularity and Serendipity
    read beside the run: the training interactions (user_id, item_id) and the catalog (item_id; without it, the
    items of the interactions; IntraListDiversity: with an embedding column), each a file (Parquet, CSV), a table
    name, a relation or a frame; interactions_columns={'user_id': 'uid', 'item_id': 'iid'} and
    items_columns={'item_id': 'movie_id', 'embedding': 'vec'} name their columns where they differ.
    reference: the second run Intersection compares the run with (another model's recommendations), in the run's
    shape and read as runs are (a file, a table name, a relation or a frame).
    Returns {measure: mean}, or {measure: {query_id: value}} with per_query=True (NaN for excluded queries; the
    queries only, a query named 'all' among them: the means come from per_query=False).
    Queries found on one side only are counted in Evaluation(...).summary and described by .note().
    Warehouse tables (README, "Warehouse tables"): columns={'query_id': 'user_id', 'item_id': 'movie_id',
    'score': 'pred', 'relevance': 'rating'} names the columns; by=['model_version', ...] evaluates each group of
    the run as a run of its own, and the result is keyed by the tuple of group values first:
    {(group values): {measure: mean}} (or {(group values): {measure: {query_id: value}}}). A list column of
    items is read as a ranked list (run) or as the relevant items (judgments).
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    per_query = flag("per_query", per_query)
    div, other = diversity.partition(metrics)
    if div:  # the diversity measures read subtopic judgments: their own route (diversity.py)
        diversity.refuse_mixed(div, other)
        if (con is not None or columns or by or interactions is not None or items is not None
                or reference is not None or interactions_columns or items_columns):
            raise UsageError("diversity measures take files, frames or Arrow tables, without con=, columns=, by= "
                             "or side tables (not yet)")
        nan_scores = overrides.pop("nan_scores", "error")
        queries = conventions.resolve(convention, **overrides)["queries"]  # (names each override checked)
        diversity.refuse_unapplied([name for name in overrides if name not in ("ties", "queries")])
        rows = diversity.evaluate(judgments, run, div, per_query=per_query, ties=overrides.get("ties"),
                                  queries=queries, nan_scores=nan_scores)
        if per_query:
            return {m: {q: v for m_, q, v in rows if m_ == m and q is not None} for m in dict.fromkeys(div)}
        return {m: v for m, q, v in rows if q is None}
    ev = Evaluation(judgments, run, metrics, con=con, convention=convention, memory_limit=memory_limit,
                    threads=threads, columns=columns, by=by, interactions=interactions, items=items,
                    reference=reference, interactions_columns=interactions_columns, items_columns=items_columns,
                    **overrides)
    try:
        rows = ev.rows()
    finally:
        ev.close()
    if ev.by:
        n = len(ev.by)
        grouped = {}
        for r in rows:
            group, (m, q, v) = tuple(r[1:1 + n]), (r[0], r[-2], r[-1])
            cell = grouped.setdefault(group, {m_.requested: {} for m_ in ev.measures} if per_query else {})
            if per_query and q is not None:
                cell[m][q] = v
            elif not per_query and q is None:
                cell[m] = v
        return grouped
    return _result(rows, ev.measures, per_query)


def relation(judgments, run, metrics=None, *, con=None, convention="trec_eval", threads=None, columns=None, by=None,
             **overrides):
    """A lazily evaluated DuckDB relation of rows (measure, query_id, value), the means with query_id NULL.

    Lazy: inputs given as files or frames stay loaded (temporary, rankmetrics_* names) on con while it lives;
    evaluate() leaves a caller's connection exactly as found."""
    if isinstance(metrics, str):
        metrics = [metrics]
    return Evaluation(judgments, run, metrics, con=con, convention=convention, threads=threads,
                      one_statement=False, columns=columns, by=by, **overrides).relation()


def _run_columns(run_columns) -> tuple[bool, bool]:
    """(has_score, has_rank) from 'score', 'rank', 'score,rank' or a sequence of those names."""
    if not isinstance(run_columns, (str, list, tuple)):
        raise UsageError(f"run columns must be score, rank or score,rank, not {run_columns!r}")
    names = run_columns.replace(",", " ").split() if isinstance(run_columns, str) else list(run_columns)
    names = [str(n).strip().lower() for n in names]
    if not names or any(n not in ("score", "rank") for n in names):
        raise UsageError(f"run columns must be score, rank or score,rank, not '{run_columns}'")
    return "score" in names, "rank" in names


def to_sql(metrics=None, *, dialect="duckdb", run, judgments, per_query=False, convention="trec_eval",
           run_columns="score", pretty=True, columns=None, by=None, judgments_by=None, run_lists=False,
           judgment_lists=False, interactions=None, items=None, reference=None, interactions_columns=None,
           items_columns=None, **overrides) -> str:
    """One self-contained SELECT in the SQL dialect that returns rows (measure, query_id, value) computed from
    the tables run and judgments: the means with query_id NULL, and one row per query with per_query=True.

    run, judgments: table names, possibly qualified (db.schema.table, BigQuery project.dataset.table); they
    are quoted by sqlglot, and a name with quotes, spaces, semicolons or comments is rejected.
    The run table has query_id, item_id and the run_columns: 'score' (higher is better), 'rank' (1 is best)
    or 'score,rank'; the judgments table has query_id, item_id, relevance.
    dialect: one of dialects.names(); metrics and conventions as in evaluate() — the same numbers.
    Warehouse shapes (shape.Shape): columns={'query_id': 'user_id', ...} maps our column names to the tables';
    by=[...] names group columns of the run, each group evaluated as a run of its own (the rows gain a column per
    group column, the means are per group); judgments_by: those of them the judgments have too, joined on (the
    judgments are shared by the groups on the others); run_lists / judgment_lists: the item column is a list
    (the run's in rank order; the judgments' with their grades in a parallel list, the relevance column:
    columns' or ours, relevance; judgment_lists='ones': no grades, each listed item grade 1).
    interactions, items: the tables the recommender metrics MeanInvUserFreq, AvgRecPopularity and Serendipity
    read (training interactions: user_id, item_id; the catalog: item_id, and embedding for IntraListDiversity),
    as table names; interactions_columns, items_columns: their column names where they differ (as evaluate).
    reference: the table of the second run Intersection compares the run with, in the run's shape (the same
    run_columns, columns, by and run_lists); its duplicates fail the query as the run's do."""
    from . import dialects
    if isinstance(metrics, str):
        metrics = [metrics]
    per_query, pretty = flag("per_query", per_query), flag("pretty", pretty)
    d = dialects.get(dialect)
    diversity.refuse(metrics, "to_sql, rankmetrics sql")
    measures = measures_mod.valued(measures_mod.parse_all(metrics or DEFAULT_METRICS), "to_sql, rankmetrics sql")
    dialects.refuse_lacking(d, [m.metric.name for m in measures])
    conventions.refuse_gaps(convention, overrides, [m.metric.name for m in measures])
    conv = measures_mod.stream_conventions(measures, conventions.resolve(convention, **overrides))
    dialects.refuse_float32(d, conv)
    has_score, has_rank = _run_columns(run_columns)
    if conv["ties"] == "input" and not has_rank and not run_lists:
        preset = f" (the {convention} convention's)" if conventions.resolve(convention)["ties"] == "input" else ""
        raise UsageError(f"ties = 'input'{preset} orders the run by its rank column: "
                         f"give run_columns='score,rank' (--run-columns score,rank) or 'rank'")
    tables = {"run": dialects.table(run, d.name, "run table"),
              "judgments": dialects.table(judgments, d.name, "judgments table")}
    sides = measures_mod.side_inputs(measures, interactions, items, reference)
    for name, role in sides.items():
        tables[name] = dialects.table({"interactions": interactions, "items": items, "reference": reference}[role],
                                      d.name, f"{role} table")

    def put_tables(node):
        role = dialects.meta_value(node, "rm_input") if isinstance(node, exp.Table) else None
        if role in tables:
            table = tables[role].copy()
            table.set("alias", node.args.get("alias"))
            return table
        return node
    form = shape.Shape(columns, by, judgments_by, run_lists, judgment_lists, interactions_columns, items_columns,
                       tables=True)
    side_columns = tuple((name, () if role == "reference" else  # the reference: the run's columns
                          tuple(sorted(form.side_columns(role, checks.SIDE_COLUMNS[name]).items())))
                         for name, role in sorted(sides.items()))
    query = _table_free_plan(tuple(m.requested for m in measures), tuple(sorted(conv.items())), has_score,
                             has_rank, bool(per_query), tuple(sorted(form.columns.items())), form.by,
                             form.judgments_by, form.run_lists, form.judgment_lists,
                             side_columns, d.stream == "grouped",
                             has_rank and not form.run_lists  # a list's positions are 1..n (base 0 on some engines)
                             and conventions.reads_rank_values(convention, conv)).transform(put_tables)
    text = dialects.render(query, d.name, pretty=pretty, copy=False) + "\n"  # transform's copy above
    if d.helper:  # the SQL calls a helper function that `rankmetrics macros --dialect D` creates
        text = (f"-- fails through rm_fail(message), a function to create once: rankmetrics macros --dialect "
                f"{d.name}\n") + text
    return text


@functools.lru_cache(maxsize=64)
def _table_free_plan(metrics: tuple, conv: tuple, has_score: bool, has_rank: bool, per_query: bool,
                     columns: tuple = (), by: tuple = (), judgments_by: tuple = (), run_lists: bool = False,
                     judgment_lists: bool = False, sides: tuple = (), grouped: bool = False,
                     rank_positions: bool = False) -> exp.Select:
    """The fused query with stand-ins for the two tables and the side tables (tagged meta rm_input), so that the
    same request on other tables or for other dialects is planned once. sides: (side table name, its column
    names where they differ, as (ours, theirs) pairs); grouped: the dialect's stream shape (Dialect.stream);
    rank_positions: the given ranks must be 1..n per query (conventions.reads_rank_values)."""
    sides = dict(sides)
    stand_ins = {}
    for role in ("run", "judgments", *sides):
        stand_ins[role] = exp.Table(this=exp.to_identifier(f"rm_{role}_table"))
        stand_ins[role].meta["rm_input"] = role
    # the reference run (Intersection's) has the run's shape
    reference = (sqlgen.Source(stand_ins["reference"], has_score, has_rank, dict(columns), by, run_lists)
                 if "reference" in sides else None)
    return sqlgen.plan(measures_mod.parse_all(list(metrics)), dict(conv),
                       sqlgen.Source(stand_ins["run"], has_score, has_rank, dict(columns), by, run_lists),
                       sqlgen.Source(stand_ins["judgments"], True, False, dict(columns), judgments_by, judgment_lists),
                       per_query=per_query, by=by, checks=True, reference=reference, grouped=grouped,
                       rank_positions=rank_positions, **{name: sqlgen.Source(stand_ins[name], columns=dict(cols))
                          for name, cols in sides.items() if name != "reference"}).query


__all__ = ["register", "to_sql", "macros_sql", "evaluate", "relation", "Evaluation", "Prepared", "prepare",
           "InputError", "UsageError"]
