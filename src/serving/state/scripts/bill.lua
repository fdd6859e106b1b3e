-- Bills served impressions from holders' leases: what this process served from each lease since its last bill, in
-- one call per slot (one call on a single Redis server), every 100 ms and before the impressions are counted in the
-- database (redis-serve-state.ts). KEYS this bill's token, then per lease: its campaign's leases (hash), spent,
-- daySpent; ARGV the token's life in ms, then per lease: the lease field (holder|day), micro-USDT. The lease's units
-- were counted in the counters when it was granted: billing only takes them off the lease (billLease). Answers each
-- lease's shortfall (above 0: the holder was lost), in the order given. Runs once per token: a bill whose answer was
-- lost is sent again (by the client after a reconnect, or by the process, as it was), and a second run would take
-- the sums off the leases twice; it answers the first run's shortfalls instead.
-- billLease takes `micros` off a holder's lease field; what the field no longer holds (its holder was reclaimed
-- meanwhile and its units went back to the counters) is added to the counters again, so every served impression
-- stays counted once. Answers that shortfall. One HINCRBY in the usual case, a lease holding more than it bills (a
-- lease field is never below 0: when the decrement takes it to 0 or below, the field goes, and what it held before is
-- what it could give).
local function billLease(leases, spent, daySpent, field, micros)
  -- nothing to bill (Redis would also refuse HINCRBY by -0)
  if micros <= 0 then return 0 end
  local left = redis.call('HINCRBY', leases, field, -micros)
  if left > 0 then return 0 end
  redis.call('HDEL', leases, field)
  local short = micros - math.max(left + micros, 0)
  if short > 0 then
    if redis.call('EXISTS', spent) == 1 then redis.call('INCRBY', spent, short) end
    if redis.call('EXISTS', daySpent) == 1 then redis.call('INCRBY', daySpent, short) end
  end
  return short
end
local ran = redis.call('GET', KEYS[1])
if ran then return cjson.decode(ran) end
local shortfalls = {}
for i = 1, (#KEYS - 1) / 3 do
  shortfalls[i] = billLease(KEYS[3 * i - 1], KEYS[3 * i], KEYS[3 * i + 1], ARGV[2 * i], tonumber(ARGV[2 * i + 1]))
end
redis.call('SET', KEYS[1], cjson.encode(shortfalls), 'PX', ARGV[1])
return shortfalls
