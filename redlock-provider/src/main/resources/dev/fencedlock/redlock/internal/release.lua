-- Compare-and-delete: releases the lock only if this acquisition's value still holds it, and then
-- tells waiting clients on the release channel.
--
-- KEYS[1]  the lock key
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  the release channel, or an empty string to release silently (a failed attempt
--          cleaning up must not wake waiters: nothing they wait for has happened)
--
-- Returns 1 if released, 0 if the lock is gone or held by another value.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if ARGV[2] ~= '' then
    redis.call('PUBLISH', ARGV[2], '')
  end
  return 1
end
return 0
