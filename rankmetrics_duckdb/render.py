"""What the command line and the report show: the rows of `rankmetrics eval` (trec, json, csv, table, or a file
by its extension), a comparison of `rankmetrics compare` (table, json, csv, latex, markdown, Parquet) and the HTML
page of `rankmetrics report`.

The report is one self-contained HTML page (inline CSS and SVG, no external resource) with the comparison table,
a per-query difference plot per metric and run (bars sorted by difference, as in IR papers: above the axis the
queries the run improves, below those it hurts) and the conventions used.

Rendering only: the numbers come from api.py and comparison.py, the arguments from cli.py. comparison.py is
imported on first use (_lazy.py): `rankmetrics eval` renders its rows without it.
"""
from __future__ import annotations

import datetime
import html
import json
import math
import os

from . import paths
from ._lazy import LazyModule
from ._version import __version__
from .errors import InputError

compare_mod = LazyModule("rankmetrics_duckdb.comparison")

ROW_FORMATS = ("trec", "json", "csv", "table")
COMPARISON_FORMATS = ("table", "json", "csv", "latex", "markdown")


# ---- the rows of eval ---------------------------------------------------------------------------------------
MEAN = "all"  # the mean row's query id in every output of the command line (trec_eval's); None in Python and SQL


def _split(row, n):
    """(measure, group values, query_id, value) of a row (measure, g1..gn, query_id, value)."""
    return row[0], tuple(row[1:1 + n]), row[-2], row[-1]


def _structured(rows, n=0):
    """(measure, groups, query_id, value, aggregate) for the JSON, CSV and Parquet outputs: the mean row keeps
    trec_eval's query id 'all' and is told apart from a query named 'all' by aggregate = true."""
    return [(m, g, MEAN if q is None else q, v, q is None) for m, g, q, v in (_split(r, n) for r in rows)]


def _group_text(v) -> str:
    return "NULL" if v is None else str(v)


def _fmt_trec(rows, sums, n=0, all_only=(), runid=None, order=None, zscores=False) -> str:
    """trec_eval's lines: with -q, each query's measures (queries in byte order, as trec_eval sorts them; a
    measure of all_only, such as num_q or gm_map, has no per-query line), then the means, led by the runid line
    when runid is given. order: {measure: sort key} puts the measures in trec_eval's order (else as asked).
    zscores: the values are z-scores (-Z), each name printed after a Z as trec_eval does."""
    def line(m, g, q, v):
        if isinstance(v, str):  # a text measure (trec_eval's relstring), quoted as trec_eval prints it
            return "\t".join([f"{m:<22}", *[_group_text(x) for x in g], q, f"'{v}'"])
        if m in sums and not math.isnan(v):
            text = str(int(round(v)))
        else:
            text = "nan" if math.isnan(v) else f"{v:.4f}"
        return "\t".join([("Z" if zscores else "") + f"{m:<22}", *[_group_text(x) for x in g], q, text])
    rows = _text_ids(rows, n)
    if order:
        rows = sorted(rows, key=lambda r: order[r[0]])
    per_query = sorted((r for r in rows if r[2] != MEAN and r[0] not in all_only),
                       key=lambda r: tuple(_group_text(x) for x in r[1]) + (r[2],))
    out = [line(*r) for r in per_query]
    if runid is not None:
        out.append("\t".join([f"{'runid':<22}", MEAN, runid]))
    out += [line(*r) for r in rows if r[2] == MEAN]
    return "".join(line + "\n" for line in out)  # no rows, no line (trec_eval -n without -q prints nothing)


def _fmt_json(rows, groups=()) -> str:
    out = []
    for m, g, q, v, a in _structured(rows, len(groups)):
        out.append({"measure": m, **dict(zip(groups, g)), "query_id": q, "value": None if math.isnan(v) else v,
                    "aggregate": a})
    return json.dumps(out, indent=1, default=str) + "\n"


