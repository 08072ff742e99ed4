#!/usr/bin/env bash
# Whole-process speed and memory of `planctl validate` and `planctl run` on
# every plan shape of plan/plantest (shapes.go), against Python parsing the
# same file: python3 -c 'import json,sys; json.load(open(sys.argv[1]))'.
# The three commands run in turn (python, validate, run, python, ...) so a
# load on the machine falls on all of them alike. Prints a markdown table:
# medians of RUNS runs, peak RSS the median of the runs' maxima, and each of
# planctl's figures over Python's (x).
#
#   bash .ci/bench/shapes.sh                      # every shape at 1k, 10k, 100k steps, 5 runs each
#   RUNS=3 SHAPES="wide fan-in" bash .ci/bench/shapes.sh 10000
#   PLANCTL=/tmp/planctl-old bash .ci/bench/shapes.sh 10000   # a binary built elsewhere (before/after)
#
# The yardstick is the system's Python (/usr/bin/python3, Debian's 3.11),
# not whatever python3 comes first on PATH: PYTHON=... picks another.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${RUNS:-5}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
shapes=(${SHAPES:-chain chain-literal wide fan-in big-result diagnostics})
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ -n "${PLANCTL:-}" ]; then
  cp "$PLANCTL" "$dir/planctl"
else
  CGO_ENABLED=0 go build -o "$dir/planctl" ./cmd/planctl  # the documented install build
fi
go build -o "$dir/gen" ./plan/plantest/genchain
"$dir/gen" -catalog > "$dir/catalog.json"
# The wide and fan-in plans pass planctl's default 64 MiB bound at 100k steps.
max=$((4 << 30))
# Python itself, not a version manager's shim in front of it (pyenv's adds
# 0.1 s to every start).
py=${PYTHON:-/usr/bin/python3}
[ -x "$py" ] || py=$(python3 -c 'import sys; print(sys.executable)')

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure LABEL CMD...: appends "seconds kilobytes" lines to $dir/LABEL
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/t" "$@" >/dev/null 2>&1 || true
  tail -1 "$dir/t" >> "$dir/$label" # (a failing command adds a line before)
}
# col LABEL FIELD: the median of that field of LABEL's runs
col() { cut -d' ' -f"$2" "$dir/$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.1fx", a/b; else print "-"}'; }
mb() { awk -v k="$1" 'BEGIN {printf "%.0f", k/1024}'; }

echo '| shape | steps | MB | python parse (s) | python RSS (MB) | validate (s) | validate RSS (MB) | run (s) | run RSS (MB) |'
echo '|---|---|---|---|---|---|---|---|---|'
for s in "${shapes[@]}"; do
  for n in "${sizes[@]}"; do
    "$dir/gen" -shape "$s" "$n" > "$dir/plan.json"
    rm -f "$dir"/py "$dir"/validate "$dir"/run
    for ((i = 0; i < runs; i++)); do
      measure py "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/plan.json"
      measure validate "$dir/planctl" validate --max-bytes "$max" --catalog "$dir/catalog.json" "$dir/plan.json"
      measure run "$dir/planctl" run --max-bytes "$max" --catalog "$dir/catalog.json" "$dir/plan.json"
    done
    size=$(awk -v b="$(stat -c %s "$dir/plan.json")" 'BEGIN {printf "%.1f", b/1e6}')
    pt=$(col py 1) pm=$(col py 2)
    printf '| %s | %s | %s | %s | %s |' "$s" "$n" "$size" "$pt" "$(mb "$pm")"
    for c in validate run; do
      t=$(col $c 1) m=$(col $c 2)
      printf ' %s (%s) | %s (%s) |' "$t" "$(ratio "$t" "$pt")" "$(mb "$m")" "$(ratio "$m" "$pm")"
    done
    printf '\n'
  done
done
