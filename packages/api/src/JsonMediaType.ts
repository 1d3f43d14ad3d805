/**
 * True for a JSON request body both services read: media type `application/json` or a `+json`
 * suffix type (any case), with no parameter but `charset=utf-8` (quoted or not). The bodies are
 * decoded as UTF-8 only, so a body declared in another charset is refused, not misread.
 */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  if (header === "application/json") return true
  const [mediaType = "", ...parameters] = header.split(";")
  const type = mediaType.trim().toLowerCase()
  if (type !== "application/json" && !(type.startsWith("application/") && type.endsWith("+json"))) return false
  return parameters.every((parameter) => {
    const [name, value] = parameter.split("=")
    return name?.trim().toLowerCase() === "charset" && value?.trim().replace(/"/g, "").toLowerCase() === "utf-8"
  })
}
