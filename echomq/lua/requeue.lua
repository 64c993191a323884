-- KEYS: pending, active, job row. ARGV: id, attempts (the fence).
local e = want(KEYS[1], 'zset') or want(KEYS[2], 'zset') or want(KEYS[3], 'hash')
if e then return e end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return {'notactive'} end
local a = redis.call('HGET', KEYS[3], 'attempts')
if a ~= ARGV[2] then return {'fenced', a or ''} end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], now_ms(), ARGV[1])
redis.call('HSET', KEYS[3], 'state', 'pending')
return {'ok'}
