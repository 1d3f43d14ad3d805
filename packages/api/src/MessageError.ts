import { Schema } from "effect"

/**
 * The spec's ErrorMessage, the body of most error answers. Every MessageError class encodes to
 * this one schema, so the OpenAPI document has one `ErrorMessage` component that they all name.
 */
export const ErrorMessage = Schema.Struct({ message: Schema.String }).annotate({
  identifier: "ErrorMessage",
  description: "An error: the message says what went wrong"
})

/**
 * The class of an error whose body is exactly the spec's ErrorMessage (`{ "message": ... }`);
 * `httpApiStatus` and `description` are what the API answers and documents for it. The `_tag`
 * lives on the instance (Effect's catchTag matches it) but not on the wire: the error union of an
 * endpoint encodes each error by its class, and a client tells errors apart by status.
 *
 *     export class LoadNotFound extends MessageError<LoadNotFound>()("LoadNotFound", 404, "No load ...") {}
 */
export const MessageError =
  <Self>() =>
  <const Tag extends string>(tag: Tag, httpApiStatus: number, description: string) => {
    const errorClass = Schema.Error<Self, { readonly _tag: Tag }>(tag)(ErrorMessage, { httpApiStatus, description })
    return withTag(tag, errorClass)
  }

/**
 * Puts `_tag` on the prototype of an error class whose schema has no `_tag` field (the class's
 * `Brand` declares it): present on every instance, absent from what the schema encodes.
 */
export const withTag = <C>(tag: string, errorClass: C): C => {
  if (typeof errorClass === "function") Object.defineProperty(errorClass.prototype, "_tag", { value: tag, enumerable: false })
  return errorClass
}
