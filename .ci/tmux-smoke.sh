#!/usr/bin/env bash
# Smoke test of the TUI debugger in a real terminal: builds planctl, runs
# `planctl debug samples/backup.json` in a detached tmux session at 80x24,
# types nn at once (two steps: the second key is queued), and looks for the
# results on the screen.
#   bash .ci/tmux-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux-smoke: tmux is not installed (bash .ci/install.sh installs it)" >&2
  exit 1
fi
dir="$(mktemp -d)"
bin="$dir/planctl"
log="$dir/exit"
session="planctl-smoke-$$"
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
go build -o "$bin" ./cmd/planctl
if ! "$bin" debug --help >/dev/null 2>&1; then
  echo "tmux-smoke: SKIP: this planctl has no debug command yet"
  exit 0
fi

screen() { tmux capture-pane -p -t "$session"; }

# wait_for TEXT: polls the screen until TEXT shows (a hang guard, not a timing assertion)
wait_for() {
  for _ in $(seq 1 200); do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "tmux-smoke: FAIL: \"$1\" never appeared on the screen:" >&2
  screen >&2
  exit 1
}

key() { tmux send-keys -t "$session" "$@"; sleep 0.2; }

tmux new-session -d -s "$session" -x 80 -y 24 \
  "$bin debug samples/backup.json ; echo \"exit=\$?\" > '$log'; sleep 5"
wait_for "status: ready"
wait_for "backup create_backup"

key nn                          # one read, two keys: the second waits in the queue
wait_for "completed"
wait_for 'status: "valid"'      # the second result, in the tree
wait_for 'backup.backup_id = "bk-prod"'

key Tab
key Tab
key j
wait_for "validate.status"      # the cursor's path, in reference form

key '?'
wait_for "planctl debug: keys"
key Escape
sleep 0.3
key q
for _ in $(seq 1 50); do [ -s "$log" ] && break; sleep 0.1; done
if ! grep -q "exit=0" "$log"; then
  echo "tmux-smoke: FAIL: planctl debug did not exit 0: $(cat "$log")" >&2
  exit 1
fi
echo "tmux-smoke: ok"
