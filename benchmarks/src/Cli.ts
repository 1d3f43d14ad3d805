import { Result, Schema } from "effect"

export interface CliOptions {
  readonly name: string | undefined
  readonly size: number | undefined
  /** Unset: each benchmark's default (3, or 1 for the soak). */
  readonly runs: number | undefined
  readonly smoke: boolean
  readonly label: string
}

const PositiveInt = Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThan(0))
const decodePositive = Schema.decodeUnknownResult(PositiveInt)

export const USAGE = "usage: npm run bench -- [<benchmark>] [--size N] [--runs N] [--smoke] [--label TEXT]"

/** Parses the command line; a Failure is a message for the user. */
export const parseArgs = (args: ReadonlyArray<string>): Result.Result<CliOptions, string> => {
  let name: string | undefined
  let size: number | undefined
  let runs: number | undefined
  let smoke = false
  let label = process.env["BENCH_LABEL"] ?? ""
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    const value = args[i + 1]
    const positive = (flag: string): Result.Result<number, string> =>
      Result.mapError(decodePositive(value), () => `${flag} needs a positive integer (got ${value ?? "nothing"})`)
    if (arg === "--size" || arg === "--runs") {
      const parsed = positive(arg)
      if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
      if (arg === "--size") size = parsed.success
      else runs = parsed.success
      i++
    } else if (arg === "--label") {
      if (value === undefined) return Result.fail("--label needs a text")
      label = value
      i++
    } else if (arg === "--smoke") {
      smoke = true
    } else if (arg.startsWith("--")) {
      return Result.fail(`unknown option ${arg}`)
    } else if (name === undefined) {
      name = arg
    } else {
      return Result.fail(`one benchmark at a time (got ${name} and ${arg})`)
    }
  }
  if (size !== undefined && name === undefined) return Result.fail("--size applies to one benchmark: name it")
  return Result.succeed({ name, size, runs, smoke, label })
}
