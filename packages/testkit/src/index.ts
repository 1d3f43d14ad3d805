export * from "./Products.ts"
