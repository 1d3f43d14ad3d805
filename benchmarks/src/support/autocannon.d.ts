// The part of autocannon's programmatic API the varied-body load uses (the package ships no types).
declare module "autocannon" {
  interface RawRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }
  export interface RequestHooks {
    readonly setupRequest?: (request: RawRequest) => RawRequest
    /** Each answer's status and body (the orders load reads which orders were applied). */
    readonly onResponse?: (status: number, body: string) => void
  }
  interface Options {
    readonly url: string
    readonly connections: number
    readonly duration?: number
    readonly amount?: number
    /** Milliseconds between samples; a run of `amount` requests ends on a sample. */
    readonly sampleInt?: number
    readonly timeout?: number
    readonly method?: string
    readonly headers?: Readonly<Record<string, string>>
    readonly requests?: ReadonlyArray<RequestHooks>
  }
  function autocannon(options: Options): Promise<unknown>
  export default autocannon
}
