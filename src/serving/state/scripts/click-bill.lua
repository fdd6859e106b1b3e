-- Bills a bound click (click-bind.lua), in the campaign's slot. KEYS spent, daySpent, the campaign's leases (hash).
-- ARGV price, total, daily, knownSpent, knownDaySpent, dayTtl, pending field (holder|day|click, see
-- pendingClickField). Counters that Redis does not hold yet start at the spend the database knew. Answers
-- {cost, spentOut}: cost 0 when no budget is left. A billed click's price stays in the leases hash under its pending
-- field until its row is committed: a process killed in between leaves it there, and the reclaim of its holder gives
-- the price back to the counters. Run again for the same field (the client re-sends a command whose answer a
-- reconnect lost), it charges nothing more and answers the price the field holds.
-- A counter below the spend the database knows was seeded from an older view after Redis lost its data (the
-- counters count spent or handed out, never less than the database's spend): it is raised to it.
local spent = redis.call('GET', KEYS[1])
if not spent or tonumber(spent) < tonumber(ARGV[4]) then
  spent = ARGV[4]
  redis.call('SET', KEYS[1], spent)
end
local daySpent = redis.call('GET', KEYS[2])
if not daySpent or tonumber(daySpent) < tonumber(ARGV[5]) then
  daySpent = ARGV[5]
  redis.call('SET', KEYS[2], daySpent, 'EX', tonumber(ARGV[6]))
end
local billed = redis.call('HGET', KEYS[3], ARGV[7])
if billed then
  local spentOut = 0
  if tonumber(spent) >= tonumber(ARGV[2]) or tonumber(daySpent) >= tonumber(ARGV[3]) then spentOut = 1 end
  return {tonumber(billed), spentOut}
end
local price = tonumber(ARGV[1])
local total = tonumber(ARGV[2])
local daily = tonumber(ARGV[3])
local cost = 0
if tonumber(spent) < total and tonumber(daySpent) < daily then
  cost = price
  spent = redis.call('INCRBY', KEYS[1], price)
  daySpent = redis.call('INCRBY', KEYS[2], price)
  redis.call('HINCRBY', KEYS[3], ARGV[7], price)
end
local spentOut = 0
if tonumber(spent) >= total or tonumber(daySpent) >= daily then spentOut = 1 end
return {cost, spentOut}