def _fmt_csv(rows, groups=()) -> str:
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["measure", *groups, "query_id", "value", "aggregate"])
    for m, g, q, v, a in _structured(rows, len(groups)):
        w.writerow([m, *["" if x is None else x for x in g], q, "" if math.isnan(v) else repr(v),
                    "true" if a else "false"])
    return buf.getvalue()


def _text_ids(rows, n=0):
    """The rows as (measure, groups, query_id, value) with the mean's query id None written 'all', as trec_eval
    does; refused when a query is itself named 'all' (the two rows could not be told apart)."""
    split = [_split(r, n) for r in rows]
    if any(q == MEAN for _, _, q, _ in split):
        raise InputError(f"a query is named '{MEAN}', like the mean row of the trec and table formats: use --format "
                         f"json or csv (their rows say which is the mean: aggregate true), or leave out -q")
    return [(m, g, MEAN if q is None else q, v) for m, g, q, v in split]


def _fmt_table(rows, groups=()) -> str:
    head = ("measure", *groups, "query_id", "value")
    cells = [head] + [(m, *[_group_text(x) for x in g], q, "nan" if math.isnan(v) else f"{v:.4f}")
                      for m, g, q, v in _text_ids(rows, len(groups))]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    lines = ["  ".join(f"{c:>{w}}" if i == len(head) - 1 else f"{c:<{w}}" for i, (c, w) in enumerate(zip(row, widths)))
             for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines) + "\n"


def render_rows(rows, fmt: str, sums=(), groups=(), all_only=(), runid=None, order=None, zscores=False) -> str:
    """The rows of eval, (measure, [a value per group column], query_id, value), in a format; groups: the
    names of the group columns (by); all_only, runid and order: see _fmt_trec (the trec format only); zscores:
    the values are z-scores, their measures named with a Z before (Zmap, as trec_eval -Z prints them)."""
    if fmt == "trec":
        return _fmt_trec(rows, sums, len(groups), all_only, runid, order, zscores)
    if zscores:
        rows = _z_named(rows)
    if fmt == "json":
        return _fmt_json(rows, groups)
    if fmt == "csv":
        return _fmt_csv(rows, groups)
    if fmt == "table":
        return _fmt_table(rows, groups)
    return _fmt_trec(rows, sums, len(groups), all_only, runid, order, zscores)


def _z_named(rows):
    """The rows with each numeric measure's name after a Z (Zmap: its values are z-scores, trec_eval -Z)."""
    return [("Z" + r[0] if not isinstance(r[-1], str) else r[0], *r[1:]) for r in rows]


def row_format(path: str | None, fmt: str) -> str:
    """The format the rows are written in: by the extension of path (.parquet, .json, .csv), else fmt."""
    ext = os.path.splitext(path)[1].lower() if path else ""
    return {".parquet": "parquet", ".json": "json", ".csv": "csv"}.get(ext, fmt)


def write_rows(path: str, rows, fmt: str, sums=(), groups=(), all_only=(), runid=None, order=None,
               zscores=False) -> None:
    """Write the rows to path (by its extension: .parquet, .json, .csv, else fmt) through a temporary file in the
    same folder, then rename: an interrupted run leaves no half file (paths.write_atomic)."""
    kind = row_format(path, fmt)

    def write(tmp):
        if kind == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq
            out = _structured(_z_named(rows) if zscores else rows, len(groups))
            columns = {"measure": [r[0] for r in out]}
            for i, g in enumerate(groups):
                columns[g] = pa.array([r[1][i] for r in out])
            columns.update(query_id=[r[2] for r in out], value=[None if math.isnan(r[3]) else r[3] for r in out],
                           aggregate=[r[4] for r in out])
            pq.write_table(pa.table(columns), tmp)
        else:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(render_rows(rows, kind, sums, groups, all_only, runid, order, zscores))
    paths.write_atomic(path, write)


# ---- a comparison ------------------------------------------------------------------------------------------
def _num(v, digits=4) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def _p(v) -> str:
    if v is None:
        return ""
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


def _signed(v) -> str:
    return "" if v is None else f"{v:+.4f}"


