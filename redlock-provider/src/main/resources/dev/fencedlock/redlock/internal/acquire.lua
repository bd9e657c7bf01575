-- Takes the lock on this node and offers the fencing token for the grant, in one step.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the lock's token counter
-- KEYS[3]  the node's live lease expiries (sorted set: lock key -> expiry, node ms since the epoch)
-- KEYS[4]  the node's live lease lengths (sorted set: lock key -> lease time in ms)
-- ARGV[1]  this acquisition's random value
-- ARGV[2]  lease time in milliseconds
-- ARGV[3]  proposed token, a decimal string
-- ARGV[4]  how long the counter is kept after its last use, in milliseconds
-- ARGV[5]  the ceiling: no real token is above it (the client's clock plus a day, shifted)
--
-- Returns {0, pttl, remaining, longest, micros}     another value holds the lock (pttl: its time to live in ms)
--         {1, proposal, remaining, longest, micros} the lock is taken and the counter now holds the proposal
--         {2, counter, remaining, longest, micros}  the lock is taken, but the counter already held at least the proposal
-- where remaining is how long the longest-lived lease live on this node still runs, and longest
-- the longest lease time among the live leases, both in ms and read before this call's own grant
-- (0 and 0 when none is live), and micros the node's clock in microseconds, which orders the
-- readings. A grant adds the lock to both sets.
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

-- The node's clock in ms; then drops up to 1000 leases whose expiry has passed from both sets.
-- Counts what is left in the expiries set: on the old owner of a migrating Redis Cluster slot a
-- script may not touch a key that is missing, also one it emptied itself, so an empty record is not
-- read again. The two records hold the same members.
local micros
local left
local function prune()
  local time = redis.call('TIME')
  micros = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local now = math.floor(micros / 1000)
  left = redis.call('ZCARD', KEYS[3])
  if left == 0 then
    return now
  end
  local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 1000)
  if #expired > 0 then
    left = left - redis.call('ZREM', KEYS[3], unpack(expired))
    redis.call('ZREM', KEYS[4], unpack(expired))
  end
  return now
end

local function highest(set)
  if left == 0 then
    return 0
  end
  local top = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')
  if #top == 0 then
    return 0
  end
  return tonumber(top[2])
end

local now = prune()
local last = highest(KEYS[3])
local remaining = last > now and last - now or 0
local longest = remaining > 0 and highest(KEYS[4]) or 0

local function granted(outcome, counter)
  redis.call('ZADD', KEYS[3], string.format('%.0f', now + tonumber(ARGV[2])), KEYS[1])
  redis.call('ZADD', KEYS[4], ARGV[2], KEYS[1])
  return {outcome, counter, remaining, longest, micros}
end

if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('GET', KEYS[1]) ~= ARGV[1] then
    return {0, redis.call('PTTL', KEYS[1]), remaining, longest, micros}
  end
  local counter = redis.call('GET', KEYS[2])
  if counter and not corrupt(counter) and not below(counter, ARGV[3]) then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
    return granted(2, counter)
  end
end
local counter = redis.call('GET', KEYS[2])
if (not counter) or corrupt(counter) or below(counter, ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
  return granted(1, ARGV[3])
end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return granted(2, counter)
