#!/usr/bin/env bash
# Installs what the tests need beyond Go. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download

# tmux drives the debugger in .ci/tmux-smoke.sh
if ! command -v tmux >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq tmux
  else
    echo "install.sh: tmux is missing and there is no apt-get: install tmux for .ci/tmux-smoke.sh" >&2
  fi
fi
