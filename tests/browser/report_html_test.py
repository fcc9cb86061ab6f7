#!/usr/bin/env python3
"""report.html in a real browser (headless Chromium): a single point of the bundled
halo-rebalance scenario (on a shorter generated trace), a small sweep, `wisp suggest`'s page and
`wisp analyze`'s page of a trace long enough that the zoomed-out timeline merges intervals into
pixel columns are rendered; the test checks that the pages loaded without script errors, that the
lanes and the gain are in the DOM, that the screenshot of the point's page is not blank (decoded
here: zlib, no imaging library), that the zoomed-out view draws the waits (its waiting pixels near
the waiting share wisp computed), and the suggest page's table and chart against suggest.json.
Skips (exit 77) without chromium. Usage: report_html_test.py WISP SOURCE_DIR WORK_DIR"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser(exe, work, url, *args, size="1000,800"):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--user-data-dir=" + os.path.join(work, "profile"), "--window-size=" + size, *args, url]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited with {out.returncode}: {out.stderr[-2000:]}")
    return out.stdout


def png_pixels(path):
    """(width, height, set of distinct RGB colours, number of non-white pixels) of an 8-bit RGB(A) PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type = header[:4]
    assert depth == 8 and colour_type in (2, 6), f"{path}: unexpected PNG format {header}"
    channels = 3 if colour_type == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev, colours, ink = [], bytearray(stride), set(), 0
    for y in range(height):
        filt, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if filt == 1: line[i] = (line[i] + a) & 255
            elif filt == 2: line[i] = (line[i] + b) & 255
            elif filt == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, channels * 2):  # every other pixel is enough
            rgb = bytes(line[x:x + 3])
            colours.add(rgb)
            ink += rgb != b"\xff\xff\xff"
        prev = line
    return width, height, colours, ink


def check_page(exe, work, html, lanes, name, screenshot=True):
    url = "file://" + os.path.abspath(html) + "#bench"
    dom = browser(exe, work, url, "--virtual-time-budget=20000", "--dump-dom")
    errors = re.search(r'data-errors="([^"]*)"', dom)
    if errors:
        sys.exit(f"FAIL {name}: script errors: {errors.group(1)}")
    if 'data-loaded="1"' not in dom:
        sys.exit(f"FAIL {name}: the page did not finish rendering (no data-loaded)")
    if lanes is not None and f'data-lanes="{lanes}"' not in dom:
        found = re.search(r'data-lanes="(\d+)"', dom)
        sys.exit(f"FAIL {name}: expected {lanes} lanes, found {found.group(1) if found else 'none'}")
    gain = re.search(r'id="gain">([^<]*)<', dom)
    if not gain:
        sys.exit(f"FAIL {name}: no gain in the page")
    redraw = re.search(r'data-redraw-max-ms="([0-9.]+)"', dom)
    if not screenshot:
        print(f"{name}: gain {gain.group(1)}, no script errors")
        return dom
    shot = os.path.join(work, name + ".png")
    browser(exe, work, url, "--virtual-time-budget=20000", "--screenshot=" + shot)
    width, height, colours, ink = png_pixels(shot)
    if len(colours) < 8 or ink < 2000:
        sys.exit(f"FAIL {name}: the screenshot looks blank: {len(colours)} colours, {ink} non-white pixels")
    print(f"{name}: gain {gain.group(1)}, lanes {lanes}, {len(colours)} colours, {ink} non-white pixels "
          f"(of {width}x{height}, every other one), redraw max {redraw.group(1) if redraw else '-'} ms")
    return dom


def attribute(dom, name):
    found = re.search(name + r'="([0-9.]+)"', dom)
    return float(found.group(1)) if found else None


