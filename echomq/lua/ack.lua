-- KEYS: active, job row. ARGV: id, attempts (the fence).
local e = want(KEYS[1], 'zset') or want(KEYS[2], 'hash')
if e then return e end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {'notactive'} end
local a = redis.call('HGET', KEYS[2], 'attempts')
if a ~= ARGV[2] then return {'fenced', a or ''} end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return {'ok'}
