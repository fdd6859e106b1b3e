-- Gives budget back to one campaign's counters, in the campaign's slot. KEYS this call's token, the campaign's
-- leases (hash), spent, daySpent; ARGV the token's life in ms, the leases hash field, micro-USDT. Takes off the
-- counters only what the field still holds (nothing once its holder was reclaimed), and only counters that exist:
-- a decrement would create a counter Redis lost below zero, the whole budget spendable again. Runs once per token:
-- the client sends a command again after a reconnect when its answer was lost, and a second run would give back
-- units of the live lease. Answers the micro-USDT given back.
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
local amount = math.min(held, tonumber(ARGV[3]))
if amount <= 0 then return 0 end
if held - amount <= 0 then
  redis.call('HDEL', KEYS[2], ARGV[2])
else
  redis.call('HINCRBY', KEYS[2], ARGV[2], -amount)
end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('DECRBY', KEYS[3], amount) end
if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('DECRBY', KEYS[4], amount) end
return amount
