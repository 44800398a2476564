-- What the reserve and join scripts share about a budget's log: a sorted
-- set, one member per turn scored with the time it may be sent (µs of
-- Redis's clock), and a marker, a key of its own that no script removes.
-- Replicas still running scripts that knew no marker, as in a rolling
-- deployment, leave it alone: they would trim a member of the log.

-- Lua writes numbers with 14 digits: microseconds need 16.
local function int(x) return string.format('%.0f', x) end

-- kept makes sure the log accounts for every turn granted from it that may
-- still count, and reports whether it had to (1) or did already (0). Without
-- the marker the log is new, or Redis lost it (restarted without
-- persistence, flushed), and turns granted from it may still count, as many
-- as the limit, none later than `ahead` past now (no turn is granted further
-- ahead). So nothing is sent until those can no longer count: the budget's
-- pause is put a window and `ahead` from now, which also holds the turns
-- granted before and still waited for (a replica looks at the pause again
-- when their time comes).
local function kept(marker, pause, now, window, ahead)
  if redis.call('EXISTS', marker) == 1 then
    return 0
  end
  redis.call('SET', marker, int(now))
  local ends = now + window + ahead
  if ends > tonumber(redis.call('GET', pause) or 0) then
    redis.call('SET', pause, int(ends), 'PX', int(math.ceil((window + ahead) / 1000) + 1))
  end
  return 1
end

