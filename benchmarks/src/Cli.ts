import { Either, Schema } from "effect"

export interface CliOptions {
  readonly name: string | undefined
  readonly size: number | undefined
  /** Unset: each benchmark's default (3, or 1 for the soak). */
  readonly runs: number | undefined
  readonly smoke: boolean
  readonly label: string
}

const PositiveInt = Schema.NumberFromString.pipe(Schema.int(), Schema.positive())
const decodePositive = Schema.decodeUnknownEither(PositiveInt)

export const USAGE = "usage: npm run bench -- [<benchmark>] [--size N] [--runs N] [--smoke] [--label TEXT]"

/** Parses the command line; Left is a message for the user. */
export const parseArgs = (args: ReadonlyArray<string>): Either.Either<CliOptions, string> => {
  let name: string | undefined
  let size: number | undefined
  let runs: number | undefined
  let smoke = false
  let label = process.env["BENCH_LABEL"] ?? ""
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    const value = args[i + 1]
    const positive = (flag: string): Either.Either<number, string> =>
      Either.mapLeft(decodePositive(value), () => `${flag} needs a positive integer (got ${value ?? "nothing"})`)
    if (arg === "--size" || arg === "--runs") {
      const parsed = positive(arg)
      if (Either.isLeft(parsed)) return Either.left(parsed.left)
      if (arg === "--size") size = parsed.right
      else runs = parsed.right
      i++
    } else if (arg === "--label") {
      if (value === undefined) return Either.left("--label needs a text")
      label = value
      i++
    } else if (arg === "--smoke") {
      smoke = true
    } else if (arg.startsWith("--")) {
      return Either.left(`unknown option ${arg}`)
    } else if (name === undefined) {
      name = arg
    } else {
      return Either.left(`one benchmark at a time (got ${name} and ${arg})`)
    }
  }
  if (size !== undefined && name === undefined) return Either.left("--size applies to one benchmark: name it")
  return Either.right({ name, size, runs, smoke, label })
}
