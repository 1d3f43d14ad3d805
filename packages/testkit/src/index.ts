export * from "./Products.ts"
export * from "./CsvFiles.ts"
export * from "./Prometheus.ts"
export * from "./OtlpSink.ts"
