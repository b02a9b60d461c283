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
  type TurnRow,
  type UndertoneError,
} from 'undertone'
import { ApiError, Client, SessionFailedError, createClient, type DeliveryView, type DriftView, type SessionView } from 'undertone/rest'

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
const rows: TurnRow[] = score(request, { view: 'turns' })
declare const chosen: 'full' | 'condensed'
const either: FullOutput | CondensedOutput = score(request, { view: chosen })
const rowBand: Band = rows[0].frustration_buildup_band
const rowScore: number = rows[0].trust_calibration
// @ts-expect-error: a row has no `layer_z`
rows[0].layer_z
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

const api = new Client({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'ut_live_x', maxRetries: 2, timeoutMs: 10_000 })
const scored: SessionView = await api.scoreRemote(request)
const waited: SessionView = await api.wait(scored.session_id, { timeoutMs: 5_000 })
// @ts-expect-error: a list of events needs its deployment id
await api.ingest([{ actor_id: 'u', content: 'hi', timestamp: '2026-11-21T09:30:00Z' }])
const compared: DriftView = await api.deployments.drift('acme-bot', {
  before: { from: new Date('2026-11-02T00:00:00Z'), to: '2026-11-09T00:00:00Z' },
  after: { from: '2026-11-09T00:00:00Z', to: '2026-11-16T00:00:00Z' },
})
for await (const delivery of api.webhooks.deliveries('wh_1', { limit: 2 })) {
  const attempts: number = (delivery as DeliveryView).attempts
  void attempts
}
try {
  await api.wait('x')
} catch (e) {
  if (e instanceof ApiError) void [e.status, e.code, e.rateLimit?.remaining, e.retryAfter]
  if (e instanceof SessionFailedError) void e.session
}

void [rows, rowBand, rowScore, waited, compared, either]
void [turns, band, finding, later, direction, pending, ok, fromExport, firstSkip, slack, mapped]
