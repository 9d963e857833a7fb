-- Sliding window log: one sorted-set member per admitted permit, scored by its admission time
-- (Redis's TIME). Trimmed of members older than one period on every call and never holding more
-- than `limit` members, so memory per key is bounded by the limit.
--
-- KEYS[1]  the sorted set   ARGV[1] limit   ARGV[2] period in microseconds   ARGV[3] burst (unused)
-- ARGV[4]  cost; negative gives back the newest permits (refund)
-- ARGV[6]  2 to charge `cost` entries now whatever the count (reconcile), up to the limit
-- returns  {allowed, remaining, retry_after_us, reset_after_us, delay_us}; retry -1 = never
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])

local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local cost = tonumber(ARGV[4])
local ttl_ms = math.ceil(period / 1000) + 1

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
local count = redis.call('ZCARD', KEYS[1])

if cost < 0 then
  if count > 0 then
    redis.call('ZPOPMAX', KEYS[1], math.min(-cost, count))
  end
  return {1, 0, 0, 0, 0}
end

if ARGV[6] == '2' then
  cost = math.min(cost, limit - count)
  if cost <= 0 then
    return {1, 0, 0, 0, 0}
  end
elseif count + cost > limit then
  local retry = -1
  if cost <= limit then
    -- the permit that has to leave the window before this request fits
    local leaving = redis.call('ZRANGE', KEYS[1], count + cost - limit - 1, count + cost - limit - 1, 'WITHSCORES')
    retry = math.max(1, math.ceil(tonumber(leaving[2]) + period - now))
  end
  local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  local reset = 0
  if newest[2] then
    reset = math.ceil(tonumber(newest[2]) + period - now)
  end
  return {0, 0, retry, reset, 0}
end

-- members are unique: within one microsecond the count grows with every permit added
local stamp = string.format('%.0f', now)
for i = 1, cost do
  redis.call('ZADD', KEYS[1], now, stamp .. ':' .. (count + i))
end
redis.call('PEXPIRE', KEYS[1], ttl_ms)
return {1, limit - count - cost, 0, period, 0}
