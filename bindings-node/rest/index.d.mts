import type { Client as FetchClient, ClientOptions } from 'openapi-fetch'
import type { components, operations, paths } from './schema.js'

export type { components, operations, paths }

type Schemas = components['schemas']
/** One event of a conversation (a turn). */
export type BIEEvent = Schemas['BIEEvent']
/** The body of `POST /ingest`. */
export type IngestRequest = Schemas['IngestRequest']
/** The 202 answer to an ingest. */
export type IngestAccepted = Schemas['IngestAccepted']
/** `received` → `processing` → `complete` | `failed`. */
export type SessionStatus = Schemas['SessionStatus']
/** A session read in full; `full_output` is set once `status` is `complete`. */
export type SessionView = Schemas['SessionView']
/** One listed session (`client.sessions()`). */
export type SessionSummary = Schemas['SessionSummary']
/** The 202 answer to a drift request. */
export type DriftAccepted = Schemas['DriftAccepted']
/** A drift session; the comparison is set once `status` is `complete`. */
export type DriftView = Schemas['DriftView']
/** One period of `POST /drift`. */
export type PeriodDoc = Schemas['PeriodDoc']
/** Kinds of event an endpoint can subscribe to. */
export type EventKind = Schemas['EventKind']
/** A registered endpoint, as listed. */
export type WebhookView = Schemas['WebhookView']
/** A registered endpoint with its secret, as created (the only time the secret is shown). */
export type WebhookCreated = Schemas['WebhookCreated']
/** The answer to `POST /webhooks/{id}/test`. */
export type TestQueued = Schemas['TestQueued']
/** A delivery of one event to one endpoint, with every attempt. */
export type DeliveryView = Schemas['DeliveryView']
/** A deployment with kept history. */
export type DeploymentSummary = Schemas['DeploymentSummary']
/** A deployment's history by UTC day. */
export type HistoryView = Schemas['HistoryView']
/** A User Health Report. */
export type ReportView = Schemas['ReportView']
/** A stable error code of the REST API. */
export type ErrorCode = Schemas['Code']
/** One broken rule of a `VALIDATION_ERROR`. */
export type ErrorDetail = Schemas['Detail']

/** Where the API is and how to authenticate, plus any openapi-fetch option. */
export interface UndertoneClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The server's origin, e.g. `http://127.0.0.1:8080` (paths start with `/api/v1`). */
  baseUrl: string
  /** An API key, `ut_live_…`, sent as `Authorization: Bearer`. */
  apiKey: string
}

/** The generated openapi-fetch client of the API at `baseUrl`, authenticated with `apiKey`. */
export declare function createClient(options: UndertoneClientOptions): FetchClient<paths>

/** Options of `new Client(...)`. */
export interface ClientConfig {
  /** The server's origin, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string
  /** An API key, `ut_live_…`. */
  apiKey: string
  /** Retries of a request answered 429 or 503 (default 3; 0 turns retrying off). */
  maxRetries?: number
  /** Longest wait before one retry, in ms (default 30000); a longer `Retry-After` is not waited for: the error is thrown. */
  maxRetryDelayMs?: number
  /** Time allowed to each attempt of a request, in ms (default 30000; 0: none); on expiry it rejects with a `TimeoutError`. */
  timeoutMs?: number
  /** The fetch to send with (default: `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>
  /** Headers added to every request. */
  headers?: Record<string, string>
}

/** What every call accepts: a signal that aborts it. */
export interface CallOptions {
  signal?: AbortSignal
}

/** How long to wait for a session to finish. */
export interface WaitOptions extends CallOptions {
  /** Give up after this many ms (default 60000) with `WaitTimeoutError`. */
  timeoutMs?: number
}

/** Fields of the ingest request set (or overridden) by options. */
export interface IngestOptions extends CallOptions {
  /** The deployment the events come from: required with an array of events. */
  deploymentId?: string
  /** `auto` (default), `support` or `reviews`. */
  pipeline?: IngestRequest['pipeline']
  /** Where to deliver this session's `intelligence.ready`. */
  webhookUrl?: string | null
  /** Sent as `Idempotency-Key`: the same batch sent again with it answers with the session it started. */
  idempotencyKey?: string
}

