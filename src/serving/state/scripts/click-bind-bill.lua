-- click-bind.lua, then click-bill.lua for a click to be billed, in one call: on one Redis server only (on a Redis
-- Cluster the user's keys and the campaign's lie in different slots, and the two run one after the other). KEYS
-- click-bind.lua's four (served, clicked, excluded, clicked by), then click-bill.lua's three (spent, daySpent, the
-- campaign's leases). ARGV click-bind.lua's eight, then click-bill.lua's seven (price first). The bill runs only when
-- the binding answers status 0 and the price is above 0. Answers {code, served mark, cost, spentOut}: code -1 (no
-- impression) or -2 (a repeat) with nothing else, or the binding's status; cost and spentOut as click-bill.lua's.
-- Both parts answer a re-sent command as the first run did, so the whole does too.
local function bind(KEYS, ARGV)
{{BIND}}
end
local function bill(KEYS, ARGV)
{{BILL}}
end
local bound = bind({KEYS[1], KEYS[2], KEYS[3], KEYS[4]}, {ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]})
if type(bound) ~= 'table' then return {bound, '', 0, 0} end
if bound[1] ~= 0 or tonumber(ARGV[9]) <= 0 then return {bound[1], bound[2], 0, 0} end
local billed = bill({KEYS[5], KEYS[6], KEYS[7]}, {ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14], ARGV[15]})
return {bound[1], bound[2], billed[1], billed[2]}
