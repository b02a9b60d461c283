// The convenience Client of `undertone/rest`: every call against a live server
// (target/debug/undertone, built by scripts/test-node), then the retry, error, wait and
// timeout rules against small stub servers that answer exactly what each rule needs.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import { drift, score } from '../index.js'
import { ApiError, Client, createClient, SessionFailedError, WaitTimeoutError } from '../rest/index.mjs'
import { createApp } from '../../examples/webhooks/express_receiver.mjs'

const root = fileURLToPath(new URL('../../', import.meta.url))
const binary = process.env.UNDERTONE_BIN ?? join(root, 'target/debug/undertone')
const example = join(root, 'examples/support-refund-goes-wrong.json')
const driftV1 = join(root, 'examples/drift-v1.json')
const driftV2 = join(root, 'examples/drift-v2.json')
const read = (file) => JSON.parse(readFileSync(file, 'utf8'))

let server
let dir
let baseUrl
let apiKey
/** Ids of the sessions this file ingests, oldest first. */
const ingested = []

/** Starts the server on a free port with an empty database; resolves with its URL and key. */
function start() {
  dir = mkdtempSync(join(tmpdir(), 'undertone-node-client-'))
  const args = ['serve', '--addr', '127.0.0.1:0', '--database', `sqlite://${join(dir, 'u.db')}`, '--allow-private-webhooks']
  server = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output}`)), 20_000)
    const onData = (chunk) => {
      output += chunk
      const key = output.match(/\b(ut_live_[A-Za-z0-9]+)/)
      const url = output.match(/undertone: listening on (http:\/\/127\.0\.0\.1:\d+)/)
      if (key && url) {
        clearTimeout(timer)
        resolve({ key: key[1], url: url[1] })
      }
    }
    server.stdout.setEncoding('utf8').on('data', onData)
    server.stderr.setEncoding('utf8').on('data', onData)
    server.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    server.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${output}`))
    })
  })
}

before(async () => {
  const started = await start()
  baseUrl = started.url
  apiKey = started.key
})

