-- KEYS: a job row, its queue's pending and active sets (one slot: the same
-- brace). ARGV: payload preview bytes, the job id, the most fields to
-- return, value preview bytes.
-- Returns {type, state, attempts, payload length, payload preview,
-- pending rank, pending score, active score, other fields' count, fields} where
-- fields is a flat list of name, name length, value length, value preview
-- for the fields other than state, attempts and payload. Everything large
-- is cut in the server: a hostile row of a million fields costs one HSCAN
-- page, a huge value its preview.
local t = redis.call('TYPE', KEYS[1])
t = t.ok or t
local id = ARGV[2]
local rank = redis.call('ZRANK', KEYS[2], id)
local pscore = redis.call('ZSCORE', KEYS[2], id)
local ascore = redis.call('ZSCORE', KEYS[3], id)
if t ~= 'hash' then return {t, false, false, 0, false, rank, pscore, ascore, 0, {}} end
local f = redis.call('HMGET', KEYS[1], 'state', 'attempts', 'payload')
local payload = f[3] or ''
local n = redis.call('HLEN', KEYS[1])
for i = 1, 3 do if f[i] then n = n - 1 end end
local most = tonumber(ARGV[3])
local cut = tonumber(ARGV[4])
local out = {}
local page = redis.call('HSCAN', KEYS[1], 0, 'COUNT', most)[2]
local shown = 0
for i = 1, #page, 2 do
  local name = page[i]
  if name ~= 'state' and name ~= 'attempts' and name ~= 'payload' and shown < most then
    local v = page[i + 1]
    out[#out + 1] = string.sub(name, 1, cut)
    out[#out + 1] = #name
    out[#out + 1] = #v
    out[#out + 1] = string.sub(v, 1, cut)
    shown = shown + 1
  end
end
return {t, f[1], f[2], #payload, string.sub(payload, 1, tonumber(ARGV[1])), rank, pscore, ascore, n, out}
