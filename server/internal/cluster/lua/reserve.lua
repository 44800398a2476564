-- Takes n turns of a budget every replica shares: a sliding-window log, one
-- member per turn, scored with the time it may be sent, in microseconds of
-- Redis's clock, so that the replicas' own clocks never matter. Runs after
-- log.lua.
--
-- KEYS[1] the log; KEYS[2] the present replicas (member: replica, score: when
-- its presence ends); KEYS[3] the pause (nothing is sent before its value);
-- KEYS[4] the log's marker (log.lua).
-- ARGV: limit (turns per window), window (µs, margin included), share (a
-- replica's local share), replicas, n, longest wait (µs), token (names the
-- turns), the calling replica, ahead (µs: no turn is granted further ahead),
-- held (µs: the caller sends nothing before now plus this, a pause of its
-- own not yet in KEYS[3]).
-- Returns {1 granted or 0 refused, µs until the turn (refused: until one
-- could be had), Redis's now in µs, replicas present (the caller counted,
-- present yet or not), turns left in the window after this call (for
-- metrics), 1 when the log was new or lost}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local share, replicas = tonumber(ARGV[3]), tonumber(ARGV[4])
local n, ahead, held = tonumber(ARGV[5]), tonumber(ARGV[9]), tonumber(ARGV[10])
local longest = math.min(tonumber(ARGV[6]), ahead)
local lost = kept(KEYS[4], KEYS[3], now, window, ahead)

-- A replica that is not present may be spending its share alone; the
-- caller is not, whether present yet or not: it is here.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', int(now))
local present = redis.call('ZCARD', KEYS[2])
local here = present
if not redis.call('ZSCORE', KEYS[2], ARGV[8]) then here = here + 1 end
local absent = math.max(0, replicas - here)
local allowed = limit - share * absent
if n > allowed then
  return {0, window, now, here, 0, lost}
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now - window))
local count = redis.call('ZCARD', KEYS[1])
-- Turns are taken in order: after the last one, after any pause, and once
-- the turn allowed-n+1 from the end has left the window.
local at = now + held
if count > 0 then
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  at = math.max(at, tonumber(last[2]))
end
local pause = redis.call('GET', KEYS[3])
if pause then at = math.max(at, tonumber(pause)) end
local k = allowed - n + 1
if count >= k then
  local old = redis.call('ZRANGE', KEYS[1], -k, -k, 'WITHSCORES')
  at = math.max(at, tonumber(old[2]) + window)
end
local left = math.max(0, allowed - count)
if at - now > longest then
  return {0, at - now, now, here, left, lost}
end
-- No turn outlives a present replica's presence: a replica that leaves
-- waits for its presence to end before it spends its share alone.
if present > 0 then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  if at > tonumber(first[2]) then
    return {0, at - now, now, here, left, lost}
  end
end
for i = 1, n do
  redis.call('ZADD', KEYS[1], int(at), ARGV[7] .. ':' .. i)
end
return {1, at - now, now, here, math.max(0, left - n), lost}
