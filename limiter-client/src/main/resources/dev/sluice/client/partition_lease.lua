-- Partition leases: a service's quota split into partitions, each held by at most one process for a
-- lease time measured on the Redis clock (never a process's own). One sorted set scores each held
-- partition by the Redis time (microseconds) its lease ends; one hash names each partition's owner.
--
-- KEYS[1] the lease set   KEYS[2] the owner hash (same hash tag, same Cluster slot)
-- ARGV[1] owner id   ARGV[2] lease time in microseconds   ARGV[3] partitions wanted
-- ARGV[4..] every partition, in the order to try them (the caller shuffles: random partitions first)
-- returns the partitions the owner holds now
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])
local me = ARGV[1]
local lease = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])

-- a dead process's partitions come back once their lease has run out
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for _, p in ipairs(expired) do
  redis.call('HDEL', KEYS[2], p)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)

local held = {}
-- renew what is already mine, up to the number wanted; give back the rest at once
for i = 4, #ARGV do
  local p = ARGV[i]
  if redis.call('HGET', KEYS[2], p) == me then
    if #held < wanted then
      redis.call('ZADD', KEYS[1], now + lease, p)
      held[#held + 1] = p
    else
      redis.call('ZREM', KEYS[1], p)
      redis.call('HDEL', KEYS[2], p)
    end
  end
end
-- then take free ones, in the caller's order
for i = 4, #ARGV do
  if #held >= wanted then
    break
  end
  local p = ARGV[i]
  if redis.call('HEXISTS', KEYS[2], p) == 0 then
    redis.call('HSET', KEYS[2], p, me)
    redis.call('ZADD', KEYS[1], now + lease, p)
    held[#held + 1] = p
  end
end
-- both keys live as long as the longest lease
local ttl = math.ceil(lease / 1000) + 1000
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return held
