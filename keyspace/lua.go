package keyspace

// LuaJobIDGate is ValidateJobID written in Lua, for scripts that read ids
// out of a queue's sets and must never build a key from an invalid one.
// Scripts of echomq and poller prepend it; a test holds it to ValidateJobID.
const LuaJobIDGate = `local function valid_id(id)
  return type(id) == 'string' and #id == 29 and
    string.find(id, '^JOB[0-7][0-9A-HJKMNP-TV-Z]+$') ~= nil
end
`
