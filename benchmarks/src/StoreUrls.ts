/** The runner's PostgreSQL and Redis (`DATABASE_URL`, `REDIS_URL`); unset or empty: the servers under test run without them. */
const setting = (name: string): string | undefined => {
  const value = process.env[name]
  return value === undefined || value === "" ? undefined : value
}

export const databaseUrl = (): string | undefined => setting("DATABASE_URL")
export const redisUrl = (): string | undefined => setting("REDIS_URL")
