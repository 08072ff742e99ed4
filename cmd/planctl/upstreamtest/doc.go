// Package upstreamtest holds planctl's end-to-end tests of MCP servers as
// tool sources: the built planctl binary against reference servers from npm
// (@modelcontextprotocol/server-memory and server-everything, installed in
// testdata/node by .ci/install.sh), against `planctl mock` over stdio and
// Streamable HTTP, and a benchmark of a plan through a Plan-style server
// against direct tools/call round trips.
package upstreamtest
