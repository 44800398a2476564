-- Charges one call to a share: a sliding-window log of its charges, one
-- member per charge, scored with Redis's time (µs), so that the replicas'
-- clocks never matter. A charge at or before now less the window no
-- longer counts.
--
-- KEYS[1] the log. ARGV: limit (charges per window), window (µs), member.
-- Returns {1, 0} when charged, else {0, µs until the oldest charge leaves
-- the window}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local limit, window = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - window))
if redis.call('ZCARD', KEYS[1]) >= limit then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) + window - now}
end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[3])
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil(window / 1000) + 1))
return {1, 0}
