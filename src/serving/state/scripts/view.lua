-- KEYS served (hash), viewed. ARGV now, impressionWindow, adId, invalidRequest ('1').
-- The viewed key holds when the impression whose view was reported was served (as the clicked key of click.lua), so
-- an impression takes one view in its whole life and a new serve one of its own. Answers -1 no impression within
-- the window, -2 a repeat, 0 a counted view, 1 a view of invalid traffic (its request or its impression).
local mark = redis.call('HGET', KEYS[1], ARGV[3])
if not mark then return -1 end
local servedText = string.match(mark, '^%d+')
local servedAt = tonumber(servedText)
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if now - servedAt >= window then return -1 end
if redis.call('GET', KEYS[2]) == servedText then return -2 end
redis.call('SET', KEYS[2], servedText, 'PX', math.max(1, servedAt + window - now))
if ARGV[4] == '1' or string.sub(mark, -1) == 'i' then return 1 end
return 0
