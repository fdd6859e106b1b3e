-- The serve script of one or several requests, all of one user's slot ({u:<user>}) on a Redis Cluster, any users on a
-- single Redis server. KEYS per request excluded, served and capped (a hash per user, ad id -> until when it is
-- excluded; a hash per user and block, ad id -> when it was served, plus USER_LOG_FIELD -> when ads were served within
-- the hour; a hash per user, ad id of a capped campaign -> when it was served within the cap's window). ARGV servedTtl,
-- r (requests), then per request: now, limit, the user's hourly cap (0: none), the frequency caps ('' or
-- "i:impressions:windowMs" for each capped candidate, 1-based, joined by spaces), invalid ('1': general invalid
-- traffic, its served marks end in `i`), n, its n candidates' ad ids in rank order. Serves each request's first
-- `limit` ads not excluded for its user nor capped, and answers per request {positions (0-based), 1 when the user's
-- hourly cap is reached}. What they bill goes off the holder's leases later, grouped per lease (bill.lua, see
-- redis-serve-state.ts). Impression logs are ms timestamps joined by spaces, oldest first, none out of window.
-- {{USER_LOG_FIELD}} and {{USER_CAP_WINDOW_MS}} are filled in when the script is loaded (see load-script.ts).
local function recent(log, since)
  local kept = {}
  if log then
    for t in string.gmatch(log, '%d+') do
      if tonumber(t) > since then kept[#kept + 1] = t end
    end
  end
  return kept
end
local ttl = tonumber(ARGV[1])
local requests = tonumber(ARGV[2])
local a = 3
local answers = {}
for r = 1, requests do
  local excludedKey = KEYS[3 * r - 2]
  local servedKey = KEYS[3 * r - 1]
  local cappedKey = KEYS[3 * r]
  local now = tonumber(ARGV[a])
  local nowText = ARGV[a]
  local limit = tonumber(ARGV[a + 1])
  local userCap = tonumber(ARGV[a + 2])
  local caps = {}
  for i, impressions, window in string.gmatch(ARGV[a + 3], '(%d+):(%d+):(%d+)') do
    caps[tonumber(i)] = {tonumber(impressions), tonumber(window)}
  end
  local mark = ARGV[a + 4] == '1' and (nowText .. 'i') or nowText
  local n = tonumber(ARGV[a + 5])
  local first = a + 6
  local userLog = nil
  if userCap > 0 then userLog = recent(redis.call('HGET', servedKey, '{{USER_LOG_FIELD}}'), now - {{USER_CAP_WINDOW_MS}}) end
  local excludedUntil = redis.call('HMGET', excludedKey, unpack(ARGV, first, first + n - 1))
  local served = {}
  local marks = {}
  for i = 1, n do
    if #served >= limit or (userLog and #userLog >= userCap) then break end
    if not excludedUntil[i] or tonumber(excludedUntil[i]) <= now then
      local adId = ARGV[first + i - 1]
      local cap = caps[i]
      local capLog = nil
      if cap then capLog = recent(redis.call('HGET', cappedKey, adId), now - cap[2]) end
      if not capLog or #capLog < cap[1] then
        served[#served + 1] = i - 1
        marks[#marks + 1] = adId
        marks[#marks + 1] = mark
        if capLog then
          capLog[#capLog + 1] = nowText
          redis.call('HSET', cappedKey, adId, table.concat(capLog, ' '))
          if redis.call('PTTL', cappedKey) < cap[2] then redis.call('PEXPIRE', cappedKey, cap[2]) end
        end
        if userLog then userLog[#userLog + 1] = nowText end
      end
    end
  end
  if #served > 0 then
    if userLog then
      marks[#marks + 1] = '{{USER_LOG_FIELD}}'
      marks[#marks + 1] = table.concat(userLog, ' ')
    end
    redis.call('HSET', servedKey, unpack(marks))
    redis.call('PEXPIRE', servedKey, ttl)
  end
  local userCapped = 0
  if userLog and #userLog >= userCap then userCapped = 1 end
  answers[r] = {served, userCapped}
  a = first + n
end
return answers
