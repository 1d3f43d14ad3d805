export * from "./JsonSyntaxError.ts"
export * from "./JsonProductScanner.ts"
export * from "./JsonProductStream.ts"
