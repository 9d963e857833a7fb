-- A waiting caller gave up (timeout, cancel): its ticket leaves the line, and the nodes behind it are
-- told, since a free permit may now be theirs. Idempotent.
-- KEYS[1] the line   KEYS[2] the line's expiry times   ARGV[1] ticket   ARGV[2] the channel
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if removed == 1 then
  redis.call('PUBLISH', ARGV[2], 'left')
end
return removed
