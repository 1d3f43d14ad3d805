export * from "./Infrastructure.ts"
export * from "./Server.ts"
export * from "./ServerConfig.ts"
