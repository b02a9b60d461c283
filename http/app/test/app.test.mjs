// The app and the offline report in headless Chromium, as a user meets them: sign in
// with the key `undertone serve` prints, score an example file, open its session and
// see one plotted point per human turn; hostile conversation text renders as text and
// runs nothing; the pages work at 360 px and from the keyboard. With
// UNDERTONE_SCREENSHOTS=DIR the pages are photographed into DIR (docs/img in the repo).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BIN = process.env.UNDERTONE_BIN || join(ROOT, "target", "debug", "undertone");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const SHOTS = process.env.UNDERTONE_SCREENSHOTS;
const EXAMPLE = join(ROOT, "examples", "support-refund-goes-wrong.json");
const HOSTILE = [
  `<img src=x onerror="window.__pwned = 'img'">`,
  `<script>window.__pwned = 'script'</script>`,
];

let server, base, key, browser, dir;

/** Starts `undertone serve` on a free port with a new database; resolves with its address and key. */
function serve() {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, ["serve", "--addr", "127.0.0.1:0", "--database", `sqlite://${join(dir, "app.db")}`, "--workers", "1",
      "--allow-private-webhooks"],
      { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    proc.stdout.on("data", (chunk) => {
      out += chunk;
      const k = out.match(/ut_live_[A-Za-z0-9_-]+/);
      const a = out.match(/listening on (http:\/\/[0-9.:]+)/);
      if (k && a) resolve({ proc, base: a[1], key: k[0] });
    });
    proc.on("exit", (code) => reject(new Error(`undertone serve exited ${code}: ${out}`)));
  });
}

async function api(method, path, body) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method, body, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return res.json();
}

async function complete(sessionId) {
  for (let i = 0; i < 100; i++) {
    const s = await api("GET", `/intelligence/${sessionId}`);
    if (s.status === "complete") return s;
    assert.notEqual(s.status, "failed", s.error);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`session ${sessionId} did not complete`);
}

/** A page that fails the test on any script error or CSP violation. */
async function page(width = 1100) {
  const p = await browser.newPage({ viewport: { width, height: 900 } });
  p.errors = [];
  p.on("pageerror", (e) => p.errors.push(String(e)));
  p.on("console", (m) => { if (m.type() === "error") p.errors.push(m.text()); });
  await p.addInitScript(() => { window.__pwned = undefined; });
  return p;
}

async function shot(p, name) {
  if (SHOTS) await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: name !== "app-session" });
}

/**
 * Opens the app's page `hash` and waits until it is drawn: a page draws a new `h1`, so
 * the previous page's (marked first) cannot pass for it. The page already shown is
 * not drawn again.
 */
async function goTo(p, hash) {
  await p.evaluate((h) => {
    if (location.hash !== h) document.querySelector("main h1")?.setAttribute("data-seen", "");
  }, hash);
  await p.goto(`${base}/app${hash}`);
  await p.locator("main h1:not([data-seen])").waitFor();
  await p.waitForLoadState("networkidle");
}

async function signIn(p) {
  await p.goto(`${base}/app`);
  await p.getByLabel("API key").fill(key);
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.getByRole("heading", { name: "Sessions" }).waitFor();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "undertone-app-"));
  ({ proc: server, base, key } = await serve());
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});

