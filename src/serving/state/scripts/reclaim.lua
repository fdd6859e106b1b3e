-- Gives back what a lapsed holder still holds of one campaign, in the campaign's slot. KEYS the campaign's leases
-- (hash), spent, then the daySpent key of each day in ARGV; ARGV the holder id, then those days (the caller read the
-- holder's fields first and names every key: none is built here). Fields of a day not named are left for the next
-- reclaim. Answers the micro-USDT given back.
local holderPrefix = ARGV[1] .. '|'
local dayKeys = {}
for i = 2, #ARGV do dayKeys[ARGV[i]] = KEYS[i + 1] end
local reclaimed = 0
local entries = redis.call('HGETALL', KEYS[1])
for j = 1, #entries, 2 do
  local field = entries[j]
  if string.sub(field, 1, #holderPrefix) == holderPrefix then
    local rest = string.sub(field, #holderPrefix + 1)
    local bar = string.find(rest, '|', 1, true)
    local day = bar and string.sub(rest, 1, bar - 1) or rest
    local daySpent = dayKeys[day]
    if daySpent then
      local micros = tonumber(entries[j + 1])
      if micros > 0 then
        if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[2], micros) end
        if redis.call('EXISTS', daySpent) == 1 then redis.call('DECRBY', daySpent, micros) end
        reclaimed = reclaimed + micros
      end
      redis.call('HDEL', KEYS[1], field)
    end
  end
end
return reclaimed
