// Scores a conversation file locally with the Node binding and prints, per
// conversation, its frustration and trust bands, then the key finding.
//
//   scripts/build-node && node examples/node/score.mjs [file]
import { score } from '../../bindings-node/index.js'

const file = process.argv[2] ?? 'examples/support-refund-goes-wrong.json'
const { pipeline, intelligence } = score(file)

console.log(`${file}: ${intelligence.conversation_count} conversations, ${pipeline} pipeline`)
for (const c of intelligence.conversations) {
  const { frustration_buildup: frustration, trust_calibration: trust } = c.layer_z
  console.log(`  ${c.conversation_id}: frustration ${frustration.band}, trust ${trust.band}`)
}
console.log(`key finding: ${intelligence.key_finding}`)
