import { InvalidRequest } from "@retail/api"

/** 400 for a required multipart part the body did not hold. */
export const missingPart = (name: string, kind: "file" | "text") =>
  new InvalidRequest({ message: `The multipart part ${name} (${kind === "file" ? "a file" : "a text field"}) is required` })
