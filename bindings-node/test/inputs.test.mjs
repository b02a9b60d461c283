// Every input form and option of the binding, and the errors it throws.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { drift, driftAsync, score, scoreAsync, validate, verifySignature } from '../index.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const example = join(root, 'examples/support-refund-goes-wrong.json')
const request = JSON.parse(readFileSync(example, 'utf8'))
const reference = score(request)

/** Asserts that `fn` throws a core error with `code` whose details name exactly `paths`. */
function assertFails(fn, code, paths) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, 'an Error')
    assert.equal(e.code, code)
    assert.deepEqual(
      e.details.map((d) => d.path),
      paths,
    )
    assert.equal(typeof e.message, 'string')
    return true
  })
}

test('a request object scores to its full output', () => {
  assert.equal(reference.pipeline, 'support')
  assert.equal(reference.intelligence.deployment_id, request.deployment_id)
  assert.equal(reference.intelligence.event_count, request.events.length)
  assert.ok(reference.intelligence.human_turn_count > 0)
})

test('an array of events with deploymentId scores like the request', () => {
  const result = score(request.events, { deploymentId: request.deployment_id, pipeline: request.pipeline })
  assert.deepEqual(result, reference)
})

test('a Buffer of JSON Lines scores like the request', () => {
  const lines = request.events.map((e) => JSON.stringify(e)).join('\n') + '\n'
  const options = { deploymentId: request.deployment_id, pipeline: request.pipeline }
  assert.deepEqual(score(Buffer.from(lines), options), reference)
  assert.deepEqual(score(new Uint8Array(Buffer.from(lines)), { ...options, format: 'jsonl' }), reference)
})

test('a file path is read, and .jsonl names are JSON Lines', () => {
  assert.deepEqual(score(example), reference)
  const dir = mkdtempSync(join(tmpdir(), 'undertone-node-'))
  const path = join(dir, 'events.jsonl')
  writeFileSync(path, request.events.map((e) => JSON.stringify(e)).join('\n'))
  const options = { deploymentId: request.deployment_id, pipeline: request.pipeline }
  assert.deepEqual(score(path, options), reference)
})

test('the condensed view is the full output, condensed', () => {
  const condensed = score(example, { view: 'condensed' })
  assert.deepEqual(Object.keys(condensed).sort(), [
    'archetype',
    'falsifiable',
    'key_finding',
    'layer_z',
    'recommendation',
    'session_id',
  ])
  assert.equal(condensed.session_id, null)
  assert.deepEqual(condensed.layer_z, reference.intelligence.layer_z)
  assert.equal(condensed.key_finding, reference.intelligence.key_finding)
})

test('the pipeline option overrides the request', () => {
  assert.equal(score(example, { pipeline: 'reviews' }).pipeline, 'reviews')
  assert.equal(score(example, { pipeline: null, view: undefined }).pipeline, 'support')
})

test('a bad option value is a validation error at the option', () => {
  assertFails(() => score(example, { pipeline: 'Support' }), 'VALIDATION_ERROR', ['pipeline'])
  assertFails(() => score(example, { view: 'short' }), 'VALIDATION_ERROR', ['view'])
  assertFails(() => score(example, { format: 'csv' }), 'VALIDATION_ERROR', ['format'])
})

test('an option of the wrong type or name is a validation error at the option', () => {
  assertFails(() => score(example, { deploymentId: 7, view: true }), 'VALIDATION_ERROR', ['deploymentId', 'view'])
  assertFails(() => score(example, { deployment_id: 'shop-bot' }), 'VALIDATION_ERROR', ['deployment_id'])
  assertFails(() => drift(example, example, { beforeLabel: ['v1'] }), 'VALIDATION_ERROR', ['beforeLabel'])
  assertFails(() => score(example, 'full'), 'VALIDATION_ERROR', ['options'])
})

test('an array without deploymentId names the deploymentId option', () => {
  assertFails(() => score(request.events), 'VALIDATION_ERROR', ['deploymentId'])
  assertFails(() => score(request, { deploymentId: 'another-bot' }), 'VALIDATION_ERROR', ['deploymentId'])
})

test('an input without JSON (undefined, a function) is refused at its name', () => {
  const expected = 'must be a request object, an array of events, a file path, a Uint8Array or an ArrayBuffer'
  assert.throws(
    () => score(undefined),
    (e) => {
      assert.equal(e.code, 'VALIDATION_ERROR')
      assert.deepEqual(e.details, [{ path: 'input', message: `${expected}, got undefined` }])
      return true
    },
  )
  assertFails(() => validate(() => 1), 'VALIDATION_ERROR', ['input'])
  assertFails(() => drift(example, undefined), 'VALIDATION_ERROR', ['after'])
  assertFails(() => drift(Symbol('x'), example), 'VALIDATION_ERROR', ['before'])
  // null has JSON: it is read, and refused as a body that is not a request.
  assertFails(() => score(null), 'VALIDATION_ERROR', ['body'])
})

