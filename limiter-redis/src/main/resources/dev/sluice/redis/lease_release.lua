-- Gives a lease back and tells the waiting nodes; idempotent (removing an absent member changes
-- nothing, and then nobody is told).
-- KEYS[1] the lease set   ARGV[1] lease id   ARGV[2] the channel told when permits come free
-- returns 1 if the lease was still held, else 0
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 then
  redis.call('PUBLISH', ARGV[2], 'released')
end
return removed
