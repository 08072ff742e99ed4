#!/usr/bin/env bash
# Where the wall time of `go test` goes: the packages and top-level tests by
# elapsed time, from `go test -json`. Subtests are left out: their time is
# inside their parent's, and parallel ones overlap.
#
#   bash .ci/slowtests.sh [N] < t.json     # after: go test -count=1 -json ./... > t.json
#   bash .ci/slowtests.sh [N] -- ./...     # runs go test itself (extra args after --)
set -euo pipefail
n=${1:-20}
if [ "${2:-}" = "--" ]; then
	shift 2
	json=$(mktemp)
	trap 'rm -f "$json"' EXIT
	go test -count=1 -json "$@" >"$json" || true
	exec <"$json"
fi
jq -rs --argjson n "$n" '
	def short: sub("^github.com/planctl/planctl/"; "");
	[.[] | select(.Action == "pass" or .Action == "fail" or .Action == "skip") | select(.Elapsed != null)] as $ends
	| ($ends | map(select(.Test == null)) | sort_by(-.Elapsed)) as $pkgs
	| ($ends | map(select(.Test != null and (.Test | contains("/") | not))) | sort_by(-.Elapsed)) as $tests
	| "packages (\($pkgs | length), elapsed sum \($pkgs | map(.Elapsed) | (add // 0) * 10 | round / 10) s):",
	  ($pkgs[:$n][] | "  \(.Elapsed)\t\(.Action)\t\(.Package | short)"),
	  "top-level tests:",
	  ($tests[:$n][] | "  \(.Elapsed)\t\(.Action)\t\(.Package | short)\t\(.Test)")
'
