package clitest

import (
	"context"
	"os"
	"os/exec"
)

// Command is exec.Command for a process a test starts. The process dies
// with the test binary (Bind): a test that go test's -timeout kills, or
// that panics, leaves no planctl serve, mock or client behind.
func Command(name string, args ...string) *exec.Cmd {
	return Bind(exec.Command(name, args...))
}

// CommandContext is exec.CommandContext with Command's binding.
func CommandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	return Bind(exec.CommandContext(ctx, name, args...))
}

// StdioCommand makes an MCP stdio client's server process as mcp-go's
// stdio transport does by default, bound as Command binds it: pass it to
// transport.WithCommandFunc.
func StdioCommand(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
	cmd := CommandContext(ctx, command, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd, nil
}
