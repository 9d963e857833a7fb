-- Loss check, put in front of each rate decision script (standalone Redis and Sentinel; Redis
-- Cluster forbids a second slot, see LossWatch). Whoever finds the epoch key missing writes a new
-- value (Redis's TIME in microseconds: never the value of an earlier epoch). A caller that knew
-- another value is deciding after Redis lost its counts (restart without persistence, FLUSHALL):
-- nothing is decided on the emptied state, the caller is told the current value and charges what
-- it admitted recently before it decides here again.
--
-- KEYS[2]  the epoch key (absent: no check; a charge, ARGV[6] = '2', is never checked)
-- ARGV[7]  the epoch the caller knows; '' when it knows none yet (it learns the value and asks
--          again: so every count a node holds in Redis was made under an epoch it knows)
-- returns  {-1, epoch} when the caller's epoch is not the current one; else the script's own reply
if KEYS[2] and ARGV[6] ~= '2' then
  local epoch = redis.call('GET', KEYS[2])
  if not epoch then
    local t = redis.call('TIME')
    epoch = t[1] .. string.format('%06d', tonumber(t[2]))
    redis.call('SET', KEYS[2], epoch)
  end
  if ARGV[7] ~= epoch then
    return {-1, epoch}
  end
end
