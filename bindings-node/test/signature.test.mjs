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
