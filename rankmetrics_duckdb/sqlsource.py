"""The SQL source of truth: the DuckDB macros in sql/, read and expanded for any engine.

Every metric is a DuckDB macro in sql/ (see sql/00_common.sql). DuckDB runs those files as they are. For one
pass over many metrics, and for other engines, this module parses the macros with sqlglot and expands them:
a call of a scalar macro is replaced by its body with the arguments put in for the parameters, and the
convention parameters become literals that `fold` then simplifies away. So the SQL text in sql/ is the only
definition of a metric; nothing here knows what a metric computes.
"""
from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

from .paths import sql_dir, sql_files  # noqa: F401 (part of this module's interface)

_HEADER = re.compile(
    r"^CREATE\s+OR\s+REPLACE\s+MACRO\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)\s+AS(?P<table>\s+TABLE)?\s+(?P<body>.*)$",
    re.S | re.I,
)


def script() -> str:
    """One DuckDB SQL script creating every macro, in dependency order."""
    parts = []
    for path in sql_files():
        with open(path, encoding="utf-8") as fh:
            parts.append(f"-- {os.path.basename(path)}\n" + fh.read().strip() + "\n")
    return "\n".join(parts)


def _statements(text: str) -> list[str]:
    """Split a SQL file into statements: drop -- comments, split at semicolons outside quotes."""
    out, buf, quote = [], [], None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif text.startswith("--", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif ch == ";":
            out.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    rest = "".join(buf).strip()
    if rest:
        out.append(rest)
    return [s for s in out if s]


@dataclass
class Macro:
    name: str
    params: list[str]
    defaults: dict[str, exp.Expression]
    is_table: bool
    text: str
    file: str
    _body: exp.Expression | None = field(default=None, repr=False)

    @property
    def body(self) -> exp.Expression:
        if self._body is None:
            self._body = without_positions(sqlglot.parse_one(self.text, read="duckdb"))
        return self._body


_POSITIONS = ("line", "col", "start", "end")


def without_positions(tree: exp.Expression) -> exp.Expression:
    """The parsed tree without the parser's positions (line, col, start, end in the meta of each identifier):
    nothing reads them, and every copy of a tree built from the macros copied them (a third of a copy's time)."""
    for node in tree.walk():
        meta = node._meta
        if meta:
            for key in _POSITIONS:
                meta.pop(key, None)
            if not meta:
                node._meta = None
    return tree


@functools.lru_cache(maxsize=1)
def macros() -> dict[str, Macro]:
    found: dict[str, Macro] = {}
    for path in sql_files():
        with open(path, encoding="utf-8") as fh:
            for stmt in _statements(fh.read()):
                m = _HEADER.match(stmt)
                if not m:
                    raise ValueError(f"{os.path.basename(path)}: not a CREATE OR REPLACE MACRO statement: {stmt[:60]}")
                params, defaults = [], {}
                for raw in filter(None, (p.strip() for p in m.group("params").split(","))):
                    if ":=" in raw:
                        pname, value = (s.strip() for s in raw.split(":=", 1))
                        defaults[pname] = sqlglot.parse_one(value, read="duckdb")
                    else:
                        pname = raw
                    params.append(pname)
                found[m.group("name").lower()] = Macro(
                    m.group("name"), params, defaults, bool(m.group("table")), m.group("body"), os.path.basename(path))
    return found


CHECKS_ALIAS = "valid"  # the one-row join of argument checks of a table macro (see sql/00_common.sql)


def unchecked(body: exp.Select) -> exp.Select:
    """A table macro's body without its argument checks: the join `(SELECT rm_valid_...(...) AS ok) AS valid`
    and the WHERE valid.ok that reads it. Those use DuckDB's error(); other engines get the query without them."""
    body = body.copy()
    joins = [j for j in body.args.get("joins") or [] if j.this.alias_or_name != CHECKS_ALIAS]
    body.set("joins", joins or None)
    where = body.args.get("where")
    if where is not None and {c.table for c in where.find_all(exp.Column)} == {CHECKS_ALIAS}:
        body.set("where", None)
    return body


def literal(value) -> exp.Expression:
    """A Python value as a SQL literal."""
    if value is None:
        return exp.Null()
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, float) and not math.isfinite(value):  # no literal: the text every engine casts
        return exp.cast(exp.Literal.string(repr(value)), "DOUBLE")  # 'nan', 'inf', '-inf'
    if isinstance(value, (int, float)):
        return exp.Literal.number(repr(value) if isinstance(value, float) else str(value))
    return exp.Literal.string(str(value))


_ATOMIC = (exp.Column, exp.Literal, exp.Null, exp.Boolean, exp.Paren, exp.Func, exp.Cast, exp.Identifier)


