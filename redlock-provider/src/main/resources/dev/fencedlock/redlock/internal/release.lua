-- Compare-and-delete: releases the lock only if this acquisition's value still holds it, and then
-- tells waiting clients on the release channel. A release also takes the lease out of the node's
-- record of live leases: a released lease is outstanding nowhere.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the node's live lease expiries (sorted set, see acquire.lua)
-- KEYS[3]  the node's live lease lengths (sorted set, see acquire.lua)
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  the release channel, or an empty string to release silently (a failed attempt
--          cleaning up must not wake waiters: nothing they wait for has happened)
--
-- Returns {released, remaining, longest, micros}: released is 1 if released, 0 if the lock is gone or
-- held by another value; remaining, longest and micros describe the node's live leases after this
-- call, as in acquire.lua.
-- On the old owner of a migrating Redis Cluster slot, a script may not touch a key that is missing
-- (it could be on the new owner), also one it emptied itself: so the expiries record's size is
-- counted, and once it is empty neither record is read again. The two records hold the same members.
local left = redis.call('ZCARD', KEYS[2])
local released = 0
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  left = left - redis.call('ZREM', KEYS[2], KEYS[1])
  redis.call('ZREM', KEYS[3], KEYS[1])
  if ARGV[2] ~= '' then
    redis.call('PUBLISH', ARGV[2], '')
  end
  released = 1
end

local time = redis.call('TIME')
local micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = math.floor(micros / 1000)
if left == 0 then
  return {released, 0, 0, micros}
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
if #expired > 0 then
  left = left - redis.call('ZREM', KEYS[2], unpack(expired))
  redis.call('ZREM', KEYS[3], unpack(expired))
end
if left == 0 then
  return {released, 0, 0, micros}
end
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if tonumber(last[2]) <= now then
  return {released, 0, 0, micros}
end
local longest = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
return {released, tonumber(last[2]) - now, #longest == 0 and 0 or tonumber(longest[2]), micros}
