// The convenience client: one method per task (ingest, wait, drift, webhooks,
// deployments, sessions) over the generated openapi-fetch client, which it keeps as
// `.raw`. Every method throws ApiError on a non-2xx answer.
import { createClient } from './raw.mjs'
import { ApiError, SessionFailedError, WaitTimeoutError } from './errors.mjs'
import { retryingFetch, sleep } from './transport.mjs'

/** First pause between two reads of a session; doubled after each read up to POLL_MAX_MS. */
const POLL_FIRST_MS = 200
const POLL_MAX_MS = 2000

/** A client of the Undertone API with retries, timeouts, typed errors, waiting and pagination. */
export class Client {
  constructor({
    baseUrl,
    apiKey,
    maxRetries = 3,
    timeoutMs = 30_000,
    maxRetryDelayMs = 30_000,
    fetch = (request) => globalThis.fetch(request),
    headers,
  } = {}) {
    if (typeof baseUrl !== 'string' || baseUrl === '') throw new TypeError('Client: `baseUrl` is required')
    if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('Client: `apiKey` is required')
    for (const [name, value] of Object.entries({ maxRetries, timeoutMs, maxRetryDelayMs })) {
      if (!Number.isInteger(value) || value < 0) throw new TypeError(`Client: \`${name}\` must be a whole number ≥ 0, got ${value}`)
    }
    /** The generated openapi-fetch client, sending through the same retries and timeout. */
    this.raw = createClient({ baseUrl, apiKey, headers, fetch: retryingFetch({ fetch, maxRetries, timeoutMs, maxRetryDelayMs }) })
    /** Webhook endpoints and their deliveries. */
    this.webhooks = new Webhooks(this.raw)
    /** Deployments: their history, reports and drift over date ranges. */
    this.deployments = new Deployments(this)
  }

  /**
   * Submits events (an array, or a whole ingest request) for scoring; resolves with the 202 answer.
   * With `idempotencyKey`, sending the same batch again answers with the session it started.
   */
  async ingest(input, { deploymentId, pipeline, webhookUrl, idempotencyKey, signal } = {}) {
    const body = Array.isArray(input) ? { events: input } : { ...input }
    if (deploymentId !== undefined) body.deployment_id = deploymentId
    if (pipeline !== undefined) body.pipeline = pipeline
    if (webhookUrl !== undefined) body.webhook_url = webhookUrl
    const header = idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }
    return data(await this.raw.POST('/api/v1/ingest', { body, params: { header }, signal }))
  }

  /** Polls a session until it is `complete` (resolves with it) or `failed` (SessionFailedError); WaitTimeoutError after `timeoutMs`. */
  wait(sessionId, options) {
    return poll(
      sessionId,
      async (signal) =>
        data(await this.raw.GET('/api/v1/intelligence/{session_id}', { params: { path: { session_id: sessionId } }, signal })),
      options,
    )
  }

  /** `ingest` then `wait`: the completed session with its full output. */
  async scoreRemote(input, { timeoutMs, signal, ...options } = {}) {
    const accepted = await this.ingest(input, { ...options, signal })
    return this.wait(accepted.session_id, { timeoutMs, signal })
  }

  /** Compares two periods of events (POST /drift); with `wait` (the default) resolves with the completed drift session. */
  async drift(before, after, { question, deploymentId, beforeLabel, afterLabel, wait = true, timeoutMs, signal } = {}) {
    const body = {
      before: period(before, beforeLabel),
      after: period(after, afterLabel),
      question,
      deployment_id: deploymentId ?? before.deployment_id ?? after.deployment_id,
    }
    const accepted = data(await this.raw.POST('/api/v1/drift', { body, signal }))
    return wait ? this.waitDrift(accepted.session_id, { timeoutMs, signal }) : accepted
  }

  /** Polls a drift session as `wait` polls a session: the completed DriftView, or SessionFailedError / WaitTimeoutError. */
  waitDrift(sessionId, options) {
    return poll(
      sessionId,
      async (signal) => data(await this.raw.GET('/api/v1/drift/{session_id}', { params: { path: { session_id: sessionId } }, signal })),
      options,
    )
  }

  /** Every ingest session of the organisation, newest first, fetched a page (`limit`, 1–100) at a time. */
  sessions({ limit, cursor, signal } = {}) {
    return pages(cursor, async (next) =>
      data(await this.raw.GET('/api/v1/sessions', { params: { query: { limit, cursor: next } }, signal })),
    )
  }
}

/** `client.webhooks`: register, list, read, test and delete endpoints, and read their deliveries. */
class Webhooks {
  #raw
  constructor(raw) {
    this.#raw = raw
  }

