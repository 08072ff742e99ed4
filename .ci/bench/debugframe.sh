#!/usr/bin/env bash
# Whole-process time to the debugger's first frame, on every plan shape of
# plan/plantest (shapes.go): `planctl debug` runs in a detached tmux session
# of 120x40 (a tmux server of its own), and the screen is polled until the
# steps pane shows. planctl writes the instant it finished reading the plan
# file to the file PLANCTL_TIMING names (cmd/planctl/cli/timing.go), so the
# figures are:
#   read→frame    from the plan file read to the steps pane on screen (the issue's figure)
#   read→loaded   of which the engine's parse of the plan (plan.Load)
#   start→frame   from the process start (tmux asked to run it) to the same screen
#   read→checked  from the file read until the validator's diagnostics are on screen
#                 (the header's "checking the plan…" is gone; the keys work meanwhile)
# Medians of RUNS runs; the polling adds up to about 10 ms. The screen is
# polled only once planctl wrote that the plan is loaded (until_loaded).
#
#   bash .ci/bench/debugframe.sh                           # every shape at 1k, 10k, 100k steps, 3 runs each
#   RUNS=5 SHAPES="wide fan-in" bash .ci/bench/debugframe.sh 100000
#   PLANCTL=/path/to/planctl bash .ci/bench/debugframe.sh  # another build (one that writes PLANCTL_TIMING)
#   BEFORE=/path/to/old/planctl bash .ci/bench/debugframe.sh  # and an older build beside it, runs alternating
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tmux >/dev/null || { echo "debugframe: tmux is not installed (bash .ci/install.sh installs it)" >&2; exit 1; }
runs="${RUNS:-3}"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
shapes=(${SHAPES:-chain chain-literal wide fan-in big-result diagnostics})
dir=$(mktemp -d)
sock="planctl-frame-$$"
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
bin="${PLANCTL:-$dir/planctl}"
[ -n "${PLANCTL:-}" ] || go build -o "$bin" ./cmd/planctl
go build -o "$dir/gen" ./plan/plantest/genchain
"$dir/gen" -catalog > "$dir/catalog.json"
max=$((4 << 30)) # the wide and fan-in plans pass the default 64 MiB bound at 100k steps

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# until TEXT [absent]: polls the screen until TEXT shows (or is gone), 120 s at most
until_screen() {
  local deadline=$(($(now) + 120000000000))
  while [ "$(now)" -lt "$deadline" ]; do
    if tm capture-pane -p -t frame 2>/dev/null | grep -qF -- "$1"; then
      [ "${2:-}" = absent ] || return 0
    elif [ "${2:-}" = absent ]; then
      return 0
    fi
    sleep 0.01
  done
  echo "debugframe: the screen never showed what was awaited (\"$1\" ${2:-present}):" >&2
  tm capture-pane -p -t frame >&2 || true
  return 1
}
# until_loaded blocks, with no process running and no polling, until planctl
# wrote that the plan is loaded: PLANCTL_TIMING names a FIFO the script holds
# open (fd 3) and reads line by line into $dir/timing. Polling the screen or
# the file during the parse (a tmux client and a grep every 10 ms, or even
# a sleep every 5 ms) took CPU from it, which the parse of a large plan, on
# both cores, felt: 150 ms on the 183 MB wide plan.
until_loaded() {
  local l
  while IFS= read -r -t 120 -u 3 l; do
    echo "$l" >> "$dir/timing"
    [[ $l == "loaded "* ]] && return 0
  done
  echo "debugframe: planctl never wrote that the plan was loaded" >&2
  return 1
}
ms() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%d\n", (b - a) / 1e6}'; }

bins=("$bin")
if [ -n "${BEFORE:-}" ]; then
  bins=("$BEFORE" "$bin")
  echo '| shape | steps | MB | read→frame before (ms) | read→frame (ms) | read→loaded before (ms) | read→loaded (ms) | start→frame before (ms) | start→frame (ms) | read→checked before (ms) | read→checked (ms) |'
  echo '|---|---|---|---|---|---|---|---|---|---|---|'
else
  echo '| shape | steps | MB | read→frame (ms) | read→loaded (ms) | start→frame (ms) | read→checked (ms) |'
  echo '|---|---|---|---|---|---|---|'
fi
for s in "${shapes[@]}"; do
  for n in "${sizes[@]}"; do
    plan="$dir/$s-$n.json"
    "$dir/gen" -shape "$s" "$n" > "$plan"
    for b in "${!bins[@]}"; do : > "$dir/frame$b"; : > "$dir/loaded$b"; : > "$dir/start$b"; : > "$dir/checked$b"; done
    for ((i = 0; i < runs; i++)); do
      for b in "${!bins[@]}"; do
        rm -f "$dir/timing" "$dir/timing.fifo"
        mkfifo "$dir/timing.fifo"
        exec 3<>"$dir/timing.fifo"
        t0=$(now)
        tm new-session -d -s frame -x 120 -y 40 \
          "PLANCTL_TIMING='$dir/timing.fifo' '${bins[$b]}' debug --max-bytes $max --catalog '$dir/catalog.json' '$plan'; sleep 30"
        until_loaded
        until_screen "Steps ($n)"
        t1=$(now)
        until_screen "checking the plan" absent
        t2=$(now)
        tm send-keys -t frame q
        tm kill-session -t frame 2>/dev/null || true
        exec 3>&-
        read=$(awk '$1 == "read" {print $2}' "$dir/timing")
        ms "$read" "$t1" >> "$dir/frame$b"
        ms "$read" "$(awk '$1 == "loaded" {print $2}' "$dir/timing")" >> "$dir/loaded$b"
        ms "$t0" "$t1" >> "$dir/start$b"
        ms "$read" "$t2" >> "$dir/checked$b"
      done
    done
    size=$(awk -v b="$(stat -c %s "$plan")" 'BEGIN {printf "%.1f", b/1e6}')
    printf '| %s | %s | %s |' "$s" "$n" "$size"
    for f in frame loaded start checked; do
      for b in "${!bins[@]}"; do printf ' %s |' "$(median < "$dir/$f$b")"; done
    done
    printf '\n'
    rm -f "$plan"
  done
done
