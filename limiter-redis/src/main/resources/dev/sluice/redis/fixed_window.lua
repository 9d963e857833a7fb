-- Fixed window counter: INCRBY and PEXPIRE in one script. The window opens with the key's first
-- permit and lasts one period (Redis expires the key with its own clock), so no caller's clock is
-- read and there is no aligned edge to straddle inside a window; across two windows up to twice the
-- limit can pass within one period, the known cost of this algorithm.
--
-- KEYS[1]  the counter      ARGV[1] limit   ARGV[2] period in microseconds   ARGV[3] burst (unused)
-- ARGV[4]  cost; negative gives permits back (refund)
-- ARGV[6]  2 to charge `cost` whatever the count (reconcile), up to the limit; 3 to count `cost`
--          whatever the count, past the limit too, and decide by the count after it
--          (envoy/ratelimit's INCRBY: a refused request uses up the window as well)
-- returns  {allowed, remaining, retry_after_us, reset_after_us, delay_us}; retry -1 = never
local limit = tonumber(ARGV[1])
local period_ms = math.max(1, math.ceil(tonumber(ARGV[2]) / 1000))
local cost = tonumber(ARGV[4])

local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if cost < 0 then
  if count > 0 then
    redis.call('DECRBY', KEYS[1], math.min(-cost, count)) -- keeps the key's expiry
  end
  return {1, 0, 0, 0, 0}
end

local ttl = redis.call('PTTL', KEYS[1])
if ARGV[6] == '2' then
  cost = math.min(cost, limit - count)
  if cost > 0 then
    redis.call('INCRBY', KEYS[1], cost)
    if ttl < 0 then
      redis.call('PEXPIRE', KEYS[1], period_ms)
    end
  end
  return {1, 0, 0, 0, 0}
end
if ARGV[6] == '3' then
  local n = redis.call('INCRBY', KEYS[1], cost)
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], period_ms)
    ttl = period_ms
  end
  if n > limit then
    return {0, 0, ttl * 1000, ttl * 1000, 0}
  end
  return {1, limit - n, 0, ttl * 1000, 0}
end
if count + cost > limit then
  local retry = ttl * 1000
  if cost > limit then
    retry = -1
  elseif ttl < 0 then
    retry = period_ms * 1000
  end
  return {0, 0, retry, math.max(ttl, 0) * 1000, 0}
end

local n = redis.call('INCRBY', KEYS[1], cost)
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], period_ms)
  ttl = period_ms
end
return {1, limit - n, 0, ttl * 1000, 0}
