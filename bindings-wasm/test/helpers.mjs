// Shared by the tests: paths, the Node build of the package, canonical JSON.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const PKG_NODE = join(ROOT, "bindings-wasm", "pkg", "node", "undertone_wasm.js");
if (!existsSync(PKG_NODE)) {
  throw new Error(`${PKG_NODE} is missing: run scripts/build-wasm first`);
}

/** The package as Node loads it (pkg/node). */
export const wasm = createRequire(import.meta.url)(PKG_NODE);

/** A file of the repository as text. */
export const text = (rel) => readFileSync(join(ROOT, rel), "utf8");

/** The JSON files directly in `dir` (relative to the root), as [name, parsed]. */
export function vectors(dir) {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(abs, f), "utf8"))]);
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  }
  return v;
}

/** JSON with every object's keys sorted, one key per line, for readable diffs. */
export const canonical = (v) => JSON.stringify(sortKeys(v), null, 1);

/** snake_case option names of a vector as the package's camelCase ones. */
export const camelOptions = (options = {}) =>
  Object.fromEntries(
    Object.entries(options).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), v]),
  );

/** The error `fn` throws, as {code, message, details}; fails when it returns. */
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof Error)) throw new Error(`threw a non-Error: ${String(e)}`);
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error("expected an error, but the call returned");
}
