/** A multipart/form-data body; strings become text fields, Uint8Array/Blob become file parts. */
export const formData = (parts: ReadonlyArray<readonly [string, string | Blob]>): FormData => {
  const form = new FormData()
  for (const [name, value] of parts) {
    if (typeof value === "string") form.append(name, value)
    else form.append(name, value, `${name}.dat`)
  }
  return form
}

export const fileOf = (text: string, type = "application/octet-stream"): Blob => new Blob([text], { type })