def _wtl(r) -> str:
    return "" if r["wins"] is None else f'{r["wins"]}/{r["ties"]}/{r["losses"]}'


def render_table(c: compare_mod.Comparison) -> str:
    every = c.pairs == "all"
    head = ["measure", "run"] + (["versus"] if every else []) + ["mean", "delta", "p", "p_adj"] + (
        ["ci_low", "ci_high"] if c.test == "bootstrap" else []) + ["n", "W/T/L", ""]
    cells = [head]
    for r in c.rows:
        line = [r["measure"], r["run"]] + ([r["versus"] or ""] if every else []) + [
            _num(r["mean"]) if r["versus"] is None or not every else "", _signed(r["delta"]), _p(r["p_value"]),
            _p(r["p_adjusted"])]
        if c.test == "bootstrap":
            line += [_signed(r["ci_low"]), _signed(r["ci_high"])]
        line += [str(r["queries"]), _wtl(r), "†" if r["significant"] else ""]
        cells.append(line)
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    left = {0, 1, 2} if every else {0, 1}
    out = []
    for k, row in enumerate(cells):
        out.append("  ".join(v.ljust(w) if i in left or i == len(head) - 1 else v.rjust(w)
                             for i, (v, w) in enumerate(zip(row, widths))).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths[:-1]))
    return "\n".join(out) + "\n" + c.summary() + "\n"


def _marks(c: compare_mod.Comparison, name: str, i: int) -> str:
    """What a run's cell carries: a dagger when it differs significantly from the baseline; with every pair, the
    letters (a, b, ...) of the runs it is significantly better than, as ranx's report."""
    if c.pairs == "all":
        return "".join(_LETTERS[j] for j in c.better_than(name, i))
    row = c.tests.get((name, 0, i))
    return "†" if row and row["significant"] else ""


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _wide(c: compare_mod.Comparison):
    """Runs as rows, measures as columns: cells (mean, marks)."""
    names = [m.requested for m in c.measures]
    return names, [(run, [(_num(c.means[(name, i)]), _marks(c, name, i)) for name in names])
                   for i, run in enumerate(c.runs)]


def _label(c: compare_mod.Comparison, i: int, run: str) -> str:
    return (f"{_LETTERS[i]}. " + run) if c.pairs == "all" else run + (" (baseline)" if i == 0 else "")


def render_markdown(c: compare_mod.Comparison) -> str:
    names, table = _wide(c)
    out = ["| run | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for i, (run, cells) in enumerate(table):
        label = _label(c, i, run).replace("|", "\\|")
        out.append(f"| {label} | " + " | ".join(v + (f"<sup>{s}</sup>" if s and c.pairs == "all" else s)
                                                for v, s in cells) + " |")
    return "\n".join(out) + "\n\n" + c.summary() + "\n"


_TEX = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "{": "\\{",
        "}": "\\}", "~": "\\textasciitilde{}", "^": "\\textasciicircum{}"}


