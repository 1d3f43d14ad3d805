import { DEFAULT_ERRORS_PAGE, type ErrorsPageParams, InvalidRequest, MAX_ERRORS_PAGE } from "@retail/api"
import { Effect, Option } from "effect"

type QueryValue = NonNullable<typeof ErrorsPageParams.Type.limit>

export interface ErrorsPageQuery {
  readonly cursor: Option.Option<string>
  readonly limit: number
}

const WHOLE_NUMBER = /^\d{1,7}$/

const once = (name: string, value: QueryValue | undefined): Effect.Effect<Option.Option<string>, InvalidRequest> =>
  typeof value === "object"
    ? Effect.fail(new InvalidRequest({ message: `${name}: is given more than once` }))
    : Effect.succeed(Option.fromNullishOr(value))

const pageLimit = (text: string): Effect.Effect<number, InvalidRequest> => {
  const limit = WHOLE_NUMBER.test(text) ? Number(text) : Number.NaN
  return limit >= 1 && limit <= MAX_ERRORS_PAGE
    ? Effect.succeed(limit)
    : Effect.fail(new InvalidRequest({ message: `limit: must be a whole number from 1 to ${MAX_ERRORS_PAGE} (got ${text})` }))
}

/** The page asked of `/loads/{code}/errors`; the cursor's form is the store's to judge (InvalidCursor). */
export const errorsPageQuery = (params: typeof ErrorsPageParams.Type): Effect.Effect<ErrorsPageQuery, InvalidRequest> =>
  Effect.gen(function*() {
    const cursor = yield* once("cursor", params.cursor)
    const limit = yield* once("limit", params.limit)
    return {
      cursor,
      limit: Option.isSome(limit) ? yield* pageLimit(limit.value) : DEFAULT_ERRORS_PAGE
    }
  })
