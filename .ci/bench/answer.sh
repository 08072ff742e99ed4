#!/usr/bin/env bash
# What a small request can make a server answer, and hold (docs/serve.md,
# "Bounded work per plan"):
#
#   bash .ci/bench/answer.sh [-- EXTRA SERVE FLAGS...]
#
# It builds planctl (or takes BIN), writes three requests of under 1 MB, each
# a first step echoing a value and 69 steps taking that value whole by
# reference, and sends each to a fresh `planctl serve --http --stateless`:
#   html  a 900 KB string of "x<&>" (19 bytes a character in the answer)
#   cjk   a 900 KB string of "日" (three bytes of UTF-8, ten in the answer)
#   deep  400,000 numbers nested 990 levels deep (two bytes a level a line)
#   nest  15,000 numbers 990 levels deep: an answer just under the bound
# and prints one row per request:
#
#   | request | request bytes | HTTP status | answer bytes | seconds | server peak RSS |
#
# Needs python3 and curl.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "${1:-}" = "--" ] && shift
extra=("$@")
dir=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$dir"' EXIT
bin="${BIN:-}"
if [ -z "$bin" ]; then
  bin="$dir/planctl"
  go build -o "$bin" ./cmd/planctl
fi
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
def call(value):
    steps = [{"id": "s0", "tool": "echo", "args": {"value": 0}}]
    steps += [{"id": f"s{i}", "tool": "echo", "args": {"value": {"output_by_reference": {"s0": ["value"]}}}} for i in range(1, 70)]
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "execute_plan", "arguments": {"steps": steps}}}, ensure_ascii=False)
    return text.replace('"value": 0', '"value": ' + value, 1)
reqs = {
    "html": call(json.dumps("x<&>" * 225000)),
    "cjk": call(json.dumps("日" * 300000, ensure_ascii=False)),
    "deep": call("[" * 990 + ",".join(["1"] * 400000) + "]" * 990),
    "nest": call("[" * 990 + ",".join(["1"] * 15000) + "]" * 990),
}
for name, text in reqs.items():
    open(f"{d}/{name}.json", "w", encoding="utf-8").write(text)
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "| request | request bytes | HTTP status | answer bytes | seconds | server peak RSS |"
echo "|---|---|---|---|---|---|"
for name in html cjk deep nest; do
  PLANCTL_AUTH_TOKEN=bench "$bin" serve --http "127.0.0.1:$port" --stateless --log "$dir/serve.log" "${extra[@]}" 2>"$dir/stderr" &
  pid=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
    sleep 0.05
  done
  out=$(curl -s -o "$dir/answer" -w '%{http_code} %{size_download} %{time_total}' \
    -H 'Authorization: Bearer bench' -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
    --data-binary "@$dir/$name.json" "http://127.0.0.1:$port/mcp")
  read -r code bytes secs <<<"$out"
  rss=$(awk '/VmHWM/ {printf "%.0f MiB", $2/1024}' "/proc/$pid/status")
  echo "| $name | $(stat -c %s "$dir/$name.json") | $code | $bytes | $secs | $rss |"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
