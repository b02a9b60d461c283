// The generated TypeScript declarations: every golden output (scores, drift, the
// connectors' imports) type-checks against them (object literals, so a missing, extra or mistyped field fails), and option
// types reject what the functions reject.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { ROOT, text, vectors } from "./helpers.mjs";

const TSC = join(ROOT, "bindings-wasm", "node_modules", "typescript", "bin", "tsc");

function check(dts, source) {
  const dir = mkdtempSync(join(tmpdir(), "undertone-wasm-types-"));
  try {
    const file = join(dir, "check.ts");
    writeFileSync(file, `import * as u from ${JSON.stringify(dts)};\n${source}`);
    const args = [TSC, "--noEmit", "--strict", "--exactOptionalPropertyTypes", "--target", "es2022",
      "--module", "esnext", "--moduleResolution", "bundler", "--lib", "es2022,dom,dom.iterable", file];
    try {
      execFileSync(process.execPath, args, { encoding: "utf8" });
    } catch (e) {
      assert.fail(`tsc found errors:\n${e.stdout}${e.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const outputs = () => {
  const lines = [];
  vectors("tests/vectors").forEach(([, v], i) => {
    lines.push(`const s${i}: u.FullScore = ${JSON.stringify(v.output)};`);
    lines.push(`const i${i}: u.Input = ${JSON.stringify(v.input)};`);
  });
  vectors("tests/vectors/drift").forEach(([, v], i) => {
    lines.push(`const d${i}: u.DriftResult = ${JSON.stringify(v.output)};`);
    lines.push(`const b${i}: u.Input = ${text(v.before)};`);
  });
  vectors("tests/golden/connectors")
    .filter(([name]) => name !== "cases.json")
    .forEach(([, v], i) => {
      lines.push(`const c${i}: u.ImportResult = ${JSON.stringify(v)};`);
      lines.push(`const r${i}: u.FullScore = u.score(c${i}.request);`);
    });
  return lines.join("\n");
};

const USAGE = `
declare const input: u.Input;
const full: u.FullScore = u.score(input, { deploymentId: "bot", pipeline: "support", view: "full", format: "jsonl" });
const condensed: u.CondensedScore = u.score(input, { view: "condensed" });
declare const view: "full" | "condensed";
const either: u.FullScore | u.CondensedScore = u.score(input, { view });
const plain: u.FullScore = u.score(input);
const rows: u.TurnRow[] = u.score(input, { view: "turns" });
const band: u.Band = rows[0].frustration_buildup_band;
// @ts-expect-error: a row has no layer_z
rows[0].layer_z;
const checked: u.ValidatedRequest = u.validate(new Uint8Array(), { deploymentId: "bot" });
const d: u.DriftResult = u.drift("", [], { question: "q", beforeLabel: "v1", afterLabel: "v2", format: "json" });
const ok: boolean = u.verifySignature("whsec_x", "body", { "webhook-id": "m" }, { now: 1, toleranceSecs: 300 });
const ok2: boolean = u.verifySignature("s", new Uint8Array(), new Headers());
const imported: u.ImportResult = u.importConversations("chatgpt", new Uint8Array());
const fromExport: u.FullScore = u.score(imported.request);
const skipped: u.SkippedItem[] = imported.skipped;
const slack: u.ImportResult = u.importConversations("slack", { "it-help/2026-03-02.json": "[]" }, { deploymentId: "bot" });
const mapped: u.ImportResult = u.importConversations("mapping", "{}", { mapping: { events: "/messages" } });
u.importConversations("mapping", new Uint8Array(), { mapping: "{}" });
// @ts-expect-error: not a format
u.importConversations("zip", "[]");
// @ts-expect-error: file contents are text or bytes
u.importConversations("chatgpt", { "conversations.json": 42 });
// @ts-expect-error: options are camelCase
u.importConversations("chatgpt", "[]", { deployment_id: "bot" });
u.score(input);
// @ts-expect-error: not a pipeline
u.score(input, { pipeline: "chat" });
// @ts-expect-error: not a view
u.score(input, { view: "short" });
// @ts-expect-error: options are camelCase
u.score(input, { deployment_id: "bot" });
// @ts-expect-error: a number is not an input
u.score(42);
function codeOf(e: unknown): string { return (e as u.UndertoneError).code; }
export { full, condensed, either, plain, band, checked, d, ok, ok2, codeOf, fromExport, skipped, slack, mapped };
`;

for (const target of ["web", "node"]) {
  test(`pkg/${target} declarations type the golden outputs and the options`, () => {
    const dts = join(ROOT, "bindings-wasm", "pkg", target, "undertone_wasm.js");
    check(dts, outputs() + USAGE);
  });
}
