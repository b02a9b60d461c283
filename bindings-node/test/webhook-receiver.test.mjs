// examples/webhooks/express_receiver.mjs, started on a free port and sent deliveries
// signed here with node:crypto the way the server signs them (core/src/signature.rs,
// docs/webhooks.md): a good one is answered 2xx and handled once, a repeat of its
// delivery id is answered 2xx and not handled again, a bad signature is 401.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHmac, randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import { createApp, receiver } from '../../examples/webhooks/express_receiver.mjs'

const secret = 'whsec_' + Buffer.from('the thirty-two bytes of a secret').toString('base64')
/** Every call of the app's handler, in order. */
const handled = []
let server
let url

before(async () => {
  const app = createApp({ secret, handle: (event, id) => handled.push({ id, event }) })
  await new Promise((resolve) => {
    server = app.listen(0, '127.0.0.1', resolve)
  })
  url = `http://127.0.0.1:${server.address().port}/hook`
})

after(() => {
  server?.closeAllConnections()
  server?.close()
})

/** A delivery of an event as the server sends it: its id, body and signed headers. */
function delivery({ id = randomUUID(), key = secret } = {}) {
  const body = JSON.stringify({
    id: randomUUID(),
    event_type: 'intelligence.ready',
    version: 'webhooks-v1.0',
    created_at: new Date().toISOString(),
    org_id: 'default',
    deployment_id: 'acme-support-bot',
    data: { session_id: randomUUID(), status: 'complete' },
  })
  return { id, body, headers: sign(body, id, key) }
}

/** The headers of an attempt of delivery `id` of `body` at `timestamp`, signed under `key` with both schemes. */
function sign(body, id, key = secret, timestamp = Math.floor(Date.now() / 1000)) {
  const plain = 'sha256=' + createHmac('sha256', Buffer.from(key, 'utf8')).update(body).digest('hex')
  const standard =
    'v1,' +
    createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64'))
      .update(`${id}.${timestamp}.${body}`)
      .digest('base64')
  return {
    'Content-Type': 'application/json',
    'User-Agent': 'Undertone-Webhooks/test',
    'X-Undertone-Event': 'intelligence.ready',
    'X-Undertone-Delivery': id,
    'X-Undertone-Signature': plain,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard,
  }
}

const post = ({ body, headers }) => fetch(url, { method: 'POST', body, headers })

/** Lets the handler, scheduled after the answer, run. */
const settle = () => sleep(50)

test('a correctly signed delivery is answered 204 and handled once, with its envelope', async () => {
  const sent = delivery()
  const before = handled.length
  const answer = await post(sent)
  assert.equal(answer.status, 204)
  await settle()
  assert.deepEqual(handled.slice(before), [{ id: sent.id, event: JSON.parse(sent.body) }])
})

test('the same delivery id again is answered 204 and not handled twice', async () => {
  const sent = delivery()
  const before = handled.length
  assert.equal((await post(sent)).status, 204)
  // The server's retry: the same delivery id and body, a later attempt, signed again.
  assert.equal((await post({ body: sent.body, headers: sign(sent.body, sent.id, secret, Math.floor(Date.now() / 1000) + 5) })).status, 204)
  assert.equal((await post(sent)).status, 204)
  await settle()
  assert.deepEqual(
    handled.slice(before).map((h) => h.id),
    [sent.id],
  )
  // Another delivery of the same event (another endpoint's id) is handled: dedupe is by delivery.
  const other = delivery()
  assert.equal((await post(other)).status, 204)
  await settle()
  assert.deepEqual(
    handled.slice(before).map((h) => h.id),
    [sent.id, other.id],
  )
})

test('a bad signature is 401 and not handled, even for a delivery id already seen', async () => {
  const before = handled.length
  const forged = delivery({ key: 'whsec_' + Buffer.from('someone else entirely').toString('base64') })
  assert.equal((await post(forged)).status, 401)

  const tampered = delivery()
  assert.equal((await post({ ...tampered, body: tampered.body.replace('complete', 'failed') })).status, 401)

  const unsigned = delivery()
  const { 'X-Undertone-Signature': _, 'webhook-signature': __, ...bare } = unsigned.headers
  assert.equal((await post({ ...unsigned, headers: bare })).status, 401)

  const seen = handled.at(-1).id
  assert.equal((await post({ ...forged, headers: { ...forged.headers, 'X-Undertone-Delivery': seen, 'webhook-id': seen } })).status, 401)
  await settle()
  assert.equal(handled.length, before)
})

test('the check works without Express: raw bytes and headers in any case', () => {
  const receive = receiver(secret)
  const sent = delivery()
  const first = receive(Buffer.from(sent.body), sent.headers)
  assert.deepEqual(first, { status: 204, duplicate: false, id: sent.id, event: JSON.parse(sent.body) })
  assert.deepEqual(receive(sent.body, sent.headers), { status: 204, duplicate: true, id: sent.id })
  assert.deepEqual(receive(sent.body, { ...sent.headers, 'X-Undertone-Signature': 'sha256=00' }), { status: 401 })
})

test('run as a script, the example prints each delivery it handles', async () => {
  const script = fileURLToPath(new URL('../../examples/webhooks/express_receiver.mjs', import.meta.url))
  const child = spawn(process.execPath, [script, '0'], {
    env: { ...process.env, UNDERTONE_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    const deadline = Date.now() + 10_000
    while (!/listening on (\S+)/.test(output)) {
      assert.ok(Date.now() < deadline, `no "listening on" in 10 s: ${output}`)
      await sleep(20)
    }
    const hook = output.match(/listening on (\S+)/)[1]
    const sent = delivery()
    const answer = await fetch(hook, { method: 'POST', body: sent.body, headers: sent.headers })
    assert.equal(answer.status, 204)
    const line = `${sent.id} intelligence.ready acme-support-bot ${JSON.stringify(JSON.parse(sent.body).data)}`
    while (!output.includes(line)) {
      assert.ok(Date.now() < deadline, `no "${line}" in:\n${output}`)
      await sleep(20)
    }
  } finally {
    child.kill()
  }
})
