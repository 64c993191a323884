-- KEYS: pending. ARGV: job prefix, batch.
-- Removes up to batch pending ids and their job rows; returns {removed,
-- left}. Active jobs are untouched.
local e = want(KEYS[1], 'zset')
if e then return e end
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
for _, id in ipairs(ids) do
  if valid_id(id) then redis.call('DEL', ARGV[1] .. id) end
  redis.call('ZREM', KEYS[1], id)
end
return {#ids, redis.call('ZCARD', KEYS[1])}
