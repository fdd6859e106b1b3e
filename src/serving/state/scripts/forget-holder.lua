-- The last step of a lapsed holder's reclaim, in the holder's slot, after it left the set of holders. KEYS heartbeat,
-- the holder's campaigns (set). Answers 1 when the heartbeat is back (the caller puts the holder back in the set), else
-- 0 with its campaigns forgotten.
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
redis.call('DEL', KEYS[2])
return 0
