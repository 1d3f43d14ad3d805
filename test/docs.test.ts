import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { apiReferenceFile, headingAnchor, renderApiReference } from "../scripts/apiReference.ts"

const root = fileURLToPath(new URL("../", import.meta.url))

const markdownUnder = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    return entry.isDirectory() ? markdownUnder(path) : entry.name.endsWith(".md") ? [path] : []
  })

const documents = [join(root, "README.md"), ...markdownUnder(join(root, "docs"))]

/** The text a reader sees as prose: fenced blocks and code spans hold examples, not links. */
const prose = (markdown: string): string =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "")

const linkTargets = (markdown: string): Array<string> =>
  [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? "")

/** Anchors GitHub gives a file's headings, a repeated heading numbered from -1. */
const anchorsOf = (markdown: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const match of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = headingAnchor((match[1] ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"))
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target)

/** Why a relative link of `file` does not resolve inside the repository, or undefined when it does. */
const brokenReason = (file: string, target: string): string | undefined => {
  const [path = "", anchor] = target.split("#", 2)
  const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path))
  const inside = relative(root, resolved)
  if (inside.startsWith("..")) return "points outside the repository"
  if (!existsSync(resolved)) return "no such file"
  if (anchor !== undefined && anchor !== "" && resolved.endsWith(".md") && statSync(resolved).isFile()) {
    if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor.toLowerCase())) return `no heading with anchor #${anchor}`
  }
  return undefined
}

/** Documents whose code spans name repository paths of today (the specs and the starting design are copies, left as written). */
const pathDocuments = [
  join(root, "README.md"),
  join(root, "benchmarks", "README.md"),
  ...readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name, "README.md"))
    .filter((file) => existsSync(file)),
  ...markdownUnder(join(root, "docs")).filter((file) => {
    const inside = relative(root, file)
    return !inside.startsWith(join("docs", "specs")) && inside !== join("docs", "starting-design.md")
  })
]

const pathRoots = ["packages", "services", "test", "benchmarks", "scripts", "docs", "deploy"]

/** Repository paths written in code spans (a trailing `/` or `:line` dropped); glob patterns are skipped. */
const codeSpanPaths = (markdown: string): Array<string> =>
  [...markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").matchAll(/`([^`\n]+)`/g)]
    .map((match) => (match[1] ?? "").trim())
    .filter((span) => /^[A-Za-z0-9_.@/-]+(?::\d+(?:-\d+)?)?\/?$/.test(span) && pathRoots.some((first) => span.startsWith(`${first}/`)))
    .map((span) => span.replace(/:\d+(?:-\d+)?$/, "").replace(/\/$/, ""))

/** The paths of `markdown`'s code spans that name nothing in the repository. */
const missingPaths = (markdown: string): Array<string> => codeSpanPaths(markdown).filter((path) => !existsSync(join(root, path)))

describe("the documentation", () => {
  it("finds the README and the docs", () => {
    expect(documents.map((file) => relative(root, file))).toEqual(expect.arrayContaining(["README.md", "docs/api.md", "docs/specs/product-upload.md"]))
  })

  it("links only to files (and headings) inside the repository", () => {
    const broken = documents.flatMap((file) =>
      linkTargets(readFileSync(file, "utf8"))
        .filter((target) => !isExternal(target))
        .flatMap((target) => {
          const reason = brokenReason(file, target)
          return reason === undefined ? [] : [`${relative(root, file)}: ${target} (${reason})`]
        })
    )
    expect(broken).toEqual([])
  })

  it("names no document outside the repository (the specs and the starting design are copied into docs/)", () => {
    const outside = documents.filter((file) => readFileSync(file, "utf8").includes("../shared/")).map((file) => relative(root, file))
    expect(outside).toEqual([])
  })

  it("names in code spans only repository paths that exist", () => {
    const missing = pathDocuments.flatMap((file) => missingPaths(readFileSync(file, "utf8")).map((path) => `${relative(root, file)}: ${path}`))
    expect(missing).toEqual([])
  })

  it("docs/api.md is what scripts/apiReference.ts generates from the contract today", () => {
    expect(readFileSync(apiReferenceFile, "utf8")).toBe(renderApiReference())
  })
})

describe("the link checker", () => {
  it("reports a missing file, a missing heading and a link out of the repository", () => {
    const readme = join(root, "README.md")
    expect(brokenReason(readme, "docs/no-such-file.md")).toBe("no such file")
    expect(brokenReason(readme, "docs/queue.md#no-such-heading")).toBe("no heading with anchor #no-such-heading")
    expect(brokenReason(readme, "../outside.md")).toBe("points outside the repository")
    expect(brokenReason(readme, "docs/api.md#post-v1load-products")).toBeUndefined()
  })

  it("reads links in prose only, and numbers repeated headings as GitHub does", () => {
    expect(linkTargets("[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n[d](w.md \"title\")")).toEqual(["x.md", "w.md"])
    expect([...anchorsOf("# Memory\n## Memory\n## `POST /v1/loads/{code}`")]).toEqual(["memory", "memory-1", "post-v1loadscode"])
  })
})

describe("the path checker", () => {
  it("reads repository paths from code spans, drops a trailing / or :line, skips globs and fenced blocks", () => {
    expect(codeSpanPaths("`packages/ingest/src/json/` `services/upload/src/x.ts:12` `src/a.ts` `packages/*/README.md` `npm test`\n```\n`docs/y.md`\n```")).toEqual([
      "packages/ingest/src/json",
      "services/upload/src/x.ts"
    ])
  })

  it("reports a path that does not exist and accepts one that does", () => {
    expect(missingPaths("`services/upload/src/files/NoSuchFile.ts` and `test/docs.test.ts:3` and `packages/ingest/src/`")).toEqual([
      "services/upload/src/files/NoSuchFile.ts"
    ])
  })
})
