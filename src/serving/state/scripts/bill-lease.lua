-- Not a script of its own: the step bill.lua and serve-many.lua share, put in their text where they name it
-- in double braces (see load-script.ts). Takes `micros` off a holder's lease field; what the field no longer holds
-- (its holder was reclaimed meanwhile and its units went back to the counters) is added to the counters again, so
-- every served impression stays counted once. Answers that shortfall (above 0: the holder was lost).
local function billLease(leases, spent, daySpent, field, micros)
  local held = tonumber(redis.call('HGET', leases, field) or '0')
  local taken = math.min(held, micros)
  if taken > 0 then
    if held - taken <= 0 then
      redis.call('HDEL', leases, field)
    else
      redis.call('HINCRBY', leases, field, -taken)
    end
  end
  local short = micros - taken
  if short > 0 then
    if redis.call('EXISTS', spent) == 1 then redis.call('INCRBY', spent, short) end
    if redis.call('EXISTS', daySpent) == 1 then redis.call('INCRBY', daySpent, short) end
  end
  return short
end
