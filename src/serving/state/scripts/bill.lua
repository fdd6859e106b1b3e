-- Bills served impressions from a holder's lease of one campaign, in the campaign's slot, right after the serve
-- script served them. KEYS the campaign's leases (hash), spent, daySpent; ARGV the lease field (holder|day),
-- micro-USDT. The lease's units were counted in the counters when it was granted: billing only takes them off the
-- lease. What the lease no longer holds (its holder was reclaimed meanwhile and its units went back to the counters)
-- is added to the counters again, so every served impression stays counted. Answers that shortfall (above 0: the
-- holder was lost).
local held = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local micros = tonumber(ARGV[2])
local taken = math.min(held, micros)
if taken > 0 then
  if held - taken <= 0 then
    redis.call('HDEL', KEYS[1], ARGV[1])
  else
    redis.call('HINCRBY', KEYS[1], ARGV[1], -taken)
  end
end
local short = micros - taken
if short > 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('INCRBY', KEYS[2], short) end
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('INCRBY', KEYS[3], short) end
end
return short
