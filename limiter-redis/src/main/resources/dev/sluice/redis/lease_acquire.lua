-- Global concurrency permits as leases: one sorted-set member per held permit, scored by the
-- Redis time (microseconds) at which it expires. Expired members are trimmed first, so the permits
-- of a node that died without releasing come back once their lease has run out.
--
-- Waiting callers stand in one line across the cluster: a sorted set of tickets scored by arrival,
-- with a second one scored by when each ticket is forgotten unless asked about again (its node
-- died). A caller gets a lease when fewer tickets are ahead of it than permits are free, so a freed
-- permit goes to the oldest waiter in the cluster, not to whichever node asks first.
--
-- KEYS[1]  the lease set   KEYS[2] the line   KEYS[3] the line's expiry times
-- ARGV[1]  max permits   ARGV[2] lease time in microseconds   ARGV[3] lease id
-- ARGV[4]  0 to acquire, 2 to write the lease of a job already running (granted while Redis was
--          down, or written again after Redis lost its state): always held. Held leases are renewed
--          by lease_renew.lua
-- ARGV[5]  the caller's ticket, or '' for a caller that does not wait
-- ARGV[6]  how long a ticket stays in the line unless asked about again, in microseconds
-- ARGV[7]  the channel told when permits come free
-- ARGV[8]  permits the caller's node granted while Redis was down, still held and not yet written
--          here (adopted): an acquire counts them as held, since their jobs run and their leases are
--          on the way (without this, the other callers of that node could take every free permit
--          before the adoption lands: twice the maximum running at the end of an outage)
-- KEYS[4]  with ARGV[9]: the epoch key and the epoch the caller knows (acquire on a standalone Redis,
--          as in epoch_check.lua): a caller that knew another epoch takes nothing, since the leases
--          of the jobs running on other nodes may be missing from an emptied set
-- returns  1 when the lease is held, 0 when not (a ticket then waits in the line), -1 when the
--          epoch was another (Redis lost its state: the caller learns the new one and asks again)
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])

if KEYS[4] then
  local epoch = redis.call('GET', KEYS[4])
  if not epoch then
    epoch = t[1] .. string.format('%06d', tonumber(t[2]))
    redis.call('SET', KEYS[4], epoch)
  end
  if ARGV[9] ~= epoch then
    return -1
  end
end

local max = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local ticket = ARGV[5]

if redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now) > 0 then
  redis.call('PUBLISH', ARGV[7], 'expired')
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, dead in ipairs(gone) do
  redis.call('ZREM', KEYS[2], dead)
  redis.call('ZREM', KEYS[3], dead)
end

local function take()
  redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
  -- the set lives as long as its longest lease
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[1], math.ceil((tonumber(last[2]) - now) / 1000) + 1)
  return 1
end

if ARGV[4] == '2' then
  return take()
end

local free = max - redis.call('ZCARD', KEYS[1]) - (tonumber(ARGV[8]) or 0)
local rank = false
if ticket ~= '' then
  rank = redis.call('ZRANK', KEYS[2], ticket)
end
if not rank then
  rank = redis.call('ZCARD', KEYS[2])
end
if rank < free then
  if ticket ~= '' and redis.call('ZREM', KEYS[2], ticket) == 1 then
    redis.call('ZREM', KEYS[3], ticket)
  end
  return take()
end
if ticket ~= '' then
  local ttl = tonumber(ARGV[6])
  redis.call('ZADD', KEYS[2], 'NX', now, ticket)
  redis.call('ZADD', KEYS[3], now + ttl, ticket)
  local ms = math.ceil(ttl / 1000) + 1
  redis.call('PEXPIRE', KEYS[2], ms)
  redis.call('PEXPIRE', KEYS[3], ms)
end
return 0
