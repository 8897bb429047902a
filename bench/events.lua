-- A realistic mix of Claude Code hook events, cycled in order: mostly PreToolUse (Bash above all,
-- then file tools, web and MCP), some PostToolUse and prompts. The token comes from
-- TOOLGATE_BENCH_TOKEN.
local token = os.getenv("TOOLGATE_BENCH_TOKEN") or ""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

-- The events themselves are in events.jsonl, one per line, beside this script (bench/loadgen.rs
-- sends the same file).
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local bodies = {}
for line in io.lines(here .. "events.jsonl") do
  if line ~= "" then bodies[#bodies + 1] = line end
end

-- BENCH_UNIQUE=1 makes every request a call never seen before, so that no decision is answered
-- from toolgate's memory: a field no rule reads (`bench_nonce`) is added to the tool input (to the
-- prompt when there is none) from the run's start time, the wrk thread's number and a counter, so
-- that neither another thread nor an earlier run sent it. Each body is split once where it goes.
local unique = os.getenv("BENCH_UNIQUE") == "1"
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("thread_id", os.time() .. "-" .. threads)
end
local heads, tails = {}, {}
for n, body in ipairs(bodies) do
  local at = body:find('"tool_input":{', 1, true)
  if at then
    at = at + #'"tool_input":{' - 1
    heads[n], tails[n] = body:sub(1, at) .. '"bench_nonce":"', '",' .. body:sub(at + 1)
  else
    at = body:find('"prompt":"', 1, true) + #'"prompt":"' - 1
    heads[n], tails[n] = body:sub(1, at), ' ' .. body:sub(at + 1)
  end
end

-- BENCH_EVENT=N sends only the N-th body (bench/per_event.sh); otherwise they are cycled.
local only = tonumber(os.getenv("BENCH_EVENT") or "")
local i, sent = 0, 0
request = function()
  i = only or (i % #bodies + 1)
  if unique then
    sent = sent + 1
    local nonce = (thread_id or 0) .. "-" .. sent
    return wrk.format(nil, "/v1/evaluate", nil, heads[i] .. nonce .. tails[i])
  end
  return wrk.format(nil, "/v1/evaluate", nil, bodies[i])
end

local non2xx = 0
response = function(status, headers, body)
  if status ~= 200 then non2xx = non2xx + 1 end
end
