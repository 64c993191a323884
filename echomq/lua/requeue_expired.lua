-- KEYS: pending, active. ARGV: job prefix, limit.
-- Moves up to limit ids whose lease deadline is at or before server now
-- back to pending; attempts are unchanged. An id that fails the gate is
-- moved too but never used to build a key.
local e = want(KEYS[1], 'zset') or want(KEYS[2], 'zset')
if e then return e end
local now = now_ms()
local ids = redis.call('ZRANGE', KEYS[2], '-inf', now, 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], now, id)
  if valid_id(id) then
    local job = ARGV[1] .. id
    local t = redis.call('TYPE', job)
    if (t.ok or t) == 'hash' then redis.call('HSET', job, 'state', 'pending') end
  end
end
return #ids