test('a missing file is IO_ERROR naming the file', () => {
  assert.throws(
    () => score(join(root, 'no-such-file.json')),
    (e) => {
      assert.equal(e.code, 'IO_ERROR')
      assert.match(e.message, /^cannot read .*no-such-file\.json: /)
      assert.deepEqual(e.details, [])
      return true
    },
  )
})

test('validate returns the request as scoring sees it', () => {
  const validated = validate(
    [{ actor_id: 'u1', content: '  my order is late ', timestamp: '2026-11-21T10:30:00+01:00' }],
    { deploymentId: 'shop-bot' },
  )
  assert.deepEqual(validated, {
    deployment_id: 'shop-bot',
    events: [{ actor_id: 'u1', content: 'my order is late', timestamp: '2026-11-21T09:30:00Z' }],
    pipeline: 'auto',
  })
  assertFails(() => validate({ deployment_id: 'shop-bot' }), 'VALIDATION_ERROR', ['events'])
})

test('drift labels default to the file names', () => {
  const result = drift(join(root, 'examples/drift-v1.json'), join(root, 'examples/drift-v2.json'))
  assert.equal(result.before.label, 'drift-v1')
  assert.equal(result.after.label, 'drift-v2')
  assert.equal(result.question, undefined)
  const objects = JSON.parse(readFileSync(join(root, 'examples/drift-v1.json'), 'utf8'))
  const labelled = drift(objects, objects, { question: 'did anything change?' })
  assert.deepEqual([labelled.before.label, labelled.after.label], ['before', 'after'])
  assert.equal(labelled.question, 'did anything change?')
  assert.equal(labelled.direction, 'stable')
})

test("view 'turns' is one flat row per human turn, the full output's turns", () => {
  const rows = score(request, { view: 'turns' })
  const turns = reference.intelligence.conversations.flatMap((c) => c.turns)
  assert.equal(rows.length, turns.length)
  rows.forEach((row, i) => {
    const t = turns[i]
    assert.equal(row.conversation_id, t.conversation_id)
    assert.equal(row.actor_id, t.actor_id)
    assert.equal(row.timestamp, t.timestamp)
    for (const [dimension, d] of Object.entries(t.layer_z)) {
      assert.equal(row[dimension], d.score, `${i} ${dimension}`)
      assert.equal(row[`${dimension}_band`], d.band, `${i} ${dimension}`)
    }
  })
  assert.deepEqual(rows.map((r) => r.turn).slice(0, 3), [1, 2, 3])
})

test('scoreAsync and driftAsync report a bad argument as a rejected Promise, never a throw', async () => {
  // Each call returns a Promise (no exception escapes the call itself), and the
  // Promise rejects with the error the synchronous function throws.
  const calls = [
    [() => scoreAsync(), () => score(), 'VALIDATION_ERROR'],
    [() => scoreAsync({ events: [1n] }), () => score({ events: [1n] }), undefined],
    [() => scoreAsync(example, { view: 3 }), () => score(example, { view: 3 }), 'VALIDATION_ERROR'],
    [() => driftAsync(undefined, {}), () => drift(undefined, {}), 'VALIDATION_ERROR'],
  ]
  for (const [async, sync, code] of calls) {
    let thrown
    try { sync() } catch (e) { thrown = e }
    assert.ok(thrown, 'the synchronous call throws')
    const pending = async()
    assert.ok(pending instanceof Promise)
    await assert.rejects(pending, (e) => {
      assert.equal(e.code, code)
      assert.equal(e.message, thrown.message)
      assert.deepEqual(e.details, thrown.details)
      return true
    })
  }
})

test('half a surrogate pair in a string is refused at its name, not read as U+FFFD', () => {
  const lone = 'holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, which is no character; it cannot be read as text'
  const refusedAt = (fn, path) =>
    assert.throws(fn, (e) => {
      assert.equal(e.code, 'VALIDATION_ERROR')
      assert.deepEqual(e.details, [{ path, message: lone }])
      return true
    })
  // Read as UTF-8 this deployment would silently be 'bot\uFFFD', another deployment.
  refusedAt(() => score(request.events, { deploymentId: 'bot\uD800' }), 'deploymentId')
  refusedAt(() => score(request.events, { deploymentId: '\uDC00bot' }), 'deploymentId')
  refusedAt(() => drift(example, example, { beforeLabel: 'old\uD83D' }), 'beforeLabel')
  refusedAt(() => score('events\uDFFF.jsonl'), 'input')
  refusedAt(() => drift(example, 'after\uD800.json'), 'after')
  // In an option's name: named as the options, since the name cannot be written back.
  refusedAt(() => score(request.events, { deploymentId: 'bot', ['x\uD800']: 1 }), 'options')
  // A real U+FFFD and a whole pair are text.
  const fine = score(request.events, { deploymentId: 'bot\uFFFD\uD83D\uDE00' })
  assert.equal(fine.intelligence.deployment_id, 'bot\uFFFD\uD83D\uDE00')
  // Inside an object the half is escaped by JSON.stringify, and the JSON reader says so.
  const events = [{ ...request.events[0], content: 'hi \uD800' }]
  assert.throws(
    () => score(events, { deploymentId: 'bot' }),
    (e) => e.code === 'VALIDATION_ERROR' && /half a surrogate pair/.test(e.details[0].message),
  )
})

