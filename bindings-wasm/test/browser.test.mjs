// The browser example (examples/browser) in headless Chromium: it loads pkg/web,
// scores a pasted conversation, and draws what the Node build computes for the same
// input. A screenshot goes to /tmp/undertone-browser.png.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { after, before, test } from "node:test";

import { chromium } from "playwright-core";

import { ROOT, text, thrown, wasm } from "./helpers.mjs";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const SCREENSHOT = "/tmp/undertone-browser.png";
const EXAMPLE = text("examples/support-refund-goes-wrong.json");
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

/** A static server of the repository root on 127.0.0.1, any free port. */
function serveRoot() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    let path = normalize(join(ROOT, decodeURIComponent(url.pathname)));
    if (path !== ROOT && !path.startsWith(ROOT + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(path).isDirectory()) path = join(path, "index.html");
      const body = readFileSync(path);
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let server;
let context;
let page;
let base;
const pageErrors = [];
let profile;

before(async () => {
  server = await serveRoot();
  base = `http://127.0.0.1:${server.address().port}`;
  profile = mkdtempSync(join(tmpdir(), "undertone-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
    viewport: { width: 1100, height: 1400 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => m.type() === "error" && pageErrors.push(m.text()));
  await page.goto(`${base}/examples/browser/`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 });
});

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** What the page should show for `input`, computed with the Node build. */
function expected(input, options) {
  const result = wasm.score(input, options);
  const conversation = result.intelligence.conversations.find((c) => c.turns.length > 0);
  return {
    result,
    conversation,
    frustration: conversation.turns.map((t) => t.layer_z.frustration_buildup),
    trust: conversation.turns.map((t) => t.layer_z.trust_calibration),
  };
}

async function scoreInPage(input, deploymentId = "") {
  await page.fill("#input", input);
  await page.fill("#deployment-id", deploymentId);
  await page.evaluate(() => delete document.body.dataset.state);
  await page.click("#score");
  await page.waitForFunction(() => document.body.dataset.state !== undefined);
}

const pointsOf = (id) =>
  page.$eval(id, (el) => el.getAttribute("points").trim().split(/\s+/).filter(Boolean));

test("Load example fills the textarea with examples/support-refund-goes-wrong.json", async () => {
  await page.click("#load-example");
  await page.waitForSelector("body[data-example=loaded]");
  assert.equal(await page.inputValue("#input"), EXAMPLE);
});

test("the pasted example is scored and drawn as Node scores it", async () => {
  const want = expected(EXAMPLE);
  const n = want.conversation.turns.length;
  assert.equal(n, 9, "the example's first conversation has 9 human turns");

  await scoreInPage(EXAMPLE);
  assert.equal(await page.$eval("body", (b) => b.dataset.state), "scored");
  assert.equal(await page.isHidden("#error"), true);
  assert.equal(await page.$eval("#curves", (s) => s.dataset.conversationId), want.conversation.conversation_id);

  // One point per human turn on each curve, one table row per turn.
  const frustration = await pointsOf("#frustration-curve");
  const trust = await pointsOf("#trust-curve");
  assert.equal(frustration.length, n);
  assert.equal(trust.length, n);
  assert.equal(await page.locator("#turns tbody tr").count(), n);

  // Each point's height is its score: y = 232 - score * 216 in the 720×260 viewBox.
  const ys = (pts) => pts.map((p) => Number(p.split(",")[1]));
  assert.deepEqual(ys(frustration), want.frustration.map((d) => Number((232 - d.score * 216).toFixed(1))));
  assert.deepEqual(ys(trust), want.trust.map((d) => Number((232 - d.score * 216).toFixed(1))));

  // The table shows Node's values with the page's formatting (4 decimals) and bands.
  const column = (field) =>
    page.$$eval(`#turns tbody td[data-field="${field}"]`, (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(await column("frustration"), want.frustration.map((d) => d.score.toFixed(4)));
  assert.deepEqual(await column("trust"), want.trust.map((d) => d.score.toFixed(4)));
  assert.deepEqual(await column("frustration-band"), want.frustration.map((d) => d.band));
  assert.deepEqual(await column("trust-band"), want.trust.map((d) => d.band));
  assert.deepEqual(await column("event-index"), want.conversation.turns.map((t) => String(t.event_index)));
  // The excerpt is the scored event's own text.
  const events = JSON.parse(EXAMPLE).events;
  const firstContent = (await column("content"))[0];
  assert.ok(events[want.conversation.turns[0].event_index].content.startsWith(firstContent.replace(/…$/, "")));
  // The story the example tells: frustration ends in the broken band.
  assert.equal(want.frustration.at(-1).band, "broken");
  assert.equal(await page.textContent("#key-finding"), want.result.intelligence.key_finding);

  await page.screenshot({ path: SCREENSHOT, fullPage: true });
});

test("a list of events with the deployment id field scores the same", async () => {
  const request = JSON.parse(EXAMPLE);
  const events = JSON.stringify(request.events);
  const want = expected(events, { deploymentId: request.deployment_id });
  await scoreInPage(events, request.deployment_id);
  assert.equal(await page.$eval("body", (b) => b.dataset.state), "scored");
  assert.equal((await pointsOf("#frustration-curve")).length, want.conversation.turns.length);
  const shown = await page.$$eval('#turns tbody td[data-field="frustration"]', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(shown, want.frustration.map((d) => d.score.toFixed(4)));
});

test("invalid input shows the error code and message", async () => {
  const invalid = '{"deployment_id": "shop-bot", "events": []}';
  const e = thrown(() => wasm.score(invalid));
  assert.equal(e.code, "VALIDATION_ERROR");
  await scoreInPage(invalid);
  assert.equal(await page.$eval("body", (b) => b.dataset.state), "error");
  assert.equal(await page.isVisible("#error"), true);
  assert.equal(await page.isHidden("#results"), true);
  assert.equal(await page.textContent("#error"), `VALIDATION_ERROR: ${e.message}`);

  // A list of events without the deployment id names the field.
  await scoreInPage(JSON.stringify(JSON.parse(EXAMPLE).events));
  assert.match(await page.textContent("#error"), /^VALIDATION_ERROR: deploymentId: is required/);
});

test("the page logged no errors", () => {
  assert.deepEqual(pageErrors, []);
});
