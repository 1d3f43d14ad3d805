import * as Jose from "jose"

/** The HS256 secret the servers under test are started with (JWT_SECRET). */
export const BENCH_JWT_SECRET = "benchmark-secret-with-enough-entropy-0123456789"
/** The capacity API key the servers under test are started with (CAPACITY_API_KEYS). */
export const BENCH_CAPACITY_KEY = "benchmark-capacity-key"

/** A bearer token as docs/auth.md describes: scopes to load and read products for one company. */
export const mintToken = (company: string): Promise<string> =>
  new Jose.SignJWT({ scope: "products:write products:read", company })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("benchmark")
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(new TextEncoder().encode(BENCH_JWT_SECRET))

export const runTag = (): string => crypto.randomUUID().slice(0, 8)
