// Undertone's renderers, shared by the app (/app) and the offline report: they turn
// scored results into DOM nodes. Every piece of caller text is set as text (never as
// HTML), so conversation content, ids and metadata cannot inject markup.
"use strict";
(function (global) {
  const SVG = "http://www.w3.org/2000/svg";

  /**
   * An element with attributes and children (strings become text nodes; arrays of
   * children, however nested, are spread; null, undefined and false are skipped).
   */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  /**
   * A table cell. Text longer than a few words' worth (an id, a URL, an error) may
   * break anywhere; shorter text keeps its words whole, so one long id cannot squeeze
   * the other columns to a letter a line; a time stays on one line (app.css,
   * `td.long`, `td.time`).
   */
  function cell(content) {
    const td = el("td", {}, content);
    if (TIME.test(td.textContent)) td.classList.add("time");
    else if (td.textContent.length > LONG_CELL) td.classList.add("long");
    return td;
  }

  /** A time as the API writes it, kept on one line (it would break at each hyphen). */
  const TIME = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/;

  /** Characters from which a cell's text may break anywhere. */
  const LONG_CELL = 24;

  /** `n` and a noun, in the plural unless `n` is 1: "1 conversation", "2 human turns". */
  function count(n, noun) {
    return `${n} ${noun}${n === 1 ? "" : "s"}`;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  const DIMENSIONS = [
    ["trust_calibration", "Trust calibration"],
    ["frustration_buildup", "Frustration"],
    ["dependency_drift", "Dependency drift"],
    ["silent_abandonment_risk", "Abandonment risk"],
    ["escalation_friction", "Escalation friction"],
    ["comprehension_gap", "Comprehension gap"],
  ];

  /** A band as text and colour: the name is always written out. */
  function band(name) {
    return el("span", { class: `band ${name}` }, name);
  }

  function number(x, digits = 2) {
    return typeof x === "number" ? x.toFixed(digits) : "–";
  }

  /** A p-value to three places, or "< 0.001" (never a bare 0.000). */
  function pValue(p) {
    return typeof p === "number" && p < 0.001 ? "< 0.001" : number(p, 3);
  }

  /** The six dimensions as a table: score, band, confidence. */
  function layerTable(layer) {
    const rows = DIMENSIONS.map(([key, label]) => {
      const d = layer[key];
      return el("tr", {}, el("th", { scope: "row" }, label), el("td", {}, number(d.score)),
        el("td", {}, band(d.band)), el("td", {}, number(d.confidence)));
    });
    return el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Dimension"), el("th", { scope: "col" }, "Score"),
        el("th", { scope: "col" }, "Band"), el("th", { scope: "col" }, "Confidence"))),
      el("tbody", {}, rows)));
  }

  /**
   * A line chart of `series` ([{name, className, values}]) over x = 0..n-1, values in
   * [0, 1].
   * Each point is a circle with a <title>, so the values can be read without colour.
   */
  /** The line chart's box (viewBox units): width, height and the left, right, top and bottom margins. */
  const LINE = { W: 640, H: 200, L: 34, R: 10, T: 10, B: 24 };

  /** The x of point `i` of `n` in a line chart. */
  function lineX(i, n) {
    const { W, L, R } = LINE;
    return L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  }

  function lineChart(series, labels, title) {
    const n = Math.max(1, ...series.map((s) => s.values.length));
    const { W, H, L, R, T, B } = LINE;
    const x = (i) => lineX(i, n);
    const y = (v) => T + (1 - v) * (H - T - B);
    const chart = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
    chart.append(svg("title", {}, title));
    for (const v of [0, 0.5, 1]) {
      chart.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      chart.append(svg("text", { x: 4, y: y(v) + 4 }, v.toFixed(1)));
    }
    labels.forEach((label, i) => {
      if (n <= 12 || i % Math.ceil(n / 12) === 0) chart.append(svg("text", { x: x(i) - 6, y: H - 6 }, label));
    });
    for (const s of series) {
      const points = s.values.map((v, i) => (v === null || v === undefined ? null : [x(i), y(v)]));
      const path = points.filter(Boolean).map((p) => p.join(",")).join(" ");
      chart.append(svg("polyline", { class: s.className, points: path, fill: "none", stroke: "currentColor", "stroke-width": 2 }));
      s.values.forEach((v, i) => {
        if (v === null || v === undefined) return;
        const dot = svg("circle", { class: `point ${s.className}`, cx: x(i), cy: y(v), r: 4, fill: "currentColor", "data-series": s.name });
        dot.append(svg("title", {}, `${s.name}, ${labels[i]}: ${number(v)}`));
        chart.append(dot);
      });
    }
    const legend = el("div", { class: "legend" }, series.map((s) => el("span", { class: `key ${s.className}` }, s.name)));
    return el("figure", { class: "chart-figure" }, chart, legend);
  }

  /** Evidence that moved a score at least this much has its words marked in the text. */
  const MARKED = 0.03;

  /** The quoted words of an evidence detail (`annoyance 0.41: "ridiculous", "again"`). */
  function phrases(detail) {
    return [...String(detail || "").matchAll(/"([^"]{2,80})"/g)].map((m) => m[1]);
  }

  /**
   * `text` with every occurrence of the words of `marks` (a Map of lower-case word to
   * the mark's class, `markedWords`) wrapped in <mark>, as nodes; any case matches.
   */
  function highlighted(text, marks) {
    const wanted = [...marks.keys()];
    const out = [];
    const lower = text.toLowerCase();
    let at = 0;
    while (at < text.length && wanted.length) {
      let best = -1, len = 0, kind = null;
      for (const w of wanted) {
        const i = lower.indexOf(w, at);
        if (i !== -1 && (best === -1 || i < best || (i === best && w.length > len))) { best = i; len = w.length; kind = marks.get(w); }
      }
      if (best === -1) break;
      if (best > at) out.push(text.slice(at, best));
      out.push(el("mark", { class: kind }, text.slice(best, best + len)));
      at = best + len;
    }
    out.push(text.slice(at));
    return out;
  }

  /**
   * The words of a turn's evidence to mark, in lower case, each with the way it moved
   * a score: `up` (towards broken) wins over `down` for a word that did both.
   */
  function markedWords(turn) {
    const marks = new Map();
    for (const [k] of DIMENSIONS) {
      for (const ev of turn.layer_z[k].evidence) {
        if (Math.abs(ev.contribution) < MARKED) continue;
        const kind = ev.contribution > 0 ? "up" : "down";
        for (const w of phrases(ev.detail).map((p) => p.toLowerCase()).filter((p) => p.trim())) {
          if (marks.get(w) !== "up") marks.set(w, kind);
        }
      }
    }
    return marks;
  }

  /** A contribution with its sign: "+0.0529", "−0.0057". */
  function signed(x) {
    return `${x < 0 ? "−" : "+"}${Math.abs(x).toFixed(4)}`;
  }

  /**
   * Why a turn scored as it did: each dimension's evidence items, which add up to its
   * risk (the score; for trust calibration 1 − score), folded away until asked for.
   */
  function why(turn) {
    const rows = DIMENSIONS.flatMap(([k, label]) => {
      const d = turn.layer_z[k];
      const items = d.evidence.map((ev, i) => el("tr", { "data-dimension": k },
        i === 0 ? el("th", { scope: "row", rowspan: d.evidence.length + 1 }, label) : null,
        el("td", {}, ev.signal.replaceAll("_", " ")),
        el("td", { class: ev.signal === "baseline" ? "num" : `num ${ev.contribution > 0 ? "up" : "down"}` },
          signed(ev.contribution)),
        cell(ev.detail || "")));
      const total = el("tr", { class: "total", "data-dimension": k },
        d.evidence.length ? null : el("th", { scope: "row" }, label),
        el("td", {}, k === "trust_calibration" ? "= risk (1 − score)" : "= score"),
        el("td", { class: "num" }, d.risk.toFixed(4)),
        el("td", {}, band(d.band)));
      return [...items, total];
    });
    return el("details", { class: "why" },
      el("summary", {}, "Why these scores"),
      el("div", { class: "table-wrap" }, el("table", {},
        el("thead", {}, el("tr", {}, ["Dimension", "Signal", "Contribution", "What was seen"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows))));
  }

  /**
   * One conversation: its chart (one point per human turn), then its transcript
   * (`assembled`: the conversation as core assembled it, every turn with its role and
   * text), each human turn with its six bands and its evidence words marked.
   */
  function conversation(conv, assembled) {
    const turns = conv.turns;
    const labels = turns.map((_, i) => `turn ${i + 1}`);
    const series = [
      { name: "Frustration", className: "line-frustration", values: turns.map((t) => t.layer_z.frustration_buildup.score) },
      { name: "Trust", className: "line-trust", values: turns.map((t) => t.layer_z.trust_calibration.score) },
      { name: "Abandonment risk", className: "line-abandonment", values: turns.map((t) => t.layer_z.silent_abandonment_risk.score) },
    ];
    const scored = new Map(turns.map((t) => [t.event_index, t]));
    const line = (t) => {
      // The id is isolated (an id in a right-to-left script would otherwise pull the
      // time into its run), and each text takes its direction from its own letters.
      const who = el("div", { class: "who" }, `${t.role === "human" ? "Person" : "AI"} `,
        el("bdi", {}, t.actor_id), ` · ${t.timestamp}`);
      const turn = scored.get(t.event_index);
      if (!turn) return el("li", { class: "turn ai" }, who, el("div", { class: "text", dir: "auto" }, t.content));
      const badges = el("div", { class: "scores" }, DIMENSIONS.map(([k, label]) =>
        el("span", {}, `${label} ${number(turn.layer_z[k].score)} `, band(turn.layer_z[k].band))));
      return el("li", { class: "turn human", "data-event-index": t.event_index },
        who, badges, el("div", { class: "text", dir: "auto" }, highlighted(t.content, markedWords(turn))), why(turn));
    };
    const state = [conv.resolved ? "resolved" : "not resolved", conv.abandoned ? "abandoned" : null].filter(Boolean).join(", ");
    return el("section", { class: "card conversation", "data-conversation-id": conv.conversation_id },
      el("h3", {}, "Conversation ", el("bdi", {}, conv.conversation_id)),
      el("p", { class: "muted" }, `${count(conv.human_turn_count, "human turn")}, ${count(conv.ai_turn_count, "AI turn")}; ${state}. `,
        "Marked words moved a score: ", el("mark", { class: "up" }, "towards broken"), ", ",
        el("mark", { class: "down" }, "towards healthy"), "; each turn's \u201cWhy these scores\u201d lists every signal."),
      lineChart(series, labels, `Frustration, trust and abandonment risk across the human turns of ${conv.conversation_id}`),
      assembled ? el("ol", { class: "transcript" }, assembled.turns.map(line))
        : el("p", { class: "muted" }, "The conversation's text is not available here."));
  }

  const BAND_ORDER = { broken: 2, watch: 1, healthy: 0 };

  /**
   * The conversations most at risk first (worst band of any dimension, then the
   * highest risk), at most `INDEX_ROWS`, each a button that scrolls to the
   * conversation's card: a session of hundreds of conversations is otherwise one very
   * long page. Buttons, not links: the app routes on the URL's fragment.
   */
  function conversationIndex(conversations) {
    const worst = (c) => DIMENSIONS.reduce((w, [k]) => {
      const d = c.layer_z[k];
      const rank = [BAND_ORDER[d.band] || 0, d.risk];
      return rank[0] > w[0] || (rank[0] === w[0] && rank[1] > w[1]) ? [...rank, k] : w;
    }, [-1, -1, null]);
    const ranked = conversations
      .map((c, i) => ({ c, i, w: worst(c) }))
      .sort((a, b) => b.w[0] - a.w[0] || b.w[1] - a.w[1] || a.i - b.i)
      .slice(0, INDEX_ROWS);
    const rows = ranked.map(({ c, w }) => {
      const go = el("button", { type: "button", class: "link" }, el("bdi", {}, c.conversation_id));
      go.addEventListener("click", () => {
        const card = [...document.querySelectorAll("section.conversation")]
          .find((s) => s.dataset.conversationId === c.conversation_id);
        if (card) card.scrollIntoView();
      });
      const label = DIMENSIONS.find(([k]) => k === w[2])[1];
      return el("tr", {}, cell(go), el("td", {}, String(c.human_turn_count)),
        el("td", {}, `${label} ${number(c.layer_z[w[2]].score)} `, band(c.layer_z[w[2]].band)),
        el("td", {}, [c.resolved ? "resolved" : "not resolved", c.abandoned ? "abandoned" : null].filter(Boolean).join(", ")));
    });
    const more = conversations.length - ranked.length;
    return el("section", { class: "card index" },
      el("h2", {}, "Most at risk"),
      el("div", { class: "table-wrap" }, el("table", {},
        el("thead", {}, el("tr", {}, ["Conversation", "Human turns", "Worst dimension", "Outcome"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows))),
      more > 0 ? el("p", { class: "muted" }, `${count(more, "more conversation")} below, in time order with the rest.`) : null);
  }

  /** Conversations listed in the index at most. */
  const INDEX_ROWS = 20;

  /**
   * A scored session: summary, key finding, recommendations, the request's six
   * dimensions, the conversations most at risk (when there are several), then each
   * conversation. `result` is the full output
   * ({pipeline, intelligence}); `assembly` core's assembly of the request (its
   * conversations with their turns' text), or null.
   */
  function session(result, assembly) {
    const i = result.intelligence;
    const byId = new Map(((assembly && assembly.conversations) || []).map((c) => [c.conversation_id, c]));
    return el("div", { class: "session" },
      el("section", { class: "card summary" },
        el("h2", {}, "Summary"),
        el("p", {}, i.plain_summary),
        el("p", {}, el("strong", {}, "Key finding: "), i.key_finding),
        el("h3", {}, "Recommendations"),
        el("ul", {}, i.plain_recommendations.map((r) => el("li", {}, r))),
        el("p", { class: "muted" }, `${count(i.conversation_count, "conversation")}, ${count(i.human_turn_count, "human turn")}, archetype ${i.archetype}, scorer ${i.scorer_version}.`),
        layerTable(i.layer_z)),
      i.conversations.length > 1 ? conversationIndex(i.conversations) : null,
      el("h2", {}, "Conversations"),
      i.conversations.map((c) => conversation(c, byId.get(c.conversation_id))));
  }

  /**
   * A drift result per dimension: the before and after medians on a 0–1 scale, and the
   * Hodges–Lehmann shift with its interval on a −1…+1 scale, then the verdict and the
   * Holm-adjusted p-value in words (colour is never the only cue).
   */
  function driftChart(drifts) {
    const W = 640, rowH = 46, L = 170, mid = L + (W - L) * 0.75;
    const sx = (v) => L + v * (W - L) * 0.5;               // medians: 0..1 over the left half
    const dx = (v) => mid + v * (W - L) * 0.2;             // shift: -1..1 around `mid`
    const chart = svg("svg", { class: "chart drift", viewBox: `0 0 ${W} ${rowH * DIMENSIONS.length + 30}`, role: "img",
      "aria-label": "Before and after medians per dimension, and the shift with its interval" });
    chart.append(svg("text", { x: L, y: 14 }, "median before ○ / after ●  (0 to 1)"));
    chart.append(svg("text", { x: mid - 60, y: 14 }, "shift and interval"));
    DIMENSIONS.forEach(([key, label], i) => {
      const d = drifts[key];
      const y = 34 + i * rowH;
      const row = svg("g", { class: `drift-row ${d.verdict}`, "data-dimension": key });
      row.append(svg("text", { x: 4, y: y + 4 }, label));
      row.append(svg("line", { class: "grid", x1: sx(0), x2: sx(1), y1: y, y2: y }));
      row.append(svg("line", { class: "grid", x1: dx(0), x2: dx(0), y1: y - 12, y2: y + 12 }));
      if (d.before_median !== null) row.append(svg("circle", { cx: sx(d.before_median), cy: y, r: 5, fill: "none", stroke: "currentColor", class: "before" }));
      if (d.after_median !== null) row.append(svg("circle", { cx: sx(d.after_median), cy: y, r: 5, fill: "currentColor", class: "after" }));
      if (d.ci_low !== null && d.ci_high !== null) {
        row.append(svg("line", { class: "interval", x1: dx(d.ci_low), x2: dx(d.ci_high), y1: y, y2: y, stroke: "currentColor", "stroke-width": 3 }));
      }
      if (d.shift !== null) row.append(svg("rect", { x: dx(d.shift) - 4, y: y - 4, width: 8, height: 8, fill: "currentColor", class: "shift" }));
      row.append(svg("title", {}, `${label}: ${d.verdict}; median ${number(d.before_median)} → ${number(d.after_median)}, shift ${number(d.shift)} [${number(d.ci_low)}, ${number(d.ci_high)}], adjusted p ${pValue(d.p_adjusted)}`));
      chart.append(row);
    });
    const rows = DIMENSIONS.map(([key, label]) => {
      const d = drifts[key];
      return el("tr", {}, el("th", { scope: "row" }, label), el("td", {}, `${number(d.before_median)} → ${number(d.after_median)}`),
        el("td", {}, `${number(d.shift)} [${number(d.ci_low)}, ${number(d.ci_high)}]`), el("td", {}, pValue(d.p_adjusted)),
        el("td", {}, el("span", { class: `verdict ${d.verdict}` }, d.verdict.replace("_", " "))), el("td", {}, `${d.before_n} / ${d.after_n}`));
    });
    return el("div", {}, el("figure", { class: "chart-figure" }, chart), el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, ["Dimension", "Median before → after", "Shift [95% interval]", "Adjusted p", "Verdict", "Turns"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows))));
  }

  /**
   * A deployment's days on one dimension: the median score and the broken share per
   * day, deploy markers as labelled vertical lines, anomalies as rings on their day.
   */
  function historyChart(days, key, label, deploys, anomalies) {
    const series = [
      { name: `${label}: median score`, className: "line-trust", values: days.map((d) => d.dimensions[key].median) },
      { name: `${label}: share broken`, className: "line-frustration", values: days.map((d) => d.dimensions[key].broken_share) },
    ];
    const labels = days.map((d) => d.date.slice(5));
    const fig = lineChart(series, labels, `${label} by day: median score and share of conversations in the broken band`);
    const chart = fig.querySelector("svg");
    const { H, T, B } = LINE;
    const x = (i) => lineX(i, days.length);
    const dayIndex = (date) => days.findIndex((d) => d.date >= date);
    for (const dep of deploys) {
      const i = dayIndex(dep.deployed_at.slice(0, 10));
      if (i < 0) continue;
      const g = svg("g", { class: "deploy-marker" });
      g.append(svg("line", { x1: x(i), x2: x(i), y1: T, y2: H - B, stroke: "currentColor", "stroke-dasharray": "4 3" }));
      // The outcome shift measured once the deploy's window settled, written on the marker.
      const r = dep.result;
      const shift = r && r.outcome_shift_detected ? ` · resolved ${r.change_points > 0 ? "+" : ""}${number(r.change_points, 1)} pts` : "";
      g.append(svg("text", { x: x(i) + 3, y: T + 10 }, `${dep.release || "deploy"}${shift}`));
      const measured = r ? (r.outcome_shift_detected ? `outcome shift detected: resolved rate ${number(r.change_points, 1)} points (p ${pValue(r.p_value)})`
        : "no outcome shift") : "outcome not measured yet";
      g.append(svg("title", {}, `Deploy ${dep.release || dep.id} at ${dep.deployed_at}; ${measured}`));
      chart.append(g);
    }
    for (const a of anomalies.filter((a) => a.dimension === key)) {
      const i = days.findIndex((d) => d.date === a.bucket);
      if (i < 0) continue;
      const ring = svg("circle", { class: "anomaly", cx: x(i), cy: T + 4, r: 6, fill: "none", stroke: "currentColor", "stroke-width": 2 });
      ring.append(svg("title", {}, `Anomaly on ${a.bucket}: risk ${a.direction}, ${a.severity} (z ${number(a.z)})`));
      chart.append(ring);
    }
    return fig;
  }

  global.Undertone = { el, svg, cell, band, number, count, pValue, layerTable, lineChart, driftChart, historyChart, session, highlighted, DIMENSIONS };
})(window);
