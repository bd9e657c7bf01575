-- Compare-and-pexpire: extends the lock only if this acquisition's value still holds it.
--
-- KEYS[1]  the lock key
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  new lease time in milliseconds
--
-- Returns 1 if extended, 0 if the lock is gone or held by another value.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
