// Options and argument types: errors carry a stable code and the JavaScript name.
import assert from "node:assert/strict";
import { test } from "node:test";

import { thrown, vectors, wasm } from "./helpers.mjs";

const [, refund] = vectors("tests/vectors").find(([n]) => n === "support-refund-goes-wrong.json");
const events = refund.input.events;

test("a bad pipeline option is a VALIDATION_ERROR at path pipeline", () => {
  const e = thrown(() => wasm.score(refund.input, { pipeline: "chat" }));
  assert.equal(e.code, "VALIDATION_ERROR");
  assert.equal(e.details[0].path, "pipeline");
  assert.equal(e.details[0].message, 'must be one of auto, support, reviews; got "chat"');
  assert.equal(e.message, 'pipeline: must be one of auto, support, reviews; got "chat"');
});

test("a bad format option is a VALIDATION_ERROR at path format", () => {
  const e = thrown(() => wasm.validate(refund.input, { format: "csv" }));
  assert.deepStrictEqual(e.details, [{ path: "format", message: 'must be one of auto, json, jsonl; got "csv"' }]);
});

test("a list of events without deploymentId names the JavaScript option", () => {
  const e = thrown(() => wasm.score(events));
  assert.equal(e.code, "VALIDATION_ERROR");
  assert.equal(e.details.length, 1);
  assert.equal(e.details[0].path, "deploymentId");
  assert.match(e.details[0].message, /^is required: the input is a list of events/);
});

test("deploymentId contradicting the request is refused at deploymentId", () => {
  const e = thrown(() => wasm.score(refund.input, { deploymentId: "another-bot" }));
  assert.equal(e.details[0].path, "deploymentId");
  assert.match(e.details[0].message, /"another-bot", but the request names deployment "acme-support-bot"/);
});

test("pipeline option overrides the request's", () => {
  assert.equal(wasm.score(refund.input).pipeline, "support");
  assert.equal(wasm.score(refund.input, { pipeline: "reviews" }).pipeline, "reviews");
});

test("validate returns the request as scoring sees it", () => {
  const r = wasm.validate(events, { deploymentId: "acme-support-bot" });
  assert.equal(r.deployment_id, "acme-support-bot");
  assert.equal(r.pipeline, "auto");
  assert.equal(r.events.length, events.length);
  assert.equal(r.events[0].content, events[0].content.trim());
  const shifted = wasm.validate({
    deployment_id: "b",
    events: [{ actor_id: "u", content: "  hi  ", timestamp: "2026-11-21T10:30:00+01:00" }],
  });
  assert.equal(shifted.events[0].timestamp, "2026-11-21T09:30:00Z");
  assert.equal(shifted.events[0].content, "hi");
});

test("arguments of the wrong JavaScript type are VALIDATION_ERRORs at their name", () => {
  assert.deepStrictEqual(thrown(() => wasm.score(refund.input, { view: 3 })).details, [
    { path: "view", message: "must be a string, got number" },
  ]);
  assert.deepStrictEqual(thrown(() => wasm.score(refund.input, "full")).details, [
    { path: "options", message: "must be an object, got string" },
  ]);
  assert.deepStrictEqual(thrown(() => wasm.score(undefined)).details, [
    {
      path: "input",
      message: "must be a request object, an array of events, JSON text, a Uint8Array or an ArrayBuffer, got undefined",
    },
  ]);
  assert.equal(thrown(() => wasm.drift(refund.input, () => 1)).details[0].path, "after");
  assert.equal(thrown(() => wasm.verifySignature(42, "", {})).details[0].path, "secret");
  assert.equal(thrown(() => wasm.verifySignature("s", {}, {})).details[0].path, "body");
  assert.equal(thrown(() => wasm.verifySignature("s", "", {}, { now: 1.5 })).details[0].path, "now");
});

test("null and undefined options are no options", () => {
  const expected = JSON.stringify(wasm.score(refund.input));
  assert.equal(JSON.stringify(wasm.score(refund.input, null)), expected);
  assert.equal(JSON.stringify(wasm.score(refund.input, { view: undefined, pipeline: null })), expected);
});

test("a drift question too long is a VALIDATION_ERROR at question", () => {
  const e = thrown(() => wasm.drift(refund.input, refund.input, { question: "x".repeat(2001) }));
  assert.equal(e.code, "VALIDATION_ERROR");
  assert.equal(e.details[0].path, "question");
});

test("drift labels default to before and after", () => {
  const d = wasm.drift(refund.input, refund.input);
  assert.equal(d.before.label, "before");
  assert.equal(d.after.label, "after");
  assert.equal(d.direction, "stable");
  assert.equal(d.overall_drift, 0);
});

