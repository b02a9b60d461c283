// The app at /app: sign in with an API key (kept in sessionStorage, never in a URL or
// a cookie), then pages routed by the URL's fragment so each can be shared:
// #/deployments, #/deployments/<id>, #/deployments/<id>/reports[/<report>],
// #/sessions, #/sessions/<id>, #/ingest, #/drift, #/drift/<id>, #/webhooks,
// #/webhooks/<id>, #/key. Every value from the API is drawn as
// text (render.js), never as HTML.
"use strict";
(function () {
  const { el, cell, session, number, count, pValue, driftChart, historyChart, DIMENSIONS } = window.Undertone;
  const KEY = "undertone.key";
  const main = document.getElementById("main");

  /** A failed call: the API's error envelope, kept whole. */
  class ApiError extends Error {
    constructor(status, body) {
      const e = (body && body.error) || {};
      super(e.message || `HTTP ${status}`);
      this.status = status;
      this.code = e.code || "HTTP_" + status;
    }
  }

  async function api(method, path, body) {
    const headers = { authorization: `Bearer ${sessionStorage.getItem(KEY)}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`/api/v1${path}`, { method, headers, body: body === undefined ? undefined : body });
    const text = await res.text();
    const json = text ? JSON.parse(text) : null;
    if (!res.ok) throw new ApiError(res.status, json);
    return json;
  }

  /**
   * Replaces the page: a heading, then `nodes`; focus moves to the page for screen
   * readers. `at` is the URL fragment the page was asked for: a page that finishes
   * loading after the user has gone elsewhere draws nothing.
   */
  function show(at, title, ...nodes) {
    if (at !== location.hash) return;
    document.title = `${title} · Undertone`;
    main.replaceChildren(el("h1", {}, title), ...el("div", {}, nodes).childNodes);
    main.focus();
    for (const a of document.querySelectorAll("#nav a")) {
      a.toggleAttribute("aria-current", location.hash.startsWith(a.getAttribute("href")));
      if (a.hasAttribute("aria-current")) a.setAttribute("aria-current", "page");
    }
  }

  function failure(e) {
    return el("p", { class: "error", role: "alert" }, `${e.code || "ERROR"}: ${e.message}`);
  }

  function signIn(message) {
    document.getElementById("nav").hidden = true;
    document.getElementById("who").textContent = "";
    const input = el("input", { id: "key", name: "key", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
    const form = el("form", { class: "stack" },
      el("label", { for: "key" }, "API key"),
      input,
      el("p", { class: "muted" }, "The key stays in this tab (sessionStorage) and is sent only to this server."),
      el("button", { type: "submit" }, "Sign in"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      sessionStorage.setItem(KEY, input.value.trim());
      try {
        await api("GET", "/key");
        if (!location.hash || location.hash === "#/") location.hash = "#/sessions";
        route();
      } catch (e) {
        sessionStorage.removeItem(KEY);
        signIn(e.status === 401 ? "That key was not accepted." : e.message);
      }
    });
    show(location.hash, "Sign in", message ? el("p", { class: "error", role: "alert" }, message) : "", form);
    input.focus();
  }

  function resetTime(seconds) {
    const n = Number(seconds);
    return Number.isFinite(n) ? new Date(n * 1000).toISOString() : seconds;
  }

  async function keyPage() {
    const at = location.hash;
    const res = await fetch("/api/v1/key", { headers: { authorization: `Bearer ${sessionStorage.getItem(KEY)}` } });
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
    const k = await res.json();
    const row = (name, value) => el("tr", {}, el("th", { scope: "row" }, name), cell(value));
    const h = (name) => res.headers.get(name) || "–";
    show(at, "Key", el("section", { class: "card" }, el("table", {}, el("tbody", {},
      row("Key", `${k.name} (${k.prefix}…, id ${k.id})`),
      row("Scope", k.scope === "read-only" ? "read-only: can read, cannot ingest or change webhooks" : k.scope),
      row("Created", k.created_at),
      row("Plan", `${k.limits.per_hour} requests per hour, ${k.limits.per_day} per day, ${k.limits.drift_per_hour} drift sessions per hour`),
      row("Rate limit now", `${h("x-ratelimit-remaining")} of ${h("x-ratelimit-limit")} requests left in the tightest window; it resets at ${resetTime(h("x-ratelimit-reset"))}`)))));
  }

  async function sessionsPage() {
    const at = location.hash;
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const cursor = params.get("cursor");
    const page = await api("GET", `/sessions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    const rows = page.data.map((s) => el("tr", {},
      el("td", {}, el("a", { href: `#/sessions/${encodeURIComponent(s.session_id)}` }, s.session_id.slice(0, 8))),
      el("td", {}, s.status), cell(el("bdi", {}, s.deployment_id || "–")), el("td", {}, String(s.event_count)),
      el("td", {}, s.environment_type || "–"), cell(s.created_at)));
    const table = el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, ["Session", "Status", "Deployment", "Events", "Archetype", "Accepted"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows)));
    // Pages go back in time; the newest page is always one link away.
    const more = el("p", {},
      page.next_cursor ? el("a", { href: `#/sessions?cursor=${encodeURIComponent(page.next_cursor)}` }, "Older sessions") : null,
      page.next_cursor && cursor ? " · " : null,
      cursor ? el("a", { href: "#/sessions" }, "Newest sessions") : null);
    show(at, "Sessions", page.data.length ? el("section", { class: "card" }, table, more)
      : el("p", {}, "No sessions yet. ", el("a", { href: "#/ingest" }, "Score a file"), " to make one."));
  }

  async function sessionPage(id) {
    const at = location.hash;
    const s = await api("GET", `/intelligence/${encodeURIComponent(id)}`);
    const head = el("p", { class: "muted" }, `Status ${s.status}; ${s.event_count} events; accepted ${s.created_at}.`);
    if (s.status !== "complete") {
      const again = el("button", { type: "button", class: "secondary" }, "Check again");
      again.addEventListener("click", route);
      show(at, `Session ${id.slice(0, 8)}`, head, s.error ? el("p", { class: "error" }, s.error) : "", again);
      if (s.status === "received" || s.status === "processing") setTimeout(() => location.hash.includes(id) && route(), 1000);
      return;
    }
    let assembly = null;
    try { assembly = await api("GET", `/sessions/${encodeURIComponent(id)}/transcript`); } catch (e) { if (e.status !== 404) throw e; }
    show(at, `Session ${id.slice(0, 8)}`, head, session(s.full_output, assembly));
  }

  function ingestPage() {
    const at = location.hash;
    const file = el("input", { id: "file", type: "file", accept: ".json,.jsonl,application/json" });
    const text = el("textarea", { id: "body", rows: 8, spellcheck: "false" });
    const out = el("div", { "aria-live": "polite" });
    const form = el("form", { class: "stack" },
      el("label", { for: "file" }, "An ingest request file (JSON)"), file,
      el("label", { for: "body" }, "or paste one"), text,
      el("button", { type: "submit" }, "Score"), out);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      out.replaceChildren();
      try {
        const body = file.files[0] ? await file.files[0].text() : text.value;
        const accepted = await api("POST", "/ingest", body);
        location.hash = `#/sessions/${encodeURIComponent(accepted.session_id)}`;
      } catch (e) {
        out.replaceChildren(failure(e));
      }
    });
    show(at, "Score a file", el("section", { class: "card" }, form));
  }

  const KINDS = ["intelligence.ready", "layer_z_threshold_crossed", "anomaly_detected", "uhr_generated", "outcome_shift_detected"];

  /** A table with a header row; `rows` are arrays of cells (nodes or text). */
  function table(headers, rows) {
    return el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map(cell))))));
  }

  async function webhooksPage() {
    const at = location.hash;
    const list = await api("GET", "/webhooks");
    const out = el("div", { "aria-live": "polite" });
    const url = el("input", { id: "url", type: "url", required: true, placeholder: "https://example.com/hooks/undertone" });
    const boxes = KINDS.map((k) => el("label", { class: "check" },
      el("input", { type: "checkbox", name: "events", value: k, checked: k === "intelligence.ready" }), ` ${k}`));
    const form = el("form", { class: "stack" },
      el("label", { for: "url" }, "Endpoint URL"), url,
      el("fieldset", {}, el("legend", {}, "Events"), boxes),
      el("button", { type: "submit" }, "Create webhook"), out);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const events = boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
      try {
        const made = await api("POST", "/webhooks", JSON.stringify({ url: url.value, events }));
        const secret = el("code", { class: "secret", id: "secret" }, made.secret);
        const copy = el("button", { type: "button", class: "secondary" }, "Copy secret");
        copy.addEventListener("click", async () => {
          await navigator.clipboard.writeText(made.secret).catch(() => {});
          copy.textContent = "Copied";
        });
        out.replaceChildren(el("div", { class: "card", role: "status" },
          el("p", {}, `Created webhook ${made.id}. Its signing secret is shown only now; keep it:`), secret, " ", copy,
          el("p", {}, el("a", { href: `#/webhooks/${encodeURIComponent(made.id)}` }, "Open its delivery log"))));
        await refresh();
      } catch (e) {
        out.replaceChildren(failure(e));
      }
    });
    const listing = el("div", {});
    async function refresh() {
      const fresh = await api("GET", "/webhooks");
      listing.replaceChildren(fresh.data.length ? table(
        ["Endpoint", "Events", "Last delivery", "Failures", "State", ""],
        fresh.data.map((w) => {
          const del = el("button", { type: "button", class: "danger", "aria-label": `Delete webhook ${w.url}` }, "Delete");
          del.addEventListener("click", async () => {
            if (!confirm(`Delete the webhook to ${w.url}?`)) return;
            try { await api("DELETE", `/webhooks/${encodeURIComponent(w.id)}`); await refresh(); } catch (e) { out.replaceChildren(failure(e)); }
          });
          return [el("a", { href: `#/webhooks/${encodeURIComponent(w.id)}` }, w.url), w.events.join(", "),
            w.last_delivery_at || "never", String(w.failure_count),
            w.disabled ? `disabled: ${w.disabled.reason}` : "enabled", del];
        })) : el("p", {}, "No webhooks yet."));
    }
    listing.replaceChildren();
    show(at, "Webhooks", el("section", { class: "card" }, el("h2", {}, "Endpoints"), listing),
      el("section", { class: "card" }, el("h2", {}, "Add an endpoint"), form));
    void list;
    await refresh();
  }

  async function webhookPage(id) {
    const at = location.hash;
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const cursor = params.get("cursor");
    const hooks = await api("GET", "/webhooks");
    const hook = hooks.data.find((w) => w.id === id);
    if (!hook) return show(at, "Webhook not found", el("p", {}, el("a", { href: "#/webhooks" }, "Back to the webhooks")));
    const page = await api("GET", `/webhooks/${encodeURIComponent(id)}/deliveries?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    const out = el("div", { "aria-live": "polite" });
    const test = el("button", { type: "button" }, "Send a test event");
    test.addEventListener("click", async () => {
      try {
        const q = await api("POST", `/webhooks/${encodeURIComponent(id)}/test`);
        out.replaceChildren(el("p", { role: "status" }, `Queued ${q.event_type} ${q.event_id}; the log below shows its attempts.`));
        setTimeout(() => location.hash.includes(id) && route(), 1500);
      } catch (e) { out.replaceChildren(failure(e)); }
    });
    const rows = page.data.map((d) => [
      d.event_type, d.status, String(d.attempts), d.response_status === null || d.response_status === undefined ? "–" : String(d.response_status),
      d.error || "–", d.created_at, d.next_attempt_at || "–",
      el("details", {}, el("summary", {}, `${d.attempt_log.length} attempts`), el("ol", {}, d.attempt_log.map((a) =>
        el("li", {}, `${a.started_at}: ${a.response_status ?? "no answer"}${a.duration_ms != null ? ` in ${a.duration_ms} ms` : ""}${a.error ? ` — ${a.error}` : ""}`)))),
    ]);
    const more = page.next_cursor ? el("p", {}, el("a", { href: `#/webhooks/${encodeURIComponent(id)}?cursor=${encodeURIComponent(page.next_cursor)}` }, "Older deliveries")) : "";
    show(at, `Webhook ${hook.url}`,
      el("p", { class: "muted" }, `Events: ${hook.events.join(", ")}; ${hook.failure_count} failures; ${hook.disabled ? `disabled (${hook.disabled.reason})` : "enabled"}.`),
      el("p", {}, test), out,
      el("section", { class: "card" }, el("h2", {}, "Deliveries"),
        rows.length ? table(["Event", "Status", "Attempts", "Last status", "Error", "Created", "Next retry", "Attempts"], rows) : el("p", {}, "No deliveries yet."), more));
  }

  /** Events of a file: an ingest request's, or a list of events. */
  async function eventsOf(file) {
    const doc = JSON.parse(await file.text());
    return Array.isArray(doc) ? { events: doc } : { events: doc.events, deployment_id: doc.deployment_id };
  }

  /** `days` days before today (UTC) as YYYY-MM-DD. */
  function daysAgo(days) {
    return new Date(Date.now() - days * 86400000).toISOString().slice(0, 10);
  }

  /** A period of whole UTC days: from the first day's start to the end of the last. */
  function dayRange(first, last) {
    const end = new Date(`${last}T00:00:00Z`);
    end.setUTCDate(end.getUTCDate() + 1);
    return { from: `${first}T00:00:00Z`, to: end.toISOString().replace(".000Z", "Z") };
  }

  async function driftStartPage() {
    const at = location.hash;
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const deployments = await allDeployments();
    const before = el("input", { id: "before", type: "file", accept: ".json,application/json", required: true });
    const after = el("input", { id: "after", type: "file", accept: ".json,application/json", required: true });
    const question = el("input", { id: "question", type: "text", placeholder: "Did v3 make frustration worse?" });
    const out = el("div", { "aria-live": "polite" });
    const form = el("form", { class: "stack", "aria-label": "Compare two files" },
      el("label", { for: "before" }, "Before: an ingest request or list of events (JSON)"), before,
      el("label", { for: "after" }, "After: the same for the compared period"), after,
      el("label", { for: "question" }, "Question (optional)"), question,
      el("button", { type: "submit" }, "Compare"), out);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      out.replaceChildren();
      try {
        const [b, a] = [await eventsOf(before.files[0]), await eventsOf(after.files[0])];
        const label = (f) => f.name.replace(/\.[^.]*$/, "");
        const body = { before: { label: label(before.files[0]), events: b.events }, after: { label: label(after.files[0]), events: a.events } };
        if (b.deployment_id) body.deployment_id = b.deployment_id;
        if (question.value.trim()) body.question = question.value.trim();
        const accepted = await api("POST", "/drift", JSON.stringify(body));
        location.hash = `#/drift/${encodeURIComponent(accepted.session_id)}`;
      } catch (e) {
        out.replaceChildren(e instanceof SyntaxError ? el("p", { class: "error", role: "alert" }, `Not JSON: ${e.message}`) : failure(e));
      }
    });

    const wanted = params.get("deployment");
    const deployment = el("select", { id: "deployment", required: true }, deployments.map((d) =>
      el("option", { value: d.deployment_id, selected: d.deployment_id === wanted }, d.deployment_id)));
    const day = (id, value) => el("input", { id, type: "date", required: true, value });
    const fields = [day("before-first", daysAgo(13)), day("before-last", daysAgo(7)), day("after-first", daysAgo(6)), day("after-last", daysAgo(0))];
    const rangeQuestion = el("input", { id: "range-question", type: "text", placeholder: "Are people more frustrated since the new prompt?" });
    const rangeOut = el("div", { "aria-live": "polite" });
    const ranges = el("form", { class: "stack", "aria-label": "Compare two date ranges" },
      el("label", { for: "deployment" }, "Deployment"), deployment,
      el("fieldset", {}, el("legend", {}, "Before (UTC days, both included)"),
        el("label", { for: "before-first" }, "First day"), fields[0], el("label", { for: "before-last" }, "Last day"), fields[1]),
      el("fieldset", {}, el("legend", {}, "After (UTC days, both included)"),
        el("label", { for: "after-first" }, "First day"), fields[2], el("label", { for: "after-last" }, "Last day"), fields[3]),
      el("label", { for: "range-question" }, "Question (optional)"), rangeQuestion,
      el("button", { type: "submit" }, "Compare ranges"), rangeOut);
    ranges.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      rangeOut.replaceChildren();
      try {
        const [bf, bl, af, al] = fields.map((f) => f.value);
        const body = { before: { label: `${bf} – ${bl}`, ...dayRange(bf, bl) }, after: { label: `${af} – ${al}`, ...dayRange(af, al) } };
        if (rangeQuestion.value.trim()) body.question = rangeQuestion.value.trim();
        const accepted = await api("POST", `/deployments/${encodeURIComponent(deployment.value)}/drift`, JSON.stringify(body));
        location.hash = `#/drift/${encodeURIComponent(accepted.session_id)}`;
      } catch (e) {
        rangeOut.replaceChildren(failure(e));
      }
    });
    show(at, "Drift", el("p", {}, "Compare two periods, e.g. two model versions: every dimension is tested for a significant change."),
      el("section", { class: "card" }, el("h2", {}, "Two files"), form),
      el("section", { class: "card" }, el("h2", {}, "Two date ranges of a deployment"),
        deployments.length ? ranges : el("p", {}, "No deployment has scored conversations yet.")));
  }

  async function driftPage(id) {
    const at = location.hash;
    const d = await api("GET", `/drift/${encodeURIComponent(id)}`);
    const size = d.event_count ? `${d.event_count} events` : "conversations from the deployment's history";
    const head = el("p", { class: "muted" }, `${d.before_label} → ${d.after_label}; status ${d.status}; ${size}.`);
    if (d.status !== "complete") {
      show(at, `Drift ${id.slice(0, 8)}`, head, d.error ? el("p", { class: "error" }, d.error) : el("p", {}, "Scoring…"));
      if (d.status === "received" || d.status === "processing") setTimeout(() => location.hash.includes(id) && route(), 1000);
      return;
    }
    show(at, `Drift: ${d.before_label} → ${d.after_label}`, head,
      el("section", { class: "card" },
        d.question ? el("p", {}, el("strong", {}, "Question: "), d.question) : "",
        el("p", {}, el("strong", {}, `Overall: ${d.direction} `), `(drift ${number(d.overall_drift)})`),
        el("p", {}, d.plain_summary),
        el("ul", {}, d.plain_recommendations.map((r) => el("li", {}, r)))),
      el("section", { class: "card" }, el("h2", {}, "Per dimension"), driftChart(d.dimension_drifts)));
  }

  // A page of GET /deployments (100 a page), from the first or after `cursor`.
  function deploymentsAfter(cursor) {
    return api("GET", `/deployments${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`);
  }

  // Every deployment, following the pages.
  async function allDeployments() {
    const all = [];
    let cursor = null;
    do {
      const page = await deploymentsAfter(cursor);
      all.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return all;
  }

  async function deploymentsPage() {
    const at = location.hash;
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const cursor = params.get("cursor");
    const list = await deploymentsAfter(cursor);
    const rows = list.data.map((d) => [
      el("a", { href: `#/deployments/${encodeURIComponent(d.deployment_id)}` }, el("bdi", {}, d.deployment_id)),
      String(d.conversations), d.last_conversation_at,
      el("a", { href: `#/deployments/${encodeURIComponent(d.deployment_id)}/reports` }, "Health reports")]);
    // Pages go on by id; the first page is always one link away.
    const more = el("p", {},
      list.next_cursor ? el("a", { href: `#/deployments?cursor=${encodeURIComponent(list.next_cursor)}` }, "More deployments") : null,
      list.next_cursor && cursor ? " · " : null,
      cursor ? el("a", { href: "#/deployments" }, "First deployments") : null);
    show(at, "Deployments", list.data.length
      ? el("section", { class: "card" }, table(["Deployment", "Conversations", "Latest", ""], rows), more)
      : el("p", {}, "No scored conversations yet. ", el("a", { href: "#/ingest" }, "Score a file"), " first."));
  }

  async function deploymentPage(id) {
    const at = location.hash;
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const days = params.get("days") || "30";
    const h = await api("GET", `/deployments/${encodeURIComponent(id)}/history?days=${encodeURIComponent(days)}`);
    const ranges = el("p", {}, "Window: ", ["7", "30", "90"].map((d) => [
      d === days ? el("strong", {}, `${d} days`) : el("a", { href: `#/deployments/${encodeURIComponent(id)}?days=${d}` }, `${d} days`), " "]),
      el("a", { href: `#/deployments/${encodeURIComponent(id)}/reports` }, "Health reports"), " ",
      el("a", { href: `#/drift?deployment=${encodeURIComponent(id)}` }, "Compare two date ranges"));
    const conversations = h.days.reduce((n, d) => n + d.conversations, 0);
    const summary = el("p", { class: "muted" }, `${conversations} conversations on ${h.days.length} days; ${h.deploys.length} deploys and ${h.anomalies.length} anomalies in the window.`);
    const charts = DIMENSIONS.map(([key, label]) => el("section", { class: "card history", "data-dimension": key },
      el("h2", {}, label), historyChart(h.days, key, label, h.deploys, h.anomalies)));
    const deploys = h.deploys.length ? el("section", { class: "card" }, el("h2", {}, "Deploys"), table(["Release", "Deployed", "Source", "Outcome shift"],
      h.deploys.map((d) => [d.release || "–", d.deployed_at, d.source,
        d.result ? (d.result.outcome_shift_detected ? `detected (p ${pValue(d.result.p_value)})` : "none detected") : "not measured yet"]))) : "";
    const anomalies = h.anomalies.length ? el("section", { class: "card" }, el("h2", {}, "Anomalies"), table(["Day", "Dimension", "Risk", "Severity", "Mean risk", "Baseline"],
      h.anomalies.map((a) => [a.bucket, a.dimension, a.direction, a.severity, number(a.value), number(a.baseline_mean)]))) : "";
    show(at, `Deployment ${id}`, ranges, summary,
      h.days.length ? el("div", { class: "history-grid" }, charts) : el("p", {}, "No conversations in this window."), deploys, anomalies);
  }

  async function reportsPage(id) {
    const at = location.hash;
    const list = await api("GET", `/deployments/${encodeURIComponent(id)}/health-reports`);
    const rows = list.data.map((r) => [
      el("a", { href: `#/deployments/${encodeURIComponent(id)}/reports/${encodeURIComponent(r.id)}` }, `${r.period_start.slice(0, 10)} – ${r.period_end.slice(0, 10)}`),
      r.trigger, r.created_at]);
    show(at, `Health reports of ${id}`, rows.length
      ? el("section", { class: "card" }, table(["Week", "Made by", "Created"], rows))
      : el("p", {}, "No health reports yet: the server writes one every week, or POST /api/v1/deployments/{id}/health-reports makes one now."));
  }

  async function reportPage(id, reportId) {
    const at = location.hash;
    const r = await api("GET", `/deployments/${encodeURIComponent(id)}/health-reports/${encodeURIComponent(reportId)}`);
    const rep = r.report;
    const pct = (x) => (typeof x === "number" ? `${Math.round(x * 100)}%` : "–");
    const rows = DIMENSIONS.map(([key, label]) => {
      const d = rep.dimensions[key];
      return [label, `${number(d.previous_median)} → ${number(d.median)}`, `${pct(d.previous_broken_rate)} → ${pct(d.broken_rate)}`,
        pValue(d.p_adjusted), el("span", { class: `verdict ${d.verdict}` }, String(d.verdict).replace("_", " "))];
    });
    show(at, `Health report: ${id}, ${rep.period_start.slice(0, 10)} – ${rep.period_end.slice(0, 10)}`,
      el("section", { class: "card" },
        el("p", {}, `${count(rep.conversations, "conversation")} (${rep.previous_conversations} the week before), ${count(rep.human_turns, "human turn")}; resolved ${pct(rep.previous_resolved_rate)} → ${pct(rep.resolved_rate)}.`),
        el("h2", {}, "Findings"), el("ul", {}, rep.top_findings.map((f) => el("li", {}, f))),
        el("h2", {}, "Per dimension, against the week before"),
        table(["Dimension", "Median", "Broken", "Adjusted p", "Verdict"], rows)));
  }

  async function route() {
    if (!sessionStorage.getItem(KEY)) return signIn();
    document.getElementById("nav").hidden = false;
    const at = location.hash;
    const path = (at.slice(1) || "/sessions").split("?")[0];
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    try {
      const me = await api("GET", "/key");
      // Gone elsewhere while the key was read: the route of the new fragment draws. (A
      // page reads the fragment it was asked for when it starts; started now, this one
      // would take the new fragment for its own and draw over the right page.)
      if (at !== location.hash) return;
      document.getElementById("who").textContent = `${me.name} (${me.scope})`;
      if (parts[0] === "sessions" && parts[1]) return await sessionPage(parts[1]);
      if (parts[0] === "ingest") return ingestPage();
      if (parts[0] === "key") return await keyPage();
      if (parts[0] === "deployments" && parts[2] === "reports" && parts[3]) return await reportPage(parts[1], parts[3]);
      if (parts[0] === "deployments" && parts[2] === "reports") return await reportsPage(parts[1]);
      if (parts[0] === "deployments" && parts[1]) return await deploymentPage(parts[1]);
      if (parts[0] === "deployments") return await deploymentsPage();
      if (parts[0] === "webhooks" && parts[1]) return await webhookPage(parts[1]);
      if (parts[0] === "webhooks") return await webhooksPage();
      if (parts[0] === "drift" && parts[1]) return await driftPage(parts[1]);
      if (parts[0] === "drift") return await driftStartPage();
      if (parts[0] === "sessions") return await sessionsPage();
      // A mistyped or stale link says so rather than showing another page.
      show(at, "Page not found",
        el("p", {}, "There is no page at ", el("code", {}, at), ". ",
          el("a", { href: "#/sessions" }, "Go to the sessions"), "."));
    } catch (e) {
      if (e.status === 401) { sessionStorage.removeItem(KEY); return signIn("The key was refused; sign in again."); }
      show(at, "Something went wrong", failure(e));
    }
  }

  window.addEventListener("hashchange", route);
  route();
})();