after(() => {
  server?.kill('SIGKILL')
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** Calls `check` until it returns a truthy value; fails after `ms`. */
async function eventually(check, ms, what) {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value) return value
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms`)
    await sleep(50)
  }
}

/** Everything an async iterator yields. */
async function collect(iterator) {
  const items = []
  for await (const item of iterator) items.push(item)
  return items
}

describe('against a live server', () => {
  const client = () => new Client({ baseUrl, apiKey })

  test('ingest answers 202 with the session; wait resolves with it complete', async () => {
    const body = read(example)
    const accepted = await client().ingest(body.events, { deploymentId: body.deployment_id, pipeline: 'support' })
    ingested.push(accepted.session_id)
    assert.match(accepted.session_id, /^[0-9a-f-]{36}$/)
    assert.equal(accepted.event_count, body.events.length)
    assert.equal(accepted.status, 'received')
    assert.equal(accepted.poll_url, `/api/v1/intelligence/${accepted.session_id}`)

    const session = await client().wait(accepted.session_id, { timeoutMs: 20_000 })
    assert.equal(session.session_id, accepted.session_id)
    assert.equal(session.status, 'complete')
    assert.equal(session.error, null)
    assert.equal(session.event_count, body.events.length)
    assert.equal(session.full_output.pipeline, 'support')
  })

  test('with an idempotencyKey, the same batch sent again answers with its session', async () => {
    const body = read(example)
    const idempotencyKey = randomUUID()
    const first = await client().ingest(body, { idempotencyKey })
    ingested.push(first.session_id)
    const again = await client().ingest(body, { idempotencyKey })
    assert.deepEqual(again, first)
    const reused = await client()
      .ingest(body, { idempotencyKey, pipeline: 'reviews' })
      .catch((e) => e)
    assert.ok(reused instanceof ApiError)
    assert.deepEqual([reused.status, reused.code], [409, 'CONFLICT'])
    assert.equal((await client().wait(first.session_id, { timeoutMs: 20_000 })).status, 'complete')
  })

  test('scoreRemote of a file equals local score() of it', async () => {
    const session = await client().scoreRemote(read(example), { timeoutMs: 20_000 })
    ingested.push(session.session_id)
    assert.equal(session.status, 'complete')
    assert.deepEqual(session.full_output, score(example))
    assert.equal(Object.keys(session.full_output.intelligence.layer_z).length, 6)
  })

  test('drift of two files equals local drift() of them', async () => {
    const remote = await client().drift(read(driftV1), read(driftV2), {
      question: 'Did v2 frustrate customers more?',
      beforeLabel: 'v1',
      timeoutMs: 20_000,
    })
    const local = drift(driftV1, driftV2, { question: 'Did v2 frustrate customers more?' })
    assert.equal(remote.status, 'complete')
    assert.equal(remote.before_label, 'v1')
    assert.equal(remote.after_label, 'after')
    assert.equal(remote.event_count, read(driftV1).events.length + read(driftV2).events.length)
    assert.equal(remote.direction, local.direction)
    assert.equal(remote.overall_drift, local.overall_drift)
    assert.deepEqual(remote.dimension_drifts, local.dimension_drifts)
    assert.equal(remote.direction, 'regressed')

    const accepted = await client().drift(read(driftV1).events, read(driftV2).events, {
      deploymentId: 'acme-support-bot',
      wait: false,
    })
    assert.equal(accepted.status, 'received')
    assert.equal(accepted.poll_url, `/api/v1/drift/${accepted.session_id}`)
    const later = await client().waitDrift(accepted.session_id, { timeoutMs: 20_000 })
    assert.deepEqual(later.dimension_drifts, local.dimension_drifts)
  })

  test('deployments: list, history, drift over two date ranges, reports', async () => {
    for (const file of [driftV1, driftV2]) {
      ingested.push((await client().scoreRemote(read(file), { timeoutMs: 20_000 })).session_id)
    }
    const deployments = await client().deployments.list()
    assert.deepEqual(
      deployments.map((d) => d.deployment_id),
      ['acme-support-bot'],
    )
    // 40 + 40 conversations from the drift files, and the refund example's.
    const refundConversations = score(example).intelligence.conversation_count
    assert.equal(deployments[0].conversations, 80 + refundConversations)

    const history = await client().deployments.history('acme-support-bot', { days: 366 })
    assert.equal(history.deployment_id, 'acme-support-bot')
    const days = history.days.map((d) => d.date)
    assert.deepEqual(days.slice(0, 1), ['2026-11-02'])
    assert.deepEqual(days, [...days].sort())
    assert.equal(
      history.days.reduce((n, d) => n + d.conversations, 0),
      80 + refundConversations,
    )

    const byRange = await client().deployments.drift('acme-support-bot', {
      before: { from: new Date('2026-11-02T00:00:00Z'), to: '2026-11-09T00:00:00Z', label: 'v1 week' },
      after: { from: '2026-11-09T00:00:00Z', to: new Date('2026-11-16T00:00:00Z') },
      question: 'Did v2 frustrate customers more?',
      timeoutMs: 20_000,
    })
    const byFiles = drift(driftV1, driftV2)
    assert.equal(byRange.status, 'complete')
    assert.equal(byRange.before_label, 'v1 week')
    assert.equal(byRange.event_count, 0)
    assert.equal(byRange.direction, byFiles.direction)
    for (const [dimension, expected] of Object.entries(byFiles.dimension_drifts)) {
      const got = byRange.dimension_drifts[dimension]
      for (const field of ['before_n', 'after_n', 'before_median', 'after_median', 'p_value', 'verdict']) {
        assert.equal(got[field], expected[field], `${dimension}.${field}`)
      }
    }

    const report = await client().deployments.createReport('acme-support-bot')
    assert.match(report.id, /^uhr_/)
    assert.equal(report.deployment_id, 'acme-support-bot')
    assert.equal(report.trigger, 'request')
    assert.deepEqual(await client().deployments.report('acme-support-bot', report.id), report)
    // The server may also have generated the weekly reports of past weeks by now.
    const reports = await client().deployments.reports('acme-support-bot')
    assert.ok(reports.some((r) => r.id === report.id))
    const created = reports.map((r) => r.created_at)
    assert.deepEqual(created, [...created].sort().reverse())
  })

  test('webhooks: create, list, test, deliveries over several pages, delete', async () => {
    // A receiver from the Express example, given its secret once registration returns it.
    let app
    const handled = []
    const receiver = createServer((req, res) => app(req, res))
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${receiver.address().port}/hook`
      const created = await client().webhooks.create(url, { events: ['intelligence.ready', 'anomaly_detected'] })
      app = createApp({ secret: created.secret, handle: (event, id) => handled.push({ event, id }) })
      assert.match(created.id, /^wh_/)
      assert.match(created.secret, /^whsec_/)
      assert.equal(created.url, url)
      assert.deepEqual(created.events, ['intelligence.ready', 'anomaly_detected'])

      const listed = await client().webhooks.list()
      assert.deepEqual(
        listed.map((w) => [w.id, w.url, w.failure_count, w.disabled]),
        [[created.id, url, 0, null]],
      )
      assert.deepEqual(await client().webhooks.get(created.id), listed[0])

      const queued = []
      for (let i = 0; i < 5; i += 1) queued.push(await client().webhooks.test(created.id))
      assert.deepEqual(new Set(queued.map((q) => q.event_type)), new Set(['webhook.test']))
      assert.equal(queued[0].deliveries_url, `/api/v1/webhooks/${created.id}/deliveries`)

      // Signed by the server, verified by the example receiver.
      await eventually(() => handled.length === 5, 10_000, 'five test deliveries handled')
      assert.deepEqual(new Set(handled.map((h) => h.event.id)), new Set(queued.map((q) => q.event_id)))
      assert.ok(handled.every((h) => h.event.data.webhook_id === created.id))

      const deliveries = await eventually(
        async () => {
          const all = await collect(client().webhooks.deliveries(created.id, { limit: 2 }))
          return all.every((d) => d.status === 'succeeded') && all
        },
        10_000,
        'five deliveries succeeded',
      )
      assert.equal(deliveries.length, 5)
      assert.equal(new Set(deliveries.map((d) => d.id)).size, 5)
      assert.deepEqual(new Set(deliveries.map((d) => d.event_id)), new Set(queued.map((q) => q.event_id)))
      assert.deepEqual(new Set(deliveries.map((d) => d.id)), new Set(handled.map((h) => h.id)))
      // Three pages of two, in the order one page of a hundred gives: newest first.
      const onePage = await client().raw.GET('/api/v1/webhooks/{webhook_id}/deliveries', {
        params: { path: { webhook_id: created.id }, query: { limit: 100 } },
      })
      assert.deepEqual(
        deliveries.map((d) => d.id),
        onePage.data.data.map((d) => d.id),
      )
      const times = deliveries.map((d) => d.created_at)
      assert.deepEqual(times, [...times].sort().reverse())
      assert.ok(deliveries.every((d) => d.attempts === 1 && d.attempt_log[0].response_status === 204))

      await client().webhooks.delete(created.id)
      assert.deepEqual(await client().webhooks.list(), [])
      const gone = await client().webhooks.test(created.id).catch((e) => e)
      assert.ok(gone instanceof ApiError)
      assert.deepEqual([gone.status, gone.code], [404, 'NOT_FOUND'])
      const unread = await client().webhooks.get(created.id).catch((e) => e)
      assert.deepEqual([unread.status, unread.code], [404, 'NOT_FOUND'])
    } finally {
      receiver.close()
    }
  })

  test('sessions iterates every page, newest first, without duplicates', async () => {
    const all = await collect(client().sessions({ limit: 2 }))
    const ids = all.map((s) => s.session_id)
    assert.equal(new Set(ids).size, ids.length)
    assert.deepEqual(ids, [...ingested].reverse())
    assert.ok(all.every((s) => s.status === 'complete' && s.deployment_id === 'acme-support-bot'))
  })

  test('a bad key is an ApiError with code UNAUTHORIZED and status 401', async () => {
    const refused = await new Client({ baseUrl, apiKey: 'ut_live_not-a-key' }).deployments.list().catch((e) => e)
    assert.ok(refused instanceof ApiError)
    assert.ok(refused instanceof Error)
    assert.equal(refused.name, 'ApiError')
    assert.equal(refused.status, 401)
    assert.equal(refused.code, 'UNAUTHORIZED')
    assert.match(refused.message, /key/)
    assert.deepEqual(refused.details, [])
    assert.equal(refused.retryAfter, null)
  })

  test('a validation error carries its details and the rate-limit headers', async () => {
    const refused = await client()
      .ingest([], { deploymentId: 'acme-support-bot' })
      .catch((e) => e)
    assert.ok(refused instanceof ApiError)
    assert.deepEqual([refused.status, refused.code], [400, 'VALIDATION_ERROR'])
    assert.deepEqual(refused.details, [{ path: 'events', message: 'must hold 1 to 5000 events, got 0' }])
    assert.equal(refused.rateLimit.limit, 1000)
    assert.ok(refused.rateLimit.remaining > 900 && refused.rateLimit.remaining < 1000, `${refused.rateLimit.remaining}`)
    assert.ok(refused.rateLimit.reset > Date.now() / 1000, `${refused.rateLimit.reset}`)
  })

  test('createClient still gives the generated client', async () => {
    const raw = createClient({ baseUrl, apiKey })
    const listed = await raw.GET('/api/v1/deployments')
    assert.equal(listed.response.status, 200)
    assert.deepEqual(
      listed.data.data.map((d) => d.deployment_id),
      ['acme-support-bot'],
    )
  })
})

