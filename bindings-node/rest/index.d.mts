import type { Client, ClientOptions } from 'openapi-fetch'
import type { components, operations, paths } from './schema.js'

export type { components, operations, paths }

/** Where the API is and how to authenticate, plus any openapi-fetch option. */
export interface UndertoneClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The server's origin, e.g. `http://127.0.0.1:8080` (paths start with `/api/v1`). */
  baseUrl: string
  /** An API key, `ut_live_…`, sent as `Authorization: Bearer`. */
  apiKey: string
}

/** A client of the API at `baseUrl`, authenticated with `apiKey`. */
export declare function createClient(options: UndertoneClientOptions): Client<paths>