def check_zoomed_out_waits(exe, work, wisp):
    """600 steps of a halo with 4 slow ranks: each lane has far more intervals than pixels, so the
    zoomed-out view (the bench ends there) draws merged columns; their waiting parts must add up to
    about the waiting share of wisp's per-rank split (a column coloured by what dominates it would
    show almost none: computation dominates every column)."""
    trace, out = os.path.join(work, "long"), os.path.join(work, "long-analysis")
    for cmd in (["generate", "halo", "--dims", "4x4", "--steps", "600", "--overload-ranks", "0-3", "--overload", "0.5",
                 "-o", trace], ["analyze", trace, "-o", out]):
        run = subprocess.run([wisp, *cmd], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL: wisp {' '.join(cmd)}: {run.stderr}")
    dom = browser(exe, work, "file://" + os.path.abspath(os.path.join(out, "report.html")) + "#bench",
                  "--virtual-time-budget=20000", "--dump-dom")
    errors = re.search(r'data-errors="([^"]*)"', dom)
    if errors or 'data-loaded="1"' not in dom:
        sys.exit(f"FAIL zoomed out: script errors or not loaded: {errors.group(1) if errors else 'no data-loaded'}")
    waiting, lane, share = (attribute(dom, n) for n in ("data-wait-pixels", "data-lane-pixels", "data-wait-share"))
    if not waiting or not lane or not share:
        sys.exit(f"FAIL zoomed out: waiting pixels {waiting}, lane pixels {lane}, waiting share {share}")
    drawn = waiting / lane
    print(f"zoomed out: {waiting:.0f} waiting pixels of {lane:.0f} ({100 * drawn:.2f} %), "
          f"waiting share {100 * share:.2f} %, redraw max {attribute(dom, 'data-redraw-max-ms')} ms, "
          f"mean {attribute(dom, 'data-redraw-mean-ms')} ms")
    if not 0.5 * share <= drawn <= 1.5 * share:
        sys.exit(f"FAIL zoomed out: the waits drawn ({100 * drawn:.2f} %) are far from their share ({100 * share:.2f} %)")


def check_bounded(exe, work, wisp):
    """A 64-rank imbalanced halo over a page limit (--html-limit 1 MB, as 20 MB for 10^7 events):
    report.html holds the summary (16 lanes of 4 ranks per timeline, labelled), states the cut,
    draws the waits at the overview near their share, and is below the limit; report-window.html
    holds the full detail of its window and loads without errors."""
    yaml, out = os.path.join(work, "bounded.yaml"), os.path.join(work, "bounded")
    open(yaml, "w").write("wisp: 1\nname: bounded\ntrace:\n  generate: halo --dims 8x8 --steps 150 --work 0.001 "
                          "--boundary-work 0.0001 --overload-ranks 0-7 --overload 0.5\n"
                          "transforms:\n  - rebalance: {region: compute}\n")
    run = subprocess.run([wisp, "-q", "run", yaml, "-o", out, "--html-limit", "1"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: wisp run {yaml}: {run.stderr}")
    page, window = os.path.join(out, "report.html"), os.path.join(out, "report-window.html")
    size = os.path.getsize(page)
    if size > 1.0e6:
        sys.exit(f"FAIL bounded: report.html is {size} bytes, above the 1 MB limit")
    dom = check_page(exe, work, page, 48, "bounded")  # 16 lanes of 4 ranks x 3 timelines
    if "The timelines are a summary" not in dom or ">ranks 60-63<" not in dom and "ranks 60-63" not in open(page).read():
        sys.exit("FAIL bounded: the page does not state the cut or name the rank groups")
    waiting, lane, share = (attribute(dom, n) for n in ("data-wait-pixels", "data-lane-pixels", "data-wait-share"))
    if not waiting or not lane or not share or not 0.7 * share <= waiting / lane <= 1.3 * share:
        sys.exit(f"FAIL bounded: the overview's waits {waiting}/{lane} are far from their share {share}")
    print(f"bounded: report.html {size} bytes, waits drawn {100 * waiting / lane:.2f} % (share {100 * share:.2f} %)")
    check_page(exe, work, window, 192, "bounded-window", False)  # 64 ranks x 3 timelines


def check_suggest(exe, work, wisp):
    """`wisp suggest -o DIR` writes report.html: one table row per hypothesis of suggest.json, one
    bar per simulated one, the best gain and the identity error in the summary."""
    trace, out = os.path.join(work, "small"), os.path.join(work, "suggest")
    for cmd in (["generate", "halo", "--dims", "2x2", "--steps", "10", "--overload-ranks", "0", "--overload", "0.5",
                 "-o", trace], ["suggest", trace, "-o", out, "--jobs", "2"]):
        run = subprocess.run([wisp, *cmd], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL: wisp {' '.join(cmd)}: {run.stderr}")
    rows = json.load(open(os.path.join(out, "suggest.json")))["hypotheses"]
    dom = check_page(exe, work, os.path.join(out, "report.html"), None, "suggest", False)
    table = re.search(r'<table id="suggest-table">(.*?)</table>', dom, re.S)
    if not table:
        sys.exit("FAIL suggest: no #suggest-table in the page")
    shown = table.group(1).count('class="row"')
    bars = dom.count('class="gain-bar"')
    simulated = sum(1 for r in rows if "error" not in r)
    if shown != len(rows) or bars != simulated:
        sys.exit(f"FAIL suggest: {shown} table rows and {bars} bars for {len(rows)} hypotheses ({simulated} simulated)")
    whiskers = dom.count('class="interval-whisker"')
    with_interval = sum(1 for r in rows if r.get("gain_interval"))
    if whiskers != with_interval:
        sys.exit(f"FAIL suggest: {whiskers} interval whiskers for {with_interval} hypotheses with a gain interval")
    if 'id="identity-error"' not in dom:
        sys.exit("FAIL suggest: no identity error in the summary")
    for r in rows:
        if r["file"] not in dom:
            sys.exit(f"FAIL suggest: no link to {r['file']}")
    print(f"suggest: {shown} hypotheses in the table, {bars} bars, {whiskers} intervals")


# After the page rendered: every numeric cell's right edge and every table's against the viewport.
MEASURE = """<script>setTimeout(function () {
  var out = 0, width = window.innerWidth, cells = document.querySelectorAll("td:not(.text), th:not(.text)");
  cells.forEach(function (c) { var r = c.getBoundingClientRect(); if (r.width > 0 && r.right > width + 1) ++out; });
  document.body.setAttribute("data-numeric-cells", cells.length);
  document.body.setAttribute("data-outside", out);
}, 0);</script>"""


def check_width(exe, work, html, name, width=1366):
    """At `width` px no numeric table cell of the page lies beyond the viewport's right edge."""
    measured = os.path.join(work, name + "-measured.html")
    page = open(html).read()
    at = page.rfind("</body>")
    open(measured, "w").write(page[:at] + MEASURE + page[at:])
    dom = browser(exe, work, "file://" + os.path.abspath(measured), "--virtual-time-budget=20000", "--dump-dom",
                  size=f"{width},900")
    cells = re.search(r'data-numeric-cells="(\d+)"', dom)
    outside = re.search(r'data-outside="(\d+)"', dom)
    if not cells or not outside:
        sys.exit(f"FAIL {name}: the width check did not run")
    if int(outside.group(1)) != 0:
        sys.exit(f"FAIL {name}: {outside.group(1)} of {cells.group(1)} numeric cells beyond {width} px")
    print(f"{name}: at {width} px all {cells.group(1)} numeric cells within the viewport")


def main():
    wisp, source, work = sys.argv[1:4]
    exe = chromium()
    if not exe:
        print("SKIPPED: no chromium on PATH (Debian package chromium; scripts/setup.sh test installs it)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    scenario = open(os.path.join(source, "scenarios", "halo-rebalance.yaml")).read()
    point = os.path.join(work, "point.yaml")
    open(point, "w").write(scenario.replace("--steps 100", "--steps 20"))
    sweep = os.path.join(work, "sweep.yaml")
    open(sweep, "w").write("wisp: 1\nname: sweep\ntrace:\n  generate: halo --dims 4x4 --steps 5 --overload-ranks 0-3 "
                           "--overload 0.5\ntransforms:\n  - rebalance: {region: compute}\n"
                           "  - platform: {bandwidth_factor: 1}\nsweep:\n  transforms[0].mode: [instance, total]\n"
                           "  transforms[1].bandwidth_factor: [0.5, 1]\n")
    for yaml, out in ((point, "point"), (sweep, "sweep")):
        run = subprocess.run([wisp, "run", yaml, "-o", os.path.join(work, out)], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL: wisp run {yaml}: {run.stderr}")
    dom = check_page(exe, work, os.path.join(work, "point", "report.html"), 48, "point")  # 16 ranks x 3 timelines
    for section in ("callpath-table", "pop-table", "ranks"):
        if f'id="{section}"' not in dom:
            sys.exit(f"FAIL point: no #{section} in the page")
    # The change per rank on its own axis (scenario - identity): halo-rebalance moves seconds per rank.
    change = re.search(r'id="rank-changes" data-max-change="([0-9.e-]+)"', dom)
    if not change or float(change.group(1)) < 0.01:
        sys.exit("FAIL point: no per-rank change chart, or it shows no change")
    # The communication matrix: one heat map (the scenario sends the same messages), a cell per pair
    # of report.json's measured matrix (halo 4x4: 16 ranks x 4 neighbours = 64 pairs).
    pairs = len(json.load(open(os.path.join(work, "point", "report.json")))["analyses"]["measured"]["communication"]["pairs"])
    if dom.count('class="matrix-canvas"') != 1 or f'data-pairs="{pairs}"' not in dom:
        sys.exit(f"FAIL point: the communication matrix is not one heat map of {pairs} pairs")
    dom = check_page(exe, work, os.path.join(work, "sweep", "report.html"), None, "sweep", False)
    if dom.count('class="best"') != 2:
        sys.exit("FAIL sweep: the best point is not marked in both axis charts")
    if "platform changes act on the network's part" not in dom:
        sys.exit("FAIL sweep: a platform sweep does not say what part of the MPI time it can change")
    # Each point's gain interval as a whisker in every axis chart, as the suggest chart draws them.
    rows = json.load(open(os.path.join(work, "sweep", "report.json")))["points"]
    with_interval = sum(1 for r in rows if r.get("gain", {}).get("interval") or r.get("gain_interval"))
    whiskers = dom.count('class="interval-whisker"')
    if with_interval == 0 or whiskers != 2 * with_interval:
        sys.exit(f"FAIL sweep: {whiskers} interval whiskers in 2 charts for {with_interval} points with an interval")
    check_zoomed_out_waits(exe, work, wisp)
    check_bounded(exe, work, wisp)
    check_suggest(exe, work, wisp)
    # A real C++ trace (miniFE): long demangled names must not push the numbers off the page.
    minife = os.path.join(work, "minife.yaml")
    trace = os.path.join(source, "tests", "data", "whatif", "minife2", "imb20_A", "traces.otf2")
    open(minife, "w").write(f"wisp: 1\nname: minife\ntrace: \"{trace}\"\ntransforms:\n  - rebalance: cg_solve\n")
    run = subprocess.run([wisp, "run", minife, "-o", os.path.join(work, "minife")], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: wisp run {minife}: {run.stderr}")
    # `wisp analyze -o`: the page holds the wait-state, critical-path and delay tables.
    run = subprocess.run([wisp, "analyze", trace, "-o", os.path.join(work, "analyze")], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: wisp analyze {trace}: {run.stderr}")
    dom = browser(exe, work, "file://" + os.path.join(work, "analyze", "report.html"), "--virtual-time-budget=20000",
                  "--dump-dom")
    tables = dom.count('class="analysis-table"')
    for needed in (">mpi_latesender<", ">critical_path<", ">critical_path_imbalance<", ">delay_latesender<",
                   ">cg_solve<"):
        if needed not in dom:
            sys.exit(f"FAIL analyze: {needed} not in the analysis tables")
    if tables != 3:
        sys.exit(f"FAIL analyze: {tables} analysis tables, expected 3 (wait states, critical path, delay costs)")
    legend = re.search(r'<div id="legend">(.*?)</div>', dom, re.S)
    shown = [n.strip() for n in re.findall(r'<span>([^<]*)</span>', legend.group(1))] if legend else []
    if "cg_solve" not in shown or any("[with" in n or "(" in n for n in shown):
        sys.exit(f"FAIL analyze: the timeline legend does not show short names: {shown[:5]}")
    print(f"analyze: {tables} analysis tables (wait states, critical path, delay costs), short names in the legend")
    check_width(exe, work, os.path.join(work, "analyze", "report.html"), "analyze-width")
    check_width(exe, work, os.path.join(work, "point", "report.html"), "point-width")
    check_width(exe, work, os.path.join(work, "sweep", "report.html"), "sweep-width")
    check_width(exe, work, os.path.join(work, "suggest", "report.html"), "suggest-width")
    check_width(exe, work, os.path.join(work, "minife", "report.html"), "minife-width")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
