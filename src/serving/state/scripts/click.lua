-- KEYS served (hash), clicked, excluded (hash), spent, daySpent, holder's leases (hash), holder's heartbeat, holders.
-- ARGV now, impressionWindow, minDelayMs, exclusionMs, price, total, daily, knownSpent, knownDaySpent, dayTtl, adId,
-- pending field (campaign|day|click), holderId, holderTtlMs, expectAlive, billable ('1'), invalidRequest ('1').
-- The clicked key holds when the impression it used up was served (its served mark, without the invalid `i`), so
-- an impression takes one click in its whole life and a new serve one of its own. Answers {cost, spentOut, status}
-- with status 0 counted, 1 unbilled, 2 invalid request, 3 invalid impression, 4 too soon after the impression.
-- A billed click stays in the holder's hash until its row is committed (see clickCommitted): a process killed in
-- between leaves it there, and the reclaim of its holder gives the price back to the counters.
if ARGV[15] == '1' and redis.call('EXISTS', KEYS[7]) == 0 then return -3 end
local now = tonumber(ARGV[1])
local mark = redis.call('HGET', KEYS[1], ARGV[11])
if not mark then return -1 end
local servedText = string.match(mark, '^%d+')
local servedAt = tonumber(servedText)
local window = tonumber(ARGV[2])
if now - servedAt >= window then return -1 end
if redis.call('GET', KEYS[2]) == servedText then return -2 end
local status = 0
if ARGV[17] == '1' then
  status = 2
elseif string.sub(mark, -1) == 'i' then
  status = 3
elseif now - servedAt < tonumber(ARGV[3]) then
  status = 4
elseif ARGV[16] ~= '1' then
  status = 1
end
local cost = 0
local spentOut = 0
local price = tonumber(ARGV[5])
if price > 0 then
  local spent = redis.call('GET', KEYS[4])
  if not spent then
    spent = ARGV[8]
    redis.call('SET', KEYS[4], spent)
  end
  local daySpent = redis.call('GET', KEYS[5])
  if not daySpent then
    daySpent = ARGV[9]
    redis.call('SET', KEYS[5], daySpent, 'EX', tonumber(ARGV[10]))
  end
  if status == 0 then
    if tonumber(spent) < tonumber(ARGV[6]) and tonumber(daySpent) < tonumber(ARGV[7]) then
      cost = price
      spent = redis.call('INCRBY', KEYS[4], price)
      daySpent = redis.call('INCRBY', KEYS[5], price)
    else
      status = 1
    end
  end
  if tonumber(spent) >= tonumber(ARGV[6]) or tonumber(daySpent) >= tonumber(ARGV[7]) then spentOut = 1 end
end
redis.call('SET', KEYS[2], servedText, 'PX', math.max(1, servedAt + window - now))
local exclusion = tonumber(ARGV[4])
if exclusion > 0 then
  redis.call('HSET', KEYS[3], ARGV[11], now + exclusion)
  redis.call('PEXPIRE', KEYS[3], exclusion)
end
if cost > 0 then
  redis.call('HINCRBY', KEYS[6], ARGV[12], cost)
  redis.call('SET', KEYS[7], '1', 'PX', tonumber(ARGV[14]))
  redis.call('SADD', KEYS[8], ARGV[13])
end
return {cost, spentOut, status}
