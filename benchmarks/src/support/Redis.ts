import { createClient, type RedisClientType } from "redis"

export type RedisClient = RedisClientType

/** A connection for the duration of `use`; the benchmarks talk to Redis only to measure XADD and to clean up their streams. */
export const withRedis = async <A>(url: string, use: (client: RedisClient) => Promise<A>): Promise<A> => {
  const client: RedisClient = createClient({ url })
  client.on("error", () => undefined)
  await client.connect()
  try {
    return await use(client)
  } finally {
    client.destroy()
  }
}

export const deleteKeys = (url: string, keys: ReadonlyArray<string>): Promise<void> =>
  withRedis(url, async (client) => {
    if (keys.length > 0) await client.del([...keys])
  })
