#!/usr/bin/env bash
# Installs what the tests need beyond Go. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download

# Graphviz: cmd/planctl/debugtest checks that `dot` accepts `planctl graph --format dot`.
# script(1) (util-linux) gives the REPL's prompt test a pseudo-terminal.
if ! command -v dot >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    (apt-get install -y graphviz || { apt-get update && apt-get install -y graphviz; }) >/dev/null ||
      echo "install.sh: could not install graphviz (the graph test needs dot)" >&2
  fi
fi
if ! command -v script >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  apt-get install -y util-linux >/dev/null || echo "install.sh: could not install util-linux (script)" >&2
fi
