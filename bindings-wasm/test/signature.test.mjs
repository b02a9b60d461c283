// verifySignature against signatures made with node:crypto, per core/src/signature.rs.
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { test } from "node:test";

import { wasm } from "./helpers.mjs";

const KEY = randomBytes(24);
const SECRET = `whsec_${KEY.toString("base64")}`;
const BODY = JSON.stringify({ type: "intelligence.ready", data: { session_id: "s-1", note: "café" } });
const ID = "msg_2kTWC7CdfEWfYgUpTvzbB0JjHzy";
const NOW = 1_763_719_800;

/** X-Undertone-Signature: sha256= + hex HMAC keyed with the secret string's bytes. */
const plain = (body, secret = SECRET) =>
  `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex")}`;
/** Standard Webhooks: v1, + base64 HMAC of id.timestamp.body keyed with the decoded secret. */
const standard = (id, ts, body, key = KEY) =>
  `v1,${createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64")}`;

const delivery = (ts = NOW, body = BODY) => ({
  "x-undertone-signature": plain(body),
  "webhook-id": ID,
  "webhook-timestamp": String(ts),
  "webhook-signature": standard(ID, ts, body),
});

test("a valid delivery verifies, as a string, bytes, object or Headers", () => {
  const h = delivery();
  assert.equal(wasm.verifySignature(SECRET, BODY, h, { now: NOW + 10 }), true);
  assert.equal(wasm.verifySignature(SECRET, new TextEncoder().encode(BODY), h, { now: NOW }), true);
  const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
  assert.equal(wasm.verifySignature(SECRET, BODY, upper, { now: NOW }), true);
  assert.equal(wasm.verifySignature(SECRET, BODY, new Headers(h), { now: NOW }), true);
  assert.equal(wasm.verifySignature(SECRET, BODY, new Map(Object.entries(h)), { now: NOW }), true);
});

test("each scheme alone verifies", () => {
  const h = delivery();
  assert.equal(wasm.verifySignature(SECRET, BODY, { "X-Undertone-Signature": h["x-undertone-signature"] }), true);
  const { "x-undertone-signature": _, ...std } = h;
  assert.equal(wasm.verifySignature(SECRET, BODY, std, { now: NOW - 299 }), true);
});

test("a tampered body, signature or secret does not verify", () => {
  const h = delivery();
  const opts = { now: NOW };
  assert.equal(wasm.verifySignature(SECRET, BODY.replace("s-1", "s-2"), h, opts), false);
  assert.equal(wasm.verifySignature(`whsec_${randomBytes(24).toString("base64")}`, BODY, h, opts), false);
  const badPlain = { ...h, "x-undertone-signature": plain(BODY, "another secret") };
  assert.equal(wasm.verifySignature(SECRET, BODY, badPlain, opts), false);
  const badStd = { ...h, "webhook-signature": standard("msg_other", NOW, BODY) };
  assert.equal(wasm.verifySignature(SECRET, BODY, badStd, opts), false);
  assert.equal(wasm.verifySignature(SECRET, BODY, {}, opts), false);
});

test("a stale or future timestamp does not verify; toleranceSecs widens the window", () => {
  const h = delivery(NOW);
  assert.equal(wasm.verifySignature(SECRET, BODY, h, { now: NOW + 301 }), false);
  assert.equal(wasm.verifySignature(SECRET, BODY, h, { now: NOW - 301 }), false);
  assert.equal(wasm.verifySignature(SECRET, BODY, h, { now: NOW + 301, toleranceSecs: 600 }), true);
});

test("now defaults to the clock", () => {
  const fresh = Math.floor(Date.now() / 1000);
  assert.equal(wasm.verifySignature(SECRET, BODY, delivery(fresh)), true);
  assert.equal(wasm.verifySignature(SECRET, BODY, delivery(fresh - 3600)), false);
});

test("a clock with no JSON form (NaN, Infinity) is a VALIDATION_ERROR at its name", () => {
  // Read as "not given", it would verify against the real clock.
  const h = delivery(Math.floor(Date.now() / 1000));
  for (const [options, path, got] of [
    [{ now: NaN }, "now", "NaN"],
    [{ now: Infinity }, "now", "Infinity"],
    [{ toleranceSecs: -Infinity }, "toleranceSecs", "-Infinity"],
  ]) {
    assert.throws(() => wasm.verifySignature(SECRET, BODY, h, options), (e) => {
      assert.equal(e.code, "VALIDATION_ERROR");
      assert.deepEqual(e.details, [{ path, message: `must be a finite number, got ${got}` }]);
      return true;
    });
  }
});

test("a repeated header is one value each, the last read; null is no header (as in Node)", () => {
  const h = delivery();
  const repeated = { ...h, "x-undertone-signature": ["sha256=00", h["x-undertone-signature"]] };
  assert.equal(wasm.verifySignature(SECRET, BODY, repeated, { now: NOW }), true);
  const stamped = { ...h, "webhook-timestamp": ["1", String(NOW)] };
  assert.equal(wasm.verifySignature(SECRET, BODY, stamped, { now: NOW }), true);
  const absent = { ...h, "x-undertone-signature": null };
  assert.equal(wasm.verifySignature(SECRET, BODY, absent, { now: NOW }), true);
});
