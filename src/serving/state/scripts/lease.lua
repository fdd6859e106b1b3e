-- Grants a lease of one campaign's budget, in the campaign's slot. KEYS the campaign's leases (hash), spent,
-- daySpent. ARGV dayTtl, price, total, daily, knownSpent, knownDaySpent, units, lease field (holder|day), mustExist,
-- paceShare. The holder's heartbeat was checked and its campaign recorded just before (holder.lua), in the holder's
-- slot. Answers {outcome, spent, daySpent}: the outcome is the micro-USDT granted (0: no budget left; for price 0, 1
-- means budget is left); -1 when budget is left but the campaign is ahead of its pacing line; -2 when mustExist is
-- '1' and a counter is missing: the caller knew these counters, so Redis lost them, and its known spend may lag the
-- database's; it seeds them from a fresh read instead (spend-reseed.ts). spent and daySpent are the counters after
-- the grant: the caller holds a block's lower pacing line against them (src/serving/block-optimization.ts).
-- A counter below the spend the database knows was seeded from an older view after Redis lost its data (the
-- counters count spent or handed out, never less than the database's spend): it is raised to it.
-- paceShare (negative: the campaign does not pace) is the share of the period's budget the day's counter may reach
-- now (src/campaigns/pacing.ts): the period's budget is the daily one, or what the total had left when the day began
-- (spent less daySpent) if smaller, and the pacing line is that budget times the share, rounded down. Counters count
-- every process's leases, so one line holds for all of them.
local spent = redis.call('GET', KEYS[2])
local daySpent = redis.call('GET', KEYS[3])
if ARGV[9] == '1' and (not spent or not daySpent) then return {-2, 0, 0} end
if not spent or tonumber(spent) < tonumber(ARGV[5]) then
  spent = ARGV[5]
  redis.call('SET', KEYS[2], spent)
end
if not daySpent or tonumber(daySpent) < tonumber(ARGV[6]) then
  daySpent = ARGV[6]
  redis.call('SET', KEYS[3], daySpent, 'EX', tonumber(ARGV[1]))
end
local price = tonumber(ARGV[2])
local total = tonumber(ARGV[3])
local daily = tonumber(ARGV[4])
spent = tonumber(spent)
daySpent = tonumber(daySpent)
local left = math.min(total - spent, daily - daySpent)
if left <= 0 then return {0, spent, daySpent} end
local share = tonumber(ARGV[10])
if share and share >= 0 then
  local line = math.floor(math.max(0, math.min(daily, total - (spent - daySpent))) * share)
  if daySpent >= line then return {-1, spent, daySpent} end
  left = math.min(left, line - daySpent)
end
if price <= 0 then return {1, spent, daySpent} end
local units = math.min(tonumber(ARGV[7]), math.ceil(left / price), math.floor(left / (4 * price)))
if units < 1 then units = 1 end
local grant = units * price
redis.call('INCRBY', KEYS[2], grant)
redis.call('INCRBY', KEYS[3], grant)
redis.call('HINCRBY', KEYS[1], ARGV[8], grant)
return {grant, spent + grant, daySpent + grant}
