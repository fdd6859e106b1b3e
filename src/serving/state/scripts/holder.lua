-- Before a holder is granted leases or bills a click, in the holder's slot. KEYS heartbeat, the holder's campaigns
-- (set). ARGV holderTtlMs, expectAlive ('1': the holder holds leases, so its heartbeat must be there), then the
-- campaign ids it is about to hold budget of. Answers -1 when the holder was lost (its leases may have been
-- reclaimed), else 0 with the heartbeat (re)started and the campaigns recorded for the reclaim.
if ARGV[2] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
if #ARGV > 2 then redis.call('SADD', KEYS[2], unpack(ARGV, 3)) end
return 0
