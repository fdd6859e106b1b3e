-- KEYS served (hash), completed. ARGV now, impressionWindow, adId, invalidRequest ('1'), minViewMs.
-- As view.lua: the completed key holds when the impression whose completion counted was served, so an impression
-- takes one completion in its whole life. One sooner than minViewMs after the serve is not taken (a later one may
-- count). Answers {code, servedAt}: -1 no impression within the window, -2 a repeat, -3 too soon, 0 counted,
-- 1 a completion of invalid traffic (its request or its impression).
local mark = redis.call('HGET', KEYS[1], ARGV[3])
if not mark then return {-1, '0'} end
local servedText = string.match(mark, '^%d+')
local servedAt = tonumber(servedText)
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if now - servedAt >= window then return {-1, '0'} end
if redis.call('GET', KEYS[2]) == servedText then return {-2, servedText} end
if now - servedAt < tonumber(ARGV[5]) then return {-3, servedText} end
redis.call('SET', KEYS[2], servedText, 'PX', math.max(1, servedAt + window - now))
if ARGV[4] == '1' or string.sub(mark, -1) == 'i' then return {1, servedText} end
return {0, servedText}
