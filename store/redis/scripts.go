package redis

import goredis "github.com/redis/go-redis/v9"

// The task store's layout, under its prefix P:
//
//	P t:<id>     hash: one task record (fields below); PEXPIRE once terminal
//	P o:<owner>  sorted set: the owner's task ids, scored by Seq, for List
//	P all        sorted set: "<id>:<owner>" of every record, scored by the
//	             expiry in Unix milliseconds (+inf while the task runs), for
//	             the total bound and for sweeping both indexes
//	P seq        counter: the Seq of the newest task
//
// Record fields: owner, seq, status, message, created and updated (Unix
// nanoseconds), ttl and poll (nanoseconds), exp_ms (Unix milliseconds, 0
// while running), input, result, error (raw JSON, "" for none).
//
// Each operation is one script, so it is atomic and one round trip. The
// scripts compute the keys of swept records from the prefix; the prefix's
// hash tag keeps them in the slot of the keys they declare.

// sweepLua removes up to n records that expired by now (n < 0: all of
// them) from both indexes, and the record itself if Redis has not yet.
// A record's id never holds ':', so the first one ends the id.
const sweepLua = `
local function sweep(p, now, n)
  local dead
  if n < 0 then
    dead = redis.call('ZRANGEBYSCORE', p .. 'all', '-inf', now)
  else
    dead = redis.call('ZRANGEBYSCORE', p .. 'all', '-inf', now, 'LIMIT', 0, n)
  end
  for _, m in ipairs(dead) do
    local i = string.find(m, ':', 1, true)
    local id, owner = string.sub(m, 1, i - 1), string.sub(m, i + 1)
    redis.call('ZREM', p .. 'all', m)
    redis.call('ZREM', p .. 'o:' .. owner, id)
    redis.call('DEL', p .. 't:' .. id)
  end
end
local function live(f_owner, f_exp, owner, now)
  if f_owner ~= owner then return false end
  local exp = tonumber(f_exp) or 0
  return exp == 0 or exp > now
end
`

// createScript: KEYS all, o:<owner>, seq; ARGV prefix, id, owner, now_ms,
// max tasks, max per owner, created ns, ttl ns, poll ns.
// Replies {"ok", seq}, {"limit_all", n}, {"limit_owner", n} or {"dup", 0}.
var createScript = goredis.NewScript(sweepLua + `
local p, id, owner, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local maxAll, maxOwner = tonumber(ARGV[5]), tonumber(ARGV[6])
sweep(p, now, 16)
if redis.call('ZCARD', KEYS[1]) >= maxAll or redis.call('ZCARD', KEYS[2]) >= maxOwner then
  sweep(p, now, -1)
end
local n = redis.call('ZCARD', KEYS[1])
if n >= maxAll then return {'limit_all', n} end
n = redis.call('ZCARD', KEYS[2])
if n >= maxOwner then return {'limit_owner', n} end
local rec = p .. 't:' .. id
if redis.call('EXISTS', rec) == 1 then return {'dup', 0} end
local seq = redis.call('INCR', KEYS[3])
redis.call('HSET', rec, 'owner', owner, 'seq', seq, 'status', 'working', 'message', '',
  'created', ARGV[7], 'updated', ARGV[7], 'ttl', ARGV[8], 'poll', ARGV[9], 'exp_ms', '0',
  'input', '', 'result', '', 'error', '')
redis.call('ZADD', KEYS[2], seq, id)
redis.call('ZADD', KEYS[1], '+inf', id .. ':' .. owner)
return {'ok', seq}
`)

// updateScript: KEYS all; ARGV prefix, id, owner, now_ms, from, status,
// message, updated ns, input, result, error, terminal ("1" or "0").
// Replies {"ok", fields...}, {"notfound"}, {"final", status} or
// {"conflict", status}.
var updateScript = goredis.NewScript(sweepLua + `
local p, id, owner, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
sweep(p, now, 16)
local rec = p .. 't:' .. id
local f = redis.call('HMGET', rec, 'owner', 'exp_ms', 'status', 'ttl')
if not live(f[1], f[2], owner, now) then return {'notfound'} end
local st = f[3]
if st == 'completed' or st == 'failed' or st == 'cancelled' then return {'final', st} end
if st ~= ARGV[5] then return {'conflict', st} end
redis.call('HSET', rec, 'status', ARGV[6], 'message', ARGV[7], 'updated', ARGV[8],
  'input', ARGV[9], 'result', ARGV[10], 'error', ARGV[11])
if ARGV[12] == '1' then
  local ttl = math.ceil(tonumber(f[4]) / 1000000)
  local exp = now + ttl
  redis.call('HSET', rec, 'exp_ms', string.format('%.0f', exp))
  redis.call('PEXPIRE', rec, ttl)
  redis.call('ZADD', KEYS[1], exp, id .. ':' .. owner)
end
local out = redis.call('HGETALL', rec)
table.insert(out, 1, 'ok')
return out
`)

// listScript: KEYS o:<owner>, all; ARGV prefix, owner, now_ms, after seq,
// n. Replies up to n live records after the seq, each as {id, fields...}
// without the payload fields. Index entries whose record is gone are
// removed on the way.
var listScript = goredis.NewScript(sweepLua + `
local p, owner, now, n = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5])
sweep(p, now, 16)
local names = {'owner', 'seq', 'status', 'message', 'created', 'updated', 'ttl', 'poll', 'exp_ms'}
local out = {}
local start = '(' .. ARGV[4]
while #out < n do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], start, '+inf', 'WITHSCORES', 'LIMIT', 0, n - #out)
  if #ids == 0 then break end
  for i = 1, #ids, 2 do
    local id = ids[i]
    start = '(' .. ids[i + 1]
    local f = redis.call('HMGET', p .. 't:' .. id, unpack(names))
    if not f[1] then
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZREM', KEYS[2], id .. ':' .. owner)
    elseif live(f[1], f[9], owner, now) then
      local r = {id}
      for j, name in ipairs(names) do
        r[#r + 1] = name
        r[#r + 1] = f[j]
      end
      out[#out + 1] = r
    end
  end
end
return out
`)

// deleteScript: KEYS all, o:<owner>; ARGV prefix, id, owner, now_ms.
// Replies 1 when a live record was removed, 0 when there was none.
var deleteScript = goredis.NewScript(sweepLua + `
local p, id, owner, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
sweep(p, now, 16)
local rec = p .. 't:' .. id
local f = redis.call('HMGET', rec, 'owner', 'exp_ms')
if f[1] ~= owner then return 0 end
local ok = live(f[1], f[2], owner, now)
redis.call('DEL', rec)
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[1], id .. ':' .. owner)
if ok then return 1 end
return 0
`)
