#!/usr/bin/env bash
# Soak test of planctl serve --http: a steady mixed load (good plans, plans
# refused by preflight, tool errors, step timeouts, clients that give up
# mid-plan, foreign Origins, garbage bodies) for DURATION (default 60s),
# with the server's RSS and goroutines sampled; fails if either grows.
#   bash .ci/soak.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
d="${1:-60s}"
go test -count=1 -timeout 30m ./cmd/planctl/soaktest -run '^TestSoak$' -soak "$d" -v
