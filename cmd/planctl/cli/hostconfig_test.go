package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintConfig: serve --print-config writes each host's own format,
// for stdio (the command line, file paths made absolute) and for HTTP
// (the URL and the token, whichever way it was given), and refuses what
// a host cannot take.
func TestPrintConfig(t *testing.T) {
	cat, err := filepath.Abs("../servetest/testdata/slow.json")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(mustGetwd(t), cat)
	if err != nil {
		t.Fatal(err)
	}
	run := func(env map[string]string, args ...string) (map[string]any, string, int) {
		t.Helper()
		for k, v := range env {
			t.Setenv(k, v)
		}
		var out, errOut bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errOut)
		var cfg map[string]any
		if code == 0 {
			if err := json.Unmarshal(out.Bytes(), &cfg); err != nil {
				t.Fatalf("%v: not JSON: %v\n%s", args, err, out.String())
			}
		}
		return cfg, errOut.String(), code
	}
	entry := func(cfg map[string]any, key string) map[string]any {
		t.Helper()
		servers, _ := cfg[key].(map[string]any)
		e, _ := servers["planctl"].(map[string]any)
		if e == nil || len(cfg) != 1 {
			t.Fatalf("no %s.planctl: %v", key, cfg)
		}
		return e
	}
	for _, c := range []struct {
		host, key, typ string
	}{
		{"claude-desktop", "mcpServers", ""},
		{"claude-code", "mcpServers", "stdio"},
		{"cursor", "mcpServers", ""},
		{"vscode", "servers", "stdio"},
		{"inspector", "mcpServers", "stdio"},
	} {
		cfg, stderr, code := run(nil, "serve", "--print-config", c.host, "--catalog", rel, "--step-timeout", "10s")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.host, code, stderr)
		}
		e := entry(cfg, c.key)
		args, _ := json.Marshal(e["args"])
		exe, _ := os.Executable()
		if e["command"] != exe || string(args) != `["serve","--catalog=`+cat+`","--step-timeout=10s"]` {
			t.Errorf("%s stdio: %v", c.host, e)
		}
		if typ, _ := e["type"].(string); typ != c.typ {
			t.Errorf("%s stdio: type %q, want %q", c.host, typ, c.typ)
		}
		if c.host == "claude-desktop" {
			continue
		}
		// The token from the environment, then from the flag.
		for _, args := range [][]string{
			{"serve", "--http", "127.0.0.1:8931", "--print-config", c.host},
			{"serve", "--http", ":8931", "--auth-token", "s3cret", "--print-config", c.host},
		} {
			cfg, stderr, code = run(map[string]string{"PLANCTL_AUTH_TOKEN": "s3cret"}, args...)
			if code != 0 {
				t.Fatalf("%s %v: exit %d: %s", c.host, args, code, stderr)
			}
			e = entry(cfg, c.key)
			hdr, _ := e["headers"].(map[string]any)
			if e["url"] != "http://127.0.0.1:8931/mcp" || hdr["Authorization"] != "Bearer s3cret" {
				t.Errorf("%s http: %v", c.host, e)
			}
			want := map[string]string{"stdio": "http"}[c.typ]
			if typ, _ := e["type"].(string); typ != want {
				t.Errorf("%s http: type %q, want %q", c.host, typ, want)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http", "127.0.0.1:8931", "--auth-token", "x", "--print-config", "claude-desktop"}, "takes only servers it starts over stdio"},
		{[]string{"serve", "--http", "127.0.0.1:8931", "--print-config", "cursor"}, "needs the token the server will take"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--auth-token", "x", "--print-config", "cursor"}, "a fixed port"},
		{[]string{"serve", "--print-config", "zed"}, "use one of claude-desktop, claude-code, cursor, vscode, inspector"},
	} {
		os.Unsetenv("PLANCTL_AUTH_TOKEN")
		_, stderr, code := run(nil, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
