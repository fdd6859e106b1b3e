-- KEYS holder's leases (hash), holder's heartbeat, the set of holders, then per campaign spent, daySpent.
-- ARGV dayTtl, holderId, holderTtlMs, expectAlive ('1': the holder holds leases, so its heartbeat must be there),
-- then per campaign price, total, daily, knownSpent, knownDaySpent, units, lease field.
-- Answers {-1} when the holder was lost, else {0, then per campaign the micro-USDT granted (0: no budget left; for
-- price 0, 1 means budget is left)}.
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 0 then return {-1} end
local dayTtl = tonumber(ARGV[1])
local granted = {0}
local held = false
for i = 1, (#KEYS - 3) / 2 do
  local a = 5 + (i - 1) * 7
  local price = tonumber(ARGV[a])
  local spentKey = KEYS[2 + 2 * i]
  local daySpentKey = KEYS[3 + 2 * i]
  local spent = redis.call('GET', spentKey)
  if not spent then
    spent = ARGV[a + 3]
    redis.call('SET', spentKey, spent)
  end
  local daySpent = redis.call('GET', daySpentKey)
  if not daySpent then
    daySpent = ARGV[a + 4]
    redis.call('SET', daySpentKey, daySpent, 'EX', dayTtl)
  end
  local left = math.min(tonumber(ARGV[a + 1]) - tonumber(spent), tonumber(ARGV[a + 2]) - tonumber(daySpent))
  local grant = 0
  if left > 0 then
    if price <= 0 then
      grant = 1
    else
      local units = math.min(tonumber(ARGV[a + 5]), math.ceil(left / price), math.floor(left / (4 * price)))
      if units < 1 then units = 1 end
      grant = units * price
      redis.call('INCRBY', spentKey, grant)
      redis.call('INCRBY', daySpentKey, grant)
      redis.call('HINCRBY', KEYS[1], ARGV[a + 6], grant)
      held = true
    end
  end
  granted[i + 1] = grant
end
if held then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[2])
end
return granted
