-- Compare-and-pexpire: extends the lock only if this acquisition's value still holds it.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the node's live lease expiries (sorted set, see acquire.lua)
-- KEYS[3]  the node's live lease lengths (sorted set, see acquire.lua)
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  new lease time in milliseconds
--
-- Returns 1 if extended, 0 if the lock is gone or held by another value.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('ZADD', KEYS[2], string.format('%.0f', now + tonumber(ARGV[2])), KEYS[1])
  redis.call('ZADD', KEYS[3], ARGV[2], KEYS[1])
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