after(async () => {
  await browser?.close();
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

test("the app sends a strict Content-Security-Policy", async () => {
  const res = await fetch(`${base}/app`);
  const csp = res.headers.get("content-security-policy");
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  const html = await res.text();
  assert.doesNotMatch(html, /<script>|\son[a-z]+=/, "no inline script or event handler");
});

test("sign in, score an example, and see one point per human turn", async () => {
  const p = await page();
  await p.goto(`${base}/app`);
  assert.equal(await p.evaluate(() => document.activeElement.id), "key", "the key field has focus");
  await shot(p, "app-sign-in");
  await p.keyboard.type(key);
  await p.keyboard.press("Enter");
  await p.getByRole("heading", { name: "Sessions" }).waitFor();
  assert.equal(await p.evaluate(() => sessionStorage.length), 1);
  assert.equal(await p.evaluate(() => document.cookie), "");
  assert.ok(!p.url().includes(key), "the key is not in the URL");

  await p.getByRole("navigation").getByRole("link", { name: "Score a file" }).click();
  await p.setInputFiles("#file", EXAMPLE);
  await shot(p, "app-ingest");
  await p.getByRole("button", { name: "Score" }).click();
  await p.locator("section.conversation").first().waitFor();
  const id = decodeURIComponent(p.url().split("#/sessions/")[1]);
  const s = await complete(id);
  const conversations = s.full_output.intelligence.conversations;
  for (const c of conversations) {
    const points = p.locator(`section.conversation[data-conversation-id="${c.conversation_id}"] circle.point[data-series="Frustration"]`);
    assert.equal(await points.count(), c.turns.length, `one point per human turn of ${c.conversation_id}`);
    const badges = p.locator(`section.conversation[data-conversation-id="${c.conversation_id}"] li.turn.human`);
    assert.equal(await badges.count(), c.turns.length);
  }
  // Bands are written out, not only coloured.
  const firstBand = await p.locator("section.summary .band").first().textContent();
  assert.ok(["healthy", "watch", "broken"].includes(firstBand), firstBand);
  await shot(p, "app-session");
  // The index lists the conversations most at risk first (the worst band of any
  // dimension, then the highest risk), and each entry scrolls to its conversation
  // without leaving the page.
  const rank = { broken: 2, watch: 1, healthy: 0 };
  const worst = (c) => Object.values(c.layer_z).reduce((w, d) => Math.max(w, rank[d.band] * 2 + d.risk), -1);
  const expected = [...conversations].sort((a, b) => worst(b) - worst(a)).map((c) => c.conversation_id);
  const listed = await p.locator("section.index tbody tr td:first-child").allTextContents();
  assert.deepEqual(listed, expected);
  const last = expected[expected.length - 1];
  const before = p.url();
  await p.locator("section.index button", { hasText: last }).click();
  const card = p.locator(`section.conversation[data-conversation-id="${last}"]`);
  await p.waitForFunction((el) => window.scrollY > 0 && el.getBoundingClientRect().top >= -1
    && el.getBoundingClientRect().top < window.innerHeight, await card.elementHandle());
  assert.equal(p.url(), before, "the route stays");

  await p.goto(`${base}/app#/sessions`);
  await p.locator(`a[href="#/sessions/${id}"]`).waitFor();
  await shot(p, "app-sessions");
  await p.goto(`${base}/app#/key`);
  await p.getByRole("heading", { name: "Key" }).waitFor();
  assert.match(await p.locator("main").textContent(), /read-write/);
  await shot(p, "app-key");
  assert.deepEqual(p.errors, []);
});

test("hostile conversation text is shown as text and runs nothing", async () => {
  const events = [
    { actor_id: "u1", content: HOSTILE[0], timestamp: "2026-11-21T09:30:00Z" },
    { actor_id: "shop-bot", content: HOSTILE[1], timestamp: "2026-11-21T09:30:05Z" },
    { actor_id: "u1", content: "this is useless " + HOSTILE[1], timestamp: "2026-11-21T09:31:00Z" },
  ];
  const accepted = await api("POST", "/ingest", JSON.stringify({ deployment_id: "shop-bot", events }));
  await complete(accepted.session_id);
  const p = await page();
  await signIn(p);
  await p.goto(`${base}/app#/sessions/${accepted.session_id}`);
  await p.locator("section.conversation li.turn").nth(2).waitFor();
  const texts = await p.locator("li.turn .text").allTextContents();
  assert.deepEqual(texts, [HOSTILE[0], HOSTILE[1], "this is useless " + HOSTILE[1]]);
  assert.equal(await p.evaluate(() => window.__pwned), undefined);
  assert.equal(await p.locator("main img").count(), 0);
  assert.equal(await p.locator("main script").count(), 0);
  assert.deepEqual(p.errors, []);
});

test("every page reads at 360 px wide", async () => {
  const list = await api("GET", "/sessions");
  const id = list.data[list.data.length - 1].session_id;
  const p = await page(360);
  await signIn(p);
  await p.goto(`${base}/app#/sessions/${id}`);
  await p.locator("section.conversation").first().waitFor();
  await shot(p, "app-session-360");
  const pages = ["#/sessions", `#/sessions/${id}`, "#/ingest", "#/drift", "#/webhooks", "#/key", "#/deployments",
    "#/deployments/acme-support-bot", "#/deployments/acme-support-bot/reports"];
  for (const hash of pages) {
    await goTo(p, hash);
    const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${hash}: no sideways scrolling (${overflow}px)`);
  }
  assert.deepEqual(p.errors, []);
});

test("ids as long as the contract allows, and in a right-to-left script, keep pages readable", async () => {
  // 256 characters with no space: the longest deployment and conversation id there is.
  const long = "d".repeat(256);
  const rtl = "مستخدم";
  const body = { deployment_id: long, events: [
    { actor_id: rtl, content: "مرحبا، أين طلبي؟", timestamp: "2026-11-18T09:14:05Z", conversation_id: "c".repeat(256) },
    { actor_id: long, content: "It ships today.", timestamp: "2026-11-18T09:14:10Z", conversation_id: "c".repeat(256) },
  ] };
  const accepted = await api("POST", "/ingest", JSON.stringify(body));
  await complete(accepted.session_id);
  const report = join(dir, "long.json");
  writeFileSync(report, JSON.stringify(body));
  writeFileSync(join(dir, "long.html"), execFileSync(BIN, ["score", report, "--format", "html"], { encoding: "utf8" }));
  for (const width of [1100, 360]) {
    const p = await page(width);
    await signIn(p);
    for (const hash of ["#/sessions", "#/deployments", `#/sessions/${accepted.session_id}`]) {
      await goTo(p, hash);
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `${hash} at ${width} px: no sideways scrolling (${overflow}px)`);
      // The other columns keep their words whole: no word of a header or of a cell of
      // short text is broken across lines (a word in two pieces has two boxes).
      const broken = await p.evaluate(() => {
        const out = [];
        for (const cell of document.querySelectorAll("main th, main td:not(.long)")) {
          const text = cell.firstChild;
          if (!text || text.nodeType !== Node.TEXT_NODE) continue;
          let at = 0;
          for (const word of text.data.split(" ")) {
            const range = document.createRange();
            range.setStart(text, at);
            range.setEnd(text, at + word.length);
            if (word && range.getClientRects().length > 1) out.push(word);
            at += word.length + 1;
          }
        }
        return out;
      });
      assert.deepEqual(broken, [], `${hash} at ${width} px`);
    }
    // The person's id is isolated from the time beside it, and the text reads in its
    // own direction.
    const who = p.locator("li.turn.human .who").first();
    assert.equal(await who.locator("bdi").textContent(), rtl);
    assert.equal(await who.textContent(), `Person ${rtl} · 2026-11-18T09:14:05Z`);
    assert.equal(await p.locator("li.turn.human .text").first().getAttribute("dir"), "auto");
    assert.match(await p.locator("section.conversation p.muted").first().textContent(), /^1 human turn, 1 AI turn; /);
    assert.deepEqual(p.errors, []);

    const q = await page(width);
    await q.goto(`file://${join(dir, "long.html")}`);
    await q.locator("section.conversation").first().waitFor();
    const wide = await q.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 1, `the report at ${width} px: no sideways scrolling (${wide}px)`);
    assert.match(await q.locator("section.summary p.muted").textContent(), /^1 conversation, 1 human turn, /);
    assert.deepEqual(q.errors, []);
  }
});

