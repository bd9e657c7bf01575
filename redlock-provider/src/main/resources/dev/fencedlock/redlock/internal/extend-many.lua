-- Compare-and-pexpire for many leases at once: one call renews every lease a client has on this
-- node that is due in the same batch, instead of one script call per lease.
--
-- KEYS[i]      the lock key of the i-th lease, for i up to n = #KEYS - 2
-- KEYS[n+1]    the node's live lease expiries (sorted set, see acquire.lua)
-- KEYS[n+2]    the node's live lease lengths (sorted set, see acquire.lua)
-- ARGV[2i-1]   the i-th lease's random value
-- ARGV[2i]     its new lease time in milliseconds
--
-- Returns an array whose i-th element is 1 if the i-th lease was extended, 0 if its lock is gone or
-- held by another value (each element as extend.lua would have answered alone).
local n = #KEYS - 2
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local result = {}
for i = 1, n do
  if redis.call('GET', KEYS[i]) == ARGV[2 * i - 1] then
    result[i] = redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    redis.call('ZADD', KEYS[n + 1], string.format('%.0f', now + tonumber(ARGV[2 * i])), KEYS[i])
    redis.call('ZADD', KEYS[n + 2], ARGV[2 * i], KEYS[i])
  else
    result[i] = 0
  end
end
return result
