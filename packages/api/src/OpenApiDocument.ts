import type { OpenApi } from "effect/http-api"

/**
 * What the OpenAPI documents say beyond what `OpenApi.fromApi` derives from the contract: where
 * the servers are (OPENAPI_SERVERS), and one schema where a status has several errors of one shape.
 */

/** Unless OPENAPI_SERVERS names others: the origin the document was fetched from. */
export const DEFAULT_SERVERS: ReadonlyArray<OpenApi.OpenAPISpecServer> = [
  { url: "/", description: "The server that serves this document" }
]

/** An absolute http(s) URL, or a path from the origin the document was fetched from (`/`, `/retail`). */
const isServerUrl = (url: string): boolean => {
  if (url.startsWith("/")) return !url.startsWith("//")
  try {
    const parsed = new URL(url)
    return (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.search === "" && parsed.hash === ""
  } catch {
    return false
  }
}

const entries = (setting: string): Array<string> =>
  setting.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")

/** Does OPENAPI_SERVERS hold a comma-separated list of server URLs (each an absolute http(s) URL or a path)? */
export const isServerList = (setting: string): boolean => entries(setting).length > 0 && entries(setting).every(isServerUrl)

/** OPENAPI_SERVERS as the document's `servers`: in its order, without a trailing slash (but `/` itself). */
export const serversOf = (setting: string): ReadonlyArray<OpenApi.OpenAPISpecServer> =>
  entries(setting).map((url) => ({ url: url.length > 1 ? url.replace(/\/+$/, "") : url }))

/** The document with these servers. */
export const withServers = <D extends OpenApi.OpenAPISpec>(document: D, servers: ReadonlyArray<OpenApi.OpenAPISpecServer>): D => ({
  ...document,
  servers: servers.map((server) => ({ ...server }))
})

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * `anyOf` members said once: the errors of one status that share a body (all the `{message}` ones)
 * are one `$ref ErrorMessage`, not a union of the same reference.
 */
const tidy = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(tidy)
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) out[key] = tidy(child)
  const anyOf = out["anyOf"]
  if (!Array.isArray(anyOf)) return out
  const seen = new Set<string>()
  const members = anyOf.filter((member) => {
    const text = JSON.stringify(member)
    if (seen.has(text)) return false
    seen.add(text)
    return true
  })
  if (members.length > 1) return { ...out, anyOf: members }
  const { anyOf: _, ...rest } = out
  return Object.keys(rest).length === 0 ? members[0] : { ...rest, allOf: members }
}

/** Every 429 carries `Retry-After` (RetryAfter.ts, and the capacity answer's, services/capacity/src/answer). */
export const RETRY_AFTER_HEADER = {
  "Retry-After": {
    required: true,
    description: "Seconds to wait before trying again",
    schema: { type: "integer", minimum: 1 }
  }
} as const

const withRetryAfter = (paths: unknown): unknown => {
  if (!isRecord(paths)) return paths
  const out: Record<string, unknown> = {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isRecord(item)) {
      out[path] = item
      continue
    }
    const operations: Record<string, unknown> = {}
    for (const [method, operation] of Object.entries(item)) {
      const responses = isRecord(operation) ? operation["responses"] : undefined
      const tooMany = isRecord(responses) ? responses["429"] : undefined
      operations[method] = isRecord(operation) && isRecord(responses) && isRecord(tooMany)
        ? { ...operation, responses: { ...responses, "429": { ...tooMany, headers: { ...RETRY_AFTER_HEADER } } } }
        : operation
    }
    out[path] = operations
  }
  return out
}

/** The `OpenApi.Transform` of both contracts: `tidy`, and the `Retry-After` of every 429. */
export const tidyDocument = (document: Record<string, unknown>): Record<string, unknown> => {
  const tidied = tidy(document)
  if (!isRecord(tidied)) return document
  return "paths" in tidied ? { ...tidied, paths: withRetryAfter(tidied["paths"]) } : { ...tidied }
}
