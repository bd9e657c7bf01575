-- Raises the lock's token counter to a token, only if the counter is lower; never lowers it.
--
-- KEYS[1]  the lock's token counter
-- ARGV[1]  the token, a decimal string
-- ARGV[2]  how long the counter is kept after its last use, in milliseconds
--
-- Returns 1 if the counter now holds the token, 0 if it already held at least the token.
local function below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local counter = redis.call('GET', KEYS[1])
if (not counter) or below(counter, ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
