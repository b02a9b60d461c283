// What the convenience client (client.mjs) throws: the API's error envelope with the
// status and rate-limit headers, and the two ways waiting for a session can end badly.

/** A non-2xx answer of the API: the envelope's `code`, `message` and `details`, the status and the rate-limit headers. */
export class ApiError extends Error {
  constructor({ status, code, message, details = [], rateLimit = null, retryAfter = null }) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
    this.details = details
    this.rateLimit = rateLimit
    this.retryAfter = retryAfter
  }

  /** The error a `response` stands for; `body` is its parsed JSON (the envelope), its text, or undefined. */
  static from(response, body) {
    const envelope = body !== null && typeof body === 'object' ? body.error : undefined
    const known = envelope !== null && typeof envelope === 'object' && typeof envelope.code === 'string'
    const text = typeof body === 'string' ? body.trim().slice(0, 500) : ''
    return new ApiError({
      status: response.status,
      // An answer that is not the envelope (a proxy's 502 page, say) still gets a code.
      code: known ? envelope.code : 'HTTP_ERROR',
      message: known ? String(envelope.message) : text || `HTTP ${response.status} ${response.statusText}`.trim(),
      details: known && Array.isArray(envelope.details) ? envelope.details : [],
      rateLimit: rateLimit(response.headers),
      retryAfter: retryAfterSeconds(response.headers),
    })
  }
}

/** A session ended `failed`: the session as last read, and why it failed. */
export class SessionFailedError extends Error {
  constructor(session) {
    super(`session ${session.session_id} failed: ${session.error ?? 'no reason given'}`)
    this.name = 'SessionFailedError'
    this.code = 'SESSION_FAILED'
    this.session = session
    this.error = session.error ?? null
  }
}

/** A session was still `received` or `processing` when the wait ran out. */
export class WaitTimeoutError extends Error {
  constructor(sessionId, timeoutMs, session) {
    super(`session ${sessionId} was still ${session?.status ?? 'unread'} after ${timeoutMs} ms`)
    this.name = 'WaitTimeoutError'
    this.code = 'WAIT_TIMEOUT'
    this.sessionId = sessionId
    this.timeoutMs = timeoutMs
    this.session = session
  }
}

/** `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds) as numbers; null when the answer has none. */
export function rateLimit(headers) {
  const [limit, remaining, reset] = ['limit', 'remaining', 'reset'].map((h) => integer(headers.get(`x-ratelimit-${h}`)))
  return limit === null && remaining === null && reset === null ? null : { limit, remaining, reset }
}

/** `Retry-After` in seconds (the header's seconds, or the time until its HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(headers, now = Date.now()) {
  const value = headers.get('retry-after')
  if (value === null) return null
  const seconds = Number(value.trim())
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds)
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000))
}

function integer(value) {
  if (value === null) return null
  const n = Number(value)
  return Number.isInteger(n) ? n : null
}
