export * from "./Products.ts"
export * from "./CsvFiles.ts"
