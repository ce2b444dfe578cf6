"""The Lua scripts that change a round's hot state in Redis, each atomic and each touching one round's keys.

Every script receives the keys of one round (they share the `{round:<id>}` hash tag, so the same scripts
run unchanged on Redis Cluster). Scripts block Redis while they run, so they stay short: a round holds at
most MAX_CANDIDATES candidates.
"""

from __future__ import annotations

# KEYS: meta, texts, votes, tally, the viewer's and the IP's vote counters (in the round's hash tag).
# ARGV: viewer key, prompt id, viewer limit, IP limit, window seconds.
# Rate limits, then one vote per viewer per round; voting again for another candidate moves the vote
# (-1 there, +1 here). One round trip per vote: this is the hot path of the whole channel.
CAST_VOTE = """
for i = 5, 6 do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  if used >= tonumber(ARGV[i - 2]) then
    local ttl = redis.call('TTL', KEYS[i])
    if ttl < 1 then ttl = 1 end
    return 'wait:' .. ttl
  end
end
for i = 5, 6 do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], tonumber(ARGV[5])) end
end
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 'round_closed' end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 then return 'unknown_prompt' end
local previous = redis.call('HGET', KEYS[3], ARGV[1])
if previous == ARGV[2] then return 'unchanged' end
if previous then redis.call('ZINCRBY', KEYS[4], -1, previous) end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZINCRBY', KEYS[4], 1, ARGV[2])
redis.call('HINCRBY', KEYS[1], 'ver', 1)
if previous then return 'moved' end
return 'cast'
"""

# KEYS: meta, texts, votes, tally. ARGV: seconds to keep the closed round's keys.
# Freezes the round and picks the winner: most votes, ties to the earliest submission (the lowest prompt
# id; ids are handed out in submission order). Idempotent: a second call returns the first result.
# Returns nil when Redis no longer knows the round (it restarted and the votes are gone).
CLOSE_ROUND = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return nil end
if state == 'closed' then return redis.call('HGET', KEYS[1], 'result') end
local counts, total, best, best_votes = {}, 0, nil, -1
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  local votes = tonumber(redis.call('ZSCORE', KEYS[4], id) or '0')
  counts[id] = votes
  total = total + votes
  if votes > best_votes or (votes == best_votes and tonumber(id) < tonumber(best)) then
    best, best_votes = id, votes
  end
end
local winner = cjson.null
if best then winner = tonumber(best) end
local result = cjson.encode({winner = winner, counts = counts, total = total})
redis.call('HSET', KEYS[1], 'state', 'closed', 'result', result)
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, tonumber(ARGV[1])) end
return result
"""

# KEYS: meta, tally. ARGV: 'force' to publish even when nothing changed.
# Returns {seq, {id, votes, ...}} when a tally is due (the votes changed since the last one), else nil.
NEXT_TALLY = """
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return nil end
local ver = redis.call('HGET', KEYS[1], 'ver') or '0'
if ARGV[1] ~= 'force' and ver == (redis.call('HGET', KEYS[1], 'pub_ver') or '0') then return nil end
redis.call('HSET', KEYS[1], 'pub_ver', ver)
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
return {seq, redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')}
"""

# KEYS: meta, texts. ARGV: prompt id, text, most candidates a round takes.
ADD_CANDIDATE = """
if redis.call('HGET', KEYS[1], 'state') ~= 'open' then return 'round_closed' end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 'added'
"""

# KEYS: the two counters (viewer, IP). ARGV: their limits, window seconds.
# A fixed window (INCR + EXPIRE): cheap, and the worst case (twice the limit across a window boundary) is
# harmless for votes that dedupe anyway. Returns 0 when allowed, else the seconds to wait.
HIT_LIMIT = """
for i, key in ipairs(KEYS) do
  local used = tonumber(redis.call('GET', key) or '0')
  if used >= tonumber(ARGV[i]) then
    local ttl = redis.call('TTL', key)
    if ttl < 1 then ttl = 1 end
    return ttl
  end
end
for _, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('EXPIRE', key, tonumber(ARGV[#ARGV])) end
end
return 0
"""

# KEYS: the lease. ARGV: holder, ttl ms. Takes a free lease or renews our own; 1 when we hold it.
HOLD_LEASE = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
  return 1
end
return 0
"""

# KEYS: the lease. ARGV: holder. Lets go of the lease only if we still hold it.
RELEASE_LEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
