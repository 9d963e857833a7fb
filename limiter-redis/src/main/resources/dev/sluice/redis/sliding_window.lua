-- Sliding window counter: reads two windows (the current and the previous one) and weighs the
-- previous one by how much of it still overlaps the sliding period. Windows are aligned on Redis's
-- TIME. One hash per key: w = current window index, c = its count, p = the previous window's count.
--
-- KEYS[1]  the hash         ARGV[1] limit   ARGV[2] period in microseconds   ARGV[3] burst (unused)
-- ARGV[4]  cost; negative gives permits back (refund)
-- ARGV[6]  2 to charge `cost` to the current window whatever the estimate (reconcile), up to the limit
-- returns  {allowed, remaining, retry_after_us, reset_after_us, delay_us}; retry -1 = never
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])

local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local cost = tonumber(ARGV[4])

local window = math.floor(now / period)
local elapsed = now - window * period
local state = redis.call('HMGET', KEYS[1], 'w', 'c', 'p')
local stored = tonumber(state[1])
local current = tonumber(state[2]) or 0
local previous = tonumber(state[3]) or 0
if stored ~= window then
  if stored == window - 1 then
    previous = current
  else
    previous = 0
  end
  current = 0
end
local ttl_ms = math.ceil(2 * period / 1000) + 1

if cost < 0 then
  current = math.max(0, current + cost)
  redis.call('HSET', KEYS[1], 'w', window, 'c', current, 'p', previous)
  redis.call('PEXPIRE', KEYS[1], ttl_ms)
  return {1, 0, 0, 0, 0}
end

if ARGV[6] == '2' then
  current = math.min(limit, current + cost)
  redis.call('HSET', KEYS[1], 'w', window, 'c', current, 'p', previous)
  redis.call('PEXPIRE', KEYS[1], ttl_ms)
  return {1, 0, 0, 0, 0}
end

local weight = (period - elapsed) / period
local estimate = previous * weight + current
if estimate + cost > limit + 1e-9 then
  local retry
  if cost > limit then
    retry = -1
  elseif current + cost <= limit then
    -- wait until the previous window's weight has shrunk enough
    retry = period * (1 - (limit - cost - current) / previous) - elapsed
  else
    -- wait for the next window, where today's count becomes the weighted previous one
    retry = (period - elapsed) + period * math.max(0, 1 - (limit - cost) / current)
  end
  local reset = period - elapsed
  if current > 0 then
    reset = reset + period
  end
  if retry ~= -1 then
    retry = math.max(1, math.ceil(retry))
  end
  return {0, 0, retry, math.ceil(reset), 0}
end

current = current + cost
redis.call('HSET', KEYS[1], 'w', window, 'c', current, 'p', previous)
redis.call('PEXPIRE', KEYS[1], ttl_ms)
local remaining = math.floor(limit - (estimate + cost) + 1e-9)
return {1, math.max(0, remaining), 0, math.ceil(2 * period - elapsed), 0}
