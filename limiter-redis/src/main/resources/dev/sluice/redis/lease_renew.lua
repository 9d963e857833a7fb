-- Renews every lease one node holds on one limiter, in one call (sent about once a second per node
-- and limiter, whatever the number of leases): each listed lease expires one lease time from now.
-- Leases that are already gone (they expired while this node was paused or cut off from Redis for
-- longer than the lease time, or Redis lost its state) are written again whatever the maximum,
-- since their jobs still run: the other nodes then count them and grant nothing new until the
-- leases held are back under the maximum. Expired leases of any node are dropped first, and the
-- waiting nodes told, so a dead node's permits come back at the first renewal of any live node
-- after its leases ran out.
--
-- KEYS[1]  the lease set
-- ARGV[1]  lease time in microseconds   ARGV[2] the channel told when permits come free
-- ARGV[3..] the ids of the leases this node holds on this limiter
-- returns  how many of the listed leases were gone and are written again (0: all were held)
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])

if redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) > 0 then
  redis.call('PUBLISH', ARGV[2], 'expired')
end
if #ARGV < 3 then
  return 0
end

local expiry = now + tonumber(ARGV[1])
local written = 0
local args = {}
-- ZADD without flags answers how many members were new: the leases that were gone. In chunks,
-- since unpack is bounded by Lua's C stack
for i = 3, #ARGV do
  args[#args + 1] = expiry
  args[#args + 1] = ARGV[i]
  if #args == 1000 or i == #ARGV then
    written = written + redis.call('ZADD', KEYS[1], unpack(args))
    args = {}
  end
end
-- the set lives as long as its longest lease
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.ceil((tonumber(last[2]) - now) / 1000) + 1)
return written
