// Connectors: importConversations gives exactly what the Rust core gives on the golden
// cases (tests/golden/connectors), throws core's errors, and reports arguments of the
// wrong type as VALIDATION_ERRORs at their name, like every other function here.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ROOT, thrown, wasm } from "./helpers.mjs";

const GOLDEN = join(ROOT, "tests", "golden", "connectors");
const FIXTURES = join(ROOT, "examples", "connectors");
const readJSON = (path) => JSON.parse(readFileSync(path, "utf8"));
const cases = readJSON(join(GOLDEN, "cases.json"));
/** Bytes as a plain Uint8Array, as a browser has them (not a Node Buffer). */
const bytes = (path) => new Uint8Array(readFileSync(path));
const chatgpt = bytes(join(FIXTURES, "chatgpt", "conversations.json"));

/** A case's files by the names cases.json gives them, and its mapping document. */
function load({ format, files, mapping }) {
  const read = (name) => bytes(join(FIXTURES, format, name));
  return {
    files: Object.fromEntries(files.map((name) => [name, read(name)])),
    mapping: mapping ? read(mapping) : undefined,
  };
}

/** The one violation of the VALIDATION_ERROR `fn` throws. */
function violation(fn) {
  const e = thrown(fn);
  assert.equal(e.code, "VALIDATION_ERROR");
  assert.equal(e.details.length, 1);
  assert.equal(e.message, `${e.details[0].path}: ${e.details[0].message}`);
  return e.details[0];
}

test("there are golden cases", () => {
  const formats = cases.map((c) => c.format);
  assert.ok(formats.includes("chatgpt") && formats.includes("claude"));
});

for (const c of cases) {
  test(`import: ${c.format} gives its golden output`, () => {
    const { files, mapping } = load(c);
    const expected = readJSON(join(GOLDEN, `${c.format}.json`));
    assert.deepStrictEqual(wasm.importConversations(c.format, files, { mapping }), expected);
  });

  test(`import: ${c.format} from text gives what bytes give`, () => {
    const { files, mapping } = load(c);
    const decode = (b) => new TextDecoder().decode(b);
    const text = Object.fromEntries(Object.entries(files).map(([name, b]) => [name, decode(b)]));
    const options = { mapping: mapping && decode(mapping) };
    const expected = readJSON(join(GOLDEN, `${c.format}.json`));
    assert.deepStrictEqual(wasm.importConversations(c.format, text, options), expected);
  });
}

test("one file on its own is named input", () => {
  const expected = readJSON(join(GOLDEN, "chatgpt.json"));
  for (const single of [chatgpt, new TextDecoder().decode(chatgpt)]) {
    const got = wasm.importConversations("chatgpt", single);
    assert.deepStrictEqual(got.request, expected.request);
    assert.deepStrictEqual(
      got.skipped,
      expected.skipped.map((s) => ({ ...s, at: s.at.replace("conversations.json", "input") })),
    );
  }
});

test("files are read in the object order, under their names", () => {
  const one = wasm.importConversations("chatgpt", { "a.json": chatgpt });
  const two = wasm.importConversations("chatgpt", { "b.json": chatgpt, "a.json": chatgpt });
  const n = one.request.events.length;
  assert.equal(two.request.events.length, 2 * n);
  assert.deepStrictEqual(two.request.events.slice(0, n), one.request.events);
  const ats = two.skipped.map((s) => s.at);
  const half = ats.length / 2;
  assert.ok(ats.length > 0);
  assert.ok(ats.slice(0, half).every((at) => at.startsWith("b.json[")));
  assert.ok(ats.slice(half).every((at) => at.startsWith("a.json[")));
});

test("deploymentId overrides the format name", () => {
  assert.equal(wasm.importConversations("chatgpt", chatgpt).request.deployment_id, "chatgpt");
  const got = wasm.importConversations("chatgpt", chatgpt, { deploymentId: "support-bot" });
  assert.equal(got.request.deployment_id, "support-bot");
  assert.deepStrictEqual(got.request.events, readJSON(join(GOLDEN, "chatgpt.json")).request.events);
  // A bad id is reported under the option's JavaScript name, as score does.
  assert.equal(violation(() => wasm.importConversations("chatgpt", chatgpt, { deploymentId: "" })).path, "deploymentId");
});

