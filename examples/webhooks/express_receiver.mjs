// An Express 5 receiver of Undertone webhooks: verifies the signature of the raw body
// (401 if bad), drops a delivery it has already seen, answers 204 at once and handles
// the event afterwards (docs/webhooks.md).
//
//   scripts/build-node
//   UNDERTONE_WEBHOOK_SECRET=whsec_… node examples/webhooks/express_receiver.mjs 9000
//
// The check lives in `receiver()`, which knows nothing of Express: call it from any
// framework with the raw body bytes and the request headers.
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

// Express is a dev dependency of the Node package; in your own project these lines are
// `import express from 'express'` and `import { verifySignature } from 'undertone'`.
const require = createRequire(new URL('../../bindings-node/package.json', import.meta.url))
const express = require('express')
const { verifySignature } = require('undertone')

/** Delivery ids remembered for deduplication; the oldest is forgotten beyond this. */
const REMEMBERED = 10_000

/**
 * A function of `(body, headers)` that judges one delivery: `{status: 401}` when the
 * signature does not verify under `secret`, `{status: 204, duplicate: true, id}` for a
 * delivery id already accepted, `{status: 204, duplicate: false, id, event}` for a new
 * one (`event`: the parsed envelope), and `{status: 400}` for a signed body without a
 * delivery id or that is not JSON. `body` is the raw bytes (Buffer or string),
 * `headers` a record of header names in any case to values. `seen` holds accepted delivery ids (in memory here; with several receiver
 * processes, use a shared store with an atomic insert-if-absent, e.g. a unique key).
 */
export function receiver(secret, { seen = new Set(), toleranceSecs } = {}) {
  return function receive(body, headers) {
    // Verify first: an unsigned request must not learn which ids were seen.
    if (!verifySignature(secret, body, headers, { toleranceSecs })) return { status: 401 }
    // The same id on every attempt (X-Undertone-Delivery; Standard Webhooks' webhook-id).
    const id = header(headers, 'x-undertone-delivery') ?? header(headers, 'webhook-id')
    if (id === undefined) return { status: 400 }
    if (seen.has(id)) return { status: 204, duplicate: true, id }
    let event
    try {
      event = JSON.parse(Buffer.from(body).toString('utf8'))
    } catch {
      return { status: 400 }
    }
    seen.add(id)
    if (seen.size > REMEMBERED) seen.delete(seen.values().next().value)
    return { status: 204, duplicate: false, id, event }
  }
}

/**
 * The Express app: `POST /hook` verifies and deduplicates with `receiver`, answers,
 * then calls `handle(event, deliveryId)` (errors go to `onError`). Answering before the
 * work is done keeps within Undertone's 10 s deadline; a handler that must not lose an
 * event should write it to a durable queue first.
 */
export function createApp({ secret, handle, onError = (e) => console.error('webhook handler failed:', e), seen }) {
  const receive = receiver(secret, { seen })
  const app = express()
  // The raw bytes, whatever the content type: the signature covers them, not a re-serialisation.
  app.post('/hook', express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
    const verdict = receive(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers)
    res.sendStatus(verdict.status)
    if (verdict.event !== undefined && !verdict.duplicate) {
      setImmediate(() => Promise.resolve().then(() => handle(verdict.event, verdict.id)).catch(onError))
    }
  })
  return app
}

/** The first value of header `name` (lower case) in a record of headers named in any case. */
function header(headers, name) {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value
  }
  return undefined
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.UNDERTONE_WEBHOOK_SECRET
  if (!secret) throw new Error('set UNDERTONE_WEBHOOK_SECRET to the secret POST /webhooks returned')
  const port = Number(process.argv[2] ?? 9000)
  const handle = (event, id) => console.log(id, event.event_type, event.deployment_id, JSON.stringify(event.data).slice(0, 120))
  const listener = createApp({ secret, handle }).listen(port, '127.0.0.1', () =>
    console.log(`listening on http://127.0.0.1:${listener.address().port}/hook`),
  )
}
