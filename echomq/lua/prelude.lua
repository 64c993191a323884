-- Shared by every EchoMQ script: the server clock and the type check that
-- keeps a script all-or-nothing. The job id gate (valid_id) comes from
-- keyspace.LuaJobIDGate, prepended in Go.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- want fails the script, before it writes anything, when key holds a type
-- other than typ. The error names the key.
local function want(key, typ)
  local t = redis.call('TYPE', key)
  t = t.ok or t
  if t ~= typ and t ~= 'none' then
    return redis.error_reply('EMQWRONGTYPE ' .. key .. ' is a ' .. t .. ', want ' .. typ)
  end
  return nil
end
