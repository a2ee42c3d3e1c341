"""`rankmetrics report`: one self-contained HTML page (inline CSS and SVG, no external resource) with the
comparison table, a per-query difference plot per metric and run (bars sorted by difference, as in IR papers:
above the axis the queries the run improves, below those it hurts) and the conventions used."""
from __future__ import annotations

import datetime
import html
import os

from . import comparison as compare_mod
from .paths import write_atomic

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


def _fmt(v, signed=False) -> str:
    if v is None:
        return ""
    return f"{v:+.4f}" if signed else f"{v:.4f}"


def _p(v) -> str:
    if v is None:
        return ""
    return f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}"


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


def render(c: compare_mod.Comparison, judgments_label: str) -> str:
    from . import __version__ as version
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
    for k, r in enumerate(c.rows):
        base = k % len(c.runs) == 0  # rows come per measure, the baseline first
        cells = [f'<td class="text">{_e(r["measure"])}</td>', f'<td class="text">{_e(r["run"])}'
                 f'{" (baseline)" if base else ""}</td>',
                 f'<td>{_fmt(r["mean"])}</td>', f'<td>{_fmt(r["delta"], True)}</td>', f'<td>{_p(r["p_value"])}</td>',
                 f'<td>{_p(r["p_adjusted"])}</td>']
        if c.test == "bootstrap":
            cells += [f'<td>{_fmt(r["ci_low"], True)}</td>', f'<td>{_fmt(r["ci_high"], True)}</td>']
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


def report(judgments, runs, metrics=None, path=None, *, test="t", correction="holm", alpha=0.05, seed=42,
           trials=10_000, con=None, convention="trec_eval", **overrides) -> str:
    """The HTML report as a string; written to path (atomically) when given."""
    c = compare_mod.run_comparison(judgments, runs, metrics, test=test, correction=correction, alpha=alpha,
                                   seed=seed, trials=trials, con=con, convention=convention, **overrides)
    label = os.fspath(judgments) if isinstance(judgments, (str, os.PathLike)) else "judgments"
    text = render(c, label)
    if path is not None:
        write_atomic(os.fspath(path), lambda tmp: compare_mod._write_text(tmp, text))
    return text


def cmd_report(args) -> int:
    c = compare_mod.comparison_from_args(args)
    text = render(c, getattr(args.judgments, "name", args.judgments))  # '-' was replaced by sys.stdin.buffer
    write_atomic(args.output, lambda tmp: compare_mod._write_text(tmp, text))
    return 0

