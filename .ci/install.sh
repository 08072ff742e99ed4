#!/usr/bin/env bash
# Installs what the tests need beyond Go. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download

# serve: the official MCP clients its end-to-end tests drive (TypeScript SDK,
# Inspector CLI), and nginx for the two-replica --stateless test.
if command -v npm >/dev/null; then
  npm ci --prefix cmd/planctl/servetest/testdata/node --no-audit --no-fund
fi
if ! command -v nginx >/dev/null && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null || \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
fi
