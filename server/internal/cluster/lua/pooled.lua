-- Puts a value, and tells the watchers, only while its pool has room: the
-- bytes the pool's puts stored since its window began, a window of the
-- values' ttl that begins at the first put after the last one ended. A
-- value lives at most ttl, so those alive at any moment were put in at
-- most two windows: the pool's values never hold more than twice its bytes.
--
-- KEYS[1] the value, KEYS[2] the pool's count. ARGV: value, ttl (ms), the
-- pool's bytes a window, channel, the key as watchers are told it.
-- Returns 1 when put, 0 when the pool is full.
local n = string.len(ARGV[1])
local used = redis.call('INCRBY', KEYS[2], n)
if used == n then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
if used > tonumber(ARGV[3]) then
  redis.call('DECRBY', KEYS[2], n)
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