test('an ArrayBuffer is bytes; a DataView, a Map, a Set or another typed array is refused', () => {
  const json = new TextEncoder().encode(JSON.stringify(request))
  // What `await response.arrayBuffer()` gives, and a view into part of a larger buffer.
  assert.deepEqual(score(json.buffer), reference)
  const padded = new Uint8Array(json.length + 8)
  padded.set(json, 4)
  assert.deepEqual(score(new Uint8Array(padded.buffer, 4, json.length)), reference)
  // A DataView whose getters lie once aborted the process: a DataView is refused.
  class Lying extends DataView {
    get byteLength() {
      return 1000
    }
  }
  for (const view of [new DataView(padded.buffer, 4, json.length), new Lying(new ArrayBuffer(8))]) {
    assert.throws(
      () => score(view),
      (e) => e.code === 'VALIDATION_ERROR' && e.details[0].message.endsWith(', got DataView'),
    )
  }
  const fake = { [Symbol.toStringTag]: 'DataView', buffer: new ArrayBuffer(2), byteOffset: 0, byteLength: 100 }
  assert.throws(() => verifySignature('s', fake, {}), (e) => e.code === 'VALIDATION_ERROR' && e.details[0].path === 'body')
  const input = 'must be a request object, an array of events, a file path, a Uint8Array or an ArrayBuffer'
  // Their JSON would be `{}` or numbered keys: a misleading "deployment_id: is required".
  for (const [value, got] of [
    [new Map(Object.entries(request)), 'Map'],
    [new Set([1]), 'Set'],
    [new Int16Array(2), 'Int16Array'],
  ]) {
    assert.throws(
      () => score(value),
      (e) => {
        assert.deepEqual(e.details, [{ path: 'input', message: `${input}, got ${got}` }])
        return true
      },
    )
  }
})

test('an option nested too deeply, or holding itself, is refused at its name, and the process lives on', () => {
  let deep = {}
  for (let i = 0, at = deep; i < 5000; i++) at = at.a = {}
  const looped = {}
  looped.self = looped
  const message =
    'is nested too deeply: more than 64 arrays and objects inside each other (or an object that holds itself)'
  for (const [options, path] of [
    [{ view: deep }, 'view'],
    [{ zzz: [[deep]] }, 'zzz'],
    [{ view: looped }, 'view'],
  ]) {
    assert.throws(() => score(example, options), (e) => {
      assert.equal(e.code, 'VALIDATION_ERROR')
      assert.deepEqual(e.details, [{ path, message }])
      return true
    })
  }
  assert.throws(() => verifySignature('whsec_x', Buffer.from('{}'), {}, { now: deep }), (e) =>
    e.details[0].path === 'now' && e.details[0].message === message)
  // 64 levels are read (and refused for their type, not their depth); 65 are not.
  let within = 'x'
  for (let i = 0; i < 64; i++) within = [within]
  assert.throws(() => score(example, { view: within }), (e) =>
    e.details[0].path === 'view' && e.details[0].message === 'must be a string, got array')
  assert.throws(() => score(example, { view: [within] }), (e) =>
    e.details[0].path === 'view' && e.details[0].message === message)
  assert.deepEqual(score(example), reference)
})

test('options are an object whose own properties are read, as in the wasm package', () => {
  const any = 'a string, a number, a boolean, an object or an array'
  for (const [options, path, message] of [
    [NaN, 'options', 'must be an object, got number'],
    [1n, 'options', 'must be an object, got bigint'],
    [{ view: () => 'full' }, 'view', `must be ${any}, got function`],
    [{ view: Symbol('full') }, 'view', `must be ${any}, got symbol`],
    [{ view: 1n }, 'view', `must be ${any}, got bigint`],
  ]) {
    assert.throws(() => score(example, options), (e) => {
      assert.deepEqual(e.details, [{ path, message }])
      return true
    })
  }
  // Only own enumerable properties, as JSON.stringify reads them: a Map, a Date and an
  // inherited property give none; an undefined one is not given.
  for (const options of [new Map([['view', 'BAD']]), new Date(), Object.create({ view: 'BAD' }), { view: undefined }]) {
    assert.deepEqual(score(example, options), reference)
  }
})
