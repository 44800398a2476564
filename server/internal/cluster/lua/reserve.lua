-- Takes n turns of a budget every replica shares: a sliding-window log, one
-- member per turn, scored with the time it may be sent, in microseconds of
-- Redis's clock, so that the replicas' own clocks never matter.
--
-- KEYS[1] the log; KEYS[2] the present replicas (member: replica, score: when
-- its presence ends); KEYS[3] the pause (nothing is sent before its value).
-- ARGV: limit (turns per window), window (µs, margin included), share (a
-- replica's local share), replicas, n, longest wait (µs), token (names the
-- turns), the calling replica.
-- Returns {1 granted or 0 refused, µs until the turn (refused: until one
-- could be had), Redis's now in µs, replicas present, turns left in the
-- window after this call (for metrics)}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local share, replicas = tonumber(ARGV[3]), tonumber(ARGV[4])
local n, longest = tonumber(ARGV[5]), tonumber(ARGV[6])

-- Lua writes numbers with 14 digits: microseconds need 16.
local function int(x) return string.format('%.0f', x) end

-- A replica that is not present may be spending its share alone; the
-- caller is not, whether present yet or not: it is here.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', int(now))
local present = redis.call('ZCARD', KEYS[2])
local here = present
if not redis.call('ZSCORE', KEYS[2], ARGV[8]) then here = here + 1 end
local absent = math.max(0, replicas - here)
local allowed = limit - share * absent
if n > allowed then
  return {0, window, now, present, 0}
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now - window))
-- Turns are taken in order: after the last one, after any pause, and once
-- the turn allowed-n+1 from the end has left the window.
local at = now
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then at = math.max(at, tonumber(last[2])) end
local pause = redis.call('GET', KEYS[3])
if pause then at = math.max(at, tonumber(pause)) end
local k = allowed - n + 1
if redis.call('ZCARD', KEYS[1]) >= k then
  local old = redis.call('ZRANGE', KEYS[1], -k, -k, 'WITHSCORES')
  at = math.max(at, tonumber(old[2]) + window)
end
local left = math.max(0, allowed - redis.call('ZCARD', KEYS[1]))
if at - now > longest then
  return {0, at - now, now, present, left}
end
-- No turn outlives a present replica's presence: a replica that leaves
-- waits for its presence to end before it spends its share alone.
if present > 0 then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if at > tonumber(first[2]) then
    return {0, at - now, now, present, left}
  end
end
for i = 1, n do
  redis.call('ZADD', KEYS[1], int(at), ARGV[7] .. ':' .. i)
end
redis.call('PEXPIRE', KEYS[1], int(math.ceil((at - now + window) / 1000) + 1))
return {1, at - now, now, present, math.max(0, left - n)}