test("half a surrogate pair in a string is refused at its name, not read as U+FFFD", () => {
  const lone = [
    "holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, which is no character;",
    "it cannot be read as text",
  ].join(" ");
  const at = (path) => [{ path, message: lone }];
  // Read as UTF-8 this deployment would silently be "bot\uFFFD", another deployment.
  assert.deepStrictEqual(thrown(() => wasm.score(events, { deploymentId: "bot\uD800" })).details, at("deploymentId"));
  assert.deepStrictEqual(thrown(() => wasm.drift(events, events, { afterLabel: "\uDC00" })).details, at("afterLabel"));
  const jsonl = events.map((e) => JSON.stringify(e)).join("\n");
  assert.deepStrictEqual(
    thrown(() => wasm.score(`${jsonl}\n`.replace("refund", "ref\uD800und"), { deploymentId: "bot" })).details,
    at("input"),
  );
  assert.deepStrictEqual(thrown(() => wasm.importConversations("mapping\uDFFF", "{}")).details, at("format"));
  assert.deepStrictEqual(thrown(() => wasm.verifySignature("s", "body\uD800", {})).details, at("body"));
  // In an option's name: named as the options, since the name cannot be written back.
  assert.deepStrictEqual(thrown(() => wasm.score(events, { deploymentId: "bot", ["x\uD800"]: 1 })).details, at("options"));
  // A real U+FFFD and a whole pair are text.
  const fine = wasm.score(events, { deploymentId: "bot\uFFFD\uD83D\uDE00" });
  assert.equal(fine.intelligence.deployment_id, "bot\uFFFD\uD83D\uDE00");
});

test("what JSON.stringify throws for an input is thrown as it is, as in Node", () => {
  const cycle = { deployment_id: "b", events: [] };
  cycle.self = cycle;
  assert.throws(() => wasm.score(cycle), (e) => e instanceof TypeError && /circular/.test(e.message));
  assert.throws(() => wasm.score({ n: 1n }), (e) => e instanceof TypeError && /BigInt/.test(e.message));
  const mine = new RangeError("the caller's own");
  const getter = {
    deployment_id: "b",
    get events() {
      throw mine;
    },
  };
  assert.throws(() => wasm.drift(refund.input, getter), (e) => e === mine);
});

test("an ArrayBuffer is bytes; a DataView, a Map, a Set or another typed array is refused", () => {
  const json = new TextEncoder().encode(JSON.stringify(refund.input));
  const expected = JSON.stringify(wasm.score(json));
  // What `await response.arrayBuffer()` gives, and a view into part of a larger buffer.
  assert.equal(JSON.stringify(wasm.score(json.buffer)), expected);
  const padded = new Uint8Array(json.length + 8);
  padded.set(json, 4);
  assert.equal(JSON.stringify(wasm.score(new Uint8Array(padded.buffer, 4, json.length))), expected);
  // As in Node, whose process a DataView with lying getters once aborted.
  const view = thrown(() => wasm.score(new DataView(padded.buffer, 4, json.length)));
  assert.match(view.details[0].message, /, got DataView$/);
  const input = "must be a request object, an array of events, JSON text, a Uint8Array or an ArrayBuffer";
  // Their JSON would be `{}` or numbered keys: a misleading "deployment_id: is required".
  for (const [value, got] of [
    [new Map(Object.entries(refund.input)), "Map"],
    [new Set([1]), "Set"],
    [new Int16Array(2), "Int16Array"],
  ]) {
    assert.deepStrictEqual(thrown(() => wasm.score(value)).details, [{ path: "input", message: `${input}, got ${got}` }]);
  }
  // A connector file too: read as the same bytes as a Uint8Array.
  const bytes = new TextEncoder().encode("[]");
  const asBytes = thrown(() => wasm.importConversations("chatgpt", { "a.json": bytes }));
  const asBuffer = thrown(() => wasm.importConversations("chatgpt", { "a.json": bytes.buffer }));
  assert.equal(asBuffer.message, asBytes.message);
  assert.match(asBuffer.message, /^a\.json: no chatgpt conversation/);
});

test("an option nested too deeply, or holding itself, is refused at its name, and the module works on", () => {
  let deep = {};
  for (let i = 0, at = deep; i < 5000; i++) at = at.a = {};
  const looped = {};
  looped.self = looped;
  const message =
    "is nested too deeply: more than 64 arrays and objects inside each other (or an object that holds itself)";
  for (const [options, path] of [
    [{ view: deep }, "view"],
    [{ zzz: [[deep]] }, "zzz"],
    [{ view: looped }, "view"],
  ]) {
    const e = thrown(() => wasm.score(refund.input, options));
    assert.equal(e.code, "VALIDATION_ERROR");
    assert.deepStrictEqual(e.details, [{ path, message }]);
  }
  const e = thrown(() => wasm.importConversations("mapping", "[]", { mapping: { roles: deep } }));
  assert.deepStrictEqual(e.details, [{ path: "mapping", message }]);
  // Every later call is answered as before (a stack overflow would leave the module broken).
  assert.equal(wasm.score(refund.input).pipeline, "support");
});

test("options are an object whose own properties are read, as in the Node addon", () => {
  const any = "a string, a number, a boolean, an object or an array";
  for (const [options, path, message] of [
    [NaN, "options", "must be an object, got number"],
    [1n, "options", "must be an object, got bigint"],
    [{ view: () => "full" }, "view", `must be ${any}, got function`],
    [{ view: Symbol("full") }, "view", `must be ${any}, got symbol`],
    [{ view: 1n }, "view", `must be ${any}, got bigint`],
  ]) {
    assert.deepStrictEqual(thrown(() => wasm.score(refund.input, options)).details, [{ path, message }]);
  }
  const reference = wasm.score(refund.input);
  for (const options of [new Map([["view", "BAD"]]), new Date(), Object.create({ view: "BAD" }), { view: undefined }]) {
    assert.deepStrictEqual(wasm.score(refund.input, options), reference);
  }
});