def _tex(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


def render_latex(c: compare_mod.Comparison) -> str:
    if c.pairs == "all":
        return _latex_all_pairs(c)
    names, table = _wide(c)
    out = ["\\begin{tabular}{l" + "r" * len(names) + "}", "\\hline",
           "Run & " + " & ".join(_tex(n) for n in names) + " \\\\", "\\hline"]
    for i, (run, cells) in enumerate(table):
        label = _tex(run) + (" (baseline)" if i == 0 else "")
        out.append(label + " & " + " & ".join(v + ("$^\\dagger$" if s else "") for v, s in cells) + " \\\\")
    out += ["\\hline", "\\end{tabular}", "% " + c.summary().replace("†", "$^\\dagger$")]
    return "\n".join(out) + "\n"


def _latex_all_pairs(c: compare_mod.Comparison) -> str:
    """ranx's Report.to_latex layout: a letter per run, the best mean of each measure in bold, superscripts
    naming the runs each one is significantly better than (with phantoms for the others, so columns align);
    then a table of every pair's p-value per measure."""
    names, table = _wide(c)
    k = len(c.runs)
    best = {}
    for name in names:
        values = [round(c.means[(name, i)], 4) for i in range(k)]
        top = max(values)
        best[name] = values.index(top) if top > 0 else None
    out = ["\\begin{table*}[ht]", "\\centering", "\\caption{", "Overall effectiveness of the models.",
           "The best results are highlighted in boldface.",
           f"Superscripts denote significant differences in {compare_mod.TEST_NAMES[c.test]} with "
           f"$p < {c.alpha:g}$" + ("" if c.correction == "none" or c.test == "tukey" else
                                    f" ({c.correction} correction over the pairs)") + ".", "}",
           "\\resizebox{0.8\\textwidth}{!}{", "\\begin{tabular}{c|l" + "|c" * len(names) + "}", "\\toprule",
           "\\textbf{\\#}", "& \\textbf{Model}"] + [f"& \\textbf{{{_tex(n)}}}" for n in names] + [
           " \\\\", "\\midrule"]
    for i, (run, cells) in enumerate(table):
        row = [f"{_LETTERS[i]} &", f"{_tex(run)} &"]
        scores = []
        for name, (value, marks) in zip(names, cells):
            score = f"\\textbf{{{value}}}" if best[name] == i else value
            phantoms = "".join(_LETTERS[j] for j in range(k) if j != i and _LETTERS[j] not in marks)
            cell = score + (f"$^{{{marks}}}$" if marks else "") + (f"\\hphantom{{$^{{{phantoms}}}$}}" if phantoms
                                                                    else "")
            scores.append(cell + " &")
        scores[-1] = scores[-1][:-2] + "\\\\"
        out += row + scores
    out += ["\\bottomrule", "\\end{tabular}", "}", "\\label{tab:results}", "\\end{table*}", "",
            "% p-values of every pair" + ("" if c.test == "tukey" or c.correction == "none" else
                                          f" ({c.correction}-adjusted)"),
            "\\begin{tabular}{ll" + "r" * len(names) + "}", "\\toprule",
            "Run & versus & " + " & ".join(_tex(n) for n in names) + " \\\\", "\\midrule"]
    for i in range(k):
        for j in range(i + 1, k):
            ps = [c.tests[(name, i, j)]["p_adjusted"] for name in names]
            out.append(f"{_LETTERS[j]} & {_LETTERS[i]} & " + " & ".join(_p(p) for p in ps) + " \\\\")
    out += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(out) + "\n"


def render_comparison(c: compare_mod.Comparison, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(c.rows, indent=1) + "\n"
    if fmt == "csv":
        import csv
        import io
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(compare_mod.COLUMNS)
        for r in c.rows:
            w.writerow(["" if r[k] is None else (repr(r[k]) if isinstance(r[k], float) else r[k])
                        for k in compare_mod.COLUMNS])
        return buf.getvalue()
    if fmt == "latex":
        return render_latex(c)
    if fmt == "markdown":
        return render_markdown(c)
    return render_table(c)


def write_comparison(path: str, c: compare_mod.Comparison, fmt: str) -> None:
    """`compare -o`: by the extension of path (.parquet, .json, .csv, .tex, .md, else fmt), atomically."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".parquet":
        import pyarrow.parquet as pq
        paths.write_atomic(path, lambda tmp: pq.write_table(compare_mod.as_output(c.rows, "arrow"), tmp))
    else:
        fmt = {".json": "json", ".csv": "csv", ".tex": "latex", ".md": "markdown"}.get(ext, fmt)
        write_text(path, render_comparison(c, fmt))


write_text = paths.write_text  # text written atomically (UTF-8)


# ---- the HTML report ---------------------------------------------------------------------------------------
CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
h3 { font-size: 1em; margin: 1em 0 0.3em; }
.meta { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: right; }
th { background: #f4f4f4; }
td.text, th.text { text-align: left; }
tr.baseline td { color: #555; font-style: italic; }
td.sig { color: #b00; font-weight: bold; }
.note { font-size: 0.85em; color: #444; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
svg.diff { background: #fff; border: 1px solid #e4e4e4; }
svg.diff text { font-size: 11px; fill: #333; }
svg.diff .up { fill: #2b7a3d; }
svg.diff .down { fill: #b23a3a; }
svg.diff .zero { fill: #999; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""

W, H, LEFT, RIGHT, TOP, BOTTOM = 520, 240, 56, 12, 28, 36


def _e(v) -> str:
    return html.escape(str(v), quote=True)


def _short(label: str, width: int = 34) -> str:
    """A run's label as given, its start cut when long (the end of a path names the run)."""
    return label if len(label) <= width else "…" + label[-(width - 1):]


def diff_plot(measure: str, run: str, baseline: str, diffs: list[tuple[str, float]]) -> str:
    """An inline SVG: one bar per paired query, sorted from the largest gain to the largest loss."""
    diffs = sorted(diffs, key=lambda qd: (-qd[1], qd[0].encode()))
    n = len(diffs)
    top = max([abs(d) for _, d in diffs] + [0.0])
    top = top if top > 0 else 1.0
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    zero_y = TOP + ph / 2

    def y(v):
        return zero_y - v / top * (ph / 2)
    parts = [f'<svg class="diff" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'viewBox="0 0 {W} {H}" role="img" data-measure="{_e(measure)}" data-run="{_e(run)}" '
             f'data-bars="{n}">',
             f'<title>{_e(measure)}: per-query difference {_e(run)} minus {_e(baseline)}</title>',
             f'<text x="{LEFT}" y="16" font-weight="bold">{_e(measure)}: {_e(_short(run))} − '
             f'{_e(_short(baseline))}</text>']
    for v in (top, top / 2, 0.0, -top / 2, -top):
        yy = y(v)
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{yy:.2f}" y2="{yy:.2f}" '
                     f'stroke="{"#555" if v == 0 else "#eee"}" stroke-width="1"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{yy + 4:.2f}" text-anchor="end">{"0" if v == 0 else f"{v:+.3g}"}</text>')
    if n:
        step = pw / n
        gap = min(1.0, step * 0.15)
        for i, (q, d) in enumerate(diffs):
            x = LEFT + i * step + gap / 2
            if d == 0:
                cls, y0, hgt = "zero", zero_y - 0.5, 1.0
            else:
                cls = "up" if d > 0 else "down"
                y0, hgt = min(y(d), zero_y), abs(y(d) - zero_y)
            parts.append(f'<rect class="bar {cls}" x="{x:.2f}" y="{y0:.2f}" width="{max(step - gap, 0.5):.2f}" '
                         f'height="{max(hgt, 0.5):.2f}"><title>query {_e(q)}: {d:+.4f}</title></rect>')
    else:
        parts.append(f'<text x="{W / 2}" y="{zero_y - 8}" text-anchor="middle">no paired query</text>')
    better = sum(1 for _, d in diffs if d > 0)
    worse = sum(1 for _, d in diffs if d < 0)
    parts.append(f'<text x="{LEFT + pw / 2}" y="{H - 10}" text-anchor="middle">{n} queries sorted by difference: '
                 f'{better} better, {worse} worse, {n - better - worse} equal</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_html(c: compare_mod.Comparison, judgments_label: str) -> str:
    version = __version__
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           '<title>rankmetrics report</title>', f'<style>{CSS}</style></head><body>',
           '<h1>Run comparison</h1>',
           f'<p class="meta">judgments <code>{_e(judgments_label)}</code> · baseline <code>{_e(c.runs[0])}</code> · '
           f'{len(c.runs) - 1} other run{"s" if len(c.runs) != 2 else ""} · rankmetrics-duckdb {_e(version)} · '
           f'{datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}</p>',
           '<h2>Comparison</h2>', '<table id="comparison"><thead><tr>']
    head = ["measure", "run", "mean", "delta", "p", "p adjusted"]
    if c.test == "bootstrap":
        head += ["95% CI low", "95% CI high"]
    head += ["queries", ""]
    out.append("".join(f'<th class="{"text" if h in ("measure", "run") else ""}">{_e(h)}</th>' for h in head))
    out.append("</tr></thead><tbody>")
    for r in c.rows:
        base = r["versus"] is None  # a run's mean alone (the baseline's, or each run's with every pair)
        cells = [f'<td class="text">{_e(r["measure"])}</td>', f'<td class="text">{_e(r["run"])}'
                 f'{" (baseline)" if base and c.pairs == "baseline" else ""}'
                 f'{"" if base else " vs " + _e(r["versus"]) if c.pairs == "all" else ""}</td>',
                 f'<td>{_num(r["mean"])}</td>', f'<td>{_signed(r["delta"])}</td>', f'<td>{_p(r["p_value"])}</td>',
                 f'<td>{_p(r["p_adjusted"])}</td>']
        if c.test == "bootstrap":
            cells += [f'<td>{_signed(r["ci_low"])}</td>', f'<td>{_signed(r["ci_high"])}</td>']
        cells += [f'<td>{r["queries"]}</td>', f'<td class="sig">{"†" if r["significant"] else ""}</td>']
        out.append(f'<tr class="{"baseline" if base else "run"}">' + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    out.append(f'<p class="note">{_e(c.summary())}. Delta is the mean per-query difference over the paired '
               f'queries (queries with a value for both runs); the mean is the run\'s own mean, as '
               f'<code>rankmetrics eval</code> reports it.</p>')
    out.append("<h2>Per-query differences</h2>")
    out.append('<p class="note">One bar per query: the run\'s value minus the baseline\'s, sorted from the largest '
               'gain (green, above the axis) to the largest loss (red, below).</p>')
    for m in c.measures:
        name = m.requested
        out.append(f'<h3>{_e(name)}</h3><div class="plots">')
        base = c.per_query[(name, 0)]
        for i in range(1, len(c.runs)):
            other = c.per_query[(name, i)]
            diffs = [(q, other[q] - base[q]) for q in compare_mod.paired(base, other)]
            out.append(diff_plot(name, c.runs[i], c.runs[0], diffs))
        out.append("</div>")
    out.append("<h2>Conventions</h2>")
    out.append(f'<p class="note">Preset <code>{_e(c.convention)}</code>, with these values (switches given on the '
               f'command line or as keyword arguments override the preset):</p>')
    out.append('<table id="conventions"><thead><tr><th class="text">parameter</th><th class="text">value</th>'
               '</tr></thead><tbody>')
    for k, v in c.conv.items():
        out.append(f'<tr><td class="text">{_e(k)}</td><td class="text"><code>{_e(v)}</code></td></tr>')
    stats_rows = [("test", compare_mod.TEST_NAMES[c.test] + " (two-sided, paired by query)"),
                  ("correction", c.correction + " (per metric, over the runs compared with the baseline)"),
                  ("alpha", f"{c.alpha:g}")]
    if c.test != "t":
        stats_rows += [("trials", str(c.trials)), ("seed", str(c.seed))]
    for k, v in stats_rows:
        out.append(f'<tr><td class="text">{_e(k)}</td><td class="text">{_e(v)}</td></tr>')
    out.append("</tbody></table>")
    out.append("<script>document.documentElement.setAttribute('data-rendered', 'ok');</script>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def report(judgments, runs, metrics=None, path=None, *, test="t", correction=None, alpha=0.05, seed=None,
           trials=None, con=None, convention="trec_eval", **overrides) -> str:
    """The HTML report as a string; written to path (atomically) when given."""
    c = compare_mod.run_comparison(judgments, runs, metrics, test=test, correction=correction, alpha=alpha,
                                   seed=seed, trials=trials, con=con, convention=convention, **overrides)
    label = os.fspath(judgments) if isinstance(judgments, (str, os.PathLike)) else "judgments"
    text = render_html(c, label)
    if path is not None:
        write_text(os.fspath(path), text)
    return text
