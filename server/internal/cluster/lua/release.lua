-- Ends a lease early, if the caller still holds it: a lease that lapsed and
-- was taken by another replica is left alone.
--
-- KEYS[1] the lease; ARGV[1] the calling replica.
-- Returns 1 when the lease was ended, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
