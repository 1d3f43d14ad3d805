import { Api, InternalApi } from "@retail/api"
import { OpenApi } from "effect/http-api"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * docs/api.md, generated from the HttpApi contract (packages/api) so that it cannot drift from
 * what the server serves: `npx tsx scripts/apiReference.ts` rewrites it, and test/docs.test.ts
 * fails when the file is not what this renders today.
 */

const repositoryRoot = fileURLToPath(new URL("../", import.meta.url))
export const apiReferenceFile = join(repositoryRoot, "docs/api.md")

/** The JSON Schema keywords `OpenApi.fromApi` emits (see the counts in the report of issue 20). */
interface Schema {
  readonly type?: string
  readonly $ref?: string
  readonly anyOf?: ReadonlyArray<Schema>
  readonly allOf?: ReadonlyArray<Schema>
  readonly enum?: ReadonlyArray<unknown>
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: ReadonlyArray<string>
  readonly items?: Schema
  readonly title?: string
  readonly description?: string
  readonly format?: string
  readonly pattern?: string
  readonly minLength?: number
  readonly maxLength?: number
  readonly minItems?: number
  readonly maxItems?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly exclusiveMaximum?: number
  readonly default?: unknown
}

const asSchema = (value: unknown): Schema => value as Schema

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens (test/docs.test.ts checks links with the same rule). */
export const headingAnchor = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

const schemaName = (ref: string): string => ref.replace("#/components/schemas/", "")
const schemaLink = (name: string): string => `[${name}](#${headingAnchor(name)})`
const escapeText = (text: string): string => text.replace(/([*|<>])/g, "\\$1")

/** Effect encodes a number that may be non-finite as `number | "Infinity" | "-Infinity" | "NaN"`; the conventions section says so once. */
const isNonFiniteNumberText = (schema: Schema): boolean =>
  schema.type === "string" && schema.enum?.join() === "Infinity,-Infinity,NaN"
const unionMembers = (members: ReadonlyArray<Schema>): ReadonlyArray<Schema> =>
  members.some((member) => member.type === "number") ? members.filter((member) => !isNonFiniteNumberText(member)) : members

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER

/** Effect's wording of a pattern check that the document carries only as a description. */
const PATTERN_CHECK = /^a string matching the pattern (.+)$/

/** Constraints of a schema and of its `allOf` refinements, in words. */
const constraints = (schema: Schema): Array<string> => {
  const parts = [schema, ...(schema.allOf ?? [])].flatMap((s): Array<string> => {
    const found: Array<string> = []
    if (s.format !== undefined && s.format !== "binary") found.push(`format ${s.format}`)
    if (s.minLength !== undefined) found.push(`at least ${s.minLength} character${s.minLength === 1 ? "" : "s"}`)
    if (s.maxLength !== undefined) found.push(`at most ${s.maxLength} characters`)
    if (s.minimum !== undefined && s.minimum !== -SAFE_INTEGER) found.push(`>= ${s.minimum}`)
    if (s.maximum !== undefined && s.maximum !== SAFE_INTEGER) found.push(`<= ${s.maximum}`)
    if (s.exclusiveMinimum !== undefined) found.push(`> ${s.exclusiveMinimum}`)
    if (s.exclusiveMaximum !== undefined) found.push(`< ${s.exclusiveMaximum}`)
    if (s.minItems !== undefined) found.push(`at least ${s.minItems} item${s.minItems === 1 ? "" : "s"}`)
    if (s.maxItems !== undefined) found.push(`at most ${s.maxItems} items`)
    const pattern = s.pattern ?? (s.title === undefined ? PATTERN_CHECK.exec(s.description ?? "")?.[1] : undefined)
    if (pattern !== undefined) found.push(`pattern \`${pattern}\``)
    if (s.default !== undefined) found.push(`default \`${JSON.stringify(s.default)}\``)
    return found
  })
  return parts
}

/** A description written for readers; a `title` marks Effect's own wording of a check, which `constraints` already says. */
const noteOf = (schema: Schema): string | undefined => {
  if (schema.title !== undefined || schema.description === undefined) return undefined
  const pattern = PATTERN_CHECK.exec(schema.description)?.[1]
  return pattern === undefined ? escapeText(schema.description) : undefined
}

const withConstraints = (base: string, schema: Schema): string => {
  const found = constraints(schema)
  return found.length === 0 ? base : `${base} (${found.join(", ")})`
}