test("the offline report opens from file:// with the same page and no network", async () => {
  const html = execFileSync(BIN, ["score", EXAMPLE, "--format", "html"], { encoding: "utf8" });
  assert.doesNotMatch(html, /<script src|rel="stylesheet"|(src|href)="https?:/, "nothing loaded from elsewhere");
  const file = join(dir, "report.html");
  writeFileSync(file, html);
  const p = await page();
  const requests = [];
  p.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url()); });
  await p.goto(`file://${file}`);
  await p.locator("section.conversation").first().waitFor();
  const result = JSON.parse(execFileSync(BIN, ["score", EXAMPLE], { encoding: "utf8" }));
  const turns = result.intelligence.conversations.reduce((n, c) => n + c.turns.length, 0);
  assert.equal(await p.locator('circle.point[data-series="Trust"]').count(), turns);
  assert.deepEqual(requests, []);
  assert.deepEqual(p.errors, [], "no CSP violation or script error");
  // Each human turn says why: every dimension's evidence, adding up to its risk (each
  // item is printed to 4 decimals, hence the tolerance), which is the result's.
  const whys = p.locator("li.turn.human details.why");
  assert.equal(await whys.count(), turns);
  const sums = await p.evaluate(() => [...document.querySelectorAll("details.why")].map((d) => {
    const by = {};
    for (const tr of d.querySelectorAll("tbody tr")) {
      const k = tr.dataset.dimension;
      const v = Number(tr.querySelector("td.num").textContent.replace("−", "-"));
      by[k] = by[k] || { items: 0, total: null };
      if (tr.classList.contains("total")) by[k].total = v;
      else by[k].items += v;
    }
    return by;
  }));
  const humanTurns = result.intelligence.conversations.flatMap((c) => c.turns);
  sums.forEach((by, i) => {
    for (const [k, d] of Object.entries(humanTurns[i].layer_z)) {
      assert.equal(by[k].total, d.risk, `turn ${i} ${k}`);
      assert.ok(Math.abs(by[k].items - d.risk) < 0.0004, `turn ${i} ${k}: ${by[k].items} vs ${d.risk}`);
    }
  });
  // Marked words say which way they moved a score.
  assert.ok(await p.locator("li.turn .text mark.up").count() > 0);
  assert.ok(await p.locator("li.turn .text mark.down").count() > 0);
  await p.locator("li.turn.human details.why summary").nth(3).click();
  await shot(p, "report");

  const hostile = join(dir, "hostile.json");
  writeFileSync(hostile, JSON.stringify({ deployment_id: "bot", events: [
    { actor_id: "u</title><script>window.__pwned='title'</script>", content: HOSTILE[0], timestamp: "2026-11-21T09:30:00Z" },
    { actor_id: "bot", content: HOSTILE[1] + "</script><script>window.__pwned='island'</script>", timestamp: "2026-11-21T09:30:05Z" },
  ] }));
  writeFileSync(join(dir, "hostile.html"), execFileSync(BIN, ["score", hostile, "--format", "html"], { encoding: "utf8" }));
  const q = await page();
  await q.goto(`file://${join(dir, "hostile.html")}`);
  await q.locator("li.turn").nth(1).waitFor();
  assert.equal(await q.evaluate(() => window.__pwned), undefined);
  assert.equal(await q.locator("li.turn .text").first().textContent(), HOSTILE[0]);
  assert.deepEqual(q.errors, []);
});

