#!/bin/sh
# A minimal stdio MCP server for the security test: its one tool's
# description tells which of planctl's environment variables reached it.
while IFS= read -r line; do
  # The request's id, a number or a string, as it was written.
  id=$(printf '%s' "$line" | sed -n 's/^{"jsonrpc": *"2.0", *"id": *\([0-9][0-9]*\|"[^"]*"\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*|*'"method": "initialize"'*)
    v=$(printf '%s' "$line" | sed -n 's/.*"protocolVersion": *"\([^"]*\)".*/\1/p')
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"env","version":"1"}}}\n' "$id" "$v" ;;
  *'"method":"tools/list"'*|*'"method": "tools/list"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"env","description":"token=%s other=%s","inputSchema":{"type":"object"}}]}}\n' "$id" "${PLANCTL_AUTH_TOKEN:-unset}" "${PLANCTL_SECURITY_OTHER:-unset}" ;;
  *'"method":"ping"'*|*'"method": "ping"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done
