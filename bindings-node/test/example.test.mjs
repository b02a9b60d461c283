// examples/node/score.mjs runs as written and prints what local scoring finds.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import { score } from '../index.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

test('the example prints each conversation with its bands and the key finding', () => {
  const out = execFileSync(process.execPath, ['examples/node/score.mjs'], { cwd: root, encoding: 'utf8' })
  const result = score(join(root, 'examples/support-refund-goes-wrong.json'))
  for (const c of result.intelligence.conversations) {
    const { frustration_buildup: frustration, trust_calibration: trust } = c.layer_z
    assert.ok(
      out.includes(`${c.conversation_id}: frustration ${frustration.band}, trust ${trust.band}`),
      `${c.conversation_id} in:\n${out}`,
    )
  }
  assert.ok(out.includes('zd-48213'))
  assert.match(out, /frustration (healthy|watch|broken)/)
  assert.ok(out.includes(result.intelligence.key_finding))
})
