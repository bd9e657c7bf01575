-- Takes the lock on this node and offers the fencing token for the grant, in one step.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's token counter
-- KEYS[3]  the node's record of the longest lease time asked of it (raised here, never lowered)
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  lease time in milliseconds
-- ARGV[3]  proposed token, a decimal string
-- ARGV[4]  how long the counter is kept after its last use, in milliseconds
-- ARGV[5]  the ceiling: no real token is above it (the client's clock plus a day, shifted)
--
-- Returns {0, pttl, longest}     another value holds the lock (pttl: its time to live in ms)
--         {1, proposal, longest} the lock is taken and the counter now holds the proposal
--         {2, counter, longest}  the lock is taken, but the counter already held at least the proposal
-- where longest is the node's record of the longest lease, after this call raised it.
--
-- A call that finds the lock held by its own value is this acquisition sent again (the client lost
-- the first reply, not the first run): the lock is its own, so it is a grant. Its counter answer is
-- {2, counter} at best, never {1}: an equal counter may be another grant's token.
--
-- A counter that is no decimal token, or is above the ceiling, was never written by a grant
-- (garbage, or a value such as Long.MAX that would leave no room above it): it is replaced like a
-- missing one instead of blocking every later grant of the lock.
--
-- Tokens are compared as decimal strings (longer is larger, then lexicographically) because
-- Lua numbers are doubles and lose precision above 2^53.
local function below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local function corrupt(counter)
  return (not string.match(counter, '^[1-9]%d*$')) or below(ARGV[5], counter)
end

local longest = redis.call('GET', KEYS[3])
if (not longest) or (not string.match(longest, '^%d+$')) or below(longest, ARGV[2]) then
  redis.call('SET', KEYS[3], ARGV[2])
  longest = ARGV[2]
end

if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return {0, redis.call('PTTL', KEYS[1]), longest}
  end
  local counter = redis.call('GET', KEYS[2])
  if counter and not corrupt(counter) and not below(counter, ARGV[3]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
    return {2, counter, longest}
  end
end
local counter = redis.call('GET', KEYS[2])
if (not counter) or corrupt(counter) or below(counter, ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
  return {1, ARGV[3], longest}
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {2, counter, longest}
