#!/usr/bin/env bash
# Installs what the tests need beyond Go. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download

# Debian packages, installed in one apt-get run when any is missing:
#   pre-commit         builds planctl as a hook and runs it in cmd/planctl/editortest
#   dot (graphviz)     cmd/planctl/debugtest checks `planctl graph --format dot` with it
#   script (util-linux) gives the REPL's prompt test a pseudo-terminal
#   tmux               drives the debugger in .ci/tmux-smoke.sh
#   nginx (nginx-light) sits in front of two `planctl serve --stateless` replicas
#                      in cmd/planctl/servetest
#   nvim (neovim)      runs the nvim-dap snippet of docs/debug.md in cmd/planctl/daptest
missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need pre-commit pre-commit
need dot graphviz
need script util-linux
need tmux tmux
need nginx nginx-light
need nvim neovim
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

# FastMCP's JSON Schema -> Python type mapping, one file of github.com/jlowin/fastmcp at v2.14.5,
# which plan/mcpserver's TestOutputSchemaFastMCPClient runs under a python3 with pydantic 2: copied
# into the cache by its vendor.sh, nothing installed. Without it (no network) that test skips.
if ! plan/mcpserver/testdata/fastmcp/vendor.sh >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  if git clone -q --depth 1 --branch v2.14.5 "${FASTMCP_GIT:-https://github.com/jlowin/fastmcp}" "$tmp/fastmcp" 2>/dev/null &&
    FASTMCP_REPO="$tmp/fastmcp" plan/mcpserver/testdata/fastmcp/vendor.sh >/dev/null; then
    echo "install.sh: FastMCP's json_schema_type.py vendored"
  else
    echo "install.sh: could not fetch FastMCP's source: TestOutputSchemaFastMCPClient will skip" >&2
  fi
  rm -rf "$tmp"
fi

# Node packages for the end-to-end tests, from their committed package-lock.json:
#   cmd/planctl/servetest     the official MCP clients (TypeScript SDK, Inspector CLI)
#   cmd/planctl/upstreamtest  the reference servers (server-memory, server-everything,
#                             server-filesystem) and the TypeScript SDK client
#                             that calls serve over them
#   cmd/planctl/editortest    an LSP client (vscode-languageserver-protocol), ajv, and
#                             Microsoft's SARIF validator (run in .NET's invariant
#                             globalization mode, so it needs no libicu)
#   cmd/planctl/daptest       a DAP client (@vscode/debugadapter-testsupport's DebugClient)
if ! command -v npm >/dev/null 2>&1; then
  echo "install.sh: npm not found: the end-to-end tests need node and npm" >&2
  exit 1
fi
for dir in cmd/planctl/servetest/testdata/node cmd/planctl/upstreamtest/testdata/node cmd/planctl/editortest/testdata/node cmd/planctl/daptest/testdata/node; do
  npm ci --prefix "$dir" --no-audit --no-fund
done
# The VS Code extension (editors/vscode): its build, its tests (node's runner, Microsoft's
# DebugClient) and vsce. nvim (above) also runs editors/nvim in cmd/planctl/editortest.
npm ci --prefix editors/vscode --no-audit --no-fund
# npm may skip install scripts it was not told to allow; the SARIF validator's only
# one makes its binary executable (the tarball usually has the bit already).
chmod u+x cmd/planctl/editortest/testdata/node/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool 2>/dev/null || true
