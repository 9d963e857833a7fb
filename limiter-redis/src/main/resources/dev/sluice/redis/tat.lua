-- Theoretical arrival time (TAT): token bucket, GCRA and the leaky bucket (meter and shaper).
-- All four make the same decisions for the same (limit, period, burst): a bucket of `burst`
-- permits refilled at limit/period is GCRA with a tolerance of burst emission intervals, and a
-- meter that leaks limit/period and holds `burst` is the same state seen from the other side.
-- One number per key: the time at which the bucket would be full again.
--
-- KEYS[1]  the state key
-- ARGV[1]  limit (permits per period)   ARGV[2] period in microseconds   ARGV[3] burst
-- ARGV[4]  cost; negative gives permits back (refund)
-- ARGV[5]  1 for the shaper (admit with a delay until the caller's turn), else 0
-- ARGV[6]  1 to take up to `cost` permits, as many as are there (batched mode); 2 to charge `cost`
--          whatever the state (reconcile: what a node admitted while Redis did not count); else 0
-- ARGV[8]  a charge's backlog in microseconds: what is left, when it reaches Redis, of the backlog
--          its node's admissions left in a bucket of this rate ('' or absent: cost intervals)
-- returns  {allowed, remaining, retry_after_us, reset_after_us, delay_us, taken}; retry -1 = never
--
-- Time is Redis's TIME, never the caller's clock, counted from 2023-11-14 so that a double keeps
-- sub-microsecond precision (better than 0.07 µs until about 2041).
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])

local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local interval = period / limit
local tolerance = burst * interval
-- rounding slack: sums of fractional intervals must not reject the last permit of a burst
local slack = math.min(0.5, interval / 2)

local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then
  tat = now
end

if cost < 0 then
  local back = tat + cost * interval
  if back <= now then
    redis.call('DEL', KEYS[1])
  else
    redis.call('SET', KEYS[1], back, 'PX', math.ceil((back - now) / 1000) + 1)
  end
  return {1, 0, 0, 0, 0}
end

if ARGV[6] == '2' then
  local owed = cost * interval
  if ARGV[8] and ARGV[8] ~= '' then
    -- admissions made at their rate while Redis did not count have drained by now: only what is
    -- left of their backlog is added, never the whole count dated now
    owed = tonumber(ARGV[8])
  end
  local charged = math.min(tat + owed, now + tolerance + limit * interval)
  if charged > now then
    redis.call('SET', KEYS[1], charged, 'PX', math.ceil((charged - now) / 1000) + 1)
  end
  return {1, 0, 0, math.max(0, math.ceil(charged - now)), 0, cost}
end

if ARGV[6] == '1' then
  local available = math.floor((tolerance + slack - (tat - now)) / interval)
  cost = math.max(1, math.min(cost, available))
end

local new_tat = tat + cost * interval
if new_tat - now > tolerance + slack then
  local retry = new_tat - now - tolerance
  if cost > burst then
    retry = -1 -- never fits: reported as "never" rather than as a false promise
  end
  return {0, 0, math.ceil(retry), math.ceil(tat - now), 0}
end

redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil((new_tat - now) / 1000) + 1)
local remaining = math.floor((tolerance - (new_tat - now)) / interval + 1e-6)
if remaining < 0 then
  remaining = 0
end
local delay = 0
if ARGV[5] == '1' then
  delay = math.ceil(tat - now)
end
return {1, remaining, 0, math.ceil(new_tat - now), delay, cost}
