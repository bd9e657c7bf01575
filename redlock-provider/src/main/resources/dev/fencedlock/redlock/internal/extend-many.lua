-- Compare-and-pexpire for many leases at once: one call renews every lease a client has on this
-- node that is due in the same batch, instead of one script call per lease.
--
-- KEYS[i]      the lock key of the i-th lease, for i up to n = #KEYS - 1
-- KEYS[n+1]    the node's record of the longest lease time asked of it (raised here, never lowered)
-- ARGV[2i-1]   the i-th lease's random value
-- ARGV[2i]     its new lease time in milliseconds
--
-- Returns an array whose i-th element is 1 if the i-th lease was extended, 0 if its lock is gone or
-- held by another value (each element as extend.lua would have answered alone).
local function below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local n = #KEYS - 1
local result = {}
local longest = redis.call('GET', KEYS[n + 1])
if longest and not string.match(longest, '^%d+$') then
  longest = nil
end
for i = 1, n do
  if redis.call('GET', KEYS[i]) == ARGV[2 * i - 1] then
    result[i] = redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    if (not longest) or below(longest, ARGV[2 * i]) then
      longest = ARGV[2 * i]
      redis.call('SET', KEYS[n + 1], longest)
    end
  else
    result[i] = 0
  end
end
return result