/** A drift period: its events, or an object holding them (an ingest request, or `{events, label}`). */
export type DriftPeriod = BIEEvent[] | { events: BIEEvent[]; label?: string | null; deployment_id?: string }

/** Options of `client.drift`. */
export interface DriftOptions extends WaitOptions {
  /** A question whose dimensions are reported first. */
  question?: string | null
  /** The deployment the events come from (default: `before`'s or `after`'s `deployment_id`). */
  deploymentId?: string | null
  /** The label of the baseline period (default: its own `label`, else `before`). */
  beforeLabel?: string | null
  /** The label of the compared period (default: its own `label`, else `after`). */
  afterLabel?: string | null
  /** Wait for the result (default true); `false` resolves with the 202 answer. */
  wait?: boolean
}

/** One period of a deployment's history: the conversations that started in `[from, to)`. */
export interface DateRange {
  /** Start, inclusive: a Date or an RFC 3339 string. */
  from: Date | string
  /** End, exclusive: a Date or an RFC 3339 string. */
  to: Date | string
  /** The period's label (default: its times). */
  label?: string | null
}

/** Options of `client.deployments.drift`. */
export interface HistoryDriftOptions extends WaitOptions {
  before: DateRange
  after: DateRange
  question?: string | null
  /** Wait for the result (default true); `false` resolves with the 202 answer. */
  wait?: boolean
}

/** Where to start a listing and how many items to fetch per page. */
export interface PageOptions extends CallOptions {
  /** Items per request, 1–100 (default 20); the iterator fetches every page. */
  limit?: number
  /** Start after this item (a `next_cursor`). */
  cursor?: string
}

/** `X-RateLimit-*` of an answer: the most constrained window. */
export interface RateLimit {
  limit: number | null
  remaining: number | null
  /** When the window resets, in epoch seconds. */
  reset: number | null
}

/** A non-2xx answer of the API, thrown by every `Client` method. */
export declare class ApiError extends Error {
  constructor(fields: {
    status: number
    code: ErrorCode | 'HTTP_ERROR'
    message: string
    details?: ErrorDetail[]
    rateLimit?: RateLimit | null
    retryAfter?: number | null
  })
  name: 'ApiError'
  /** The HTTP status. */
  status: number
  /** The envelope's code; `HTTP_ERROR` when the answer was not the envelope. */
  code: ErrorCode | 'HTTP_ERROR'
  /** For `VALIDATION_ERROR`: every broken rule with its field path. */
  details: ErrorDetail[]
  /** The answer's `X-RateLimit-*` headers; null without them (e.g. an unknown key). */
  rateLimit: RateLimit | null
  /** `Retry-After` in seconds (429, 503); null without it. */
  retryAfter: number | null
  /** The error an answer stands for; `body` is its parsed JSON or text. */
  static from(response: Response, body: unknown): ApiError
}

/** A session (or drift session) ended `failed`. */
export declare class SessionFailedError extends Error {
  constructor(session: SessionView | DriftView)
  name: 'SessionFailedError'
  code: 'SESSION_FAILED'
  /** The session as last read. */
  session: SessionView | DriftView
  /** Why it failed (the session's `error`). */
  error: string | null
}

/** A session was not finished when the wait ran out. */
export declare class WaitTimeoutError extends Error {
  constructor(sessionId: string, timeoutMs: number, session?: SessionView | DriftView)
  name: 'WaitTimeoutError'
  code: 'WAIT_TIMEOUT'
  sessionId: string
  timeoutMs: number
  /** The session as last read; undefined if no read finished in time. */
  session: SessionView | DriftView | undefined
}

