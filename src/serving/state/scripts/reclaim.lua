-- KEYS the set of holders; ARGV the client's key prefix. Gives back everything held by holders whose heartbeat has
-- lapsed, and forgets them. The key names are built here (they are not known before the set is read): keep them in
-- step with stateKeys (leaseHolder, holderLeases, spent, daySpent). Answers the micro-USDT given back.
local prefix = ARGV[1]
local reclaimed = 0
for _, holder in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', prefix .. 'leaseholder:' .. holder) == 0 then
    local hash = prefix .. 'leases:' .. holder
    local entries = redis.call('HGETALL', hash)
    for j = 1, #entries, 2 do
      local micros = tonumber(entries[j + 1])
      local bar = string.find(entries[j], '|', 1, true)
      if micros > 0 and bar then
        local campaign = string.sub(entries[j], 1, bar - 1)
        local dayEnd = string.find(entries[j], '|', bar + 1, true)
        local day = dayEnd and string.sub(entries[j], bar + 1, dayEnd - 1) or string.sub(entries[j], bar + 1)
        local spent = prefix .. 'spend:' .. campaign
        local daySpent = prefix .. 'dspend:' .. campaign .. ':' .. day
        if redis.call('EXISTS', spent) == 1 then redis.call('DECRBY', spent, micros) end
        if redis.call('EXISTS', daySpent) == 1 then redis.call('DECRBY', daySpent, micros) end
        reclaimed = reclaimed + micros
      end
    end
    redis.call('DEL', hash)
    redis.call('SREM', KEYS[1], holder)
  end
end
return reclaimed
