// The generated client: openapi-fetch over the types of spec/openapi.json (schema.d.ts,
// from `npm run generate:rest`). The convenience Client (client.mjs) sends through it.
import createFetchClient from 'openapi-fetch'

/** A client of the API at `baseUrl` (e.g. `http://127.0.0.1:8080`), authenticated with `apiKey`. */
export function createClient({ baseUrl, apiKey, headers, ...options }) {
  return createFetchClient({
    ...options,
    baseUrl,
    headers: { ...headers, Authorization: `Bearer ${apiKey}` },
  })
}
