-- KEYS: a job row. ARGV: preview bytes.
-- Returns {type, state, attempts, payload length, payload preview}: a huge
-- payload is cut in the server, so only the preview crosses the wire.
local t = redis.call('TYPE', KEYS[1])
t = t.ok or t
if t ~= 'hash' then return {t, false, false, 0, false} end
local f = redis.call('HMGET', KEYS[1], 'state', 'attempts', 'payload')
local payload = f[3] or ''
return {t, f[1], f[2], #payload, string.sub(payload, 1, tonumber(ARGV[1]))}
