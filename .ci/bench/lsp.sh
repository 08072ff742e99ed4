#!/usr/bin/env bash
# Latency of `planctl lsp` as an editor meets it, on every plan shape of
# plan/plantest (shapes.go): one keystroke in the middle step to its
# diagnostics (p50, p95, max of KEYS keystrokes), documentSymbol (p50, p95),
# the server's CPU time per keystroke and per documentSymbol (from
# /proc/PID/stat: what the machine's other load does not inflate), and the
# validations a burst of 100 changes sent back to back causes.
# The client is Microsoft's (vscode-languageserver-protocol, in
# cmd/planctl/editortest/testdata/node: npm ci --prefix there first, or
# .ci/install.sh). Prints a markdown table. The machine's other load falls
# on the figures: note it (uptime) beside them.
#
#   bash .ci/bench/lsp.sh                  # every shape at 10,000 steps
#   KEYS=100 SHAPES="wide diagnostics" bash .ci/bench/lsp.sh 10000
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-10000}"
keys="${KEYS:-40}"
shapes=(${SHAPES:-chain chain-literal wide fan-in big-result diagnostics})
node_dir=cmd/planctl/editortest/testdata/node
[ -d "$node_dir/node_modules/vscode-languageserver-protocol" ] || {
  echo "lsp.sh: run npm ci --prefix $node_dir (or .ci/install.sh) first" >&2
  exit 1
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/planctl" ./cmd/planctl
go build -o "$dir/gen" ./plan/plantest/genchain
"$dir/gen" -catalog > "$dir/catalog.json"
echo "load: $(uptime | sed 's/.*load average/load average/')"
echo
echo '| shape | steps | MB | open (ms) | published | keystroke p50 / p95 / max (ms) | documentSymbol p50 / p95 (ms) | server CPU per keystroke / documentSymbol (ms) | burst of 100: validations |'
echo '|---|---|---|---|---|---|---|---|---|'
for s in "${shapes[@]}"; do
  "$dir/gen" -shape "$s" "$n" > "$dir/$s.json"
  out=$(node "$node_dir/latency.mjs" "$dir/planctl" "$dir/catalog.json" "$dir/$s.json" "$keys" 10 100)
  echo "$out" | S="$s" python3 -c '
import json, os, sys
r = json.load(sys.stdin)
print("| %s | %d | %s | %s | %d | %s / %s / %s | %s / %s | %s / %s | %d |" % (os.environ["S"], r["steps"], r["mb"], r["open_ms"], r["published"],
  r["keystroke_p50"], r["keystroke_p95"], r["keystroke_max"], r["symbol_p50"], r["symbol_p95"],
  r["keystroke_cpu_ms"], r["symbol_cpu_ms"], r["burst_validations"]))'
done