def _wrap(e: exp.Expression) -> exp.Expression:
    return e if isinstance(e, _ATOMIC) else exp.Paren(this=e)


def substitute(tree: exp.Expression, bindings: dict[str, exp.Expression]) -> exp.Expression:
    """Replace the unqualified column references named in bindings (macro parameters) with expressions."""
    def swap(node):
        if isinstance(node, exp.Column) and not node.table and node.name.lower() in bindings:
            return _wrap(bindings[node.name.lower()].copy())
        return node
    return tree.copy().transform(swap, copy=False)


# Macros that are identities in DuckDB but mean something to other engines (rm_bytewise: compare byte-wise).
# Their expansion carries meta["rm_marker"] = name, which dialects.render turns into the engine's form.
MARKERS = frozenset({"rm_bytewise", "rm_fail"})
# Macros whose DuckDB body guards the macros' own argument checks (rm_flag); expanded, they are their argument.
IDENTITIES = frozenset({"rm_flag"})


def _gain_map_case(args: list) -> exp.Expression | None:
    """rm_gain_of(grade, gain, glvl, gains) with the gain map a literal (every rendered query): one CASE on the
    grade per listed level, the other grades falling back to rm_gain, the same values as the macro's string
    lookup. The lookup repeats its subexpressions, and DataFusion 55 refuses a window ordered by such an
    expression (SanityCheckPlan after its common-subexpression elimination, as in apache/datafusion#20194);
    the CASE is also the readable form. None (the macro's own body) when the map is not a literal."""
    grade, gain, glvl, gains = args
    text = _const(gains)
    if not isinstance(text, str):
        return None
    fallback = exp.Anonymous(this="rm_gain", expressions=[grade.copy(), gain.copy(), glvl.copy()])
    if not text:
        return fallback
    try:
        pairs = [(int(level), float(value)) for level, value in (pair.split("=") for pair in text.split(","))]
    except ValueError:  # not a map the macro accepts: its body (and its check) say so
        return None
    case = exp.Case()
    for level, value in pairs:
        case = case.when(exp.EQ(this=_wrap(grade.copy()), expression=literal(level)),
                         exp.Cast(this=literal(value), to=exp.DataType.build("double")))
    return case.else_(fallback)


# Macros expanded by Python when their arguments allow a simpler form (see each function).
SPECIALIZED = {"rm_gain_of": _gain_map_case}


def expand(tree: exp.Expression, copy: bool = True) -> exp.Expression:
    """Inline every call of a scalar macro of sql/ (recursively); marker macros are tagged, see MARKERS. copy=False:
    in tree itself (a tree the caller has just built)."""
    return _expand_in_place(tree.copy() if copy else tree)


def _expand_in_place(tree: exp.Expression) -> exp.Expression:
    known = macros()

    def inline(node):
        if isinstance(node, exp.Anonymous) and node.name.lower() in known:
            macro = known[node.name.lower()]
            args = node.expressions
            if macro.is_table and isinstance(node.parent, exp.Table):
                return node  # a table macro read in a FROM stays, for its reader to replace (sqlgen.read_items)
            if macro.name.lower() in IDENTITIES and len(args) == 1:
                return _wrap(_expand_in_place(args[0].copy()))
            if macro.is_table or len(args) != len(macro.params):
                raise ValueError(f"macro {macro.name} called with {len(args)} arguments, it takes {len(macro.params)}")
            special = SPECIALIZED.get(macro.name.lower())
            special = special(args) if special else None
            if special is not None:
                return _wrap(_expand_in_place(special))
            body = substitute(macro.body, {p.lower(): a for p, a in zip(macro.params, args)})
            result = _wrap(_expand_in_place(body))  # body is a fresh copy already
            if macro.name.lower() in MARKERS:  # invisible in the SQL text; dialects.render rewrites it
                result.meta["rm_marker"] = macro.name.lower()
            return result
        return node
    return tree.transform(inline, copy=False)


def _const(e):
    """The Python value of a constant expression, or a sentinel."""
    if isinstance(e, exp.Paren):
        return _const(e.this)
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Boolean):
        return e.this
    if isinstance(e, exp.Literal):
        return e.this if e.is_string else float(e.this)
    return _NOT_CONST


_NOT_CONST = object()