test("create a webhook, send it a test event, read its delivery log, delete it", async () => {
  const received = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => { received.push({ headers: req.headers, body }); res.writeHead(204).end(); });
  });
  await new Promise((r) => receiver.listen(0, "127.0.0.1", r));
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/hooks/undertone`;
  try {
    const p = await page();
    await signIn(p);
    await p.getByRole("navigation").getByRole("link", { name: "Webhooks" }).click();
    await p.getByLabel("Endpoint URL").fill(hookUrl);
    await p.getByRole("button", { name: "Create webhook" }).click();
    const secret = await p.locator("#secret").textContent();
    assert.match(secret, /^whsec_/);
    await p.locator(`table a:text("${hookUrl}")`).waitFor();
    await shot(p, "app-webhooks");
    await p.getByRole("link", { name: "Open its delivery log" }).click();
    await p.getByRole("button", { name: "Send a test event" }).click();
    const row = p.locator("table tbody tr").filter({ hasText: "webhook.test" });
    for (let i = 0; i < 50 && !(await row.count()); i++) {
      await new Promise((r) => setTimeout(r, 200));
      await p.evaluate(() => window.dispatchEvent(new HashChangeEvent("hashchange")));
    }
    await row.filter({ hasText: "succeeded" }).waitFor({ timeout: 15000 });
    assert.match(await row.textContent(), /succeeded.*204/s);
    assert.equal(received.length, 1);
    assert.ok(received[0].headers["webhook-signature"], "the delivery is signed");
    await shot(p, "app-webhook-log");
    await p.goto(`${base}/app#/webhooks`);
    p.once("dialog", (d) => d.accept());
    await p.getByRole("button", { name: `Delete webhook ${hookUrl}` }).click();
    await p.getByText("No webhooks yet.").waitFor();
    assert.deepEqual(p.errors, []);
  } finally {
    receiver.close();
  }
});

test("start a drift from two files and read its verdicts", async () => {
  const p = await page();
  await signIn(p);
  await p.getByRole("navigation").getByRole("link", { name: "Drift" }).click();
  await p.setInputFiles("#before", join(ROOT, "examples", "drift-v1.json"));
  await p.setInputFiles("#after", join(ROOT, "examples", "drift-v2.json"));
  await p.getByRole("form", { name: "Compare two files" }).getByLabel("Question (optional)").fill("Did v2 make frustration worse?");
  await p.getByRole("button", { name: "Compare", exact: true }).click();
  await p.locator("g.drift-row").first().waitFor({ timeout: 20000 });
  assert.equal(await p.locator("g.drift-row").count(), 6);
  const id = decodeURIComponent(p.url().split("#/drift/")[1]);
  const d = await api("GET", `/drift/${id}`);
  const verdicts = await p.locator("span.verdict").allTextContents();
  assert.deepEqual(verdicts, ["trust_calibration", "frustration_buildup", "dependency_drift", "silent_abandonment_risk",
    "escalation_friction", "comprehension_gap"].map((k) => d.dimension_drifts[k].verdict.replace("_", " ")));
  assert.match(await p.locator("main").textContent(), new RegExp(d.direction));
  await shot(p, "app-drift");
  assert.deepEqual(p.errors, []);
});

