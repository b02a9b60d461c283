// Connectors: importConversations gives exactly what the Rust core gives on the golden
// cases (tests/golden/connectors), throws core's errors, and refuses arguments of the
// wrong type with the same VALIDATION_ERROR as Python and wasm.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { importConversations, score } from '../index.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const golden = join(root, 'tests/golden/connectors')
const fixtures = join(root, 'examples/connectors')
const readJSON = (path) => JSON.parse(readFileSync(path, 'utf8'))
const cases = readJSON(join(golden, 'cases.json'))
const chatgpt = readFileSync(join(fixtures, 'chatgpt/conversations.json'))

/** A case's files by the names cases.json gives them, and its mapping document. */
function load({ format, files, mapping }) {
  const read = (name) => readFileSync(join(fixtures, format, name))
  return {
    files: Object.fromEntries(files.map((name) => [name, read(name)])),
    mapping: mapping ? read(mapping) : undefined,
  }
}

/** Asserts that `fn` throws core's VALIDATION_ERROR with one violation; returns it. */
function violation(fn) {
  let detail
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error)
    assert.equal(e.code, 'VALIDATION_ERROR')
    assert.equal(e.details.length, 1)
    detail = e.details[0]
    assert.equal(e.message, `${detail.path}: ${detail.message}`)
    return true
  })
  return detail
}

/** Asserts that `fn` throws VALIDATION_ERROR for an argument of the wrong type. */
function wrongType(fn, path, message) {
  assert.deepStrictEqual(violation(fn), { path, message })
}

test('there are golden cases', () => {
  const formats = cases.map((c) => c.format)
  assert.ok(formats.includes('chatgpt') && formats.includes('claude'))
})

for (const c of cases) {
  test(`import: ${c.format} gives its golden output`, () => {
    const { files, mapping } = load(c)
    const expected = readJSON(join(golden, `${c.format}.json`))
    assert.deepStrictEqual(importConversations(c.format, files, { mapping }), expected)
  })

  test(`import: ${c.format} from text gives what bytes give`, () => {
    const { files, mapping } = load(c)
    const text = Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, bytes.toString('utf8')]))
    const expected = readJSON(join(golden, `${c.format}.json`))
    assert.deepStrictEqual(importConversations(c.format, text, { mapping: mapping?.toString('utf8') }), expected)
  })
}

test('bytes on their own are named input', () => {
  const expected = readJSON(join(golden, 'chatgpt.json'))
  for (const single of [chatgpt, new Uint8Array(chatgpt)]) {
    const got = importConversations('chatgpt', single)
    assert.deepStrictEqual(got.request, expected.request)
    assert.deepStrictEqual(
      got.skipped,
      expected.skipped.map((s) => ({ ...s, at: s.at.replace('conversations.json', 'input') })),
    )
  }
})

test('a path to a file is named as given', () => {
  const expected = readJSON(join(golden, 'chatgpt.json'))
  const path = join(fixtures, 'chatgpt/conversations.json')
  const got = importConversations('chatgpt', path)
  assert.deepStrictEqual(got.request, expected.request)
  assert.ok(got.skipped.length > 0 && got.skipped[0].at.startsWith(path))
  assert.deepStrictEqual(
    got.skipped,
    expected.skipped.map((s) => ({ ...s, at: s.at.replace('conversations.json', path) })),
  )
})

test('a path to a folder reads every file under it', () => {
  const expected = readJSON(join(golden, 'slack.json'))
  assert.deepStrictEqual(importConversations('slack', join(fixtures, 'slack')), expected)
})

test('a missing path is IO_ERROR naming it', () => {
  assert.throws(
    () => importConversations('chatgpt', join(fixtures, 'no-such-file.json')),
    (e) => {
      assert.ok(e instanceof Error)
      assert.equal(e.code, 'IO_ERROR')
      assert.match(e.message, /^cannot read .*no-such-file\.json: /)
      assert.deepEqual(e.details, [])
      return true
    },
  )
})

test('an empty folder is IO_ERROR', () => {
  const empty = mkdtempSync(join(tmpdir(), 'undertone-empty-'))
  try {
    mkdirSync(join(empty, 'nothing'))
    assert.throws(
      () => importConversations('slack', empty),
      (e) => {
        assert.equal(e.code, 'IO_ERROR')
        assert.equal(e.message, `${empty} is an empty folder`)
        return true
      },
    )
  } finally {
    rmSync(empty, { recursive: true })
  }
})

test('files are read in the object order, under their names', () => {
  const one = importConversations('chatgpt', { 'a.json': chatgpt })
  const two = importConversations('chatgpt', { 'b.json': chatgpt, 'a.json': chatgpt })
  const n = one.request.events.length
  assert.equal(two.request.events.length, 2 * n)
  assert.deepStrictEqual(two.request.events.slice(0, n), one.request.events)
  const ats = two.skipped.map((s) => s.at)
  const half = ats.length / 2
  assert.ok(ats.length > 0)
  assert.ok(ats.slice(0, half).every((at) => at.startsWith('b.json[')))
  assert.ok(ats.slice(half).every((at) => at.startsWith('a.json[')))
})

