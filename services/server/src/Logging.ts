import { Config, Effect, Layer, Logger, References } from "effect"
import type { LogLevel } from "effect"

const FORMATS = ["json", "logfmt", "pretty"] as const
export type LogFormat = typeof FORMATS[number]

const LEVELS: Readonly<Record<string, LogLevel.LogLevel>> = {
  all: "All",
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None",
  off: "None"
}

/** Each level by its name in lower case or upper case (`debug`, `DEBUG`). */
const LEVEL_NAMES = Object.keys(LEVELS).flatMap((name) => [name, name.toUpperCase()])

/** LOG_FORMAT and LOG_LEVEL (documented in README.md and docs/observability.md). */
export const LoggingConfig = Config.all({
  /** Unset: `pretty` on a terminal, `logfmt` otherwise (a file, a pipe, a container's log). */
  format: Config.option(Config.Literals(FORMATS, "LOG_FORMAT")),
  level: Config.Literals(LEVEL_NAMES, "LOG_LEVEL").pipe(
    Config.withDefault("info"),
    Config.map((name) => LEVELS[name.toLowerCase()] ?? "Info")
  )
})

export const formatFor = (given: LogFormat | undefined, isTty: boolean): LogFormat => given ?? (isTty ? "pretty" : "logfmt")

const loggerOf = (format: LogFormat) =>
  format === "json" ? Logger.consoleJson : format === "logfmt" ? Logger.consoleLogFmt : Logger.consolePretty()

/**
 * The process's loggers: one line per entry in LOG_FORMAT, at LOG_LEVEL and above; the tracer's
 * logger stays, so that a sampled span holds the entries logged inside it as events.
 */
export const loggingWith = (format: LogFormat, level: LogLevel.LogLevel): Layer.Layer<never> =>
  Layer.merge(
    Logger.layer([loggerOf(format), Logger.tracerLogger]),
    Layer.succeed(References.MinimumLogLevel, level)
  )

export const LoggingLive: Layer.Layer<never, Config.ConfigError> = Layer.unwrap(
  Effect.map(LoggingConfig, ({ format, level }) =>
    loggingWith(formatFor(format._tag === "Some" ? format.value : undefined, process.stdout.isTTY === true), level))
)
