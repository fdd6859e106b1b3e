-- Bills served impressions from holders' leases: what this process served from each lease since its last bill, in
-- one call per slot (one call on a single Redis server), every 100 ms and before the impressions are counted in the
-- database (redis-serve-state.ts). KEYS this bill's token, then per lease: its campaign's leases (hash), spent,
-- daySpent; ARGV the token's life in ms, then per lease: the lease field (holder|day), micro-USDT, the unit price, the
-- total and the daily budget. The lease's units were counted in the counters when it was granted: billing only takes
-- them off the lease (billLease). Answers two numbers per lease, in the order given: its shortfall (above 0: the
-- holder was lost) and the part of it the budgets could not take (waived: never billed). Runs once per token: a bill
-- whose answer was lost is sent again (by the client after a reconnect, or by the process, as it was), and a second
-- run would take the sums off the leases twice; it answers the first run's answer instead.
-- billLease takes `micros` off a holder's lease field. What the field no longer holds (its holder was reclaimed
-- meanwhile and its units went back to the counters, which other processes may have leased again) is added to the
-- counters again, as far as both budgets still take it in whole units: a grant may pass a budget by less than one
-- unit (lease.lua), a late bill never passes it, and what it cannot charge is answered as waived. One HINCRBY in the
-- usual case, a lease holding more than it bills (a lease field is never below 0: when the decrement takes it to 0 or
-- below, the field goes, and what it held before is what it could give).
local function billLease(leases, spent, daySpent, field, micros, price, total, daily)
  -- nothing to bill (Redis would also refuse HINCRBY by -0)
  if micros <= 0 then return 0, 0 end
  local left = redis.call('HINCRBY', leases, field, -micros)
  if left > 0 then return 0, 0 end
  redis.call('HDEL', leases, field)
  local short = micros - math.max(left + micros, 0)
  if short <= 0 then return 0, 0 end
  local spentNow = redis.call('GET', spent)
  local daySpentNow = redis.call('GET', daySpent)
  local fits = short
  if spentNow then fits = math.min(fits, total - tonumber(spentNow)) end
  if daySpentNow then fits = math.min(fits, daily - tonumber(daySpentNow)) end
  local charged = short
  if fits < short and price > 0 then charged = math.max(math.floor(fits / price), 0) * price end
  if charged > 0 then
    if spentNow then redis.call('INCRBY', spent, charged) end
    if daySpentNow then redis.call('INCRBY', daySpent, charged) end
  end
  return short, short - charged
end
local ran = redis.call('GET', KEYS[1])
if ran then return cjson.decode(ran) end
local answer = {}
for i = 1, (#KEYS - 1) / 3 do
  local a = 5 * i - 3
  local short, waived = billLease(KEYS[3 * i - 1], KEYS[3 * i], KEYS[3 * i + 1], ARGV[a], tonumber(ARGV[a + 1]),
    tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]))
  answer[2 * i - 1] = short
  answer[2 * i] = waived
end
redis.call('SET', KEYS[1], cjson.encode(answer), 'PX', ARGV[1])
return answer
