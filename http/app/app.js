// The app at /app: sign in with an API key (kept in sessionStorage, never in a URL or
// a cookie), then pages routed by the URL's fragment so each can be shared:
// #/sessions, #/sessions/<id>, #/ingest, #/key. Every value from the API is drawn as
// text (render.js), never as HTML.
"use strict";
(function () {
  const { el, band, session } = window.Undertone;
  const KEY = "undertone.key";
  const main = document.getElementById("main");
  let bands = null;

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

  /** Replaces the page: a heading, then `nodes`; focus moves to the page for screen readers. */
  function show(title, ...nodes) {
    document.title = `${title} · Undertone`;
    main.replaceChildren(el("h1", {}, title), ...nodes);
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
    show("Sign in", message ? el("p", { class: "error", role: "alert" }, message) : "", form);
    input.focus();
  }

  function resetTime(seconds) {
    const n = Number(seconds);
    return Number.isFinite(n) ? new Date(n * 1000).toISOString() : seconds;
  }

  async function keyPage() {
    const res = await fetch("/api/v1/key", { headers: { authorization: `Bearer ${sessionStorage.getItem(KEY)}` } });
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
    const k = await res.json();
    const row = (name, value) => el("tr", {}, el("th", { scope: "row" }, name), el("td", {}, value));
    const h = (name) => res.headers.get(name) || "–";
    show("Key", el("section", { class: "card" }, el("table", {}, el("tbody", {},
      row("Key", `${k.name} (${k.prefix}…, id ${k.id})`),
      row("Scope", k.scope === "read-only" ? "read-only: can read, cannot ingest or change webhooks" : k.scope),
      row("Created", k.created_at),
      row("Plan", `${k.limits.per_hour} requests per hour, ${k.limits.per_day} per day, ${k.limits.drift_per_hour} drift sessions per hour`),
      row("Rate limit now", `${h("x-ratelimit-remaining")} of ${h("x-ratelimit-limit")} requests left in the tightest window; it resets at ${resetTime(h("x-ratelimit-reset"))}`)))));
  }

  async function sessionsPage() {
    const params = new URLSearchParams(location.hash.split("?")[1] || "");
    const cursor = params.get("cursor");
    const page = await api("GET", `/sessions?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    const rows = page.data.map((s) => el("tr", {},
      el("td", {}, el("a", { href: `#/sessions/${encodeURIComponent(s.session_id)}` }, s.session_id.slice(0, 8))),
      el("td", {}, s.status), el("td", {}, s.deployment_id || "–"), el("td", {}, String(s.event_count)),
      el("td", {}, s.environment_type || "–"), el("td", {}, s.created_at)));
    const table = el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, ["Session", "Status", "Deployment", "Events", "Archetype", "Accepted"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows)));
    const more = page.next_cursor ? el("p", {}, el("a", { href: `#/sessions?cursor=${encodeURIComponent(page.next_cursor)}` }, "Older sessions")) : "";
    show("Sessions", page.data.length ? el("section", { class: "card" }, table, more)
      : el("p", {}, "No sessions yet. ", el("a", { href: "#/ingest" }, "Score a file"), " to make one."));
  }

  async function sessionPage(id) {
    const s = await api("GET", `/intelligence/${encodeURIComponent(id)}`);
    const head = el("p", { class: "muted" }, `Status ${s.status}; ${s.event_count} events; accepted ${s.created_at}.`);
    if (s.status !== "complete") {
      const again = el("button", { type: "button", class: "secondary" }, "Check again");
      again.addEventListener("click", route);
      show(`Session ${id.slice(0, 8)}`, head, s.error ? el("p", { class: "error" }, s.error) : "", again);
      if (s.status === "received" || s.status === "processing") setTimeout(() => location.hash.includes(id) && route(), 1000);
      return;
    }
    let assembly = null;
    try { assembly = await api("GET", `/sessions/${encodeURIComponent(id)}/transcript`); } catch (e) { if (e.status !== 404) throw e; }
    show(`Session ${id.slice(0, 8)}`, head, session(s.full_output, assembly, bands));
  }

  function ingestPage() {
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
    show("Score a file", el("section", { class: "card" }, form));
  }

  async function route() {
    if (!sessionStorage.getItem(KEY)) return signIn();
    document.getElementById("nav").hidden = false;
    const path = (location.hash.slice(1) || "/sessions").split("?")[0];
    const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
    try {
      if (!bands) bands = await (await fetch("/app/assets/bands.json")).json();
      const me = await api("GET", "/key");
      document.getElementById("who").textContent = `${me.name} (${me.scope})`;
      if (parts[0] === "sessions" && parts[1]) return await sessionPage(parts[1]);
      if (parts[0] === "ingest") return ingestPage();
      if (parts[0] === "key") return await keyPage();
      return await sessionsPage();
    } catch (e) {
      if (e.status === 401) { sessionStorage.removeItem(KEY); return signIn("The key was refused; sign in again."); }
      show("Something went wrong", failure(e));
    }
  }

  window.addEventListener("hashchange", route);
  route();
  void band;
})();
