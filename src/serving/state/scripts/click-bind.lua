-- Binds a click to its impression, in the user's slot. KEYS served (hash), clicked, excluded (hash), clicked by.
-- ARGV now, impressionWindow, minDelayMs, exclusionMs, adId, billable ('1'), invalidRequest ('1'), clickId ('' if
-- none). The clicked key holds when the impression it used up was served (its served mark, without the invalid
-- `i`), so an impression takes one click in its whole life and a new serve one of its own. Answers -1 no impression
-- within the window, -2 a repeat, else {status, served mark}: status 0 to be billed (click-bill.lua), 1 unbilled,
-- 2 invalid request, 3 invalid impression, 4 too soon after the impression. The clicked-by key holds the served
-- mark, click id and status of that click ("served:clickId:status"): the same click id run again (the client
-- re-sends a command whose answer a reconnect lost) gets the first run's answer, not "repeat". It is a key of its
-- own, not part of the clicked key's value, so a process still running the version before it reads the clicked key
-- as it always did (a rolling deploy or a rollback never lets a second click of one impression through). A click
-- whose billing then fails is unbound (click-unbind.lua), so the impression can still take its click.
local now = tonumber(ARGV[1])
local mark = redis.call('HGET', KEYS[1], ARGV[5])
if not mark then return -1 end
local servedText = string.match(mark, '^%d+')
local servedAt = tonumber(servedText)
local window = tonumber(ARGV[2])
if now - servedAt >= window then return -1 end
if redis.call('GET', KEYS[2]) == servedText then
  if ARGV[8] ~= '' then
    local by = redis.call('GET', KEYS[4])
    if by then
      local byServed, byClick, byStatus = string.match(by, '^(%d+):([^:]*):(%d+)$')
      if byServed == servedText and byClick == ARGV[8] then return {tonumber(byStatus), servedText} end
    end
  end
  return -2
end
local status = 0
if ARGV[7] == '1' then
  status = 2
elseif string.sub(mark, -1) == 'i' then
  status = 3
elseif now - servedAt < tonumber(ARGV[3]) then
  status = 4
elseif ARGV[6] ~= '1' then
  status = 1
end
local life = math.max(1, servedAt + window - now)
redis.call('SET', KEYS[2], servedText, 'PX', life)
if ARGV[8] ~= '' then redis.call('SET', KEYS[4], servedText .. ':' .. ARGV[8] .. ':' .. status, 'PX', life) end
local exclusion = tonumber(ARGV[4])
if exclusion > 0 then
  redis.call('HSET', KEYS[3], ARGV[5], now + exclusion)
  redis.call('PEXPIRE', KEYS[3], exclusion)
end
return {status, servedText}
