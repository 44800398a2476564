-- Adds the turns a replica took alone to the shared log, then marks the
-- replica present, in one step, so that no other replica counts on its share
-- before its turns are in the log. A heartbeat is a join with no turns.
-- Runs after log.lua.
--
-- KEYS[1] the log; KEYS[2] the present replicas; KEYS[3] the log's marker;
-- KEYS[4] the pause.
-- ARGV: replica, presence end (µs of Redis's clock; 0: not present), window
-- (µs), token, ahead (µs: as for reserve.lua), then the age of each turn to
-- add (µs before now; negative: a turn still to come, at most ahead).
-- Returns {Redis's now in µs, 1 when the log was new or lost, the replicas
-- present now (for metrics: reserve.lua leaves out the shares of the others)}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local ends, window = tonumber(ARGV[2]), tonumber(ARGV[3])
local lost = kept(KEYS[3], KEYS[4], now, window, tonumber(ARGV[5]))

for i = 6, #ARGV do
  local at = now - tonumber(ARGV[i])
  if at > now - window then
    redis.call('ZADD', KEYS[1], int(at), ARGV[4] .. ':' .. i)
  end
end

-- A presence that would end already was sent too long ago (Redis was
-- stalled): it must not count. A presence never moves back.
if ends > now then
  local held = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or 0)
  if ends > held then
    redis.call('ZADD', KEYS[2], int(ends), ARGV[1])
  end
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[2], int(math.ceil((tonumber(last[2]) - now) / 1000) + 1))
end
return {now, lost, redis.call('ZCOUNT', KEYS[2], '(' .. int(now), '+inf')}
