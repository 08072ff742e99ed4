#!/bin/bash
# Extract FastMCP's own JSON Schema -> Python type mapping, src/fastmcp/utilities/json_schema_type.py, from
# github.com/jlowin/fastmcp (now PrefectHQ/fastmcp) at tag v2.14.5, the newest 2.14 (issue 27's client was FastMCP
# 2.14's Client, which makes .data of a tool's structuredContent with it: Client._parse_call_tool_result calls
# json_schema_to_type(outputSchema) and validates the content with a pydantic TypeAdapter of that type). The file
# imports only pydantic 2 and typing_extensions, so nothing is installed: fastmcp_type.py runs it under any python3
# that has pydantic 2.
#
# Into $FASTMCP_VENDOR (default: a cache folder), printed on success; the test (outputschema_test.go,
# TestOutputSchemaFastMCPClient) reads the same variable. FASTMCP_REPO is a clone or a bare mirror of the
# repository (or MIRROR a folder holding it as jlowin+fastmcp/repo).
set -euo pipefail
v=${FASTMCP_VENDOR:-${XDG_CACHE_HOME:-$HOME/.cache}/planctl-fastmcp}
f=$v/fastmcp_json_schema_type.py
[[ -s $f ]] && { echo "$v"; exit 0; }
repo=${FASTMCP_REPO:-${MIRROR:?set FASTMCP_REPO to a clone of github.com/jlowin/fastmcp, or MIRROR to a folder holding it as jlowin+fastmcp/repo}/jlowin+fastmcp/repo}
mkdir -p "$v"
git -C "$repo" show v2.14.5:src/fastmcp/utilities/json_schema_type.py > "$f.tmp"
mv "$f.tmp" "$f"
echo "$v"