/**
 * Two weeks of `shop-assist` ending yesterday (relative to the real clock, as the
 * server's history windows are): content people in the first week, then a deploy and
 * a week of people who repeat themselves and ask for a human.
 */
function twoWeeks() {
  const day = 86400000;
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const events = [];
  for (let d = 14; d >= 1; d--) {
    const worse = d <= 7;
    for (let c = 0; c < 4; c++) {
      const t0 = today - d * day + (9 + c) * 3600000;
      const id = `d${d}-c${c}`;
      const at = (s) => new Date(t0 + s * 1000).toISOString();
      const lines = worse
        ? [["u", "my order never arrived, where is it?"], ["b", "Please check the tracking page."],
           ["u", "I already checked it twice, this is useless. Let me talk to a human!"], ["b", "Please check the tracking page."]]
        : [["u", "my order never arrived, where is it?"], ["b", "It left the depot this morning and arrives tomorrow."],
           ["u", "great, thanks so much, that helps!"], ["b", "Glad to help."]];
      lines.forEach(([who, content], i) => events.push({
        actor_id: who === "b" ? "shop-assist" : `user-${d}-${c}`, conversation_id: id, content, timestamp: at(60 * i),
      }));
    }
  }
  const deployedAt = new Date(today - 7 * day).toISOString();
  return { events, deployedAt };
}

test("a deployment's days, with deploy markers, and its health report", async () => {
  const { events, deployedAt } = twoWeeks();
  const accepted = await api("POST", "/ingest", JSON.stringify({ deployment_id: "shop-assist", events }));
  await complete(accepted.session_id);
  await api("POST", "/deployments/shop-assist/deploys", JSON.stringify({ release: "assist-v2", deployed_at: deployedAt }));
  const made = await api("POST", "/deployments/shop-assist/health-reports");
  const p = await page();
  await signIn(p);
  await p.getByRole("navigation").getByRole("link", { name: "Deployments" }).click();
  await p.getByRole("link", { name: "shop-assist" }).click();
  await p.locator("section.history").first().waitFor();
  const h = await api("GET", "/deployments/shop-assist/history?days=30");
  assert.equal(h.days.length, 14);
  assert.equal(await p.locator("section.history").count(), 6, "one chart per dimension");
  const points = p.locator('section.history[data-dimension="frustration_buildup"] circle.point');
  assert.equal(await points.count(), 2 * h.days.length, "a median and a broken share per day");
  assert.equal(await p.locator('section.history[data-dimension="frustration_buildup"] g.deploy-marker').count(), 1);
  assert.match(await p.locator('section.history[data-dimension="frustration_buildup"] g.deploy-marker').textContent(), /assist-v2/);
  await shot(p, "app-deployment");
  await p.getByRole("link", { name: "Health reports" }).first().click();
  await p.locator(`a[href$="/reports/${made.id}"]`).waitFor();
  await shot(p, "app-reports");
  await p.locator(`a[href$="/reports/${made.id}"]`).click();
  await p.getByRole("heading", { name: "Findings" }).waitFor();
  assert.equal(await p.locator("span.verdict").count(), 6);
  await shot(p, "app-report");
  assert.deepEqual(p.errors, []);
});

