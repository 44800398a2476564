-- Ends a lease early, if it is still held: a lease that ran out, and any
-- lease taken on its name since (by this replica or another), is left alone.
--
-- KEYS[1] the lease; ARGV[1] the value that lease was taken with, its own.
-- Returns 1 when the lease was ended, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