/** The schema as one line when it has no fields of its own to list; undefined when it needs a nested list. */
const inline = (schema: Schema): string | undefined => {
  if (schema.$ref !== undefined) return schemaLink(schemaName(schema.$ref))
  if (schema.anyOf !== undefined) {
    const members = unionMembers(schema.anyOf).map(inline)
    return members.every((member): member is string => member !== undefined) ? members.join(" \\| ") : undefined
  }
  if (schema.enum !== undefined) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(" \\| ")
  switch (schema.type) {
    case "string":
      return withConstraints(schema.format === "binary" ? "file" : "string", schema)
    case "integer":
    case "number":
    case "boolean":
    case "null":
      return withConstraints(schema.type, schema)
    case "array": {
      if (schema.items === undefined) return withConstraints("array", schema)
      const item = inline(schema.items)
      const note = noteOf(schema.items)
      if (item === undefined) return undefined
      const grouped = item.includes(" \\| ") ? `(${item})` : item
      return withConstraints(`array of ${note === undefined ? grouped : `${grouped} (${note})`}`, schema)
    }
    case "object":
      return schema.properties === undefined || Object.keys(schema.properties).length === 0 ? "object" : undefined
    default:
      return "any"
  }
}

const indentLines = (lines: ReadonlyArray<string>, depth: number): Array<string> =>
  lines.map((line) => `${"  ".repeat(depth)}${line}`)

/** Lines of a nested Markdown list describing a schema that `inline` cannot say in one line. */
const expand = (schema: Schema): Array<string> => {
  if (schema.anyOf !== undefined) {
    return unionMembers(schema.anyOf).flatMap((member, index) => item(`option ${index + 1}`, member))
  }
  if (schema.type === "array" && schema.items !== undefined) {
    return item("each item", schema.items)
  }
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties ?? {}).flatMap(([name, property]) =>
    item(`\`${name}\`${required.has(name) ? "" : " (optional)"}`, property)
  )
}

/** One list item: a label, the schema in one line or a nested list under it, and its note. */
const item = (label: string, schema: Schema): Array<string> => {
  const note = noteOf(schema)
  const oneLine = inline(schema)
  if (oneLine !== undefined) return [`- ${label}: ${oneLine}${note === undefined ? "" : ` — ${note}`}`]
  const kind = schema.anyOf !== undefined ? "one of" : schema.type === "array" ? withConstraints("array", schema) : "object"
  return [`- ${label}: ${kind}${note === undefined ? "" : ` — ${note}`}`, ...indentLines(expand(schema), 1)]
}

const contentLines = (label: string, content: Readonly<Record<string, { readonly schema: unknown }>>): Array<string> =>
  Object.entries(content).flatMap(([mediaType, { schema }]) => item(`${label}\`${mediaType}\``, asSchema(schema)))

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const

const securityLine = (operation: OpenApi.OpenAPISpecOperation): string => {
  const schemes = operation.security.flatMap((requirement) => Object.keys(requirement))
  return schemes.length === 0
    ? "Security: none declared."
    : `Security: ${schemes.map((scheme) => schemaLinkToScheme(scheme)).join(" or ")}.`
}
const schemaLinkToScheme = (scheme: string): string => `[\`${scheme}\`](#${headingAnchor(`Security scheme ${scheme}`)})`

const endpointHeading = (method: string, path: string): string => `${method.toUpperCase()} ${path}`

const operationLines = (method: string, path: string, operation: OpenApi.OpenAPISpecOperation): Array<string> => {
  const lines = [`#### ${endpointHeading(method, path)}`, ""]
  if (operation.summary !== undefined) lines.push(`${escapeText(operation.summary)}.`, "")
  if (operation.description !== undefined) lines.push(escapeText(operation.description), "")
  lines.push(securityLine(operation), "")
  if (operation.parameters.length > 0) {
    lines.push("Parameters:", "")
    for (const parameter of operation.parameters) {
      lines.push(...item(
        `\`${parameter.name}\` (${parameter.in}${parameter.required ? "" : ", optional"})`,
        asSchema(parameter.schema)
      ))
    }
    lines.push("")
  }
  if (operation.requestBody !== undefined) {
    lines.push("Request body:", "", ...contentLines("", operation.requestBody.content), "")
  }
  lines.push("Responses:", "")
  for (const [status, response] of Object.entries(operation.responses)) {
    lines.push(`- **${status}** ${escapeText(response.description)}`)
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      lines.push(...indentLines(item(`header \`${name}\``, header.description === undefined ? asSchema(header.schema) : { ...asSchema(header.schema), description: header.description }), 1))
    }
    if (response.content !== undefined) lines.push(...indentLines(contentLines("body ", response.content), 1))
  }
  lines.push("")
  return lines
}

const endpointsOf = (spec: OpenApi.OpenAPISpec) =>
  Object.entries(spec.paths).flatMap(([path, pathItem]) =>
    METHODS.flatMap((method) => {
      const operation = pathItem[method]
      return operation === undefined ? [] : [{ method, path, operation }]
    })
  )

