-- Takes back a click's binding (click-bind.lua) whose billing failed, in the user's slot. KEYS clicked, excluded
-- (hash), clicked by. ARGV the served mark the click bound, adId. Only that click's binding: a later click of a newer
-- serve keeps its own.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('HDEL', KEYS[2], ARGV[2])
return 1
