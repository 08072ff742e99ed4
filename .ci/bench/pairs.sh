#!/usr/bin/env bash
# pairs.sh: docs/performance.md's tables. Every plan shape of plan/plantest,
# planctl validate and run each paired with Python's json.load of the same
# file by plan/plantest/pairbench (planctl, Python, planctl, ...): 11 pairs
# at 10,000 steps (5 for wide), 7 for the 50,000-step chain-literal plan,
# 3 at 100,000. One markdown row per command and plan.
#
#   bash .ci/bench/pairs.sh                                  # every row
#   SPECS="chain:10000:11 big-result:10000:11" bash .ci/bench/pairs.sh
#
# DIR keeps the plans and binaries between runs (default: a temporary
# folder, removed at the end); PYTHON is the yardstick (Debian's python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${DIR:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
CGO_ENABLED=0 go build -o "$dir/planctl" ./cmd/planctl
go build -o "$dir/pairbench" ./plan/plantest/pairbench
go build -o "$dir/genchain" ./plan/plantest/genchain
"$dir/genchain" -catalog > "$dir/catalog.json"
for spec in ${SPECS:-chain:10000:11 chain-literal:10000:11 wide:10000:5 fan-in:10000:11 big-result:10000:11 diagnostics:10000:11 chain-literal:50000:7 chain:100000:3 chain-literal:100000:3 wide:100000:3 fan-in:100000:3 big-result:100000:3 diagnostics:100000:3}; do
  IFS=: read -r shape steps runs <<< "$spec"
  plan="$dir/$shape-$steps.json"
  if [ ! -f "$plan" ]; then # written whole or not at all: DIR may be kept
    "$dir/genchain" -shape "$shape" "$steps" > "$plan.tmp"
    mv "$plan.tmp" "$plan"
  fi
  for cmd in validate run; do
    "$dir/pairbench" -n "$runs" -python "${PYTHON:-/usr/bin/python3}" -planctl "$dir/planctl" -catalog "$dir/catalog.json" "$cmd" "$plan"
  done
done
