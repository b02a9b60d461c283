// The golden vectors of tests/vectors, through the Node build of the package.
import assert from "node:assert/strict";
import { test } from "node:test";

import { camelOptions, canonical, text, thrown, vectors, wasm } from "./helpers.mjs";

const scored = vectors("tests/vectors");
const invalid = vectors("tests/vectors/invalid");
const drifts = vectors("tests/vectors/drift");

test("there are vectors of every kind", () => {
  assert.ok(scored.length >= 6, `${scored.length} score vectors`);
  assert.ok(invalid.length >= 1, `${invalid.length} invalid vectors`);
  assert.ok(drifts.length >= 1, `${drifts.length} drift vectors`);
});

for (const [name, v] of scored) {
  test(`score ${name}: object, JSON text and bytes give the vector's output`, () => {
    const expected = canonical(v.output);
    const json = JSON.stringify(v.input);
    assert.equal(canonical(wasm.score(v.input)), expected);
    assert.equal(canonical(wasm.score(json)), expected);
    assert.equal(canonical(wasm.score(new TextEncoder().encode(json))), expected);
  });
}

test("score with view condensed is the full output's summary", () => {
  const [, v] = scored.find(([n]) => n === "support-refund-goes-wrong.json");
  const c = wasm.score(v.input, { view: "condensed" });
  const i = v.output.intelligence;
  assert.equal(
    canonical(c),
    canonical({
      session_id: null,
      archetype: i.archetype,
      layer_z: i.layer_z,
      key_finding: i.key_finding,
      falsifiable: i.falsifiable,
      recommendation: i.recommendation,
    }),
  );
});

test("score with view turns is one flat row per human turn of the vector", () => {
  const [, v] = scored.find(([n]) => n === "support-refund-goes-wrong.json");
  const rows = wasm.score(v.input, { view: "turns" });
  const turns = v.output.intelligence.conversations.flatMap((c) => c.turns);
  assert.equal(rows.length, turns.length);
  rows.forEach((row, i) => {
    assert.equal(row.deployment_id, v.output.intelligence.deployment_id);
    assert.equal(row.timestamp, turns[i].timestamp);
    for (const [dimension, d] of Object.entries(turns[i].layer_z)) {
      assert.equal(row[dimension], d.score, `${i} ${dimension}`);
      assert.equal(row[`${dimension}_band`], d.band, `${i} ${dimension}`);
    }
  });
});

test("a list of events with deploymentId scores like the request", () => {
  const [, v] = scored.find(([n]) => n === "support-refund-goes-wrong.json");
  const { deployment_id, events, pipeline } = v.input;
  const out = wasm.score(events, { deploymentId: deployment_id, pipeline });
  assert.equal(canonical(out), canonical(v.output));
  const lines = events.map((e) => JSON.stringify(e)).join("\n");
  const fromLines = wasm.score(lines, { deploymentId: deployment_id, pipeline, format: "jsonl" });
  assert.equal(canonical(fromLines), canonical(v.output));
});

for (const [name, v] of invalid) {
  test(`invalid ${name}: the thrown error is the vector's`, () => {
    const options = camelOptions(v.options);
    // A string input is a JSON value here, not JSON text: pass its JSON text.
    const input = typeof v.input === "string" ? JSON.stringify(v.input) : v.input;
    const expected = { code: v.error.code, message: v.error.message, details: v.error.details };
    assert.deepStrictEqual(thrown(() => wasm.score(input, options)), expected);
    assert.deepStrictEqual(thrown(() => wasm.score(JSON.stringify(v.input), options)), expected);
  });
}

for (const [name, v] of drifts) {
  test(`drift ${name}: the vector's output`, () => {
    const options = camelOptions(v.options);
    const before = JSON.parse(text(v.before));
    const after = JSON.parse(text(v.after));
    const expected = canonical(v.output);
    assert.equal(canonical(wasm.drift(before, after, options)), expected);
    const fromText = wasm.drift(text(v.before), text(v.after), options);
    assert.equal(canonical(fromText), expected);
  });
}
