-- Not a script of its own: the step bill.lua and serve-many.lua share, put in their text where they name it
-- in double braces (see load-script.ts). Takes `micros` off a holder's lease field; what the field no longer holds
-- (its holder was reclaimed meanwhile and its units went back to the counters) is added to the counters again, so
-- every served impression stays counted once. Answers that shortfall (above 0: the holder was lost).
-- One HINCRBY in the usual case, a lease holding more than it bills (a lease field is never below 0: when the
-- decrement takes it to 0 or below, the field goes, and what it held before is what it could give).
local function billLease(leases, spent, daySpent, field, micros)
  -- nothing to bill (Redis would also refuse HINCRBY by -0)
  if micros <= 0 then return 0 end
  local left = redis.call('HINCRBY', leases, field, -micros)
  if left > 0 then return 0 end
  redis.call('HDEL', leases, field)
  local short = micros - math.max(left + micros, 0)
  if short > 0 then
    if redis.call('EXISTS', spent) == 1 then redis.call('INCRBY', spent, short) end
    if redis.call('EXISTS', daySpent) == 1 then redis.call('INCRBY', daySpent, short) end
  end
  return short
end
