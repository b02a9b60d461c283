// `undertone/rest`: the typed client of the Undertone REST API. `Client` is the
// convenience layer (retries, typed errors, waiting, pagination); `createClient` the
// generated openapi-fetch client it sends through. Types: index.d.mts.
export { createClient } from './raw.mjs'
export { Client } from './client.mjs'
export { ApiError, SessionFailedError, WaitTimeoutError } from './errors.mjs'
