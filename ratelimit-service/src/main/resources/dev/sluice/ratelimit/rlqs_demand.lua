-- One stream's demand for one RLQS bucket, and every live demand for the bucket.
-- KEYS[1]: the bucket's hash (field: stream id, value: "<demand per second> <expiry, ms of Redis TIME>")
-- ARGV[1]: the stream id; ARGV[2]: its demand per second; ARGV[3]: how long it lives, ms
-- Expiry is judged on Redis's clock, so replicas whose clocks disagree still agree on it.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. (now + tonumber(ARGV[3])))
local all = redis.call('HGETALL', KEYS[1])
local live = {}
local longest = 0
for i = 1, #all, 2 do
  local demand, expiry = string.match(all[i + 1], '^(%S+) (%d+)$')
  if expiry and tonumber(expiry) > now then
    live[#live + 1] = all[i]
    live[#live + 1] = demand
    longest = math.max(longest, tonumber(expiry) - now)
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
redis.call('PEXPIRE', KEYS[1], longest)
return live
