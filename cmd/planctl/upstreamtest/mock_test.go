package upstreamtest

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// sortedBlocks sorts the tools of a Concierge rendering.
func sortedBlocks(s string) string {
	b := strings.Split(strings.TrimSpace(s), "\n\n")
	sort.Strings(b)
	return strings.Join(b, "\n\n")
}

// planctl mock, reached over stdio, over Streamable HTTP and through an
// mcpServers file, answers every sample plan exactly as the in-process mock
// catalog does: same response, same exit code, with and without preflight,
// and the same catalog as Concierge renders it.
func TestMockMatchesInProcess(t *testing.T) {
	t.Parallel()
	url := mockHTTP(t)
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"mock": {"command": "`+binary+`", "args": ["mock"]}}}`), 0o600)
	sources := map[string][]string{
		"stdio":  {"--server", quote(binary) + " mock"},
		"http":   {"--url", url},
		"config": {"--config", cfg, "--name", "mock"},
	}
	want := planctl(t, nil, "tools", "--format", "concierge")
	for name, src := range sources {
		got := planctl(t, nil, append([]string{"tools", "--format", "concierge"}, src...)...)
		// mcp-go lists tools sorted by name; the catalog keeps the server's order.
		if got.code != 0 || sortedBlocks(got.stdout) != sortedBlocks(want.stdout) {
			t.Errorf("%s: tools --format concierge differs (exit %d, %s):\n%s", name, got.code, got.stderr, got.stdout)
		}
	}
	plans, _ := filepath.Glob("../../../samples/*.json")
	if len(plans) == 0 {
		t.Fatal("no sample plans")
	}
	// One subtest per plan and mode, and one per source under it, all in
	// parallel: each run starts its own upstream (the HTTP mock serves them
	// all), and a slow sample's runs wait on its tool side by side.
	for _, p := range plans {
		rel := filepath.Join("samples", filepath.Base(p))
		for _, mode := range [][]string{nil, {"--no-preflight"}} {
			t.Run(strings.Join(append([]string{filepath.Base(p)}, mode...), " "), func(t *testing.T) {
				t.Parallel()
				args := append([]string{"run", rel, "--compact"}, mode...)
				want := planctl(t, nil, args...)
				for name, src := range sources {
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						got := planctl(t, nil, slices.Concat(args, src)...)
						if got.stdout != want.stdout || got.code != want.code {
							t.Errorf("%s %v over %s:\n got (exit %d) %s%s\nwant (exit %d) %s", rel, mode, name, got.code, got.stdout, got.stderr, want.code, want.stdout)
						}
					})
				}
			})
		}
	}
}

// A Concierge Plan server as upstream gives the same responses as the
// catalog behind it.
func TestConciergeServerAsUpstream(t *testing.T) {
	t.Parallel()
	src := []string{"--server", quote(planServer)}
	want := planctl(t, nil, "tools", "--format", "concierge")
	if got := planctl(t, nil, append([]string{"tools", "--format", "concierge"}, src...)...); got.stdout != want.stdout {
		t.Errorf("recovered catalog differs:\n%s%s", got.stdout, got.stderr)
	}
	for _, p := range []string{"samples/backup.json", "samples/tool-error.json", "samples/missing-key.json"} {
		want := planctl(t, nil, "run", p, "--compact", "--no-preflight")
		got := planctl(t, nil, append([]string{"run", p, "--compact", "--no-preflight"}, src...)...)
		if got.stdout != want.stdout || got.code != want.code {
			t.Errorf("%s:\n got %s%s\nwant %s", p, got.stdout, got.stderr, want.stdout)
		}
	}
}

// A mock delay ends when the step timeout cancels the call, over both
// transports, and the step says it timed out.
func TestMockDelayCancelled(t *testing.T) {
	t.Parallel()
	url := mockHTTP(t)
	for name, src := range map[string][]string{
		"stdio": {"--server", quote(binary) + " mock"},
		"http":  {"--url", url},
	} {
		r := planctl(t, nil, append([]string{"run", "samples/slow-report.json", "--compact", "--step-timeout", "100ms"}, src...)...)
		if r.code != 1 || !strings.Contains(r.stdout, "timed out after 100ms") {
			t.Errorf("%s: exit %d %s%s", name, r.code, r.stdout, r.stderr)
		}
	}
}

// `planctl serve` is a Concierge Plan server: as an upstream (alone, and in
// front of `planctl mock`) it gives the responses of the catalog in process.
// Runs once the build has the serve command.
func TestServeAsUpstream(t *testing.T) {
	t.Parallel()
	if r := planctl(t, nil, "serve", "--help"); r.code != 0 {
		t.Skip("this build has no `planctl serve`")
	}
	mock := quote(binary) + " mock"
	for name, server := range map[string]string{
		"serve":                   quote(binary) + " serve",
		"serve --server mock":     quote(binary) + " serve --server " + quote(mock),
		"serve --url mock --http": "",
	} {
		if server == "" {
			server = quote(binary) + " serve --url " + quote(mockHTTP(t))
		}
		want := planctl(t, nil, "tools", "--format", "concierge")
		if got := planctl(t, nil, "tools", "--format", "concierge", "--server", server); sortedBlocks(got.stdout) != sortedBlocks(want.stdout) {
			t.Errorf("%s: recovered catalog differs (exit %d):\n%s%s", name, got.code, got.stdout, got.stderr)
		}
		for _, p := range []string{"samples/backup.json", "samples/tool-error.json", "samples/missing-key.json", "samples/big-numbers.json"} {
			want := planctl(t, nil, "run", p, "--compact", "--no-preflight")
			got := planctl(t, nil, "run", p, "--compact", "--no-preflight", "--server", server)
			if got.stdout != want.stdout || got.code != want.code {
				t.Errorf("%s %s:\n got %s%s\nwant %s", name, p, got.stdout, got.stderr, want.stdout)
			}
		}
	}
}
