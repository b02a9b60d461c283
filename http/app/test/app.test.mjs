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
    const proc = spawn(BIN, ["serve", "--addr", "127.0.0.1:0", "--database", `sqlite://${join(dir, "app.db")}`, "--workers", "1"],
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

test("the session page reads at 360 px wide", async () => {
  const list = await api("GET", "/sessions");
  const id = list.data[list.data.length - 1].session_id;
  const p = await page(360);
  await signIn(p);
  await p.goto(`${base}/app#/sessions/${id}`);
  await p.locator("section.conversation").first().waitFor();
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no sideways scrolling (${overflow}px)`);
  await shot(p, "app-session-360");
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