/**
 * A server on 127.0.0.1 answering with `respond(request, n)` (n counts from 1); it
 * records each request's method, URL, headers and body.
 */
async function stub(respond) {
  const requests = []
  const http = createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const request = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
    requests.push(request)
    const answer = respond(request, requests.length)
    if (answer === null) return // never answers
    const { status, headers = {}, body } = answer
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(body === undefined || typeof body === 'string' ? body : JSON.stringify(body))
  })
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${http.address().port}`,
    requests,
    close: () => {
      http.closeAllConnections()
      http.close()
    },
  }
}

const SESSION_ID = '0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c'
const ACCEPTED = { session_id: SESSION_ID, event_count: 1, status: 'received', poll_url: `/api/v1/intelligence/${SESSION_ID}` }
const EVENTS = [{ actor_id: 'u', content: 'hi', timestamp: '2026-11-21T09:30:00Z' }]
const RATE_LIMITED = {
  status: 429,
  headers: { 'retry-after': '1', 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1795590000' },
  body: { error: { code: 'RATE_LIMITED', message: 'the hourly window of 1000 requests is full' } },
}
/** A session as GET /intelligence answers it, with `status`. */
const session = (status, error = null) => ({ session_id: SESSION_ID, status, event_count: 1, created_at: '2026-11-21T09:31:00Z', error })

describe('against stub servers', () => {
  test('429 with Retry-After: 1, then 202: the call succeeds after about a second, sending the same request twice', async () => {
    const api = await stub((_, n) => (n === 1 ? RATE_LIMITED : { status: 202, body: ACCEPTED }))
    try {
      const started = Date.now()
      const accepted = await new Client({ baseUrl: api.url, apiKey: 'ut_live_k' }).ingest(EVENTS, { deploymentId: 'bot' })
      const elapsed = Date.now() - started
      assert.deepEqual(accepted, ACCEPTED)
      assert.equal(api.requests.length, 2)
      assert.ok(elapsed >= 950 && elapsed < 2500, `${elapsed} ms`)
      const [first, second] = api.requests
      assert.deepEqual(JSON.parse(second.body), { events: EVENTS, deployment_id: 'bot' })
      assert.equal(second.body, first.body)
      assert.deepEqual(
        api.requests.map((r) => [r.method, r.url, r.headers.authorization, r.headers['content-type']]),
        Array(2).fill(['POST', '/api/v1/ingest', 'Bearer ut_live_k', 'application/json']),
      )
    } finally {
      api.close()
    }
  })

  test('maxRetries 0: the 429 is an ApiError with the rate-limit headers', async () => {
    const api = await stub(() => RATE_LIMITED)
    try {
      const client = new Client({ baseUrl: api.url, apiKey: 'ut_live_k', maxRetries: 0 })
      const refused = await client.ingest(EVENTS, { deploymentId: 'bot' }).catch((e) => e)
      assert.ok(refused instanceof ApiError)
      assert.equal(api.requests.length, 1)
      assert.equal(refused.status, 429)
      assert.equal(refused.code, 'RATE_LIMITED')
      assert.equal(refused.message, 'the hourly window of 1000 requests is full')
      assert.deepEqual(refused.rateLimit, { limit: 1000, remaining: 0, reset: 1795590000 })
      assert.equal(refused.retryAfter, 1)
    } finally {
      api.close()
    }
  })

  test('503 without Retry-After is retried with backoff, maxRetries times, then thrown', async () => {
    const api = await stub(() => ({ status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'queue full' } } }))
    try {
      const started = Date.now()
      const refused = await new Client({ baseUrl: api.url, apiKey: 'ut_live_k', maxRetries: 2 }).deployments.list().catch((e) => e)
      const elapsed = Date.now() - started
      assert.equal(api.requests.length, 3)
      assert.deepEqual([refused.status, refused.code, refused.retryAfter, refused.rateLimit], [503, 'SERVICE_UNAVAILABLE', null, null])
      // Backoff of 250–500 ms, then 500–1000 ms.
      assert.ok(elapsed >= 700 && elapsed < 2500, `${elapsed} ms`)
    } finally {
      api.close()
    }
  })

  test('a Retry-After longer than maxRetryDelayMs is not waited for', async () => {
    const api = await stub(() => ({ ...RATE_LIMITED, headers: { ...RATE_LIMITED.headers, 'retry-after': '3600' } }))
    try {
      const client = new Client({ baseUrl: api.url, apiKey: 'ut_live_k', maxRetryDelayMs: 5_000 })
      const refused = await client.webhooks.list().catch((e) => e)
      assert.equal(api.requests.length, 1)
      assert.deepEqual([refused.status, refused.retryAfter], [429, 3600])
    } finally {
      api.close()
    }
  })

  test('an answer that is not the envelope is still an ApiError', async () => {
    const api = await stub(() => ({ status: 502, headers: { 'content-type': 'text/html' }, body: 'bad gateway' }))
    try {
      const refused = await new Client({ baseUrl: api.url, apiKey: 'ut_live_k' }).wait(SESSION_ID).catch((e) => e)
      assert.ok(refused instanceof ApiError)
      assert.deepEqual([refused.status, refused.code, refused.message], [502, 'HTTP_ERROR', 'bad gateway'])
    } finally {
      api.close()
    }
  })

  test('wait on a session that fails rejects with SessionFailedError carrying it', async () => {
    const api = await stub((_, n) => ({ status: 200, body: n < 3 ? session('processing') : session('failed', 'scoring took too long') }))
    try {
      const failed = await new Client({ baseUrl: api.url, apiKey: 'ut_live_k' }).wait(SESSION_ID).catch((e) => e)
      assert.ok(failed instanceof SessionFailedError)
      assert.equal(failed.code, 'SESSION_FAILED')
      assert.equal(failed.error, 'scoring took too long')
      assert.deepEqual(failed.session, session('failed', 'scoring took too long'))
      assert.equal(failed.message, `session ${SESSION_ID} failed: scoring took too long`)
      assert.deepEqual(
        api.requests.map((r) => r.url),
        Array(3).fill(`/api/v1/intelligence/${SESSION_ID}`),
      )
    } finally {
      api.close()
    }
  })

  test('wait gives up after timeoutMs with WaitTimeoutError, having backed off', async () => {
    const api = await stub(() => ({ status: 200, body: session('processing') }))
    try {
      const started = Date.now()
      const late = await new Client({ baseUrl: api.url, apiKey: 'ut_live_k' }).wait(SESSION_ID, { timeoutMs: 700 }).catch((e) => e)
      const elapsed = Date.now() - started
      assert.ok(late instanceof WaitTimeoutError)
      assert.equal(late.code, 'WAIT_TIMEOUT')
      assert.equal(late.sessionId, SESSION_ID)
      assert.equal(late.timeoutMs, 700)
      assert.equal(late.session.status, 'processing')
      assert.ok(elapsed >= 690 && elapsed < 1500, `${elapsed} ms`)
      // Reads at 0, 200 and 600 ms: the pause doubles.
      assert.equal(api.requests.length, 3)
    } finally {
      api.close()
    }
  })

  test('a request that outlives timeoutMs is aborted with a TimeoutError', async () => {
    const api = await stub(() => null)
    try {
      const started = Date.now()
      const client = new Client({ baseUrl: api.url, apiKey: 'ut_live_k', timeoutMs: 300 })
      const aborted = await client.deployments.list().catch((e) => e)
      assert.equal(aborted.name, 'TimeoutError')
      assert.ok(Date.now() - started < 2000)
      assert.equal(api.requests.length, 1)
    } finally {
      api.close()
    }
  })
})
