export * from "./Settings.ts"
