-- Global concurrency permits as leases: one sorted-set member per held permit, scored by the
-- Redis time (microseconds) at which it expires. Expired members are trimmed first, so the permits
-- of a node that died without releasing come back once their lease has run out.
--
-- KEYS[1]  the lease set   ARGV[1] max permits   ARGV[2] lease time in microseconds   ARGV[3] lease id
-- ARGV[4]  1 to renew a held lease (re-claiming it if it was lost and a permit is free), 0 to acquire
-- returns  1 when the lease is held, 0 when every permit is taken
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])

local max = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = ARGV[4] == '1' and redis.call('ZSCORE', KEYS[1], ARGV[3])
if not held and redis.call('ZCARD', KEYS[1]) >= max then
  return 0
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
-- the set lives as long as its longest lease
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.ceil((tonumber(last[2]) - now) / 1000) + 1)
return 1
