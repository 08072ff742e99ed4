#!/usr/bin/env bash
# Whole-process speed of the REPL on the N-step echo reference chain: every
# step run by its own `next` (an empty line repeats it), then `steps`; and
# `continue` then `steps`. Prints a markdown table.
#
#   bash .ci/bench/repl.sh            # 10, 1k, 10k steps
#   bash .ci/bench/repl.sh 50000
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 1000 10000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/planctl" ./cmd/planctl  # the documented install build
printf '| steps | N × next, then steps (s) | per next (µs) | continue, then steps (s) | peak RSS (MB) |\n|---|---|---|---|---|\n'
for n in "${sizes[@]}"; do
  go run ./plan/plantest/genchain "$n" > "$dir/chain.json"
  { echo next; yes '' | head -n $((n - 1)) || true; echo steps; } > "$dir/script"
  /usr/bin/time -f "%e %M" -o "$dir/t1" "$dir/planctl" debug --repl "$dir/chain.json" < "$dir/script" > /dev/null
  /usr/bin/time -f "%e %M" -o "$dir/t2" "$dir/planctl" debug --repl -x continue -x steps "$dir/chain.json" < /dev/null > /dev/null
  read -r s1 m1 < "$dir/t1"
  read -r s2 m2 < "$dir/t2"
  awk -v n="$n" -v s1="$s1" -v s2="$s2" -v m1="$m1" -v m2="$m2" \
    'BEGIN { m = m1 > m2 ? m1 : m2; printf "| %d | %s | %.0f | %s | %.0f |\n", n, s1, s1 * 1e6 / n, s2, m / 1024 }'
done
