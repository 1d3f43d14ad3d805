import { Schema } from "effect"

/**
 * The class of an error whose body is the spec's ErrorMessage (`{ "message": ... }`) plus its
 * `_tag`; `httpApiStatus` and `description` are what the API answers and documents for it.
 *
 *     export class LoadNotFound extends MessageError<LoadNotFound>()("LoadNotFound", 404, "No load ...") {}
 */
export const MessageError =
  <Self>() =>
  <const Tag extends string>(tag: Tag, httpApiStatus: number, description: string) =>
    Schema.TaggedError<Self>()(tag, { message: Schema.String }, { httpApiStatus, description })
