#!/usr/bin/env bash
# Whole-process speed and memory of `planctl run` (and, once it exists,
# `planctl validate`) on the N-step echo reference chain, against the time
# Python takes just to parse the same file. Prints a markdown table.
#
#   bash .ci/bench/chain.sh            # 1k, 10k, 50k, 100k steps, 5 runs each
#   RUNS=9 bash .ci/bench/chain.sh 50000
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${RUNS:-5}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 50000 100000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/planctl" ./cmd/planctl  # the documented install build
cmds=(run)
"$dir/planctl" validate --help >/dev/null 2>&1 && cmds+=(validate)

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure LABEL CMD...: appends "seconds kilobytes" lines to $dir/LABEL
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/t" "$@" >/dev/null 2>&1 || true
  cat "$dir/t" >> "$dir/$label"
}

py=$(python3 -c 'import sys; print(sys.executable)') # Python itself, not a shim in front of it
printf '| steps | MB | python json.load (s) |'
for c in "${cmds[@]}"; do printf ' planctl %s (s) | %s peak RSS (MB) |' "$c" "$c"; done
printf '\n|---|---|---|'
for c in "${cmds[@]}"; do printf -- '---|---|'; done
printf '\n'
for n in "${sizes[@]}"; do
  go run ./plan/plantest/genchain "$n" > "$dir/chain.json"
  rm -f "$dir"/py "$dir"/run "$dir"/validate
  for ((i = 0; i < runs; i++)); do
    measure py "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/chain.json"
    for c in "${cmds[@]}"; do measure "$c" "$dir/planctl" "$c" "$dir/chain.json"; done
  done
  mb=$(awk -v b="$(stat -c %s "$dir/chain.json")" 'BEGIN {printf "%.1f", b/1e6}')
  printf '| %s | %s | %s |' "$n" "$mb" "$(cut -d' ' -f1 "$dir/py" | median)"
  for c in "${cmds[@]}"; do
    printf ' %s | %s |' "$(cut -d' ' -f1 "$dir/$c" | median)" \
      "$(cut -d' ' -f2 "$dir/$c" | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}')"
  done
  printf '\n'
done
