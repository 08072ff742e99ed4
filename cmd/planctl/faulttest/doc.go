// Package faulttest is planctl's fault matrix: every fault a tool, an
// upstream MCP server or an HTTP client can throw at planctl, against every
// driver (run, debug --repl, serve over HTTP and stdio), one test per cell,
// with the built binary, real processes, pipes and sockets. Each cell checks
// that the user gets a clear error naming the cause, that the process still
// serves afterwards, that the steps finished before the fault are kept (in
// the response and the trace), and that no goroutine and no child process
// is left behind. See docs/testing.md, "Fault matrix".
package faulttest
