#!/usr/bin/env bash
# Runs every fuzz target for a short time: bash .ci/fuzz.sh 20s
set -euo pipefail
cd "$(dirname "$0")/.."
t="${1:-20s}"
# package:FuzzTarget, one per line
targets=(
  ./plan:FuzzParseJSON
  ./plan:FuzzLoad
  ./plan:FuzzResolve
  ./plan:FuzzRun
  ./plan:FuzzWalk
  ./plan:FuzzValidate
  ./plan:FuzzParseTrace
  ./tui/repl:FuzzParse
  ./mockserver:FuzzRender
  ./mockserver:FuzzCatalog
  ./tui:FuzzParseDoc
  ./plan/mcpserver:FuzzExecutePlan
  ./plan/upstream:FuzzParseConcierge
)
for pt in "${targets[@]}"; do
  pkg="${pt%%:*}"; fn="${pt##*:}"
  echo "-- fuzz $pkg $fn ($t)"
  go test "$pkg" -run='^$' -fuzz="^${fn}\$" -fuzztime="$t"
done
