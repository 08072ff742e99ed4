#!/usr/bin/env bash
# Installs what the tests need beyond Go. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download

# Debian packages, installed in one apt-get run when any is missing:
#   dot (graphviz)     cmd/planctl/debugtest checks `planctl graph --format dot` with it
#   script (util-linux) gives the REPL's prompt test a pseudo-terminal
#   tmux               drives the debugger in .ci/tmux-smoke.sh
missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need dot graphviz
need script util-linux
need tmux tmux
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "install.sh: apt-get install ${missing[*]}"
    $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${missing[@]}"; }
  else
    echo "install.sh: missing ${missing[*]} and there is no apt-get: install them for the tests" >&2
    exit 1
  fi
fi

# Reference MCP servers for the upstream end-to-end tests (cmd/planctl/upstreamtest).
if command -v npm >/dev/null; then
  npm ci --no-audit --no-fund --prefix cmd/planctl/upstreamtest/testdata/node
else
  echo "install.sh: npm not found: the upstream end-to-end tests need node and npm" >&2
fi
