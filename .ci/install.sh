#!/usr/bin/env bash
# Installs what the tests need beyond Go. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download

# Reference MCP servers for the upstream end-to-end tests (cmd/planctl/upstreamtest).
if command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --prefix cmd/planctl/upstreamtest/testdata/node
else
  echo "install.sh: npm not found: the upstream end-to-end tests need node and npm" >&2
fi
