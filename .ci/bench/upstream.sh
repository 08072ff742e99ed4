#!/usr/bin/env bash
# Overhead of a plan through a Plan-style server with an upstream, against
# direct tools/call round trips, both over stdio with mcp-go's client:
#   bash .ci/bench/upstream.sh [ITERATIONS]
# Prints the go test benchmark lines and the ratio plan/direct.
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-500}"
out=$(go test ./cmd/planctl/upstreamtest -run '^$' -bench Overhead -benchtime "${n}x" -count 1)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkOverheadDirect20-/ {d=$3}
  /^BenchmarkOverheadPlan20-/ {p=$3}
  /^BenchmarkOverheadPlan20InProcess-/ {q=$3}
  /^BenchmarkOverheadServe20-/ {v=$3}
  END {
    printf "20 direct tools/call:                       %.2f ms\n", d/1e6
    printf "1 execute_plan of 20 steps, upstream hop:   %.2f ms  (ratio %.2f)\n", p/1e6, p/d
    printf "1 execute_plan of 20 steps, tools in process: %.2f ms  (ratio %.2f)\n", q/1e6, q/d
    if (v) printf "planctl serve --server planctl mock:       %.2f ms  (ratio %.2f)\n", v/1e6, v/d
  }'
