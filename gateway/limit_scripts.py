"""The Lua scripts `limits.RedisLimiter` registers in Redis: each one atomic step over a
model's counters, so that two workers never both take the last slot, the last call of a
minute or the same moment of a pace. No Django; nothing but the scripts' text."""

# KEYS[1] = holders sorted set, KEYS[2] = the Redis life its holders were taken in;
# ARGV = now, expires_at, limit, how many wanted, a prefix unique to this round trip (the
# holders are named <life>/<prefix><i>, i = 1..n: one random name per round trip, not one
# per slot wanted: the first call in line asks for every call waiting behind it, 65 names
# every 10 ms at concurrency 128, issue 45)
# Drops holders whose lease ran out (a killed worker never releases), and every holder
# taken before Redis last started (issue 44: restored from the append-only file, their
# calls ended while it was down, their release lost; else no call starts until their
# leases run out): each holder is named after the `run_id` Redis had when it was taken,
# a new one at every start. Then admits as many holders as are wanted and there is
# room for; returns {how many, the life}: one atomic step, so two workers never both
# take the last slot.
ACQUIRE = """
local life = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)') or ''
if redis.call('GET', KEYS[2]) ~= life then
  local prefix = life .. '/'
  for _, holder in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.sub(holder, 1, #prefix) ~= prefix then redis.call('ZREM', KEYS[1], holder) end
  end
  redis.call('SET', KEYS[2], life, 'EX', 7 * 86400)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = math.min(tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1]), tonumber(ARGV[4]))
if n <= 0 then return {0, life} end
for i = 1, n do redis.call('ZADD', KEYS[1], ARGV[2], life .. '/' .. ARGV[5] .. i) end
redis.call('EXPIRE', KEYS[1], 3600)
return {n, life}
"""

# KEYS[1] = this minute's counter; ARGV = limit. Counts the call only if under the limit.
RATE = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], 120) end
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1
"""


# KEYS[1] = pace hash, KEYS[2] = next start; ARGV = now, max wait. Reserves the model's
# next start: at least the hash's `interval` after the one before (no wait when unpaced).
# Returns {1, wait, interval} when reserved, {0, wait, interval} when the wait passes
# `max wait` (nothing reserved: the unit goes back to the queue instead of holding its worker).
PACE = """
local interval = tonumber(redis.call('HGET', KEYS[1], 'interval') or '0') or 0
if interval <= 0 then return {1, '0', '0'} end
local now = tonumber(ARGV[1])
local at = now
local nxt = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if nxt > at then at = nxt end
if at - now > tonumber(ARGV[2]) then return {0, tostring(at - now), tostring(interval)} end
redis.call('SET', KEYS[2], tostring(at + interval), 'PX', math.ceil((at + interval - now) * 1000) + 1000)
return {1, tostring(at - now), tostring(interval)}
"""
