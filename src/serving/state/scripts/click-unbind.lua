-- Takes back a click's binding (click-bind.lua) whose billing failed, in the user's slot. KEYS clicked, excluded
-- (hash), clicked by. ARGV the served mark the click bound, adId, and the click's id: with an empty served mark (the
-- binding's answer was lost, click-bind-bill.lua), the mark is the one the clicked-by key holds for that click id, if
-- it holds one. Only that click's binding: a later click of a newer serve keeps its own.
local served = ARGV[1]
if served == '' then
  local by = redis.call('GET', KEYS[3])
  if not by or ARGV[3] == nil or ARGV[3] == '' then return 0 end
  local byServed, byClick = string.match(by, '^(%d+):([^:]*):')
  if byClick ~= ARGV[3] then return 0 end
  served = byServed
end
if redis.call('GET', KEYS[1]) ~= served then return 0 end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('HDEL', KEYS[2], ARGV[2])
return 1