const apiLines = (spec: OpenApi.OpenAPISpec, heading: string, listener: string): Array<string> => {
  const endpoints = endpointsOf(spec)
  const lines = [`## ${heading}`, "", `${escapeText(spec.info.title)}, version ${spec.info.version}. ${listener}`, ""]
  if (spec.info.description !== undefined) lines.push(escapeText(spec.info.description), "")
  for (const tag of spec.tags) {
    const tagged = endpoints.filter(({ operation }) => operation.tags.includes(tag.name))
    lines.push(`### ${tag.name}`, "")
    if (tag.description !== undefined) lines.push(`${escapeText(tag.description)}.`, "")
    for (const { method, operation, path } of tagged) lines.push(...operationLines(method, path, operation))
  }
  return lines
}

const tableOfContents = (specs: ReadonlyArray<OpenApi.OpenAPISpec>): Array<string> =>
  specs.flatMap((spec) =>
    endpointsOf(spec).map(({ method, operation, path }) =>
      `- [${endpointHeading(method, path)}](#${headingAnchor(endpointHeading(method, path))}) — ${escapeText(operation.summary ?? "")}`
    )
  )

/** Both documents' component schemas in one section; a name defined differently by the two would be ambiguous, so it fails. */
const sharedSchemas = (specs: ReadonlyArray<OpenApi.OpenAPISpec>): Array<[string, Schema]> => {
  const byName = new Map<string, unknown>()
  for (const spec of specs) {
    for (const [name, schema] of Object.entries(spec.components.schemas)) {
      const known = byName.get(name)
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema)) {
        throw new Error(`schema ${name} differs between the public and the internal API`)
      }
      byName.set(name, schema)
    }
  }
  return [...byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, schema]) => [name, asSchema(schema)])
}

const schemaLines = (name: string, schema: Schema): Array<string> => {
  const note = noteOf(schema)
  const oneLine = inline(schema)
  const body = oneLine !== undefined && schema.type !== "object" ? [oneLine] : expand(schema)
  return [`### ${name}`, "", ...(note === undefined ? [] : [note, ""]), ...body, ""]
}

const securityLines = (specs: ReadonlyArray<OpenApi.OpenAPISpec>): Array<string> => {
  const schemes = new Map<string, OpenApi.OpenAPISecurityScheme>()
  for (const spec of specs) for (const [name, scheme] of Object.entries(spec.components.securitySchemes)) schemes.set(name, scheme)
  return [...schemes.entries()].flatMap(([name, scheme]) => {
    const how = scheme.type === "http"
      ? `\`Authorization: ${scheme.scheme === "bearer" ? "Bearer" : scheme.scheme} <${scheme.bearerFormat ?? "credential"}>\``
      : `\`${scheme.name}\` in the ${scheme.in}`
    return [`### Security scheme ${name}`, "", `${how}. ${escapeText(scheme.description ?? "")}`, ""]
  })
}

/** The whole of docs/api.md. */
export const renderApiReference = (): string => {
  const publicApi = OpenApi.fromApi(Api)
  const internalApi = OpenApi.fromApi(InternalApi)
  const specs = [publicApi, internalApi]
  const lines = [
    "# API reference",
    "",
    "<!-- Generated by scripts/apiReference.ts from the HttpApi contract (packages/api); do not edit by hand. -->",
    "",
    "Generated from the HttpApi contract in `packages/api` (`OpenApi.fromApi`); run",
    "`npx tsx scripts/apiReference.ts` after changing the contract (`test/docs.test.ts` fails until then).",
    "A running server serves the same public document at `GET /v1/openapi.json` (its `servers` from `OPENAPI_SERVERS`)",
    "and renders it at `/v1/docs` (Scalar's script served by the server itself); the internal listener serves its own",
    "document at `GET /v1/openapi.json`. Error bodies are exactly the spec's ErrorMessage, `{\"message\"}`, unless a",
    "response names another schema; capacity's variant A errors are plain text.",
    "What the endpoints do, with examples: [README](../README.md#api); the limits behind 408, 413 and 429:",
    "[limits.md](limits.md).",
    "",
    "Conventions: a field is required unless marked optional. `number` is a JSON number; the contract's",
    "schemas also admit the strings `\"Infinity\"`, `\"-Infinity\"` and `\"NaN\"` there (Effect's JSON",
    "encoding of a number that may not be finite). `integer` is a safe integer unless a range is given.",
    "",
    "## Endpoints",
    "",
    ...tableOfContents(specs),
    "",
    "## Security schemes",
    "",
    ...securityLines(specs),
    ...apiLines(publicApi, "Public listener", "Served on `HOST:PORT` (default `0.0.0.0:8080`)."),
    ...apiLines(
      internalApi,
      "Internal listener",
      "Served only on `INTERNAL_HOST:INTERNAL_PORT` (default `127.0.0.1:8081`), without authentication; the public port answers 404 for these paths."
    ),
    "## Schemas",
    "",
    ...sharedSchemas(specs).flatMap(([name, schema]) => schemaLines(name, schema))
  ]
  return `${lines.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(apiReferenceFile, renderApiReference())
