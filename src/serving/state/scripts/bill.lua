-- Bills served impressions from holders' leases, right after the serve script served them, on a Redis Cluster
-- (on a single Redis server serve-many.lua bills in the same call): every campaign of one turn of the event loop
-- whose keys are in one slot in one call. KEYS per campaign: its leases (hash), spent, daySpent; ARGV per campaign:
-- the lease field (holder|day), micro-USDT. The lease's units were counted in the counters when it was granted:
-- billing only takes them off the lease (billLease). Answers each campaign's shortfall (above 0: the holder was
-- lost), in the order given.
{{BILL_LEASE}}
local shortfalls = {}
for i = 1, #KEYS / 3 do
  shortfalls[i] = billLease(KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i], ARGV[2 * i - 1], tonumber(ARGV[2 * i]))
end
return shortfalls
