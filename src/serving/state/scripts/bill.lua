-- Bills served impressions from holders' leases, right after the serve script served them: every campaign of one
-- turn of the event loop whose keys are in one slot (on a single Redis server, all of them) in one call. KEYS per
-- campaign: its leases (hash), spent, daySpent; ARGV per campaign: the lease field (holder|day), micro-USDT. The
-- lease's units were counted in the counters when it was granted: billing only takes them off the lease. What a
-- lease no longer holds (its holder was reclaimed meanwhile and its units went back to the counters) is added to the
-- counters again, so every served impression stays counted. Answers each campaign's shortfall (above 0: the holder
-- was lost), in the order given.
local shortfalls = {}
for i = 1, #KEYS / 3 do
  local leases, spent, daySpent = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local field = ARGV[2 * i - 1]
  local micros = tonumber(ARGV[2 * i])
  local held = tonumber(redis.call('HGET', leases, field) or '0')
  local taken = math.min(held, micros)
  if taken > 0 then
    if held - taken <= 0 then
      redis.call('HDEL', leases, field)
    else
      redis.call('HINCRBY', leases, field, -taken)
    end
  end
  local short = micros - taken
  if short > 0 then
    if redis.call('EXISTS', spent) == 1 then redis.call('INCRBY', spent, short) end
    if redis.call('EXISTS', daySpent) == 1 then redis.call('INCRBY', daySpent, short) end
  end
  shortfalls[i] = short
end
return shortfalls
