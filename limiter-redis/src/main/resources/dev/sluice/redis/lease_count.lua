-- How many leases are held and not expired. KEYS[1] the lease set; returns the count.
local t = redis.call('TIME')
local now = (tonumber(t[1]) - 1700000000) * 1000000 + tonumber(t[2])
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