test("a drift between two date ranges of a deployment", async () => {
  const p = await page();
  await signIn(p);
  await p.goto(`${base}/app#/deployments/shop-assist`);
  await p.getByRole("link", { name: "Compare two date ranges" }).click();
  await p.getByRole("button", { name: "Compare ranges" }).waitFor();
  assert.equal(await p.getByLabel("Deployment").inputValue(), "shop-assist");
  const day = (n) => new Date(Date.now() - n * 86400000).toISOString().slice(0, 10);
  const ranges = p.getByRole("form", { name: "Compare two date ranges" });
  await ranges.getByRole("group", { name: /Before/ }).getByLabel("First day").fill(day(14));
  await ranges.getByRole("group", { name: /Before/ }).getByLabel("Last day").fill(day(8));
  await ranges.getByRole("group", { name: /After/ }).getByLabel("First day").fill(day(7));
  await ranges.getByRole("group", { name: /After/ }).getByLabel("Last day").fill(day(1));
  await shot(p, "app-drift-start");
  await p.getByRole("button", { name: "Compare ranges" }).click();
  await p.locator("g.drift-row").first().waitFor({ timeout: 20000 });
  const id = decodeURIComponent(p.url().split("#/drift/")[1]);
  const d = await api("GET", `/drift/${id}`);
  assert.equal(d.before.conversation_count, 28);
  assert.equal(d.after.conversation_count, 28);
  assert.equal(d.dimension_drifts.frustration_buildup.verdict, "regressed");
  assert.match(await p.locator("main").textContent(), /regressed/);
  await shot(p, "app-drift-ranges");
  assert.deepEqual(p.errors, []);
});

test("the sessions list pages back in time and returns to the newest page", async () => {
  // More sessions than a page holds (20).
  for (let i = 0; i < 21; i++) {
    await api("POST", "/ingest", JSON.stringify({ deployment_id: "paging-bot", events: [
      { actor_id: `u${i}`, content: "where is my order?", timestamp: "2026-11-21T09:30:00Z" }] }));
  }
  const p = await page();
  await signIn(p);
  const first = await p.locator("main tbody tr td:first-child").allTextContents();
  assert.equal(first.length, 20);
  assert.equal(await p.getByRole("link", { name: "Newest sessions" }).count(), 0, "the newest page needs no way back");
  await p.getByRole("link", { name: "Older sessions" }).click();
  await p.getByRole("link", { name: "Newest sessions" }).waitFor();
  const second = await p.locator("main tbody tr td:first-child").allTextContents();
  assert.ok(second.length > 0 && !second.some((id) => first.includes(id)), "the next page holds older sessions");
  await p.getByRole("link", { name: "Newest sessions" }).click();
  await p.getByRole("link", { name: "Older sessions" }).waitFor();
  assert.deepEqual(await p.locator("main tbody tr td:first-child").allTextContents(), first);
  assert.deepEqual(p.errors, []);
});

test("a link to no page says so, and an empty fragment opens the sessions", async () => {
  const p = await page();
  await signIn(p);
  await goTo(p, "#/whatever/else");
  assert.equal(await p.locator("main h1").textContent(), "Page not found");
  assert.match(await p.locator("main").textContent(), /There is no page at #\/whatever\/else\./);
  await p.getByRole("link", { name: "Go to the sessions" }).click();
  await p.getByRole("heading", { name: "Sessions" }).waitFor();
  await p.goto(`${base}/app#`);
  await p.getByRole("heading", { name: "Sessions" }).waitFor();
  assert.deepEqual(p.errors, []);
});

test("more than a page of deployments: the list pages on, the drift form offers them all", async () => {
  // GET /deployments gives 100 a page: 101 more deployments than the ones before.
  const before = (await api("GET", "/deployments?limit=100")).data.length;
  const ids = [];
  for (let i = 0; i < 101; i++) {
    const deployment = `fleet-${String(i).padStart(3, "0")}`;
    const accepted = await api("POST", "/ingest", JSON.stringify({ deployment_id: deployment, events: [
      { actor_id: "cust-1", content: "Where is my order?", timestamp: "2026-11-18T09:14:05Z", conversation_id: "c1" },
      { actor_id: deployment, content: "It ships today.", timestamp: "2026-11-18T09:14:10Z", conversation_id: "c1" },
    ] }));
    ids.push(accepted.session_id);
  }
  for (const id of ids) await complete(id);
  const total = before + 101;
  const p = await page();
  await signIn(p);
  await goTo(p, "#/deployments");
  const first = await p.locator("main tbody tr td:first-child").allTextContents();
  assert.equal(first.length, 100);
  await p.getByRole("link", { name: "More deployments" }).click();
  await p.getByRole("link", { name: "First deployments" }).waitFor();
  const rest = await p.locator("main tbody tr td:first-child").allTextContents();
  assert.equal(first.length + rest.length, total);
  assert.ok(!rest.some((id) => first.includes(id)), "the next page holds the next deployments");
  assert.deepEqual([...first, ...rest], [...first, ...rest].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  await goTo(p, "#/drift");
  assert.equal(await p.locator("#deployment option").count(), total);
  assert.deepEqual(p.errors, []);
});
