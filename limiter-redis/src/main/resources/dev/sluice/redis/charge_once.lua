-- Charges count once: a charge whose answer was lost (a timeout, a reset) may have run, and its
-- node sends it again with the same id. Put in front of each rate script, after the epoch check.
--
-- KEYS[2]  for a charge: the ids of the charges already counted for this rule and actor, scored by
--          when they are forgotten
-- ARGV[6]  '2' for a charge   ARGV[9] its id ('' or absent: not checked)
-- ARGV[10] how long its node may still send it, in microseconds
-- returns  {1, 0, 0, 0, 0, 0} for a charge already counted; else the script's own reply
if ARGV[6] == '2' and ARGV[9] and ARGV[9] ~= '' then
  local clock = redis.call('TIME')
  local at = (tonumber(clock[1]) - 1700000000) * 1000000 + tonumber(clock[2])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', at)
  if redis.call('ZSCORE', KEYS[2], ARGV[9]) then
    return {1, 0, 0, 0, 0, 0}
  end
  redis.call('ZADD', KEYS[2], at + tonumber(ARGV[10]), ARGV[9])
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[2], math.ceil((tonumber(last[2]) - at) / 1000) + 1)
end
