// Types of the undertone-wasm API, appended to the generated .d.ts by wasm-bindgen.
// They mirror undertone-core's serialised types (core/src/score, core/src/drift,
// core/src/schema); bindings-wasm/test/types.test.mjs type-checks every golden
// vector's output against them, so a change in core that is not mirrored here fails.

/** What `score`, `validate` and `drift` read: an ingest request, an array of events,
 * or the text (JSON, JSON array or JSON Lines) of either, as a string or UTF-8 bytes. */
export type Input = IngestRequest | UndertoneEvent[] | string | Uint8Array;

/** How the input text is laid out; `auto` detects JSON Lines from its first line. */
export type InputFormat = "auto" | "json" | "jsonl";
/** Which analysis pipeline to use; `auto` picks one from the shape of the events. */
export type Pipeline = "auto" | "support" | "reviews";

/** Options of `score`. */
export interface ScoreOptions {
  /** The deployment: required for a list of events, must match a request's own. */
  deploymentId?: string;
  /** Overrides the request's `pipeline` (default: the request's, else `auto`). */
  pipeline?: Pipeline;
  /** `full` (default) or `condensed`. */
  view?: "full" | "condensed";
  /** Layout of text input (default `auto`). */
  format?: InputFormat;
}

/** Options of `validate`. */
export interface ValidateOptions {
  /** The deployment: required for a list of events, must match a request's own. */
  deploymentId?: string;
  /** Layout of text input (default `auto`). */
  format?: InputFormat;
}

/** Options of `drift`. */
export interface DriftOptions {
  /** The question the analysis should address first. */
  question?: string;
  /** The deployment of both periods (default: the before period's). */
  deploymentId?: string;
  /** Name of the before period (default `before`). */
  beforeLabel?: string;
  /** Name of the after period (default `after`). */
  afterLabel?: string;
  /** Layout of text input, for both periods (default `auto`). */
  format?: InputFormat;
}

/** Options of `verifySignature`. */
export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from `now`, in seconds (default 300). */
  toleranceSecs?: number;
  /** The current time in unix seconds (default: the clock). */
  now?: number;
}

/** The formats `importConversations` reads (`mapping` needs `options.mapping`). */
export type ImportFormat = "chatgpt" | "claude" | "zendesk" | "intercom" | "slack" | "mapping";

/** What `importConversations` reads: one file's contents (text or bytes), named
 * `input`, or an object of file names to contents, read in its order (the names are
 * what errors and `skipped[].at` use). */
export type ImportFiles = string | Uint8Array | Record<string, string | Uint8Array>;

/** Options of `importConversations`. */
export interface ImportOptions {
  /** The mapping document the `mapping` format reads by (an object, or its JSON text or
   * bytes); refused with every other format. */
  mapping?: Record<string, unknown> | string | Uint8Array;
  /** The request's `deployment_id` (default: the format's name). */
  deploymentId?: string;
}

/** An item a connector left out: where (file and position), and why. */
export interface SkippedItem {
  /** E.g. `conversations.json[0].mapping.img`. */
  at: string;
  /** E.g. `no text (an image only)`. */
  reason: string;
}

/** The request a connector produced: what `score` takes. */
export interface ImportedRequest {
  deployment_id: string;
  /** In conversation order; `metadata.role` says who is human. */
  events: UndertoneEvent[];
}

/** What `importConversations` returns. */
export interface ImportResult {
  request: ImportedRequest;
  /** Every item left out, in input order. */
  skipped: SkippedItem[];
}

/** A delivery's headers: a plain object (as Node's `req.headers`), a `Headers`, or
 * any iterable of `[name, value]` pairs; names in any case. */
export type WebhookHeaders =
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

/** The `Error` every function throws for invalid input. */
export interface UndertoneError extends Error {
  /** Stable machine-readable code, e.g. `VALIDATION_ERROR`. */
  code: "VALIDATION_ERROR";
  /** Every broken rule, in input order. */
  details: Violation[];
}

/** One broken rule: where in the input, and what is wrong there. */
export interface Violation {
  /** Field path, e.g. `events[3].timestamp`, or an option name such as `pipeline`. */
  path: string;
  /** What is wrong, written for a person. */
  message: string;
}

/** One turn of a conversation, as sent. */
export interface UndertoneEvent {
  actor_id: string;
  content: string;
  /** RFC 3339 with an offset. */
  timestamp: string;
  context?: string | null;
  metadata?: Record<string, unknown> | null;
  conversation_id?: string | null;
}

/** An ingest request. */
export interface IngestRequest {
  deployment_id?: string;
  events: UndertoneEvent[];
  pipeline?: Pipeline | null;
  webhook_url?: string | null;
}

