"""`rankmetrics report`: a self-contained HTML page, rendered in a real headless Chromium (Debian's chromium
package; .ci/run installs it): a screenshot is taken, the DOM after rendering holds the comparison table and one
SVG bar per paired query, the page's own script ran, and the browser logged no script error."""
import os
import re
import shutil
import struct
import subprocess
import zlib

import pytest

from conftest import SEEDS, TREC, cli, read_trec_output

Q, A, B = (os.path.join(TREC, f) for f in ("qrels.test", "results.test", "results.trunc"))

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(tmp_path, *args):
    assert CHROMIUM, "chromium is not installed: `apt-get install -y chromium` (.ci/run does it)"
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def png_pixels(path):
    """(width, height, number of distinct RGB colours in a sample of rows), decoding the PNG with zlib."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # undo the PNG row filter
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 10 == 0:
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 2))
        prev = line
    return width, height, colours


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    out = folder / "report.html"
    cli("report", Q, A, B, "-m", "map", "-m", "ndcg_cut_10", "-m", "P@10", "-c", "--test", "bootstrap",
        "--trials", "2000", "-o", str(out))
    return out


def test_self_contained(page):
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text
    # no external resource of any kind: no src/href attributes, stylesheets, imports or url() references
    assert not re.search(r"\b(src|href)\s*=", text) and "<link" not in text and "@import" not in text
    assert "url(" not in text
    assert re.findall(r"https?://[^\"' ]+", text) == ["http://www.w3.org/2000/svg"] * text.count("<svg")
    # the numbers it shows: trec_eval's means (out.test: map 0.1785; out.test.aqc (-c, results.trunc) 0.1016)
    assert "0.1785" in text and f"{read_trec_output(os.path.join(TREC, 'out.test.aqc'))['map']['all']:.4f}" in text
    # the conventions used
    assert re.search(r"<td class=\"text\">queries</td><td class=\"text\"><code>judged</code>", text)


def test_renders_in_headless_chromium(page, tmp_path):
    shot = tmp_path / "report.png"
    p = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,2000", page.as_uri())
    assert shot.exists(), p.stderr[-2000:]
    width, height, colours = png_pixels(shot)
    assert (width, height) == (1200, 2000)
    # not a blank page: text, table rules, and the green and red bars of the plots
    assert len(colours) > 20
    assert any(g > r + 40 and g > b + 20 for r, g, b in colours)   # a green bar (#2b7a3d)
    assert any(r > g + 60 and r > b + 60 for r, g, b in colours)   # a red bar (#b23a3a)
    for marker in ("Uncaught", "SyntaxError", "ReferenceError", "TypeError", "Refused to load"):
        assert marker not in p.stderr, marker


def test_dom_after_rendering(page, tmp_path):
    p = chromium(tmp_path, "--dump-dom", page.as_uri())
    dom = p.stdout
    assert 'data-rendered="ok"' in dom, p.stderr[-2000:]  # the page's inline script ran
    assert "Uncaught" not in p.stderr
    table = re.search(r'<table id="comparison">(.*?)</table>', dom, re.S).group(1)
    assert table.count("<tr") == 1 + 3 * 2  # header, then the baseline and results.trunc for each metric
    svgs = re.findall(r'<svg class="diff"[^>]*data-measure="([^"]+)"[^>]*data-bars="(\d+)"', dom)
    assert [m for m, _ in svgs] == ["map", "ndcg_cut_10", "P@10"]
    assert all(n == "3" for _, n in svgs)  # -c: the three judged queries are paired
    assert dom.count('<rect class="bar') == 9
    # the bars are sorted: largest gain first (per-query values of trec_eval's out.test.aq / out.test.aqc)
    aq, aqc = read_trec_output(os.path.join(TREC, "out.test.aq")), read_trec_output(os.path.join(TREC, "out.test.aqc"))
    diffs = sorted((aqc["map"][q] - aq["map"][q] for q in ("301", "302", "303")), reverse=True)
    first = re.search(r'data-measure="map".*?</svg>', dom, re.S).group(0)
    shown = [float(v) for v in re.findall(r"<title>query \S+: ([-+0-9.]+)</title>", first)]
    assert shown == pytest.approx(diffs, abs=1e-4)


def test_report_for_the_playlist_example(tmp_path):
    out = tmp_path / "playlist.html"
    q = os.path.join(SEEDS, "004_playlist.qrels")
    runs = [os.path.join(SEEDS, f"004_playlist_system{i}.run") for i in (1, 2)]
    cli("report", q, *runs, "-m", "ndcg@5", "-o", str(out))
    text = out.read_text()
    assert "0.8233" in text and "0.8794" in text and text.count('<rect class="bar') == 1  # seed note 004


def test_python_report(tmp_path):
    import rankmetrics_duckdb as rm
    target = tmp_path / "r.html"
    text = rm.report(Q, {"full": A, "truncated": B}, ["P@10"], target, queries="judged", test="randomization",
                     trials=500)
    assert target.read_text() == text and "truncated" in text and text.count('<rect class="bar') == 3
    # out.test: P_10 0.3000; out.test.aqc (-c, results.trunc): P_10 0.2000
    assert "0.3000" in text and "0.2000" in text and "<code>judged</code>" in text
