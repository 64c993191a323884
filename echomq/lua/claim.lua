-- KEYS: pending, active. ARGV: job prefix, lease ms.
-- Pops the lowest pending id, increments its attempts (the fencing token),
-- marks it active and leases it until server now + lease.
local e = want(KEYS[1], 'zset') or want(KEYS[2], 'zset')
if e then return e end
local popped = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #popped == 0 then return {} end
local id = popped[1]
if not valid_id(id) then
  return redis.error_reply('EMQBADID ' .. KEYS[1] .. ' holds an invalid job id; it was left in place')
end
local job = ARGV[1] .. id
e = want(job, 'hash')
if e then return e end
redis.call('ZREM', KEYS[1], id)
local attempts = redis.call('HINCRBY', job, 'attempts', 1)
redis.call('HSET', job, 'state', 'active')
redis.call('ZADD', KEYS[2], now_ms() + tonumber(ARGV[2]), id)
local payload = redis.call('HGET', job, 'payload')
return {id, payload or '', attempts}
