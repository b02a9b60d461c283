// Types of the undertone-wasm API, appended to the generated .d.ts by wasm-bindgen.
// The result and request types are not written here: they are the OpenAPI components
// derived from undertone-core's own types (spec/openapi.json, generated into
// schema.d.ts beside this file by scripts/build-wasm). Only what JavaScript adds (the
// inputs, the options, the error) is declared here; bindings-wasm/test/types.test.mjs
// type-checks every golden output against these declarations.
import type { components } from "./schema";
type Schemas = components["schemas"];

/** What `score`, `validate` and `drift` read: an ingest request, an array of events,
 * or the text (JSON, JSON array or JSON Lines) of either, as a string or UTF-8 bytes. */
export type Input = IngestRequest | UndertoneEvent[] | string | Uint8Array | ArrayBuffer;
/** How the input text is laid out; `auto` detects JSON Lines from its first line. */
export type InputFormat = "auto" | "json" | "jsonl";
/** Which analysis pipeline to use; `auto` picks one from the shape of the events. */
export type Pipeline = "auto" | "support" | "reviews";

/** The formats `importConversations` reads (`mapping` needs `options.mapping`). */
export type ImportFormat = "chatgpt" | "claude" | "zendesk" | "intercom" | "slack" | "mapping";
/** One file's contents (named `input`), or an object of file names to contents. */
export type ImportFiles = string | Uint8Array | ArrayBuffer | Record<string, string | Uint8Array | ArrayBuffer>;
/** An item a connector left out: where (file and position), and why. */
export interface SkippedItem {
  at: string;
  reason: string;
}
/** What `importConversations` returns: the request to score, and what was left out. */
export interface ImportResult {
  request: { deployment_id: string; events: UndertoneEvent[] };
  skipped: SkippedItem[];
}

/** A delivery's headers: a plain object (as Node's `req.headers`), a `Headers`, or
 * any iterable of `[name, value]` pairs; names in any case. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | Iterable<[string, string]>;

/** The `Error` every function throws: an input, argument or option broke a rule. */
export interface UndertoneError extends Error {
  code: "VALIDATION_ERROR";
  /** Every broken rule: a field path (`events[3].timestamp`) or an option's name. */
  details: { path: string; message: string }[];
}

export type UndertoneEvent = Schemas["BIEEvent"];
export type IngestRequest = Schemas["IngestRequest"];
/** What `validate` returns: the request as scoring sees it. */
export type ValidatedRequest = Schemas["IngestRequest"] & { deployment_id: string; pipeline: Pipeline };
export type Band = Schemas["Band"];
export type Archetype = Schemas["Archetype"];
export type Evidence = Schemas["Evidence"];
export type DimensionScore = Schemas["DimensionScore"];
export type LayerZ = Schemas["LayerZ"];
export type TurnResult = Schemas["TurnResult"];
export type ConversationResult = Schemas["ConversationResult"];
export type Intelligence = Schemas["Intelligence"];
/** `score` with `view: "full"` (the default). */
export type FullScore = Schemas["FullOutput"];
/** `score` with `view: "condensed"`. */
export type CondensedScore = Schemas["CondensedOutput"];
export type DimensionDrift = Schemas["DimensionDrift"];
export type PeriodSummary = Schemas["PeriodSummary"];
export type DriftResult = Schemas["DriftResult"];

/** One flat row per human turn (`view: "turns"`): what `undertone score --view turns` prints, one per line. */
export type TurnRow = { deployment_id: string; conversation_id: string; turn: number; actor_id: string; timestamp: string }
  & { [K in keyof LayerZ]: number } & { [K in keyof LayerZ as `${K & string}_band`]: Band };

export function score(input: Input, options: ScoreOptions & { view: "condensed" }): CondensedScore;
export function score(input: Input, options: ScoreOptions & { view: "turns" }): TurnRow[];
export function score(input: Input, options?: ScoreOptions & { view?: "full" }): FullScore;
export function score(input: Input, options: ScoreOptions & { view: "full" | "condensed" }): FullScore | CondensedScore;
