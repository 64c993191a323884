-- The read-only snapshot of the queues of one slot.
-- KEYS: for each queue, pending, active, schedule (all in one slot).
-- ARGV: now_ms ('' = read TIME), K, M, n, n bucket edges (ms relative to
-- now), then, only when some queue of the batch wants detail, for each
-- queue its job prefix and '1' for detail or '0'. A call with counts only
-- carries four arguments: the call's own cost dominates, so it is kept small.
-- A grouped call (no KEYS) reads the counts of queues of several slots of
-- the node it is sent to: their keys follow the n edges in ARGV, three a
-- queue, undeclared. The server then checks each key as it is read: one
-- whose slot this node does not serve (moved, or migrating and not here)
-- fails that queue's row with the server's error, never reads as empty.
-- Returns {now, row...}: a row is {err} for a failed queue (a key of the
-- wrong type, or the server's error for a key it would not read); for a queue
-- not in detail the string 'pending active scheduled oldest_score expired
-- next_deadline' ('-' for no oldest score, no next deadline); for a queue
-- in detail {'', pending, active, scheduled, oldest_score|false, expired,
--  next_deadline|false, {id, score, attempts...}, {id, deadline, attempts...},
--  {bucket counts...}}, next_deadline the first lease that ends after now
-- (when the slot's figures change with no write: change-driven polling).
-- Each figure is O(log N + K) per queue; no set is walked.
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local K, M, ne = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local edges = {}
for i = 1, ne do edges[i] = now + tonumber(ARGV[4 + i]) end
local base = 4 + ne

local keys, grouped = KEYS, #KEYS == 0
if grouped then
  keys = {}
  for i = base + 1, #ARGV do keys[#keys + 1] = ARGV[i] end
end

-- card is the key's cardinality, or nil and the failed row: a key of the
-- wrong type says so; another error (no permission, a key not served
-- here) is the server's own words
local function card(key)
  local r = redis.pcall('ZCARD', key)
  if type(r) == 'table' and r.err then
    if string.sub(r.err, 1, 9) == 'WRONGTYPE' then return nil, {'WRONGTYPE ' .. key .. ' is not a sorted set'} end
    return nil, {r.err}
  end
  return r
end

-- with_attempts turns {id, score, ...} into {id, score, attempts, ...};
-- attempts is '!invalid-id', '!missing' or '!wrongtype' when unreadable.
-- An id that fails the gate never builds a key.
local function with_attempts(flat, prefix)
  local rows = {}
  for i = 1, #flat, 2 do
    local id, att = flat[i], '!invalid-id'
    if valid_id(id) then
      local r = redis.pcall('HGET', prefix .. id, 'attempts')
      if type(r) == 'table' and r.err then att = '!wrongtype' else att = r or '!missing' end
    end
    rows[#rows + 1] = id
    rows[#rows + 1] = flat[i + 1]
    rows[#rows + 1] = att
  end
  return rows
end

local out = {now}
for q = 0, #keys / 3 - 1 do
  local pk, ak, sk = keys[3 * q + 1], keys[3 * q + 2], keys[3 * q + 3]
  local prefix, detail
  if not grouped then
    prefix, detail = ARGV[base + 2 * q + 1], ARGV[base + 2 * q + 2] == '1'
  end
  -- (both nil in a counts-only call: detail is then false)
  local p, pf = card(pk)
  local a, af, s, sf
  if p then a, af = card(ak) end
  if a then s, sf = card(sk) end
  if not p then
    out[#out + 1] = pf
  elseif not a then
    out[#out + 1] = af
  elseif not s then
    out[#out + 1] = sf
  else
    -- an empty set is not read again (most queues' active set, at rest);
    -- the first lease after now is the one ranked after those run out, by
    -- rank, not by a score range built as a string (a tenth of the call)
    local oldest, expired, nextd = false, 0, false
    if p > 0 then oldest = redis.call('ZRANGE', pk, 0, 0, 'WITHSCORES')[2] or false end
    if a > 0 then
      expired = redis.call('ZCOUNT', ak, '-inf', now)
      if expired < a then nextd = redis.call('ZRANGE', ak, expired, expired, 'WITHSCORES')[2] or false end
    end
    if not detail then
      -- counts only, almost every row: one string of the six figures, not
      -- a table of seven (each an element of the reply to write, and to
      -- read: a tenth of the client's allocation a poll at a million)
      out[#out + 1] = p .. ' ' .. a .. ' ' .. s .. ' ' .. (oldest or '-') .. ' ' .. expired .. ' ' .. (nextd or '-')
    else
      local row = {'', p, a, s, oldest, expired, nextd}
      row[8] = with_attempts(redis.call('ZRANGE', pk, 0, K - 1, 'WITHSCORES'), prefix)
      row[9] = with_attempts(redis.call('ZRANGE', ak, 0, M - 1, 'WITHSCORES'), prefix)
      local hist, lo = {}, '-inf'
      for i = 1, ne do
        hist[i] = redis.call('ZCOUNT', ak, lo, edges[i])
        lo = '(' .. edges[i]
      end
      hist[ne + 1] = redis.call('ZCOUNT', ak, lo, '+inf')
      row[10] = hist
      out[#out + 1] = row
    end
  end
end
return out