def fold_up(node: exp.Expression) -> None:
    """The AND, OR, NOT and parentheses around a constant TRUE or FALSE node simplified, up its ancestors and
    nothing else of the tree (fold simplifies every constant): for a flag bound where the rest keeps its shape (the
    native objects' run_lists, whose conventions stay parameters)."""
    while isinstance(_const(node), bool) and node.parent is not None:
        value, parent = _const(node), node.parent
        if isinstance(parent, exp.Paren):
            new = exp.Boolean(this=value)
        elif isinstance(parent, exp.Not):
            new = exp.Boolean(this=not value)
        elif isinstance(parent, (exp.And, exp.Or)):
            absorbing = isinstance(parent, exp.Or)  # TRUE absorbs OR, FALSE absorbs AND
            other = parent.right if parent.left is node else parent.left
            new = exp.Boolean(this=absorbing) if value == absorbing else other
        else:
            return
        parent.replace(new)
        node = new


def fold(tree: exp.Expression, copy: bool = True) -> exp.Expression:
    """Simplify what the literal convention parameters decided: constant comparisons, CASE branches, NULL tests,
    AND/OR with constants, COALESCE of a NULL, and ORDER BY terms that are constant. copy=False: in tree itself."""
    dirty = [True]  # set by every rewrite; the passes stop when one changes nothing

    def step(node):
        if isinstance(node, (exp.EQ, exp.NEQ)):
            a, b = _const(node.left), _const(node.right)
            if a is not _NOT_CONST and b is not _NOT_CONST and a is not None and b is not None:
                return exp.Boolean(this=(a == b) == isinstance(node, exp.EQ))
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            v = _const(node.this)
            if v is not _NOT_CONST:
                return exp.Boolean(this=v is None)
        if isinstance(node, exp.Not):
            v = _const(node.this)
            if isinstance(v, bool):
                return exp.Boolean(this=not v)
        if isinstance(node, (exp.And, exp.Or)):
            a, b = _const(node.left), _const(node.right)
            absorbing = isinstance(node, exp.Or)  # TRUE absorbs OR, FALSE absorbs AND
            for v, other in ((a, node.right), (b, node.left)):
                if isinstance(v, bool):
                    return exp.Boolean(this=absorbing) if v == absorbing else other
        if isinstance(node, exp.Paren) and isinstance(node.this, (exp.Boolean, exp.Null, exp.Literal, exp.Column)):
            return node.this
        if isinstance(node, exp.Case) and not node.this:
            ifs, default, changed = [], node.args.get("default"), False
            for branch in node.args.get("ifs") or []:
                v = _const(branch.this)
                if v is False or v is None:
                    changed = True
                    continue
                if v is True:  # this branch always wins: it becomes the ELSE, later ones are dead
                    default, changed = branch.args["true"], True
                    break
                ifs.append(branch)
            if not ifs:
                return default if default is not None else exp.Null()
            if changed:
                return exp.Case(ifs=ifs, default=default)
        if isinstance(node, exp.Coalesce):
            items = [node.this, *node.expressions]
            kept = [e for e in items if _const(e) is not None]
            for i, e in enumerate(kept):  # a constant that is not NULL ends the list
                if _const(e) is not _NOT_CONST:
                    kept = kept[:i + 1]
                    break
            if len(kept) != len(items):
                if not kept:
                    return exp.Null()
                if len(kept) == 1:
                    return kept[0]
                return exp.Coalesce(this=kept[0], expressions=kept[1:])
        if isinstance(node, exp.Order) or isinstance(node, exp.Window):
            order = node if isinstance(node, exp.Order) else node.args.get("order")
            if order is not None:
                terms = [o for o in order.expressions if _const(o.this) is _NOT_CONST]
                if terms and len(terms) != len(order.expressions):
                    order.set("expressions", terms)
                    dirty[0] = True
        if isinstance(node, exp.Where) and _const(node.this) is True:
            return None
        if isinstance(node, exp.Union) and not any(node.args.get(k) for k in ("distinct", "order", "limit", "offset")):
            # a branch that a convention turned off (WHERE FALSE: rm_stream's judged_only branches) is dropped,
            # when the other one names its columns alike: DuckDB still plans an empty branch's joins and keeps the
            # UNION's shape (7% of a large run's evaluation, and more memory)
            for dead, live in ((node.this, node.expression), (node.expression, node.this)):
                if (isinstance(dead, exp.Select) and isinstance(live, exp.Select) and dead.args.get("where") is not None
                        and _const(dead.args["where"].this) is False
                        and [e.alias_or_name for e in dead.expressions] == [e.alias_or_name for e in live.expressions]):
                    return live
        return node

    def tracked(node):
        new = step(node)
        if new is not node:
            dirty[0] = True
        return new

    current = tree.copy() if copy else tree
    while dirty[0]:  # fixed point: each pass can expose new constants
        dirty[0] = False
        current = current.transform(tracked, copy=False)
    return current
