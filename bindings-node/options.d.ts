// Generated from undertone-core's option tables (core/src/sdk/host.rs).

/** Options of `score`. */
export interface ScoreOptions {
  /** The deployment of a list of events (required for one); a request's own must equal it. */
  deploymentId?: string | null
  /** Overrides the request's `pipeline`. */
  pipeline?: 'auto' | 'support' | 'reviews' | null
  /** `full` (default): every conversation and turn; `condensed`: the summary; `turns`: one flat row per human turn. */
  view?: 'full' | 'condensed' | 'turns' | null
  /** Layout of text or bytes: `auto` (default: JSON Lines by name or content), `json` or `jsonl`. */
  format?: 'auto' | 'json' | 'jsonl' | null
}

/** Options of `validate`. */
export interface ValidateOptions {
  /** The deployment of a list of events (required for one); a request's own must equal it. */
  deploymentId?: string | null
  /** Layout of text or bytes: `auto` (default: JSON Lines by name or content), `json` or `jsonl`. */
  format?: 'auto' | 'json' | 'jsonl' | null
}

/** Options of `drift`. */
export interface DriftOptions {
  /** The question the analysis should address first. */
  question?: string | null
  /** The deployment of both periods; default: the before period's. */
  deploymentId?: string | null
  /** Name of the before period; default: its file name, or `before`. */
  beforeLabel?: string | null
  /** Name of the after period; default: its file name, or `after`. */
  afterLabel?: string | null
  /** Layout of text or bytes: `auto` (default: JSON Lines by name or content), `json` or `jsonl`. */
  format?: 'auto' | 'json' | 'jsonl' | null
}

/** Options of `importConversations`. */
export interface ImportOptions {
  /** The request's `deployment_id`; default: the format's name. */
  deploymentId?: string | null
  /** The `mapping` format's document (refused with every other format). */
  mapping?: Record<string, unknown> | string | Uint8Array | null
}

/** Options of `verifySignature`. */
export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, in seconds; default 300. */
  toleranceSecs?: number | null
  /** Now, in unix seconds; default: the clock. */
  now?: number | null
}
