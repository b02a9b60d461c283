// Type check of the package's declarations (index.d.ts, rest/index.d.mts), run by
// `npx tsc --noEmit -p bindings-node` from scripts/test-node; never executed (it is
// outside test/ so no test runner picks it up).
import { readFileSync } from 'node:fs'

import {
  drift,
  driftAsync,
  importConversations,
  score,
  scoreAsync,
  validate,
  verifySignature,
  type Band,
  type CondensedOutput,
  type DriftResult,
  type FullOutput,
  type ImportResult,
  type IngestRequest,
  type SkippedItem,
  type UndertoneError,
} from 'undertone'
import { createClient } from 'undertone/rest'

const full: FullOutput = score('examples/support-refund-goes-wrong.json')
const turns: number = full.intelligence.human_turn_count
const band: Band = full.intelligence.layer_z.frustration_buildup.band
const condensed: CondensedOutput = score(readFileSync('events.jsonl'), {
  deploymentId: 'acme-bot',
  view: 'condensed',
  format: 'jsonl',
})
const finding: string = condensed.key_finding
const request: IngestRequest = validate([{ actor_id: 'u', content: 'hi', timestamp: '2026-11-21T09:30:00Z' }], {
  deploymentId: 'acme-bot',
})
const later: Promise<CondensedOutput> = scoreAsync(request, { view: 'condensed', pipeline: 'support' })

// @ts-expect-error: pipeline names are lower case
score(request, { pipeline: 'Support' })
// @ts-expect-error: a condensed result has no `intelligence`
score(request, { view: 'condensed' }).intelligence

const result: DriftResult = drift('v1.json', 'v2.json', { question: null, beforeLabel: 'v1', afterLabel: 'v2' })
const direction: 'improved' | 'regressed' | 'mixed' | 'stable' = result.direction
const pending: Promise<DriftResult> = driftAsync(Buffer.from('[]'), 'v2.jsonl', { deploymentId: 'acme-bot' })

const imported: ImportResult = importConversations('chatgpt', readFileSync('conversations.json'))
const fromExport: FullOutput = score(imported.request)
const skipped: SkippedItem[] = imported.skipped
const firstSkip: string = `${skipped[0]?.at}: ${skipped[0]?.reason}`
const slack: ImportResult = importConversations('slack', { 'help-desk/2026-03-02.json': '[]' }, { deploymentId: 'acme-bot' })
const mapped: IngestRequest = importConversations('mapping', 'export.json', { mapping: { events: '/messages' } }).request
const folder: ImportResult = importConversations('slack', 'slack-export')
importConversations('mapping', Buffer.from('{}'), { mapping: Buffer.from('{}'), deploymentId: null })
// @ts-expect-error: not a format
importConversations('zip', 'conversations.json')
// @ts-expect-error: file contents are text or bytes
importConversations('chatgpt', { 'conversations.json': 42 })
// @ts-expect-error: options are camelCase
importConversations('chatgpt', 'conversations.json', { deployment_id: 'acme-bot' })

const ok: boolean = verifySignature('whsec_abc', Buffer.from('{}'), { 'webhook-id': 'msg_1', 'x-forwarded-for': ['a', 'b'] }, {
  toleranceSecs: 60,
  now: 1_614_265_330,
})

try {
  score([])
} catch (e) {
  const error = e as UndertoneError
  const paths: string[] = error.details.map((d) => d.path)
  const code: string = error.code
  void [paths, code]
}

const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'ut_live_x' })
const accepted = await client.POST('/api/v1/ingest', {
  body: { deployment_id: 'acme-bot', events: [{ actor_id: 'u', content: 'hi', timestamp: '2026-11-21T09:30:00Z' }] },
})
const sessionId: string | undefined = accepted.data?.session_id
const session = await client.GET('/api/v1/intelligence/{session_id}', {
  params: { path: { session_id: sessionId ?? '' } },
})
void session.data
// @ts-expect-error: the ingest body requires `events`
await client.POST('/api/v1/ingest', { body: { deployment_id: 'acme-bot' } })

void [turns, band, finding, later, direction, pending, ok, fromExport, firstSkip, slack, mapped]
