-- Takes the lock on this node and offers the fencing token for the grant, in one step.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's token counter
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  lease time in milliseconds
-- ARGV[3]  proposed token, a decimal string
-- ARGV[4]  how long the counter is kept after its last use, in milliseconds
--
-- Returns {0, pttl}     another value holds the lock (pttl: its time to live in ms)
--         {1, proposal} the lock is taken and the counter now holds the proposal
--         {2, counter}  the lock is taken, but the counter already held at least the proposal
--
-- Tokens are compared as decimal strings (longer is larger, then lexicographically) because
-- Lua numbers are doubles and lose precision above 2^53.
local function below(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
local counter = redis.call('GET', KEYS[2])
if (not counter) or below(counter, ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
  return {1, ARGV[3]}
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {2, counter}
