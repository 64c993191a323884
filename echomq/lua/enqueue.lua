-- KEYS: pending, job row. ARGV: id, payload.
local e = want(KEYS[1], 'zset') or want(KEYS[2], 'hash')
if e then return e end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return redis.error_reply('EMQEXISTS ' .. KEYS[2] .. ' already exists')
end
local now = now_ms()
redis.call('HSET', KEYS[2], 'payload', ARGV[2], 'attempts', 0, 'state', 'pending')
redis.call('ZADD', KEYS[1], now, ARGV[1])
return now
