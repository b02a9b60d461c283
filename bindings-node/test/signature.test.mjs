// verifySignature against signatures made here with node:crypto, following the two
// schemes of core/src/signature.rs, and the Standard Webhooks specification's example.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'

import { verifySignature } from '../index.js'

const secret = 'whsec_' + Buffer.from('a key of thirty-two bytes, no more').toString('base64')
const body = JSON.stringify({ type: 'intelligence.ready', data: { session_id: 's-1' } })
const now = Math.floor(Date.now() / 1000)

/** The headers Undertone sends with a delivery of `payload` at `timestamp`. */
function sign(payload, timestamp, id = 'msg_2Lw') {
  const plain = 'sha256=' + createHmac('sha256', Buffer.from(secret, 'utf8')).update(payload).digest('hex')
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  const standard = 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${payload}`).digest('base64')
  return {
    'x-undertone-signature': plain,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard,
  }
}

test('a signed delivery verifies, as a string or a Buffer', () => {
  const headers = sign(body, now)
  assert.equal(verifySignature(secret, body, headers), true)
  assert.equal(verifySignature(secret, Buffer.from(body), headers), true)
})

test('each scheme verifies on its own; header names in any case', () => {
  const { 'x-undertone-signature': plain, ...standard } = sign(body, now)
  assert.equal(verifySignature(secret, body, { 'X-Undertone-Signature': plain }), true)
  assert.equal(verifySignature(secret, body, standard), true)
  assert.equal(verifySignature(secret, body, { ...standard, 'Webhook-Signature': ['v1,AAAA'] }), false)
})

test('a tampered body fails', () => {
  const headers = sign(body, now)
  assert.equal(verifySignature(secret, body.replace('s-1', 's-2'), headers), false)
  assert.equal(verifySignature('whsec_' + Buffer.from('another key').toString('base64'), body, headers), false)
})

test('a timestamp outside the tolerance fails', () => {
  const old = now - 301
  assert.equal(verifySignature(secret, body, sign(body, old)), false)
  assert.equal(verifySignature(secret, body, sign(body, old), { toleranceSecs: 600 }), true)
  assert.equal(verifySignature(secret, body, sign(body, old), { now: old + 10 }), true)
})

test('no signature header at all fails; undefined values are ignored', () => {
  assert.equal(verifySignature(secret, body, {}), false)
  assert.equal(verifySignature(secret, body, { host: 'example.test', 'x-undertone-signature': undefined }), false)
})

test('the Standard Webhooks specification example', () => {
  const headers = {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  }
  const specBody = '{"test": 2432232314}'
  const specSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
  assert.equal(verifySignature(specSecret, specBody, headers, { now: 1614265330 + 10 }), true)
  assert.equal(verifySignature(specSecret, specBody, headers, { now: 1614265330 + 301 }), false)
  assert.equal(verifySignature(specSecret, specBody, headers), false, 'years after the timestamp')
  assert.equal(verifySignature(specSecret, '{"test": 2432232315}', headers, { now: 1614265330 }), false)
})

test('headers as a fetch Headers, a Map or an array of pairs verify as an object does', () => {
  const headers = sign(body, now)
  assert.equal(verifySignature(secret, body, new Headers(headers)), true)
  assert.equal(verifySignature(secret, body, new Map(Object.entries(headers))), true)
  assert.equal(verifySignature(secret, body, Object.entries(headers)), true)
  // A tampered body still fails through each of them.
  const other = body.replace('s-1', 's-2')
  assert.equal(verifySignature(secret, other, new Headers(headers)), false)
  assert.equal(verifySignature(secret, other, new Map(Object.entries(headers))), false)
})

test('an argument or a clock of the wrong kind is a VALIDATION_ERROR at its name', () => {
  const headers = sign(body, now)
  const refused = (call, path, message) => assert.throws(call, (e) => {
    assert.equal(e.code, 'VALIDATION_ERROR')
    assert.deepEqual(e.details, [{ path, message }])
    return true
  })
  refused(() => verifySignature(), 'secret', 'must be a string, got undefined')
  refused(() => verifySignature(1, body, headers), 'secret', 'must be a string, got number')
  refused(() => verifySignature(secret, 2, headers), 'body', 'must be a string, a Uint8Array or an ArrayBuffer, got number')
  refused(() => verifySignature(secret, body, null), 'headers',
    'must be an object of header names to values, or an iterable of [name, value] pairs, got null')
  refused(() => verifySignature(secret, body, { 'webhook-id': 5 }), 'headers.webhook-id',
    'must be a string or an array of strings, got number')
  // NaN and infinities have no JSON form: read as "not given", they would verify
  // against the real clock.
  refused(() => verifySignature(secret, body, headers, { now: NaN }), 'now', 'must be a finite number, got NaN')
  refused(() => verifySignature(secret, body, headers, { now: Infinity }), 'now', 'must be a finite number, got Infinity')
  refused(() => verifySignature(secret, body, headers, { toleranceSecs: -Infinity }), 'toleranceSecs',
    'must be a finite number, got -Infinity')
})