  /** Registers an endpoint for 1 to 5 event kinds; the answer holds its secret, shown only this once. */
  async create(url, { events, signal }) {
    return data(await this.#raw.POST('/api/v1/webhooks', { body: { url, events }, signal }))
  }

  /** The calling key's endpoints, oldest first. */
  async list({ signal } = {}) {
    return data(await this.#raw.GET('/api/v1/webhooks', { signal })).data
  }

  /** One endpoint, as the list shows it (never its secret). */
  async get(webhookId, { signal } = {}) {
    return data(await this.#raw.GET('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } }, signal }))
  }

  /** Deletes an endpoint; its pending deliveries fail. */
  async delete(webhookId, { signal } = {}) {
    data(await this.#raw.DELETE('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } }, signal }))
  }

  /** Queues a signed `webhook.test` event to this endpoint only. */
  async test(webhookId, { signal } = {}) {
    return data(await this.#raw.POST('/api/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: webhookId } }, signal }))
  }

  /** Every delivery to an endpoint with its attempts, newest first, fetched a page (`limit`, 1–100) at a time. */
  deliveries(webhookId, { limit, cursor, signal } = {}) {
    return pages(cursor, async (next) =>
      data(
        await this.#raw.GET('/api/v1/webhooks/{webhook_id}/deliveries', {
          params: { path: { webhook_id: webhookId }, query: { limit, cursor: next } },
          signal,
        }),
      ),
    )
  }
}

/** `client.deployments`: the organisation's deployments, their daily history, reports and drift over date ranges. */
class Deployments {
  #client
  constructor(client) {
    this.#client = client
  }

  /** The deployments with kept history, by id (every page). */
  async list({ signal } = {}) {
    const all = []
    const each = pages(undefined, async (cursor) =>
      data(await this.#client.raw.GET('/api/v1/deployments', { params: { query: { cursor } }, signal })),
    )
    for await (const deployment of each) all.push(deployment)
    return all
  }

  /** The last `days` (1–366, default 30) of a deployment by UTC day, with deploys and anomalies. */
  async history(deploymentId, { days, signal } = {}) {
    return data(
      await this.#client.raw.GET('/api/v1/deployments/{deployment_id}/history', {
        params: { path: { deployment_id: deploymentId }, query: { days } },
        signal,
      }),
    )
  }

  /** A deployment's User Health Reports, newest first. */
  async reports(deploymentId, { signal } = {}) {
    return data(
      await this.#client.raw.GET('/api/v1/deployments/{deployment_id}/health-reports', {
        params: { path: { deployment_id: deploymentId } },
        signal,
      }),
    ).data
  }

  /** One User Health Report. */
  async report(deploymentId, reportId, { signal } = {}) {
    return data(
      await this.#client.raw.GET('/api/v1/deployments/{deployment_id}/health-reports/{report_id}', {
        params: { path: { deployment_id: deploymentId, report_id: reportId } },
        signal,
      }),
    )
  }

  /** Generates a User Health Report now, over the seven days before the request. */
  async createReport(deploymentId, { signal } = {}) {
    return data(
      await this.#client.raw.POST('/api/v1/deployments/{deployment_id}/health-reports', {
        params: { path: { deployment_id: deploymentId } },
        signal,
      }),
    )
  }

  /** Compares two date ranges of a deployment's kept history; with `wait` (the default) resolves with the completed drift session. */
  async drift(deploymentId, { before, after, question, wait = true, timeoutMs, signal }) {
    const accepted = data(
      await this.#client.raw.POST('/api/v1/deployments/{deployment_id}/drift', {
        params: { path: { deployment_id: deploymentId } },
        body: { before: range(before), after: range(after), question },
        signal,
      }),
    )
    return wait ? this.#client.waitDrift(accepted.session_id, { timeoutMs, signal }) : accepted
  }
}

/** The data of an openapi-fetch result, or its ApiError. */
function data({ data, error, response }) {
  if (!response.ok) throw ApiError.from(response, error)
  return data
}

/**
 * Reads a session with `read(signal)` until it is complete, backing off from
 * POLL_FIRST_MS to POLL_MAX_MS; the deadline also cuts short a read in flight.
 */
async function poll(sessionId, read, { timeoutMs = 60_000, signal } = {}) {
  const deadline = AbortSignal.timeout(timeoutMs)
  const either = signal ? AbortSignal.any([signal, deadline]) : deadline
  let session
  try {
    for (let pause = POLL_FIRST_MS; ; pause = Math.min(2 * pause, POLL_MAX_MS)) {
      session = await read(either)
      if (session.status === 'complete') return session
      if (session.status === 'failed') throw new SessionFailedError(session)
      await sleep(pause, either)
    }
  } catch (e) {
    if (deadline.aborted && !signal?.aborted) throw new WaitTimeoutError(sessionId, timeoutMs, session)
    throw e
  }
}

/** Yields every item of a listing, following `next_cursor` from `cursor` on. */
async function* pages(cursor, fetchPage) {
  do {
    const page = await fetchPage(cursor ?? undefined)
    yield* page.data
    cursor = page.next_cursor
  } while (cursor)
}

/** A drift period: an array of events, or an object with `events` (an ingest request or a period). */
function period(input, label) {
  return Array.isArray(input) ? { events: input, label } : { events: input.events, label: label ?? input.label }
}

/** A history range with its times as RFC 3339 strings. */
function range({ from, to, label }) {
  return { from: rfc3339(from), to: rfc3339(to), label }
}

function rfc3339(time) {
  return time instanceof Date ? time.toISOString() : time
}
