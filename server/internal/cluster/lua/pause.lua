-- Sends nothing for a while: the venue said its window is spent.
-- KEYS[1] the pause. ARGV[1] how long, in µs.
-- Returns Redis's now in µs.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local d = tonumber(ARGV[1])
local ends = now + d
if ends > tonumber(redis.call('GET', KEYS[1]) or 0) then
  redis.call('SET', KEYS[1], string.format('%.0f', ends), 'PX', string.format('%.0f', math.ceil(d / 1000) + 1))
end
return now
