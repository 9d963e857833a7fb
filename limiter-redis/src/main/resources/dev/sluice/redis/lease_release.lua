-- Gives a lease back; idempotent (removing an absent member changes nothing).
-- KEYS[1] the lease set   ARGV[1] lease id   returns 1 if the lease was still held, else 0
return redis.call('ZREM', KEYS[1], ARGV[1])
