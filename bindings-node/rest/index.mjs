// Typed client of the Undertone REST API: openapi-fetch over the generated schema
// (schema.d.ts, from spec/openapi.json by `npm run generate:rest`).
import createFetchClient from 'openapi-fetch'

/** A client of the API at `baseUrl` (e.g. `http://127.0.0.1:8080`), authenticated with `apiKey`. */
export function createClient({ baseUrl, apiKey, headers, ...options }) {
  return createFetchClient({
    ...options,
    baseUrl,
    headers: { ...headers, Authorization: `Bearer ${apiKey}` },
  })
}
