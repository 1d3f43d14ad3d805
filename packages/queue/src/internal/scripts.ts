import { createHash } from "node:crypto"

export interface Script {
  readonly source: string
  readonly sha1: string
}

const script = (source: string): Script => ({ source, sha1: createHash("sha1").update(source).digest("hex") })

/**
 * XAUTOCLAIM does not report delivery counts, and one call scans at most
 * COUNT * 10 pending entries. This walks the whole PEL until it has claimed
 * `count` entries, reading each claimed entry's count back from XPENDING, in
 * one atomic round trip. Entries deleted while pending come back as nil
 * (Redis 6.2) or are dropped by XAUTOCLAIM itself (7+).
 *
 * KEYS stream; ARGV group, consumer, minIdleMs, count.
 * Returns [[id, [field, value, ...], deliveries], ...].
 */
export const claimStale = script(`
local count = tonumber(ARGV[4])
local out = {}
local cursor = '0-0'
repeat
  local reply = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], cursor, 'COUNT', count - #out)
  cursor = reply[1]
  for _, entry in ipairs(reply[2]) do
    if entry then
      local pending = redis.call('XPENDING', KEYS[1], ARGV[1], entry[1], entry[1], 1)
      out[#out + 1] = { entry[1], entry[2], pending[1][4] }
    end
  end
until cursor == '0-0' or #out >= count
return out
`)

/**
 * Unlike MULTI, a script stops at the first error: if the dead letter cannot
 * be written, the entry is not acked (and so not lost).
 *
 * KEYS stream, dead stream, tracking set; ARGV group, id, payload, reason, deliveries, "1" to delete
 * the entry, the dead stream's MAXLEN ("" keeps every entry), then the members to remove from the
 * tracking set (none: the set is not touched).
 */
export const deadLetter = script(`
if ARGV[7] == '' then
  redis.call('XADD', KEYS[2], '*', 'payload', ARGV[3], 'reason', ARGV[4], 'deliveries', ARGV[5], 'sourceId', ARGV[2])
else
  redis.call('XADD', KEYS[2], 'MAXLEN', '=', ARGV[7], '*', 'payload', ARGV[3], 'reason', ARGV[4], 'deliveries', ARGV[5], 'sourceId', ARGV[2])
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
if ARGV[6] == '1' then redis.call('XDEL', KEYS[1], ARGV[2]) end
if #ARGV > 7 then redis.call('SREM', KEYS[3], unpack(ARGV, 8)) end
return 'OK'
`)
