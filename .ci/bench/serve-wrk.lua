-- wrk script for .ci/bench/serve.sh's wrk mode: each connection POSTs the
-- three-step plan of plan/mcpserver/load_test.go as a tools/call, with the
-- token of $TOKEN, and an answer that is not 200 and "completed" counts as
-- failed (printed at the end as "failed: N").
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[' ..
  '{"id":"backup","tool":"create_backup","args":{"database":"prod"}},' ..
  '{"id":"validate","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"backup":["backup_id"]}}}},' ..
  '{"id":"stats","tool":"db_stats","args":{"database":{"output_by_reference":{"backup":["database"]}}}}]}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("TOKEN") or "")

local threads = {}
function setup(thread) table.insert(threads, thread) end

failed = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"status\\": \\"completed\\"', 1, true) then
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do n = n + t:get("failed") end
  io.write(string.format("failed: %d\n", n + summary.errors.status + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.connect))
end
