export * from "./Infrastructure.ts"
export * from "./InternalServer.ts"
export * from "./Server.ts"
export * from "./ServerConfig.ts"
