// The shared golden vectors (tests/vectors), through the Node binding: the same
// outputs and the same errors as core and the CLI.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { drift, driftAsync, score, scoreAsync } from '../index.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const vectors = join(root, 'tests/vectors')
const readJSON = (path) => JSON.parse(readFileSync(path, 'utf8'))
const jsonFiles = (dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()

/** JSON with every object's keys sorted, so key order does not matter. */
function canonical(value) {
  const sort = (v) =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort(v[k])]))
        : v
  return JSON.stringify(sort(value))
}

test('there are vectors of every kind', () => {
  assert.ok(jsonFiles(vectors).length >= 6)
  assert.ok(jsonFiles(join(vectors, 'invalid')).length >= 1)
  assert.ok(jsonFiles(join(vectors, 'drift')).length >= 1)
})

for (const file of jsonFiles(vectors)) {
  test(`score: ${file}`, () => {
    const { input, output } = readJSON(join(vectors, file))
    assert.equal(canonical(score(input)), canonical(output))
  })
}

test('scoreAsync gives the same result as the vector', async () => {
  const { input, output } = readJSON(join(vectors, 'support-refund-goes-wrong.json'))
  const result = await scoreAsync(input)
  assert.equal(canonical(result), canonical(output))
  assert.equal(result.intelligence.human_turn_count, output.intelligence.human_turn_count)
})

/** A vector's options with the JavaScript names. */
const camelCase = ({ deployment_id, pipeline, view }) => ({ deploymentId: deployment_id, pipeline, view })

for (const file of jsonFiles(join(vectors, 'invalid'))) {
  const { input, options, error } = readJSON(join(vectors, 'invalid', file))

  test(`invalid: ${file}`, () => {
    assert.throws(
      () => score(input, camelCase(options)),
      (e) => {
        assert.ok(e instanceof Error)
        assert.deepEqual(
          { code: e.code, message: e.message, details: e.details },
          { code: error.code, message: error.message, details: error.details },
        )
        return true
      },
    )
  })

  test(`invalid, async: ${file}`, async () => {
    await assert.rejects(scoreAsync(input, camelCase(options)), (e) => {
      assert.ok(e instanceof Error)
      assert.deepEqual(
        { code: e.code, message: e.message, details: e.details },
        { code: error.code, message: error.message, details: error.details },
      )
      return true
    })
  })
}

for (const file of jsonFiles(join(vectors, 'drift'))) {
  const vector = readJSON(join(vectors, 'drift', file))
  const { question, before_label: beforeLabel, after_label: afterLabel } = vector.options
  const options = { question, beforeLabel, afterLabel }
  const [before, after] = [join(root, vector.before), join(root, vector.after)]

  test(`drift: ${file}, from objects`, () => {
    assert.equal(canonical(drift(readJSON(before), readJSON(after), options)), canonical(vector.output))
  })

  test(`drift: ${file}, from file paths`, () => {
    assert.equal(canonical(drift(before, after, options)), canonical(vector.output))
  })

  test(`driftAsync: ${file}`, async () => {
    assert.equal(canonical(await driftAsync(before, after, options)), canonical(vector.output))
  })
}
