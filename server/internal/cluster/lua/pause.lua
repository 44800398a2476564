-- Sends nothing for a while: the venue said its window is spent. A length
-- of 0 only reads the pause.
-- KEYS[1] the pause. ARGV[1] how long, in µs.
-- Returns when the pause ends, in µs of Redis's clock (0: there is none).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local d = tonumber(ARGV[1])
local ends = tonumber(redis.call('GET', KEYS[1]) or 0)
if d > 0 and now + d > ends then
  ends = now + d
  redis.call('SET', KEYS[1], string.format('%.0f', ends), 'PX', string.format('%.0f', math.ceil(d / 1000) + 1))
end
return ends
