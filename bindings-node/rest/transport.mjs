// The fetch the convenience client hands to openapi-fetch: a per-attempt timeout, and
// retries of 429 and 503 with jittered exponential backoff that honour Retry-After.
import { retryAfterSeconds } from './errors.mjs'

/** Statuses worth sending again: both are answered before the server acts (docs/service.md). */
const RETRIED = new Set([429, 503])
/** First backoff ceiling when the answer has no Retry-After; doubled per attempt. */
const BACKOFF_BASE_MS = 500

/**
 * A `fetch(request)` that retries `request` up to `maxRetries` times on 429 and 503,
 * waiting Retry-After when given (an answer asking for more than `maxRetryDelayMs` is
 * returned as it is) or else a jittered exponential backoff capped at `maxRetryDelayMs`,
 * and aborts each attempt after `timeoutMs` (0: no timeout).
 *
 * Connection errors and timeouts are not retried: a POST may have reached the server.
 */
export function retryingFetch({ fetch, maxRetries, timeoutMs, maxRetryDelayMs }) {
  return async function send(request) {
    // Read once, so every attempt can send the same bytes.
    const body = request.body === null ? undefined : await request.arrayBuffer()
    for (let attempt = 0; ; attempt += 1) {
      const signal = timeoutMs > 0 ? AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) : request.signal
      const response = await fetch(
        new Request(request.url, { method: request.method, headers: request.headers, body, redirect: request.redirect, signal }),
      )
      if (!RETRIED.has(response.status) || attempt >= maxRetries) return response
      const delay = delayMs(response.headers, attempt, maxRetryDelayMs)
      if (delay === null) return response
      await response.body?.cancel()
      await sleep(delay, request.signal)
    }
  }
}

/** How long to wait before attempt `attempt + 1`; null when Retry-After asks for longer than `cap`. */
function delayMs(headers, attempt, cap) {
  const after = retryAfterSeconds(headers)
  if (after !== null) return after * 1000 <= cap ? after * 1000 : null
  const ceiling = Math.min(cap, BACKOFF_BASE_MS * 2 ** attempt)
  // "Equal jitter": at least half the ceiling, so retries never bunch up at zero.
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

/** Resolves after `ms`, or rejects with the signal's reason when `signal` aborts first. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const abort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', abort, { once: true })
  })
}