test('deploymentId overrides the format name', () => {
  assert.equal(importConversations('chatgpt', chatgpt).request.deployment_id, 'chatgpt')
  const got = importConversations('chatgpt', chatgpt, { deploymentId: 'support-bot' })
  assert.equal(got.request.deployment_id, 'support-bot')
  assert.deepStrictEqual(got.request.events, readJSON(join(golden, 'chatgpt.json')).request.events)
  assert.equal(importConversations('chatgpt', chatgpt, { deploymentId: null }).request.deployment_id, 'chatgpt')
  // A bad id is reported under the option's JavaScript name, as score does.
  assert.equal(violation(() => importConversations('chatgpt', chatgpt, { deploymentId: '' })).path, 'deploymentId')
})

test('the imported request scores', () => {
  const claude = readFileSync(join(fixtures, 'claude/conversations.json'))
  const { request } = importConversations('claude', { 'conversations.json': claude })
  const result = score(request)
  assert.equal(result.intelligence.deployment_id, 'claude')
  assert.equal(result.intelligence.event_count, request.events.length)
  assert.ok(result.intelligence.human_turn_count > 0)
})

test('an unknown format lists the formats', () => {
  assert.deepStrictEqual(
    violation(() => importConversations('zip', chatgpt)),
    { path: 'format', message: 'must be one of chatgpt, claude, zendesk, intercom, slack, mapping; got "zip"' },
  )
})

test('malformed JSON names the file', () => {
  const detail = violation(() => importConversations('chatgpt', { 'x.json': '{' }))
  assert.equal(detail.path, 'x.json')
  assert.match(detail.message, /^is not JSON/)
})

test('the mapping format needs a mapping', () => {
  const detail = violation(() => importConversations('mapping', chatgpt))
  assert.equal(detail.path, 'format')
  assert.match(detail.message, /mapping document/)
})

test('a mapping is refused with another format', () => {
  for (const mapping of [{ events: '/messages' }, '{"events": "/messages"}', Buffer.from('{}')]) {
    assert.deepStrictEqual(violation(() => importConversations('chatgpt', chatgpt, { mapping })), {
      path: 'mapping',
      message: 'a mapping is only read with the mapping format, not chatgpt',
    })
  }
})

test('arguments of the wrong type are VALIDATION_ERRORs at their name', () => {
  const files = 'must be a string, a Uint8Array, an ArrayBuffer or an object of file names to strings, Uint8Arrays or ArrayBuffers'
  wrongType(() => importConversations('chatgpt', 42), 'files', `${files}, got number`)
  wrongType(() => importConversations('chatgpt'), 'files', `${files}, got undefined`)
  wrongType(() => importConversations('chatgpt', [chatgpt]), 'files', `${files}, got array`)
  wrongType(() => importConversations('chatgpt', null), 'files', `${files}, got null`)
  wrongType(
    () => importConversations('chatgpt', { 'x.json': 1 }),
    'files.x.json',
    'must be a string, a Uint8Array or an ArrayBuffer, got number',
  )
  wrongType(
    () => importConversations('chatgpt', chatgpt, { mapping: 3 }),
    'mapping',
    'must be an object, JSON text or bytes, got number',
  )
  wrongType(() => importConversations(7, chatgpt), 'format', 'must be a string, got number')
  wrongType(
    () => importConversations('chatgpt', chatgpt, { deploymentId: 7 }),
    'deploymentId',
    'must be a string, got number',
  )
  wrongType(
    () => importConversations('chatgpt', chatgpt, { deployment: 'x' }),
    'deployment',
    'unknown option; allowed options are deploymentId, mapping',
  )
  // A number JSON cannot write is refused, not read as no option (as wasm does).
  wrongType(
    () => importConversations('chatgpt', chatgpt, { deploymentId: NaN }),
    'deploymentId',
    'must be a finite number, got NaN',
  )
  // What is wrong inside a mapping object is the mapping's, not its keys'.
  let deep = {}
  for (let i = 0, at = deep; i < 5000; i++) at = at.a = {}
  wrongType(
    () => importConversations('mapping', chatgpt, { mapping: { roles: deep } }),
    'mapping',
    'is nested too deeply: more than 64 arrays and objects inside each other (or an object that holds itself)',
  )
})

test('a mapping given as an ArrayBuffer is its bytes; a DataView is refused at mapping', () => {
  const c = cases.find((x) => x.format === 'mapping')
  const { files, mapping } = load(c)
  const expected = readJSON(join(golden, 'mapping.json'))
  const buffer = mapping.buffer.slice(mapping.byteOffset, mapping.byteOffset + mapping.byteLength)
  assert.deepStrictEqual(importConversations('mapping', files, { mapping: buffer }), expected)
  const refused = violation(() => importConversations('mapping', files, { mapping: new DataView(buffer) }))
  assert.equal(refused.path, 'mapping')
  assert.match(refused.message, /, got DataView$/)
})

test('no files at all is refused at files', () => {
  wrongType(
    () => importConversations('chatgpt', {}),
    'files',
    "holds no file: give an export file, a folder or one file's contents",
  )
})

test('a file name holding half a surrogate pair is said to, at files', () => {
  wrongType(
    () => importConversations('chatgpt', { 'a\uD800.json': '[]' }),
    'files',
    'holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, which is no character; it cannot be read as text',
  )
})