/** What `validate` returns: the request as scoring sees it (UTC timestamps, trimmed
 * content, `pipeline` filled in). */
export interface ValidatedRequest {
  deployment_id: string;
  events: UndertoneEvent[];
  pipeline: Pipeline;
  webhook_url?: string;
}

export type Band = "healthy" | "watch" | "broken";
export type Archetype =
  | "cx_chatbot" | "internal_copilot" | "ai_tutor" | "healthcare" | "sales_agent"
  | "coding_agent" | "moderation" | "companion" | "custom";

/** One piece of evidence: which signal, on which turn, moved a score by how much. */
export interface Evidence {
  signal: string;
  event_index: number;
  conversation_id?: string;
  contribution: number;
  detail?: string;
}

/** One dimension's value. */
export interface DimensionScore {
  score: number;
  risk: number;
  band: Band;
  direction: "higher_is_better" | "higher_is_worse";
  confidence: number;
  /** Only on `trust_calibration`. */
  mode?: "over_trust" | "under_trust" | "calibrated";
  evidence: Evidence[];
}

/** The six Layer Z dimensions. */
export interface LayerZ<T = DimensionScore> {
  trust_calibration: T;
  frustration_buildup: T;
  dependency_drift: T;
  silent_abandonment_risk: T;
  escalation_friction: T;
  comprehension_gap: T;
}

/** One scored human turn. */
export interface TurnResult {
  /** Position of the event in the request's `events`. */
  event_index: number;
  conversation_id: string;
  actor_id: string;
  timestamp: string;
  layer_z: LayerZ;
}

/** One scored conversation. */
export interface ConversationResult {
  conversation_id: string;
  grouping: "conversation_id" | "metadata_conversation_id" | "actor_context_gap";
  human_actor_ids: string[];
  started_at: string;
  ended_at: string;
  human_turn_count: number;
  ai_turn_count: number;
  resolved: boolean;
  resolution_source: "metadata" | "detected";
  abandoned: boolean;
  layer_z: LayerZ;
  /** The human turns, in order. */
  turns: TurnResult[];
}

/** Everything Undertone read from one request. */
export interface Intelligence {
  scorer_version: string;
  deployment_id: string;
  pipeline_source: "requested" | "detected";
  archetype: Archetype;
  environment: {
    archetype: Archetype;
    confidence: number;
    evidence: { signal: string; detail: string; count: number; contribution: number }[];
  };
  event_count: number;
  conversation_count: number;
  human_turn_count: number;
  layer_z: LayerZ;
  conversations: ConversationResult[];
  without_human_turns: string[];
  key_finding: string;
  falsifiable: boolean;
  prediction: string | null;
  recommendation: string;
  plain_summary: string;
  plain_recommendations: string[];
}

/** `score` with `view: "full"` (the default). */
export interface FullScore {
  pipeline: "support" | "reviews";
  intelligence: Intelligence;
}

/** `score` with `view: "condensed"`. */
export interface CondensedScore {
  /** `null` when scored locally. */
  session_id: string | null;
  archetype: Archetype;
  layer_z: LayerZ;
  key_finding: string;
  falsifiable: boolean;
  recommendation: string;
}

/** One dimension's comparison between the periods. */
export interface DimensionDrift {
  before_n: number;
  after_n: number;
  before_median: number | null;
  after_median: number | null;
  shift: number | null;
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  p_adjusted: number | null;
  effect_size: number | null;
  significant: boolean;
  verdict: "improved" | "regressed" | "unchanged" | "insufficient_data";
  method?: "exact" | "asymptotic";
}

/** Counts of one drift period. */
export interface PeriodSummary {
  label: string;
  event_count: number;
  conversation_count: number;
  human_turn_count: number;
  resolved_rate: number | null;
}

/** What `drift` returns. */
export interface DriftResult {
  scorer_version: string;
  question?: string;
  before: PeriodSummary;
  after: PeriodSummary;
  overall_drift: number;
  direction: "improved" | "regressed" | "mixed" | "stable";
  plain_summary: string;
  plain_recommendations: string[];
  key_findings: string[];
  dimension_drifts: LayerZ<DimensionDrift>;
  outcome_shift: {
    before_n: number;
    before_resolved: number;
    after_n: number;
    after_resolved: number;
    before_rate: number | null;
    after_rate: number | null;
    change_points: number | null;
    p_value: number | null;
    outcome_shift_detected: boolean;
  };
}

/** Scores every human turn of `input`, in the condensed view. */
export function score(input: Input, options: ScoreOptions & { view: "condensed" }): CondensedScore;
/** Scores every human turn of `input`: what `undertone score` prints, as an object. */
export function score(input: Input, options?: ScoreOptions & { view?: "full" }): FullScore;
