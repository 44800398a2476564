-- What the reserve and join scripts share about a budget's log: a sorted
-- set, one member per turn scored with the time it may be sent (µs of
-- Redis's clock), and a marker, a key of its own that no script removes.
-- Replicas still running scripts that knew no marker, as in a rolling
-- deployment, leave it alone: they would trim a member of the log.

-- Lua writes numbers with 14 digits: microseconds need 16.
local function int(x) return string.format('%.0f', x) end

-- kept makes sure the log holds every turn granted from it that may still
-- count, and reports whether it had to (1) or did already (0). Without the
-- marker the log is new, or Redis lost it (restarted without persistence,
-- flushed), and turns granted from it may still count, as many as the limit,
-- none later than `ahead` past now (no turn is granted further ahead). The
-- log is taken to hold the whole limit then, so no turn is granted until
-- those can no longer count: a window and `ahead` from now.
local function kept(log, marker, now, limit, ahead)
  if redis.call('EXISTS', marker) == 1 then
    return 0
  end
  redis.call('SET', marker, int(now))
  for i = 1, limit do
    redis.call('ZADD', log, int(now + ahead), 'lost:' .. i)
  end
  return 1
end

-- turns is the number of turns in the log.
local function turns(log)
  return redis.call('ZCARD', log)
end

