-- Raises the lock's token counter to a token, only if the counter is lower; never lowers it.
--
-- KEYS[1]  the lock's token counter
-- ARGV[1]  the token, a decimal string
-- ARGV[2]  how long the counter is kept after its last use, in milliseconds
-- ARGV[3]  the ceiling: a counter above it, or not a decimal token, is corrupt and is replaced
--
-- Returns 1 if the counter now holds the token, 0 if it already held at least the token.
local function below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local function corrupt(counter)
  return (not string.match(counter, '^[1-9]%d*$')) or below(ARGV[3], counter)
end

local counter = redis.call('GET', KEYS[1])
if (not counter) or corrupt(counter) or below(counter, ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