/** `client.webhooks`: endpoints and their deliveries. */
export interface Webhooks {
  /** Registers an endpoint for 1 to 5 event kinds; the answer holds its secret, shown only this once. */
  create(url: string, options: { events: EventKind[] } & CallOptions): Promise<WebhookCreated>
  /** The calling key's endpoints, oldest first. */
  list(options?: CallOptions): Promise<WebhookView[]>
  /** One endpoint, as the list shows it (never its secret). */
  get(webhookId: string, options?: CallOptions): Promise<WebhookView>
  /** Deletes an endpoint; its pending deliveries fail. */
  delete(webhookId: string, options?: CallOptions): Promise<void>
  /** Queues a signed `webhook.test` event to this endpoint only. */
  test(webhookId: string, options?: CallOptions): Promise<TestQueued>
  /** Every delivery to an endpoint, newest first, a page at a time. */
  deliveries(webhookId: string, options?: PageOptions): AsyncIterableIterator<DeliveryView>
}

/** `client.deployments`: history, reports and drift over date ranges. */
export interface Deployments {
  /** The deployments with kept history, by id. */
  list(options?: CallOptions): Promise<DeploymentSummary[]>
  /** The last `days` (1–366, default 30) by UTC day, with deploys and anomalies. */
  history(deploymentId: string, options?: { days?: number } & CallOptions): Promise<HistoryView>
  /** The deployment's User Health Reports, newest first. */
  reports(deploymentId: string, options?: CallOptions): Promise<ReportView[]>
  /** One User Health Report. */
  report(deploymentId: string, reportId: string, options?: CallOptions): Promise<ReportView>
  /** Generates a User Health Report now, over the seven days before the request. */
  createReport(deploymentId: string, options?: CallOptions): Promise<ReportView>
  /** Compares two date ranges of the deployment's history and waits for the result. */
  drift(deploymentId: string, options: HistoryDriftOptions & { wait?: true }): Promise<DriftView>
  /** Starts a comparison of two date ranges without waiting: the 202 answer. */
  drift(deploymentId: string, options: HistoryDriftOptions & { wait: false }): Promise<DriftAccepted>
  drift(deploymentId: string, options: HistoryDriftOptions): Promise<DriftView | DriftAccepted>
}

/**
 * A client of the Undertone API: retries 429 and 503 (honouring `Retry-After`), times
 * out each attempt, throws `ApiError` on any non-2xx answer, waits for sessions and
 * iterates over paginated listings.
 */
export declare class Client {
  constructor(config: ClientConfig)
  /** The generated openapi-fetch client, sending through the same retries and timeout. */
  readonly raw: FetchClient<paths>
  /** Webhook endpoints and their deliveries. */
  readonly webhooks: Webhooks
  /** Deployments: their history, reports and drift over date ranges. */
  readonly deployments: Deployments
  /** Submits a whole ingest request (options override its fields): the 202 answer. */
  ingest(request: IngestRequest, options?: IngestOptions): Promise<IngestAccepted>
  /** Submits events of `deploymentId`: the 202 answer. */
  ingest(events: BIEEvent[], options: IngestOptions & { deploymentId: string }): Promise<IngestAccepted>
  /** Polls the session until `complete` (resolves with it); `SessionFailedError` if it fails, `WaitTimeoutError` after `timeoutMs`. */
  wait(sessionId: string, options?: WaitOptions): Promise<SessionView>
  /** `ingest` then `wait`: the completed session with its `full_output`. */
  scoreRemote(request: IngestRequest, options?: IngestOptions & WaitOptions): Promise<SessionView>
  /** `ingest` then `wait` for events of `deploymentId`. */
  scoreRemote(events: BIEEvent[], options: IngestOptions & WaitOptions & { deploymentId: string }): Promise<SessionView>
  /** Compares two periods of events (`POST /drift`) and waits for the result. */
  drift(before: DriftPeriod, after: DriftPeriod, options?: DriftOptions & { wait?: true }): Promise<DriftView>
  /** Starts a comparison of two periods without waiting: the 202 answer. */
  drift(before: DriftPeriod, after: DriftPeriod, options: DriftOptions & { wait: false }): Promise<DriftAccepted>
  drift(before: DriftPeriod, after: DriftPeriod, options?: DriftOptions): Promise<DriftView | DriftAccepted>
  /** Polls a drift session until `complete`, as `wait` does. */
  waitDrift(sessionId: string, options?: WaitOptions): Promise<DriftView>
  /** Every ingest session of the organisation, newest first, a page at a time. */
  sessions(options?: PageOptions): AsyncIterableIterator<SessionSummary>
}
