// The typed REST client against a live server (target/debug/undertone, built by
// scripts/test-node): a scored session matches local scoring of the same file.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

import { score } from '../index.js'
import { createClient } from '../rest/index.mjs'

const root = fileURLToPath(new URL('../../', import.meta.url))
const binary = process.env.UNDERTONE_BIN ?? join(root, 'target/debug/undertone')
const example = join(root, 'examples/support-refund-goes-wrong.json')

let server
let dir
let baseUrl
let apiKey

/** Starts the server on a free port with an empty database; resolves with its URL and key. */
function start() {
  dir = mkdtempSync(join(tmpdir(), 'undertone-node-rest-'))
  server = spawn(binary, ['serve', '--addr', '127.0.0.1:0', '--database', `sqlite://${join(dir, 'u.db')}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output}`)), 20_000)
    const read = (chunk) => {
      output += chunk
      const key = output.match(/\b(ut_live_[A-Za-z0-9]+)/)
      const url = output.match(/undertone: listening on (http:\/\/127\.0\.0\.1:\d+)/)
      if (key && url) {
        clearTimeout(timer)
        resolve({ key: key[1], url: url[1] })
      }
    }
    server.stdout.setEncoding('utf8').on('data', read)
    server.stderr.setEncoding('utf8').on('data', read)
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

/** The bands of a Layer Z object, by dimension. */
const bands = (layerZ) => Object.fromEntries(Object.entries(layerZ).map(([dimension, s]) => [dimension, s.band]))

test('an ingested session scores as local scoring does', async () => {
  const client = createClient({ baseUrl, apiKey })
  const body = JSON.parse(readFileSync(example, 'utf8'))
  const accepted = await client.POST('/api/v1/ingest', { body })
  assert.equal(accepted.response.status, 202)
  const sessionId = accepted.data.session_id
  assert.match(sessionId, /^[0-9a-f-]{36}$/)
  assert.equal(accepted.data.event_count, body.events.length)

  let session
  const deadline = Date.now() + 20_000
  for (;;) {
    const read = await client.GET('/api/v1/intelligence/{session_id}', {
      params: { path: { session_id: sessionId } },
    })
    assert.equal(read.response.status, 200)
    session = read.data
    if (session.status === 'complete' || session.status === 'failed') break
    assert.ok(Date.now() < deadline, `session still ${session.status} after 20 s`)
    await sleep(100)
  }
  assert.equal(session.status, 'complete', session.error ?? '')

  const local = score(example)
  const remote = session.full_output
  assert.equal(remote.intelligence.human_turn_count, local.intelligence.human_turn_count)
  assert.deepEqual(bands(remote.intelligence.layer_z), bands(local.intelligence.layer_z))
  assert.equal(Object.keys(bands(local.intelligence.layer_z)).length, 6)
})

test('a request without the key is refused with the error envelope', async () => {
  const client = createClient({ baseUrl, apiKey: 'ut_live_not-a-key' })
  const refused = await client.GET('/api/v1/intelligence/{session_id}', {
    params: { path: { session_id: '0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c' } },
  })
  assert.equal(refused.response.status, 401)
  assert.equal(refused.data, undefined)
  assert.equal(refused.error.error.code, 'UNAUTHORIZED')
})