test("the imported request scores", () => {
  const claude = bytes(join(FIXTURES, "claude", "conversations.json"));
  const { request } = wasm.importConversations("claude", { "conversations.json": claude });
  const result = wasm.score(request);
  assert.equal(result.intelligence.deployment_id, "claude");
  assert.equal(result.intelligence.event_count, request.events.length);
  assert.ok(result.intelligence.human_turn_count > 0);
});

test("an unknown format lists the formats", () => {
  assert.deepStrictEqual(violation(() => wasm.importConversations("zip", chatgpt)), {
    path: "format",
    message: 'must be one of chatgpt, claude, zendesk, intercom, slack, mapping; got "zip"',
  });
});

test("malformed JSON names the file", () => {
  const detail = violation(() => wasm.importConversations("chatgpt", { "x.json": "{" }));
  assert.equal(detail.path, "x.json");
  assert.match(detail.message, /^is not JSON/);
});

test("the mapping format needs a mapping", () => {
  const detail = violation(() => wasm.importConversations("mapping", chatgpt));
  assert.equal(detail.path, "format");
  assert.match(detail.message, /mapping document/);
});

test("a mapping is refused with another format", () => {
  for (const mapping of [{ events: "/messages" }, '{"events": "/messages"}', new Uint8Array([123, 125])]) {
    assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", chatgpt, { mapping })), {
      path: "mapping",
      message: "a mapping is only read with the mapping format, not chatgpt",
    });
  }
});

test("arguments of the wrong JavaScript type are VALIDATION_ERRORs at their name", () => {
  const files = "must be a string, a Uint8Array, an ArrayBuffer or an object of file names to strings, Uint8Arrays or ArrayBuffers";
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", 42)), {
    path: "files",
    message: `${files}, got number`,
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", [chatgpt])), {
    path: "files",
    message: `${files}, got array`,
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", null)), {
    path: "files",
    message: `${files}, got null`,
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", { "x.json": 1 })), {
    path: "files.x.json",
    message: "must be a string, a Uint8Array or an ArrayBuffer, got number",
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations(7, chatgpt)), {
    path: "format",
    message: "must be a string, got number",
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", chatgpt, { mapping: 3 })), {
    path: "mapping",
    message: "must be an object, JSON text or bytes, got number",
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", chatgpt, { deploymentId: 7 })), {
    path: "deploymentId",
    message: "must be a string, got number",
  });
  assert.deepStrictEqual(violation(() => wasm.importConversations("chatgpt", chatgpt, "x")), {
    path: "options",
    message: "must be an object, got string",
  });
});

test("the README example runs as written", () => {
  const readme = readFileSync(join(ROOT, "bindings-wasm", "README.md"), "utf8");
  const code = readme.split("## Connectors")[1].split("```js\n")[1].split("```")[0];
  const pkg = join(ROOT, "bindings-wasm", "pkg", "node", "undertone_wasm.js");
  assert.ok(code.includes('require("undertone-wasm")'));
  const script = code.replace('require("undertone-wasm")', `require(${JSON.stringify(pkg)})`);
  const out = execFileSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
  const expected = readJSON(join(GOLDEN, "chatgpt.json"));
  const band = wasm.score(expected.request).intelligence.layer_z.frustration_buildup.band;
  const lines = [...expected.skipped.map(({ at, reason }) => `left out ${at}: ${reason}`), band];
  assert.deepStrictEqual(out.trimEnd().split("\n"), lines);
});

test("a file name holding half a surrogate pair is said to, at files", () => {
  const e = thrown(() => wasm.importConversations("chatgpt", { "a\uD800.json": "[]" }));
  assert.deepStrictEqual(e.details, [
    {
      path: "files",
      message:
        "holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, which is no character; it cannot be read as text",
    },
  ]);
});
