-- KEYS this call's token, then per return: holder's leases (hash), spent, daySpent; ARGV the token's life in ms, then
-- per return: lease field, micro-USDT. Takes off the counters only what the holder's hash still holds (nothing once
-- the holder was reclaimed), and only counters that exist: a decrement would create a counter Redis lost below
-- zero, the whole budget spendable again. Runs once per token: the client sends a command again after a reconnect
-- when its answer was lost, and a second run would give back units of the live lease.
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
for i = 1, (#KEYS - 1) / 3 do
  local k = 1 + 3 * i
  local held = tonumber(redis.call('HGET', KEYS[k - 2], ARGV[2 * i]) or '0')
  local amount = math.min(held, tonumber(ARGV[2 * i + 1]))
  if amount > 0 then
    if held - amount <= 0 then
      redis.call('HDEL', KEYS[k - 2], ARGV[2 * i])
    else
      redis.call('HINCRBY', KEYS[k - 2], ARGV[2 * i], -amount)
    end
    if redis.call('EXISTS', KEYS[k - 1]) == 1 then redis.call('DECRBY', KEYS[k - 1], amount) end
    if redis.call('EXISTS', KEYS[k]) == 1 then redis.call('DECRBY', KEYS[k], amount) end
  end
end
return 1
