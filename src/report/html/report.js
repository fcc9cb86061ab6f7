// report.js: draws report.html from the data wisp inlined (#wisp-data, written by
// src/report/html_report.cpp) with d3 v3: summary and trust warnings, the timelines on one canvas
// (zoom and pan; what is narrower than a pixel merged per lane), per-rank bars, POP factors,
// sweep charts, the call-path table and `wisp suggest`'s hypotheses. It renders; every number comes
// from wisp.
(function () {
  "use strict";

  var raw = JSON.parse(document.getElementById("wisp-data").textContent);
  var report = raw.report;
  var timelines = raw.timelines.map(decodeTimeline);
  var COMPUTATION = "#4e79a7", MPI = "#d7301f", WAIT = "#67000d", CRITICAL = "#ffd400";

  // ---- formatting ---------------------------------------------------------------------------
  function seconds(s) {
    if (s === null || s === undefined || !isFinite(s)) return "–";
    var a = Math.abs(s);
    if (a === 0) return "0 s";
    if (a < 1e-6) return (s * 1e9).toFixed(1) + " ns";
    if (a < 1e-3) return (s * 1e6).toFixed(2) + " µs";
    if (a < 1) return (s * 1e3).toFixed(3) + " ms";
    return s.toFixed(4) + " s";
  }
  function interval(g) { return g ? seconds(g[0]) + " … " + seconds(g[1]) : "–"; }
  function percent(p) { return p === null || p === undefined || !isFinite(p) ? "–" : p.toFixed(2) + " %"; }
  function fraction(f) { return f === null || f === undefined ? "–" : percent(100 * f); }
  function el(parent, tag, text, cls) {
    var e = parent.append(tag);
    if (text !== undefined) e.text(text);
    if (cls) e.attr("class", cls);
    return e;
  }

  // ---- data ---------------------------------------------------------------------------------
  // Columnar nanosecond integers (gap since the previous interval's end, duration) to seconds.
  function decodeTimeline(t) {
    var lanes = t.lanes.map(function (l) {
      var n = l.d.length, start = new Float64Array(n), end = new Float64Array(n), wait = new Float64Array(n);
      var at = 0;
      for (var i = 0; i < n; ++i) {
        at += l.g[i]; start[i] = at * 1e-9;
        at += l.d[i]; end[i] = at * 1e-9;
        if (l.w.length) wait[i] = l.w[i] * 1e-9;
      }
      var lane = {name: l.name, rank: l.rank, ranks: l.ranks, master: l.master, start: start, end: end, label: Uint32Array.from(l.l), wait: wait};
      var comp = new Float64Array(n), comm = new Float64Array(n);
      for (i = 0; i < n; ++i) {
        if (t.mpi[lane.label[i]]) comm[i] = end[i] - start[i] - wait[i];
        else comp[i] = end[i] - start[i];
      }
      lane.comp = comp; lane.comm = comm;
      lane.levels = levelsOfDetail(lane, t.start * 1e-9, (t.end - t.start) * 1e-9);
      return lane;
    });
    var cp = t.critical, m = t.messages;
    var path = {rank: cp.r, start: new Float64Array(cp.r.length), end: new Float64Array(cp.r.length)};
    var at = 0;
    for (var i = 0; i < cp.r.length; ++i) {
      at += cp.g[i]; path.start[i] = at * 1e-9;
      at += cp.d[i]; path.end[i] = at * 1e-9;
    }
    var messages = {from: m.f, to: m.t, send: new Float64Array(m.f.length), recv: new Float64Array(m.f.length)};
    at = 0;
    for (i = 0; i < m.f.length; ++i) {
      at += m.s[i]; messages.send[i] = at * 1e-9; messages.recv[i] = (at + m.r[i]) * 1e-9;
    }
    var master = [];
    lanes.forEach(function (l, k) {  // a summary lane stands for several ranks
      if (l.master) (l.ranks || [l.rank]).forEach(function (r) { master[r] = k; });
    });
    return {name: t.name, start: t.start * 1e-9, end: t.end * 1e-9, names: t.names, short: t.short, mpi: t.mpi, lanes: lanes,
            path: path, messages: messages, masterLane: master, split: t.split};
  }

  // Coarser copies of a lane for zoomed-out views: intervals merged per time bucket of `res`
  // seconds (span/2048, then 8 times finer each), keeping per block its computation, MPI and
  // waiting time and its largest computation's label; a level is kept while it has fewer than
  // half the blocks of the next finer one. The draw uses the coarsest level whose buckets are
  // narrower than a pixel, so that it touches a few thousand blocks per lane, not every interval.
  function levelsOfDetail(lane, t0, span) {
    var levels = [], n = lane.start.length, res = span / 2048;
    while (res > 0 && n > 4096) {
      var level = mergeBuckets(lane, t0, res);
      if (level.start.length > n / 2) break;
      levels.unshift(level);
      res /= 8;
    }
    return levels;  // coarsest last
  }

  function mergeBuckets(lane, t0, res) {
    var start = [], end = [], label = [], comp = [], comm = [], wait = [], best = [], bucket = -1, k = -1;
    for (var i = 0; i < lane.start.length; ++i) {
      var b = Math.floor((lane.start[i] - t0) / res);
      if (b !== bucket) {
        bucket = b; ++k;
        start.push(lane.start[i]); end.push(lane.end[i]); label.push(lane.label[i]);
        comp.push(0); comm.push(0); wait.push(0); best.push(0);
      }
      end[k] = lane.end[i]; comp[k] += lane.comp[i]; comm[k] += lane.comm[i]; wait[k] += lane.wait[i];
      if (lane.comp[i] > best[k]) { best[k] = lane.comp[i]; label[k] = lane.label[i]; }
    }
    return {res: res, start: Float64Array.from(start), end: Float64Array.from(end), label: Uint32Array.from(label),
            comp: Float64Array.from(comp), comm: Float64Array.from(comm), wait: Float64Array.from(wait), merged: true};
  }

  // First index whose value is >= v in a non-decreasing array.
  function lowerBound(a, v) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var mid = (lo + hi) >>> 1; if (a[mid] < v) lo = mid + 1; else hi = mid; }
    return lo;
  }

  // Computation colours by call path name, the largest call paths first (no reds: MPI and waits).
  function callpathColours() {
    var total = {}, shortName = {};
    timelines.forEach(function (t) {
      t.lanes.forEach(function (l) {
        for (var i = 0; i < l.label.length; ++i) {
          if (t.mpi[l.label[i]]) continue;
          var name = t.names[l.label[i]];
          if (t.short) shortName[name] = t.short[l.label[i]];
          total[name] = (total[name] || 0) + l.end[i] - l.start[i];
        }
      });
    });
    var palette = d3.scale.category10().range().concat(d3.scale.category20b().range(), d3.scale.category20c().range())
      .filter(function (c) { return ["#d62728", "#ff9896", "#ad494a", "#d6616b", "#e7969c", "#843c39"].indexOf(c) < 0; });
    var names = Object.keys(total).sort(function (a, b) { return total[b] - total[a]; });
    var colour = {};
    names.forEach(function (n, i) { colour[n] = palette[i % palette.length]; });
    return {colour: colour, names: names, total: total, shortName: shortName};
  }

  // ---- summary ------------------------------------------------------------------------------
  function card(parent, label, value, cls, id) {
    var c = el(parent, "div", undefined, "card");
    el(c, "div", label, "label");
    var v = el(c, "div", value, "big " + (cls || ""));
    if (id) v.attr("id", id);
  }

  function summary() {
    d3.select("#title").text(report.title);
    var sub = [];
    if (report.file) sub.push("scenario " + report.file);
    sub.push("trace " + report.trace);
    if (report.platform && report.kind === "suggest") sub.push("platform " + report.platform);
    if (report.ranks !== undefined) sub.push(report.ranks + " ranks, " + report.events + " events");
    d3.select("#subtitle").text(sub.join(" · "));
    var s = d3.select("#summary");
    if (report.description) el(s, "p", report.description);
    if (report.kind === "point") pointSummary(s);
    else if (report.kind === "sweep") sweepSummary(s);
    else if (report.kind === "suggest") suggestSummary(s);
    else analysisSummary(s);
  }

  function warnings(s, list) {
    if (!list || !list.length) return;
    var w = el(s, "div", undefined, "warnings").attr("id", "warnings");
    el(w, "strong", "How far to trust the gain:");
    var ul = el(w, "ul");
    list.forEach(function (line) { el(ul, "li", line); });
  }

  function pointSummary(s) {
    var r = report.runtimes, g = report.gain;
    var cards = el(s, "div", undefined, "cards");
    card(cards, "gain (identity − scenario)", seconds(g.seconds) + " (" + percent(g.percent) + ")",
         g.seconds >= 0 ? "gain-positive" : "gain-negative", "gain");
    card(cards, "measured", seconds(r.measured));
    card(cards, "identity (simulated)", seconds(r.identity));
    card(cards, "scenario (simulated)", seconds(r.scenario));
    card(cards, "identity error", percent(100 * report.identity_error),
         Math.abs(report.identity_error) > 0.05 ? "gain-negative" : "", "identity-error");
    if (report.gain_interval)
      card(cards, "gain interval", seconds(report.gain_interval[0]) + " … " + seconds(report.gain_interval[1]),
           report.gain_interval[0] < 0 && report.gain_interval[1] > 0 ? "gain-negative" : "", "gain-interval");
    if (report.kept_residual_share !== null && report.kept_residual_share !== undefined)
      card(cards, "critical path in kept residuals", percent(100 * report.kept_residual_share),
           report.kept_residual_share > 0.1 ? "gain-negative" : "", "kept-residuals");
    warnings(s, report.warnings);
    var ul = el(s, "ul");
    el(ul, "li", "platform: " + report.platform + (report.scenario_platform ? "; scenario: " + report.scenario_platform : ""));
    el(ul, "li", "costs: " + report.costs);
    if (report.platform_reach) el(ul, "li", report.platform_reach).attr("id", "platform-reach");
    (report.ideal_networks || []).forEach(function (line) { el(ul, "li", line).attr("class", "ideal-network"); });
    if (report.interval) el(ul, "li", "gain interval: " + report.interval);
    report.transforms.forEach(function (t) {
      el(ul, "li", t.description + ": computation " + seconds(t.before) + " → " + seconds(t.after));
    });
  }

  function analysisSummary(s) {
    var cards = el(s, "div", undefined, "cards");
    card(cards, "runtime", seconds(report.runtimes.measured), "", "runtime");
    card(cards, "critical path", seconds(report.critical_path_length));
  }

  function sweepSummary(s) {
    var cards = el(s, "div", undefined, "cards");
    card(cards, "points", String(report.rows.length));
    if (report.best !== undefined) {
      var b = report.rows[report.best];
      card(cards, "best point: " + b.name, seconds(b.gain) + " (" + percent(b.percent) + ")",
           b.gain >= 0 ? "gain-positive" : "gain-negative", "gain");
    }
    var failed = report.rows.filter(function (r) { return r.error; });
    warnings(s, (report.warnings || []).concat(failed.map(function (r) { return r.name + ": " + r.error; })));
  }

  function suggestSummary(s) {
    var r = report.runtime, cards = el(s, "div", undefined, "cards");
    var best = report.hypotheses.filter(function (h) { return h.role !== "bound" && h.measurable; })[0];
    if (best) card(cards, "best: " + best.title, seconds(best.gain_seconds) + " (" + percent(best.gain_percent) + ")",
                   best.gain_seconds >= 0 ? "gain-positive" : "gain-negative", "gain");
    card(cards, "measured", seconds(r.measured));
    card(cards, "identity (simulated)", seconds(r.identity));
    card(cards, "identity error", percent(100 * r.identity_error),
         Math.abs(r.identity_error) > 0.05 ? "gain-negative" : "", "identity-error");
    if (report.nothing_to_suggest) el(s, "p", "nothing to suggest: " + report.nothing_to_suggest).attr("id", "nothing");
    warnings(s, report.warnings);
    el(el(s, "ul"), "li", "costs: " + report.costs);
  }

  // ---- timeline -----------------------------------------------------------------------------
  function timeline() {
    if (!timelines.length) return;
    d3.select("#timeline-section").attr("hidden", null);
    // A timeline cut to the page's size limit says so (summary bins, the window of full detail).
    if (report.timeline_note) d3.select("#timeline-note").attr("hidden", null).text(report.timeline_note);
    var colours = callpathColours();
    var legend = d3.select("#legend");
    colours.names.slice(0, 16).forEach(function (n) {
      var item = el(legend, "span", undefined, "item").attr("title", n);
      item.append("span").attr("class", "key").style("background", colours.colour[n]);
      item.append("span").text(" " + (colours.shortName[n] || n));
    });
    var canvas = document.getElementById("timeline"), ctx = canvas.getContext("2d");
    var labelWidth = 130, axisHeight = 22, groupHeader = 18;
    var laneCount = d3.sum(timelines, function (t) { return t.lanes.length; });
    var laneHeight = Math.max(1, Math.min(16, Math.floor(560 / laneCount)));
    var groups = [], y = axisHeight;
    timelines.forEach(function (t) {
      groups.push({t: t, top: y, lanes: y + groupHeader});
      y += groupHeader + t.lanes.length * laneHeight + 6;
    });
    var height = y, width = canvas.parentNode.clientWidth || 1200, ratio = window.devicePixelRatio || 1;
    canvas.width = width * ratio; canvas.height = height * ratio; canvas.style.height = height + "px";
    canvas.setAttribute("data-lanes", laneCount);
    canvas.setAttribute("data-wait-share", waitShare().toFixed(4));
    var t0 = d3.min(timelines, function (t) { return t.start; }), t1 = d3.max(timelines, function (t) { return t.end; });
    if (!(t1 > t0)) t1 = t0 + 1e-6;
    var x = d3.scale.linear().domain([t0, t1]).range([labelWidth, width - 4]);
    var labelColours = timelines.map(function (t) {
      return t.names.map(function (n, i) { return t.mpi[i] ? MPI : colours.colour[n] || COMPUTATION; });
    });
    var showMessages = document.getElementById("show-messages");

    function drawAxis() {
      var ticks = x.ticks(10), span = x.domain()[1] - x.domain()[0];
      var unit = span < 2e-3 ? [1e6, " µs"] : span < 2 ? [1e3, " ms"] : [1, " s"];
      ctx.fillStyle = "#444"; ctx.font = "11px sans-serif"; ctx.textAlign = "center";
      ticks.forEach(function (v) {
        var px = x(v);
        ctx.fillRect(px, axisHeight - 5, 1, 5);
        ctx.fillText(+(v * unit[0]).toPrecision(6) + unit[1], px, axisHeight - 8);
        ctx.fillStyle = "#eee"; ctx.fillRect(px, axisHeight, 1, height - axisHeight); ctx.fillStyle = "#444";
      });
    }

    // Rectangles collected per colour and drawn as one path each (a fillStyle change costs the
    // most); a rectangle continuing the last one of its colour at the same height is merged into it.
    function newBatch() { return {rects: {}, colours: [], waitPixels: 0, lanePixels: 0}; }
    function addRect(batch, c, x0, x1, y, h) {
      var r = batch.rects[c];
      if (!r) { r = batch.rects[c] = []; batch.colours.push(c); }
      var n = r.length - 4;
      if (n >= 0 && r[n + 2] === y && r[n + 3] === h && x0 <= r[n + 1] + 0.5 && x0 >= r[n]) {
        if (x1 > r[n + 1]) r[n + 1] = x1;
        return;
      }
      r.push(x0, x1, y, h);
    }
    function drawBatch(batch) {
      batch.colours.forEach(function (c) {
        var r = batch.rects[c];
        ctx.fillStyle = c; ctx.beginPath();
        for (var i = 0; i < r.length; i += 4) ctx.rect(r[i], r[i + 2], Math.max(1, r[i + 1] - r[i]), r[i + 3]);
        ctx.fill();
      });
      batch.rects = {}; batch.colours = [];
    }

    // One lane: intervals of a pixel or more drawn as they are (waiting first inside an MPI call);
    // narrower ones merged into one-pixel columns drawn as stacked parts proportional to their
    // times (waiting on top, then MPI, then computation in the colour of its largest call path),
    // so that waits stay visible zoomed out; zoomed out, from the coarsest level of detail whose
    // blocks are narrower than a pixel. Counts the waiting pixels drawn (the browser test reads them).
    function drawLane(batch, lane, colour, top, h, a, b, d0, d1) {
      var src = lane;
      for (var j = lane.levels.length - 1; j >= 0; --j) if (lane.levels[j].res * a <= 1) { src = lane.levels[j]; break; }
      var s = src.start, e = src.end, w = src.wait, l = src.label, cp = src.comp, cm = src.comm, merged = src.merged;
      var bx0 = -1, bx1 = 0, comp = 0, comm = 0, waits = 0, best = -1, bestTime = 0;
      function flush() {
        if (bx0 < 0) return;
        var x1 = Math.max(bx0 + 1, bx1), total = comp + comm + waits;
        if (total > 0) {
          var hw = Math.round(h * waits / total), hm = Math.min(h - hw, Math.round(h * comm / total)), hc = h - hw - hm;
          if (hw > 0) addRect(batch, WAIT, bx0, x1, top, hw);
          if (hm > 0) addRect(batch, MPI, bx0, x1, top + hw, hm);
          if (hc > 0) addRect(batch, best >= 0 ? colour[best] : COMPUTATION, bx0, x1, top + hw + hm, hc);
          batch.waitPixels += (x1 - bx0) * hw; batch.lanePixels += (x1 - bx0) * h;
        }
        bx0 = -1; comp = comm = waits = 0; best = -1; bestTime = 0;
      }
      for (var i = Math.max(0, lowerBound(e, d0) - (merged ? 1 : 0)), n = s.length; i < n && s[i] <= d1; ++i) {
        var px0 = a * s[i] + b, px1 = a * e[i] + b;
        if (px1 - px0 >= 1 && !merged) {
          flush();
          var pw = a * w[i];
          if (pw > 0) addRect(batch, WAIT, px0, px0 + pw, top, h);
          addRect(batch, colour[l[i]], px0 + pw, px1, top, h);
          batch.waitPixels += pw * h; batch.lanePixels += (px1 - px0) * h;
          continue;
        }
        if (bx0 >= 0 && px0 - bx0 >= 1) flush();
        if (bx0 < 0) bx0 = px0;
        bx1 = px1;
        comm += cm[i]; waits += w[i]; comp += cp[i];
        if (cp[i] > bestTime) { bestTime = cp[i]; best = l[i]; }
      }
      flush();
    }

    function laneTop(g, k) { return g.lanes + k * laneHeight; }

    // The path's segments as bars at the bottom of their lanes, its jumps between ranks as lines
    // (one stroke for all of them); a segment ending within a pixel of the last drawn one is skipped.
    function drawCriticalPath(g, a, b, d0, d1) {
      var p = g.t.path, h = Math.max(2, Math.round(laneHeight * 0.35));
      var i = Math.max(0, lowerBound(p.end, d0) - 1), prev = -1, lastRank = -1, lastPx = -1e9;
      ctx.fillStyle = CRITICAL; ctx.strokeStyle = "#000"; ctx.lineWidth = 1; ctx.beginPath();
      for (var n = p.rank.length; i < n && p.start[i] <= d1; ++i) {
        var top = laneTop(g, g.t.masterLane[p.rank[i]]) + laneHeight - h;
        var px0 = a * p.start[i] + b, px1 = a * p.end[i] + b;
        if (px1 < lastPx + 1) continue;  // at most one segment per pixel column
        ctx.fillRect(px0, top, Math.max(1, px1 - px0), h);
        if (prev >= 0 && p.rank[prev] !== p.rank[i]) {
          ctx.moveTo(a * p.end[prev] + b, laneTop(g, g.t.masterLane[p.rank[prev]]) + laneHeight - h / 2);
          ctx.lineTo(px0, top + h / 2);
        }
        prev = i; lastRank = p.rank[i]; lastPx = px1;
      }
      ctx.stroke();
    }

    function drawMessages(g, a, b, d0, d1) {
      var m = g.t.messages, first = lowerBound(m.send, d0), last = lowerBound(m.send, d1);
      if (!showMessages.checked || last - first > 3000) return;
      ctx.strokeStyle = "rgba(0,0,0,0.45)"; ctx.lineWidth = 1; ctx.beginPath();
      for (var i = first; i < last; ++i) {
        ctx.moveTo(a * m.send[i] + b, laneTop(g, g.t.masterLane[m.from[i]]) + laneHeight / 2);
        ctx.lineTo(a * m.recv[i] + b, laneTop(g, g.t.masterLane[m.to[i]]) + laneHeight / 2);
      }
      ctx.stroke();
    }

    function draw() {
      var started = performance.now();
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      drawAxis();
      var dom = x.domain(), rng = x.range(), a = (rng[1] - rng[0]) / (dom[1] - dom[0]), b = rng[0] - a * dom[0];
      ctx.save(); ctx.beginPath(); ctx.rect(labelWidth, 0, width - labelWidth, height); ctx.clip();
      var batch = newBatch();
      groups.forEach(function (g, k) {
        g.t.lanes.forEach(function (lane, j) {
          drawLane(batch, lane, labelColours[k], laneTop(g, j) + 0.5, Math.max(1, laneHeight - 1), a, b, dom[0], dom[1]);
        });
        drawBatch(batch);
        drawCriticalPath(g, a, b, dom[0], dom[1]);
        drawMessages(g, a, b, dom[0], dom[1]);
      });
      ctx.restore();
      ctx.fillStyle = "#222"; ctx.textAlign = "left";
      groups.forEach(function (g) {
        ctx.font = "bold 12px sans-serif"; ctx.fillText(g.t.name, 4, g.top + 13);
        if (laneHeight < 9) return;
        ctx.font = Math.min(11, laneHeight - 1) + "px sans-serif";
        g.t.lanes.forEach(function (lane, j) { ctx.fillText(lane.name, 4, laneTop(g, j) + laneHeight - 2, labelWidth - 8); });
      });
      var ms = performance.now() - started;
      canvas.setAttribute("data-wait-pixels", Math.round(batch.waitPixels));
      canvas.setAttribute("data-lane-pixels", Math.round(batch.lanePixels));
      document.getElementById("redraw-time").textContent = "redraw " + ms.toFixed(1) + " ms";
      return ms;
    }

    var pending = false;
    function schedule() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    }
    var maxScale = Math.max(1, (t1 - t0) / ((width - labelWidth) * 1e-8));
    var zoom = d3.behavior.zoom().x(x).scaleExtent([1, maxScale]).on("zoom", schedule);
    d3.select(canvas).call(zoom);
    d3.select("#reset-zoom").on("click", function () { x.domain([t0, t1]); zoom.x(x); schedule(); });
    d3.select(showMessages).on("change", schedule);
    tooltip(canvas, groups, x, laneHeight, labelWidth);
    draw();
    if (location.hash === "#bench") bench(x, zoom, draw, t0, t1);
  }

  // Waiting over the ranks' whole time (computation + MPI + waiting) as wisp split it, all timelines
  // together: what the zoomed-out view's waiting pixels should show.
  function waitShare() {
    var w = 0, all = 0;
    timelines.forEach(function (t) {
      if (!t.split) return;
      for (var r = 0; r < t.split.w.length; ++r) { w += t.split.w[r]; all += t.split.c[r] + t.split.m[r] + t.split.w[r]; }
    });
    return all > 0 ? w / all : 0;
  }

  // Times redraws at growing zoom around the middle of the run (the browser test reads them).
  function bench(x, zoom, draw, t0, t1) {
    var times = [], mid = (t0 + t1) / 2, span = t1 - t0;
    [1, 2, 8, 32, 128, 1024, 8192, 1, 3].forEach(function (k) {
      x.domain([mid - span / (2 * k), mid + span / (2 * k)]);
      times.push(draw());
    });
    x.domain([t0, t1]); zoom.x(x); draw();
    var root = document.documentElement;
    root.setAttribute("data-redraw-max-ms", d3.max(times).toFixed(2));
    root.setAttribute("data-redraw-mean-ms", d3.mean(times).toFixed(2));
    root.setAttribute("data-redraw-ms", times.map(function (t) { return t.toFixed(1); }).join(" "));
  }

  function tooltip(canvas, groups, x, laneHeight, labelWidth) {
    var tip = d3.select("#tooltip");
    d3.select(canvas).on("mousemove", function () {
      var p = d3.mouse(canvas), t = x.invert(p[0]), text = null;
      groups.forEach(function (g) {
        var k = Math.floor((p[1] - g.lanes) / laneHeight);
        if (p[0] < labelWidth || k < 0 || k >= g.t.lanes.length) return;
        var lane = g.t.lanes[k], i = lowerBound(lane.end, t);
        if (i >= lane.start.length || lane.start[i] > t) return;
        text = g.t.name + " · " + lane.name + " · " + (g.t.short ? g.t.short[lane.label[i]] : g.t.names[lane.label[i]]) + " · " + seconds(lane.end[i] - lane.start[i]) +
               (lane.wait[i] > 0 ? " (waiting " + seconds(lane.wait[i]) + ")" : "");
      });
      tip.attr("hidden", text ? null : "").text(text || "")
         .style("left", (p[0] + 12) + "px").style("top", (p[1] + 12) + "px");
    }).on("mouseleave", function () { tip.attr("hidden", ""); });
  }

  // ---- per rank -----------------------------------------------------------------------------
  function perRank() {
    var shown = timelines.filter(function (t) { return t.split && t.split.c.length; });
    if (!shown.length) return;
    d3.select("#ranks-section").attr("hidden", null);
    var ranks = d3.range(shown[0].split.c.length), parts = ["computation", "MPI", "waiting"], keys = ["c", "m", "w"];
    var colour = [COMPUTATION, MPI, WAIT];
    var margin = {top: 10, right: 10, bottom: 40, left: 85};
    var width = Math.max(500, (document.getElementById("ranks").clientWidth || 1100)) - margin.left - margin.right;
    var height = 240;
    var x0 = d3.scale.ordinal().domain(ranks).rangeBands([0, width], 0.2);
    var x1 = d3.scale.ordinal().domain(d3.range(shown.length)).rangeBands([0, x0.rangeBand()], 0.08);
    var max = d3.max(shown, function (t) { return d3.max(ranks, function (r) { return t.split.c[r] + t.split.m[r] + t.split.w[r]; }); });
    var y = d3.scale.linear().domain([0, max || 1]).nice().range([height, 0]);
    var svg = d3.select("#ranks").append("svg").attr("width", width + margin.left + margin.right)
      .attr("height", height + margin.top + margin.bottom)
      .append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
    var step = Math.max(1, Math.ceil(ranks.length / 32));
    svg.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")")
      .call(d3.svg.axis().scale(x0).orient("bottom").tickValues(ranks.filter(function (r) { return r % step === 0; })));
    svg.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(6).tickFormat(seconds));
    shown.forEach(function (t, k) {
      ranks.forEach(function (r) {
        var base = 0;
        keys.forEach(function (key, j) {
          var v = t.split[key][r];
          svg.append("rect").attr("x", x0(r) + x1(k)).attr("width", Math.max(1, x1.rangeBand()))
            .attr("y", y(base + v)).attr("height", Math.max(0, y(base) - y(base + v))).attr("fill", colour[j])
            .attr("opacity", k === 0 && shown.length > 1 ? 0.55 : 1)
            .append("title").text(t.name + ", rank " + r + ": " + parts[j] + " " + seconds(v));
          base += v;
        });
      });
    });
    var legend = el(d3.select("#ranks"), "p", undefined, "hint");
    legend.text("bars per rank, left to right: " + shown.map(function (t) { return t.name; }).join(", ") +
                (shown.length > 1 ? " (the first lighter)" : "") + "; computation (blue), MPI (red), waiting (dark red)");
    if (shown.length > 1) rankChanges(shown[shown.length - 2], shown[shown.length - 1], ranks, width, margin);
  }

  // The change per rank between the last two timelines (scenario - identity), on its own axis: a
  // 0.1 s change is visible next to 5 s bars.
  function rankChanges(before, after, ranks, width, margin) {
    var keys = ["c", "m", "w"], parts = ["computation", "MPI", "waiting"], colour = [COMPUTATION, MPI, WAIT];
    var d = keys.map(function (key) { return ranks.map(function (r) { return after.split[key][r] - before.split[key][r]; }); });
    var extent = d3.max(d, function (v) { return d3.max(v, Math.abs); }) || 1e-9, height = 160;
    var x0 = d3.scale.ordinal().domain(ranks).rangeBands([0, width], 0.2);
    var x1 = d3.scale.ordinal().domain(d3.range(3)).rangeBands([0, x0.rangeBand()], 0.05);
    var y = d3.scale.linear().domain([-extent, extent]).nice().range([height, 0]);
    var svg = d3.select("#ranks").append("svg").attr("id", "rank-changes").attr("data-max-change", extent)
      .attr("width", width + margin.left + margin.right).attr("height", height + margin.top + margin.bottom)
      .append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
    svg.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(5).tickFormat(seconds));
    svg.append("line").attr("x1", 0).attr("x2", width).attr("y1", y(0)).attr("y2", y(0)).attr("stroke", "#999");
    d.forEach(function (values, j) {
      values.forEach(function (v, r) {
        svg.append("rect").attr("x", x0(r) + x1(j)).attr("width", Math.max(1, x1.rangeBand()))
          .attr("y", y(Math.max(0, v))).attr("height", Math.abs(y(v) - y(0))).attr("fill", colour[j])
          .append("title").text("rank " + r + ": " + parts[j] + " " + (v >= 0 ? "+" : "") + seconds(v));
      });
    });
    el(d3.select("#ranks"), "p", "change per rank, " + after.name + " - " + before.name +
       " (own axis): computation, MPI, waiting", "hint");
  }

  // ---- POP ----------------------------------------------------------------------------------
  // ---- analyses (wisp analyze) ----------------------------------------------------------------
  // Per group (wait states, critical path, delay costs) one table: each metric's top call paths by
  // total, the busiest rank, and every rank's value as small bars (up to 256 ranks).
  function analysisTables() {
    var groups = report.analysis_tables;
    if (!groups || !groups.length) return;
    d3.select("#analysis-section").attr("hidden", null);
    var box = d3.select("#analysis");
    el(box, "p", "metric values summed over ranks (Scalasca's unique names; the total is the metric's over all call " +
       "paths); hover a name for the full call path and its source", "hint");
    groups.forEach(function (g) {
      el(box, "h3", g.title);
      var table = box.append("table").attr("class", "analysis-table");
      var head = table.append("tr");
      ["metric", "call path", "seconds", "share", "busiest rank", "rank", "per rank"].forEach(function (c, k) {
        el(head, "th", c, k < 2 || k === 6 ? "text" : undefined);
      });
      g.metrics.forEach(function (m) {
        m.rows.forEach(function (r, k) {
          var row = table.append("tr").attr("class", "row");
          el(row, "td", k === 0 ? m.metric : "", "text").attr("title", k === 0 ? m.description : null);
          el(row, "td", r.short_name, "text").attr("title", r.callpath + (r.source ? "\n" + r.source : ""));
          el(row, "td", seconds(r.total));
          el(row, "td", percent(m.total > 0 ? 100 * r.total / m.total : 0));
          el(row, "td", seconds(r.max));
          el(row, "td", String(r.max_rank));
          var cell = el(row, "td", undefined, "text");
          if (r.ranks) sparkBars(cell, r.ranks);
        });
        if (m.call_paths > m.rows.length)
          el(el(table.append("tr"), "td", "... " + (m.call_paths - m.rows.length) + " more call paths of " +
             m.metric + " (analysis.json)", "text hint"), "span");
      });
    });
  }

  function sparkBars(cell, values) {
    var w = Math.min(160, Math.max(24, 3 * values.length)), h = 14, max = d3.max(values) || 1, bw = w / values.length;
    var svg = cell.append("svg").attr("width", w).attr("height", h);
    values.forEach(function (v, r) {
      svg.append("rect").attr("x", r * bw).attr("width", Math.max(0.5, bw - (bw > 2 ? 0.5 : 0)))
        .attr("y", h - h * v / max).attr("height", h * v / max).attr("fill", COMPUTATION)
        .append("title").text("rank " + r + ": " + seconds(v));
    });
  }

  // ---- communication matrix -------------------------------------------------------------------
  // One heat map per trace (measured, and the scenario's when it differs): a cell per (sender,
  // receiver) pair, its colour the bytes on a log scale, messages and bytes on hover.
  function communication() {
    var c = report.communication;
    if (!c || !c.measured || !c.measured.pairs.length) return;
    d3.select("#communication-section").attr("hidden", null);
    var box = d3.select("#communication");
    var same = !c.scenario || (c.scenario.bytes === c.measured.bytes && c.scenario.messages === c.measured.messages);
    var shown = same ? [["measured", c.measured]] : [["measured", c.measured], ["scenario", c.scenario]];
    shown.forEach(function (entry) { matrix(box, entry[0], entry[1]); });
    if (same && c.scenario) el(box, "p", "the scenario sends the same messages (" + c.scenario.messages + ", " +
                               bytes(c.scenario.bytes) + ")", "hint");
  }

  function bytes(b) {
    return b >= 1e9 ? (b / 1e9).toFixed(2) + " GB" : b >= 1e6 ? (b / 1e6).toFixed(2) + " MB"
         : b >= 1e3 ? (b / 1e3).toFixed(1) + " kB" : b + " B";
  }

  function matrix(box, name, m) {
    var size = Math.min(480, Math.max(120, 4 * m.ranks)), cell = size / m.ranks;
    var figure = el(box, "div", undefined, "matrix");
    el(figure, "h3", name + ": " + m.messages + " messages, " + bytes(m.bytes) + ", " + m.ranks + " ranks");
    var canvas = figure.append("canvas").attr("width", size).attr("height", size).attr("class", "matrix-canvas")
      .attr("data-pairs", m.pairs.length).node();
    var ctx = canvas.getContext("2d"), max = d3.max(m.pairs, function (p) { return p[3]; }) || 1;
    var colour = d3.scale.log().domain([1, Math.max(2, max)]).range(["#deebf7", "#08306b"]).clamp(true);
    var at = {};
    m.pairs.forEach(function (p) {
      at[p[0] + "," + p[1]] = p;
      ctx.fillStyle = colour(Math.max(1, p[3]));
      ctx.fillRect(p[1] * cell, p[0] * cell, Math.max(1, cell), Math.max(1, cell));
    });
    var info = el(figure, "p", "rows: sender, columns: receiver; hover a cell", "hint");
    canvas.addEventListener("mousemove", function (e) {
      var r = canvas.getBoundingClientRect();
      var from = Math.floor((e.clientY - r.top) / cell), to = Math.floor((e.clientX - r.left) / cell);
      var p = at[from + "," + to];
      info.text(p ? "rank " + from + " to rank " + to + ": " + p[2] + " messages, " + bytes(p[3])
                  : "rank " + from + " to rank " + to + ": nothing");
    });
  }

  function pop() {
    if (!report.pop || !report.pop.length) return;
    d3.select("#pop-section").attr("hidden", null);
    var rows = [["parallel efficiency", "parallel_efficiency"], ["load balance", "load_balance"],
                ["communication efficiency", "communication_efficiency"], ["serialisation", "serialisation"],
                ["transfer", "transfer"]];
    var table = d3.select("#pop").append("table").attr("id", "pop-table");
    var head = table.append("tr");
    el(head, "th", "factor", "text");
    report.pop.forEach(function (p) { el(head, "th", p.name); });
    rows.forEach(function (r) {
      var tr = table.append("tr");
      el(tr, "td", r[0], "text");
      report.pop.forEach(function (p) { el(tr, "td", fraction(p[r[1]])); });
    });
  }

  // ---- call paths ---------------------------------------------------------------------------
  function callpaths() {
    var rows = report.callpaths;
    if (!rows || !rows.length) return;
    d3.select("#callpath-section").attr("hidden", null);
    rows.forEach(function (r) { r.change = r.after - r.before; });
    var columns = [["metric", "metric", true], ["call path", "callpath", true], ["measured", "measured"],
                   ["before (identity)", "before"], ["after (scenario)", "after"], ["change", "change"]];
    var box = d3.select("#callpaths"), top = 15, all = false;
    var sortKey = "change", descending = true, byMagnitude = true;
    var info = el(box, "p", "", "hint");
    var button = el(box, "button", "");
    var table = box.append("table").attr("id", "callpath-table");
    var head = table.append("tr");
    columns.forEach(function (c) {
      el(head, "th", c[0], "sortable" + (c[2] ? " text" : "")).on("click", function () {
        descending = sortKey === c[1] && !byMagnitude ? !descending : !c[2];
        sortKey = c[1]; byMagnitude = false; render();
      });
    });
    button.on("click", function () { all = !all; render(); });
    function value(r) { return byMagnitude ? Math.abs(r.change) : r[sortKey]; }
    function render() {
      var sorted = rows.slice().sort(function (p, q) {
        var a = value(p), b = value(q);
        return (a < b ? -1 : a > b ? 1 : 0) * (descending ? -1 : 1);
      });
      var shown = all ? sorted : sorted.slice(0, top);
      info.text(all ? "all " + rows.length + " rows" : "the " + shown.length + " largest changes of " + rows.length +
                " rows (metric summed over ranks; click a header to sort)");
      button.text(all ? "show the top " + top : "show all " + rows.length + " rows");
      var tr = table.selectAll("tr.row").data(shown);
      tr.enter().append("tr").attr("class", "row");
      tr.exit().remove();
      tr.html("").each(function (r) {
        var row = d3.select(this);
        el(row, "td", r.metric, "text");
        el(row, "td", r.short_name || r.callpath, "text").attr("title", r.callpath + (r.source ? "\n" + r.source : ""));
        el(row, "td", seconds(r.measured));
        el(row, "td", seconds(r.before));
        el(row, "td", seconds(r.after));
        el(row, "td", seconds(r.change), r.change < 0 ? "gain-positive" : r.change > 0 ? "gain-negative" : "");
      });
    }
    render();
  }

  // ---- sweep --------------------------------------------------------------------------------
  function sweep() {
    if (report.kind !== "sweep") return;
    d3.select("#sweep-section").attr("hidden", null);
    var ok = report.rows.filter(function (r) { return !r.error; });
    var best = report.best !== undefined ? report.rows[report.best] : null;
    // A one-at-a-time sweep leaves the other axes as the scenario sets them ("" here): each axis's
    // chart holds the points that set it.
    report.axes.forEach(function (axis, a) {
      sweepChart(axis, a, ok.filter(function (r) { return r.values[a] !== ""; }), best && best.values[a] !== "" ? best : null);
    });
    sweepTable(best);
  }

  function sweepChart(axis, a, ok, best) {
    var margin = {top: 20, right: 300, bottom: 40, left: 70}, width = 460, height = 240;
    var numeric = ok.every(function (r) { return r.values[a] !== "" && isFinite(+r.values[a]); });
    function xv(r) { return numeric ? +r.values[a] : r.values[a]; }
    var order = [];
    ok.forEach(function (r) { if (order.indexOf(r.values[a]) < 0) order.push(r.values[a]); });
    // Factors (all positive, spanning 10x or more) on a logarithmic axis: 1, 10, 100 evenly apart.
    var extent = numeric ? d3.extent(ok, xv) : null;
    var logarithmic = numeric && extent[0] > 0 && extent[1] / extent[0] >= 10;
    var x = logarithmic ? d3.scale.log().domain(extent).range([0, width])
          : numeric ? d3.scale.linear().domain(extent).nice().range([0, width])
                    : d3.scale.ordinal().domain(order).rangePoints([0, width], 0.5);
    // A point's gain interval in percent of its identity runtime (as its gain), drawn as a whisker.
    function band(r) {
      return r.gain_interval && r.identity > 0 ? r.gain_interval.map(function (g) { return 100 * g / r.identity; }) : null;
    }
    var ys = ok.map(function (r) { return r.percent; }).concat([0]);
    ok.forEach(function (r) { if (band(r)) ys = ys.concat(band(r)); });
    var y = d3.scale.linear().domain(d3.extent(ys)).nice().range([height, 0]);
    var others = function (r) {
      return report.axes.map(function (k, b) { return b === a || r.values[b] === "" ? null : k + "=" + r.values[b]; })
        .filter(function (s) { return s; }).join(", ") || axis;
    };
    var lines = d3.nest().key(others).entries(ok);
    var colour = d3.scale.category10();
    var box = d3.select("#sweep").append("div").attr("class", "sweep-chart");
    el(box, "h3", "gain against " + axis);
    var svg = box.append("svg").attr("width", width + margin.left + margin.right).attr("height", height + margin.top + margin.bottom)
      .append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
    svg.append("g").attr("class", "axis").attr("transform", "translate(0," + height + ")").call(d3.svg.axis().scale(x).orient("bottom"));
    svg.append("g").attr("class", "axis").call(d3.svg.axis().scale(y).orient("left").ticks(6));
    svg.append("text").attr("x", width / 2).attr("y", height + 34).attr("text-anchor", "middle")
      .text(axis + (logarithmic ? " (logarithmic)" : ""));
    svg.append("text").attr("transform", "rotate(-90)").attr("x", -height / 2).attr("y", -50).attr("text-anchor", "middle").text("gain [%]");
    var line = d3.svg.line().x(function (r) { return x(xv(r)); }).y(function (r) { return y(r.percent); });
    lines.forEach(function (group, k) {
      var values = group.values.slice().sort(function (p, q) { return numeric ? xv(p) - xv(q) : order.indexOf(p.values[a]) - order.indexOf(q.values[a]); });
      svg.append("path").attr("d", line(values)).attr("fill", "none").attr("stroke", colour(k)).attr("stroke-width", 2);
      values.forEach(function (r) {
        var b = band(r), cx = x(xv(r));
        if (b) {
          var lo = y(b[0]), hi = y(b[1]);
          svg.append("path").attr("class", "interval-whisker").attr("stroke", colour(k)).attr("fill", "none")
            .attr("d", "M" + (cx - 4) + "," + lo + "H" + (cx + 4) + "M" + cx + "," + lo + "V" + hi +
                       "M" + (cx - 4) + "," + hi + "H" + (cx + 4))
            .append("title").text(r.name + ": gain interval " + interval(r.gain_interval));
        }
        svg.append("circle").attr("cx", cx).attr("cy", y(r.percent)).attr("r", 3.5).attr("fill", colour(k))
          .append("title").text(r.name + ": gain " + seconds(r.gain) + " (" + percent(r.percent) + ")" +
                                (r.gain_interval ? ", interval " + interval(r.gain_interval) : ""));
      });
      svg.append("text").attr("x", width + 10).attr("y", 12 + 14 * k).attr("fill", colour(k)).text(group.key);
    });
    if (best) {
      svg.append("circle").attr("class", "best").attr("cx", x(xv(best))).attr("cy", y(best.percent)).attr("r", 8)
        .attr("fill", "none").attr("stroke", "#000").attr("stroke-width", 2);
      svg.append("text").attr("x", x(xv(best)) + 10).attr("y", y(best.percent) - 8).text("best");
    }
  }

  function sweepTable(best) {
    var table = d3.select("#sweep").append("table").attr("id", "sweep-table");
    var head = table.append("tr");
    ["point"].concat(report.axes).concat(["identity", "scenario", "gain", "gain %", "gain interval", "error"]).forEach(function (h, i) {
      el(head, "th", h, i <= report.axes.length ? "text" : "");
    });
    report.rows.forEach(function (r) {
      var tr = table.append("tr").style("font-weight", r === best ? "bold" : null);
      el(tr, "td", r.name, "text");
      r.values.forEach(function (v) { el(tr, "td", v === "" ? "–" : v, "text"); });
      el(tr, "td", seconds(r.identity)); el(tr, "td", seconds(r.scenario)); el(tr, "td", seconds(r.gain));
      el(tr, "td", percent(r.percent)); el(tr, "td", interval(r.gain_interval));
      el(tr, "td", r.error || "", "text");
    });
  }

  // ---- suggest ------------------------------------------------------------------------------
  function suggest() {
    if (report.kind !== "suggest" || !report.hypotheses.length) return;
    d3.select("#suggest-section").attr("hidden", null);
    suggestChart(report.hypotheses.filter(function (h) { return !h.error; }));
    suggestTable(report.hypotheses);
  }

  // One bar per simulated hypothesis (its gain) with its gain interval as a whisker, the indicator's
  // predicted gain as a black tick on the same axis, the values written next to the bar.
  function suggestChart(rows) {
    if (!rows.length) return;
    var bar = 18, margin = {top: 24, right: 460, bottom: 10, left: 330}, width = 360, height = rows.length * (bar + 6);
    var values = [0];
    rows.forEach(function (h) {
      values.push(h.gain_seconds);
      if (h.indicator.seconds !== null) values.push(h.indicator.seconds);
      if (h.gain_interval) values.push(h.gain_interval[0], h.gain_interval[1]);
    });
    var x = d3.scale.linear().domain(d3.extent(values)).nice().range([0, width]);
    var svg = d3.select("#suggest").append("svg").attr("id", "suggest-chart")
      .attr("width", width + margin.left + margin.right).attr("height", height + margin.top + margin.bottom)
      .append("g").attr("transform", "translate(" + margin.left + "," + margin.top + ")");
    svg.append("g").attr("class", "axis").call(d3.svg.axis().scale(x).orient("top").ticks(4).tickFormat(seconds));
    rows.forEach(function (h, k) {
      var y = 4 + k * (bar + 6), g = h.gain_seconds;
      svg.append("text").attr("x", -8).attr("y", y + bar - 5).attr("text-anchor", "end").text(h.rank + "  " + h.title);
      svg.append("rect").attr("class", "gain-bar").attr("x", x(Math.min(0, g))).attr("y", y)
        .attr("width", Math.max(1, Math.abs(x(g) - x(0)))).attr("height", bar)
        .attr("fill", h.role === "bound" ? "#bab0ac" : !h.measurable ? "#d7e3ef" : h.role === "combined" ? "#59a14f" : COMPUTATION)
        .append("title").text(h.title + ": simulated gain " + seconds(g) + " (" + percent(h.gain_percent) + ")" +
                              (h.gain_interval ? ", interval " + interval(h.gain_interval) : ""));
      if (h.gain_interval) {
        var lo = x(h.gain_interval[0]), hi = x(h.gain_interval[1]), mid = y + bar / 2;
        svg.append("path").attr("class", "interval-whisker").attr("stroke", "#333").attr("fill", "none")
          .attr("d", "M" + lo + "," + (mid - 4) + "V" + (mid + 4) + "M" + lo + "," + mid + "H" + hi +
                     "M" + hi + "," + (mid - 4) + "V" + (mid + 4))
          .append("title").text("gain interval " + interval(h.gain_interval));
      }
      var ind = h.indicator.seconds;
      if (ind !== null) svg.append("rect").attr("class", "indicator-tick").attr("x", x(ind) - 1).attr("y", y - 2)
        .attr("width", 2).attr("height", bar + 4).attr("fill", "#000")
        .append("title").text(h.indicator.name + " predicts " + seconds(ind));
      svg.append("text").attr("x", width + 8).attr("y", y + bar - 5)
        .text(seconds(g) + " (" + percent(h.gain_percent) + ")  ·  " + h.indicator.name +
              (ind !== null ? " " + seconds(ind) : ""));
    });
    el(d3.select("#suggest"), "p", "bars: simulated gain (identity − scenario; blue ranked, green the combination, " +
       "pale no measurable gain, grey upper bounds); whisker: the gain interval; black tick: the gain the indicator " +
       "predicts", "hint");
  }

  function suggestTable(rows) {
    rows.forEach(function (h, k) { h.order = k; h.value = h.indicator.seconds; });
    var columns = [["rank", "order", true], ["hypothesis", "title", true], ["indicator", "indicator_name", true],
                   ["indicator value", "value"], ["gain", "gain_seconds"], ["gain %", "gain_percent"],
                   ["gain interval", "gain_low"], ["indicator − gain", "indicator_minus_gain"], ["indicator / gain", "indicator_over_gain"],
                   ["scenario file", "file", true]];
    rows.forEach(function (h) {
      h.indicator_name = h.indicator.name;
      h.gain_low = h.gain_interval ? h.gain_interval[0] : null;
    });
    var table = d3.select("#suggest").append("table").attr("id", "suggest-table");
    var head = table.append("tr"), sortKey = "order", descending = false;
    columns.forEach(function (c) {
      el(head, "th", c[0], "sortable" + (c[2] ? " text" : "")).on("click", function () {
        descending = sortKey === c[1] ? !descending : !c[2];
        sortKey = c[1]; render();
      });
    });
    function key(h) { var v = h[sortKey]; return v === null || v === undefined ? -Infinity : v; }
    function render() {
      var sorted = rows.slice().sort(function (p, q) {
        var a = key(p), b = key(q);
        return (a < b ? -1 : a > b ? 1 : p.order - q.order) * (descending ? -1 : 1);
      });
      var tr = table.selectAll("tr.row").data(sorted);
      tr.enter().append("tr").attr("class", "row");
      tr.html("").each(function (h) {
        var row = d3.select(this);
        el(row, "td", h.rank, "text");
        el(row, "td", h.title, "text").attr("title", (h.subject ? h.subject + "\n" : "") + h.reason +
                                            (h.parts && h.parts.length ? "\nparts: " + h.parts.join("; ") : ""));
        el(row, "td", h.indicator.name, "text");
        el(row, "td", seconds(h.indicator.seconds));
        if (h.error) {
          el(row, "td", "failed: " + h.error, "text gain-negative").attr("colspan", 5);
        } else {
          el(row, "td", seconds(h.gain_seconds), h.gain_seconds > 0 ? "gain-positive" : h.gain_seconds < 0 ? "gain-negative" : "");
          el(row, "td", percent(h.gain_percent));
          el(row, "td", interval(h.gain_interval),
             h.gain_interval && h.gain_interval[0] < 0 && h.gain_interval[1] > 0 ? "gain-negative" : "");
          var over = h.indicator_minus_gain;
          el(row, "td", over === null ? "–" : (over >= 0 ? "+" : "−") + seconds(Math.abs(over)) +
             (over > 0 ? " over" : over < 0 ? " under" : ""));
          el(row, "td", h.indicator_over_gain === null ? "–" : h.indicator_over_gain.toFixed(3));
        }
        var file = el(row, "td", undefined, "text");
        file.append("a").attr("href", h.file).text(h.file);
      });
    }
    render();
    el(d3.select("#suggest"), "p", "gain = identity − scenario (simulated); indicator − gain > 0: the indicator " +
       "overestimates the gain. Bounds (zeroing) are not ranked: no change reaches them. Rerun or refine a " +
       "hypothesis with `wisp run FILE` (the files are beside this page). Click a header to sort.", "hint");
  }

  summary();
  timeline();
  perRank();
  pop();
  sweep();
  suggest();
  callpaths();
  analysisTables();
  communication();
  document.documentElement.setAttribute("data-loaded", "1");
})();
