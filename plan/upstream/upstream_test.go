package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planctl/planctl/plan"
	"github.com/planctl/planctl/plan/plantest"
	"github.com/planctl/planctl/plan/runner"
)

var (
	brokenOnce sync.Once
	brokenBin  string
	brokenErr  error
)

// broken builds testdata/brokenserver once per test binary.
func broken(t *testing.T) string {
	t.Helper()
	brokenOnce.Do(func() {
		dir, err := os.MkdirTemp("", "planctl-upstream-test")
		if err != nil {
			brokenErr = err
			return
		}
		brokenBin = filepath.Join(dir, "brokenserver")
		out, err := exec.Command("go", "build", "-o", brokenBin, "./testdata/brokenserver").CombinedOutput()
		if err != nil {
			brokenErr = errors.New(string(out))
		}
	})
	if brokenErr != nil {
		t.Fatalf("building the broken server: %v", brokenErr)
	}
	return brokenBin
}

func open(t *testing.T, args ...string) (*Upstream, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	u, err := Open(context.Background(), Config{Command: append([]string{broken(t)}, args...), ServerLog: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u, log
}

type syncBuffer = plantest.Buffer

// call calls tool on u. Its deadline only guards a hang: a 50 MB answer
// under -race on a loaded CI machine took over 30 s.
func call(t *testing.T, u *Upstream, tool, args string) (plan.ToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return u.Call(ctx, tool, json.RawMessage(args))
}

func wantOK(t *testing.T, u *Upstream) {
	t.Helper()
	res, err := call(t, u, "ok", `{"value":"still here"}`)
	if err != nil || res.IsError || string(res.Value) != `{"value":"still here"}` {
		t.Fatalf("ok after the fault: %+v, %v", res, err)
	}
}

func TestCatalogFromToolsList(t *testing.T) {
	t.Parallel()
	u, _ := open(t)
	c := u.Catalog()
	ok := c.Tool("ok")
	if ok == nil {
		t.Fatalf("no tool ok in %v", c.Names())
	}
	if got := string(ok.InputSchema); got != `{"type":"object","properties":{"value":{"type":"string"},"n":{"type":"integer"}}}` {
		t.Errorf("input schema not kept as sent: %s", got)
	}
	if string(ok.OutputSchema) != `{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}` {
		t.Errorf("output schema: %s", ok.OutputSchema)
	}
	if c.Tool("crash").OutputSchema != nil {
		t.Errorf("a tool without outputSchema got %s", c.Tool("crash").OutputSchema)
	}
	if !ok.SharableAll || c.Sharing != plan.SharingAll {
		t.Errorf("no marks: every parameter should be sharable, got all=%v policy=%v", ok.SharableAll, c.Sharing)
	}
}

func TestPaging(t *testing.T) {
	t.Parallel()
	// brokenserver lists 11 tools of its own (ok and 10 faults) and t0..t19.
	u, _ := open(t, "-page", "3", "-tools", "20")
	if n := len(u.Catalog().Tools); n != 31 {
		t.Fatalf("read %d tools through pages of 3, want 31: %v", n, u.Catalog().Names())
	}
}

func TestSharablePolicy(t *testing.T) {
	t.Parallel()
	u, _ := open(t, "-xsharable")
	ok := u.Catalog().Tool("ok")
	if ok.SharableAll || !ok.IsSharable("value") || ok.IsSharable("n") || u.Catalog().Sharing != plan.SharingMarked {
		t.Errorf("x-sharable marks not followed: %+v", ok)
	}
	if u.Catalog().Tool("crash").IsSharable("x") {
		t.Error("a server with marks: unmarked tools take no references")
	}
	p, err := Open(context.Background(), Config{Command: []string{broken(t)}, Sharable: []string{"ok.n"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ok = p.Catalog().Tool("ok")
	if !ok.IsSharable("n") || ok.IsSharable("value") || p.Catalog().Sharing != plan.SharingPatterns {
		t.Errorf("--sharable ok.n: %+v", ok)
	}
	if _, err := Open(context.Background(), Config{Command: []string{broken(t)}, Sharable: []string{"value"}}); err == nil || !strings.Contains(err.Error(), "TOOL.PARAM") {
		t.Errorf("a pattern without a dot: %v", err)
	}
	// A pattern that matches nothing would make every parameter
	// unsharable without a word: it is refused, naming the closest.
	_, err = Open(context.Background(), Config{Command: []string{broken(t)}, Sharable: []string{"ok.n", "ok.vale"}})
	if err == nil || !strings.HasSuffix(err.Error(), `--sharable "ok.vale" matches no parameter: did you mean "ok.value"?`) {
		t.Errorf("an unmatched pattern: %v", err)
	}
}

func TestResultMapping(t *testing.T) {
	t.Parallel()
	u, _ := open(t)
	for _, c := range []struct{ tool, value, err string }{
		{"ok", `{"value":"x"}`, ""},
		{"fails", "", "the disk is full"},
		{"text", `"hello, plan"`, ""},
		{"blocks", `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, ""},
		{"nope", "", "tool 'nope' not found"},
	} {
		res, err := call(t, u, c.tool, `{"value":"x"}`)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if c.err != "" {
			if !res.IsError || !strings.Contains(res.Error, c.err) {
				t.Errorf("%s: want error %q, got %+v", c.tool, c.err, res)
			}
			continue
		}
		if res.IsError || string(res.Value) != c.value {
			t.Errorf("%s: got %s (%+v), want %s", c.tool, res.Value, res, c.value)
		}
	}
}

func TestMapResult(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, value, err string }{
		{`{"content":[{"type":"text","text":"{\"a\": 12345678901234567890}"}]}`, `{"a":12345678901234567890}`, ""},
		{`{"content":[{"type":"text","text":"x"}],"structuredContent":{"b":1.50}}`, `{"b":1.50}`, ""},
		{`{"content":[{"type":"text","text":"  42 "}]}`, `42`, ""},
		{`{"content":[{"type":"text","text":"not json"}]}`, `"not json"`, ""},
		{`{"content":[]}`, `[]`, ""},
		{`{}`, `[]`, ""},
		{`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}`, `[{"type":"image","data":"AA==","mimeType":"image/png"}]`, ""},
		{`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true}`, "", "a\nb"},
		{`{"content":[],"isError":true}`, "", "the tool failed and gave no text"},
	} {
		res, err := MapResult(json.RawMessage(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if c.err != "" {
			if !res.IsError || res.Error != c.err {
				t.Errorf("%s: %+v, want error %q", c.in, res, c.err)
			}
		} else if res.IsError || string(res.Value) != c.value {
			t.Errorf("%s: %s, want %s", c.in, res.Value, c.value)
		}
	}
}

func TestServerExitsMidCall(t *testing.T) {
	t.Parallel()
	u, log := open(t)
	_, err := call(t, u, "crash", `{}`)
	if err == nil || !strings.Contains(err.Error(), "upstream server exited: status 3") || !strings.Contains(err.Error(), "boom: simulated crash") {
		t.Fatalf("crash: %v", err)
	}
	if !strings.Contains(log.String(), "boom") {
		t.Errorf("the server log lacks its stderr: %q", log.String())
	}
	if _, err := call(t, u, "ok", `{}`); err == nil || !strings.Contains(err.Error(), "upstream server exited") {
		t.Fatalf("a call after the crash: %v", err)
	}
	if err := u.Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantOK(t, u)
}

func TestServerWritesGarbage(t *testing.T) {
	t.Parallel()
	u, _ := open(t)
	_, err := call(t, u, "garbage", `{}`)
	if err == nil || !strings.Contains(err.Error(), "not JSON-RPC") || !strings.Contains(err.Error(), "Traceback") {
		t.Fatalf("garbage: %v", err)
	}
	if err := u.Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantOK(t, u)
}

func TestServerStopsAnswering(t *testing.T) {
	t.Parallel()
	u, _ := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := u.Call(ctx, "hang", json.RawMessage(`{}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang: %v", err)
	}
	wantOK(t, u)

	// Through a run, the step timeout becomes the step's error.
	p := plan.Load("p.json", []byte(`{"steps":[{"id":"h","tool":"hang","args":{}}]}`), plan.Limits{})
	r := runner.NewRun(p, u.Catalog(), runner.RunOptions{StepTimeout: 100 * time.Millisecond})
	r.Continue(context.Background(), nil)
	if st := r.Step(0); st.Status != runner.StepError || !strings.Contains(st.Error, "timed out") {
		t.Fatalf("step: %+v", st)
	}
	wantOK(t, u)
}

func TestCancellationReachesServer(t *testing.T) {
	t.Parallel()
	u, log := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := u.Call(ctx, "slow", json.RawMessage(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow: %v", err)
	}
	for i := 0; !strings.Contains(log.String(), "slow: cancelled"); i++ {
		if i > 500 {
			t.Fatalf("the server never saw the cancellation; log: %q", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOpenFailures(t *testing.T) {
	t.Parallel()
	bin := broken(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Command: []string{bin, "-exit", "4"}}, "upstream server exited: status 4; its stderr ended with: brokenserver: refusing to start"},
		{Config{Command: []string{bin, "-mute"}, StartTimeout: 300 * time.Millisecond}, "no answer to initialize within 300ms"},
		{Config{Command: []string{filepath.Join(t.TempDir(), "no-such-server")}}, "cannot start"},
		{Config{URL: closed, StartTimeout: 5 * time.Second}, "cannot reach the upstream server " + closed},
	} {
		_, err := Open(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.cfg.Command, err, c.want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{`npx -y @modelcontextprotocol/server-memory`, []string{"npx", "-y", "@modelcontextprotocol/server-memory"}, ""},
		{`  a   'b c'  "d \"e\" $HOME" f\ g '' `, []string{"a", "b c", `d "e" $HOME`, "f g", ""}, ""},
		{`a;rm -rf / | x > y`, []string{"a;rm", "-rf", "/", "|", "x", ">", "y"}, ""},
		{`'unterminated`, nil, "single quote"},
		{`"unterminated`, nil, "double quote"},
		{`a \`, nil, "backslash"},
		{`   `, nil, "empty"},
	} {
		got, err := SplitCommand(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "\x00") != strings.Join(c.want, "\x00") || len(got) != len(c.want) {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	os.WriteFile(file, []byte(`{"mcpServers": {
	  "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"B": "2", "A": "1"}},
	  "remote": {"url": "http://localhost:9/mcp", "headers": {"Authorization": "Bearer t"}},
	  "old":    {"url": "http://localhost:9/sse", "type": "sse"}}}`), 0o600)
	c, err := LoadConfig(file, "memory")
	if err != nil || strings.Join(c.Command, " ") != "npx -y @modelcontextprotocol/server-memory" || strings.Join(c.Env, ",") != "A=1,B=2" {
		t.Errorf("memory: %+v %v", c, err)
	}
	c, err = LoadConfig(file, "remote")
	if err != nil || c.URL != "http://localhost:9/mcp" || c.Headers["Authorization"] != "Bearer t" {
		t.Errorf("remote: %+v %v", c, err)
	}
	two, err := LoadConfigs(file, []string{"remote", "memory"})
	if err != nil || len(two) != 2 || two[0].Name != "remote" || two[1].Name != "memory" || two[1].Env[0] != "A=1" {
		t.Errorf("two servers: %+v %v", two, err)
	}
	// Every server: the SSE one is refused by name.
	if _, err := LoadConfigs(file, nil); err == nil || !strings.Contains(err.Error(), `server "old" uses the old SSE transport`) {
		t.Errorf("every server: %v", err)
	}
	if _, err := LoadConfigs(file, []string{"remote", "nope"}); err == nil || !strings.Contains(err.Error(), `has no server "nope": choose one of memory, old, remote`) {
		t.Errorf("a name the file lacks: %v", err)
	}
	for name, want := range map[string]string{"": "choose one with --name (memory, old, remote)", "x": `has no server "x"`, "old": "Streamable HTTP only"} {
		if _, err := LoadConfig(file, name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", name, err, want)
		}
	}
}

// An entry's "x-planctl" marks sharable parameters where the user keeps
// the server; hosts skip the key. A pattern there that matches nothing is
// refused, naming the entry.
func TestConfigSharableMarks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	os.WriteFile(file, []byte(`{"mcpServers": {
	  "b":   {"command": "`+broken(t)+`", "x-planctl": {"sharable": ["ok.n"]}},
	  "typo": {"command": "`+broken(t)+`", "x-planctl": {"sharable": ["ok.nn"]}},
	  "bad": {"command": "`+broken(t)+`", "x-planctl": {"sharabel": ["ok.n"]}}}}`), 0o600)
	cfg, err := LoadConfig(file, "b")
	if err != nil {
		t.Fatal(err)
	}
	u, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if ok := u.Catalog().Tool("ok"); !ok.IsSharable("n") || ok.IsSharable("value") || u.Catalog().Sharing != plan.SharingPatterns {
		t.Errorf("x-planctl sharable ok.n: %+v", ok)
	}
	cfg, err = LoadConfig(file, "typo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), cfg); err == nil || !strings.HasSuffix(err.Error(), `server "typo" of `+file+`: "x-planctl" sharable "ok.nn" matches no parameter: did you mean "ok.n"?`) {
		t.Errorf("a pattern that matches nothing: %v", err)
	}
	if _, err := LoadConfig(file, "bad"); err == nil || !strings.Contains(err.Error(), `"x-planctl" must be {"sharable": ["tool.param", ...]}: json: unknown field "sharabel"`) {
		t.Errorf("a misspelt key: %v", err)
	}
}

// childEnv keeps the default set and the names passed, and adds the
// entry's own variables last (they win).
func TestChildEnv(t *testing.T) {
	env := []string{"HOME=/h", "PATH=/bin", "PLANCTL_AUTH_TOKEN=secret", "AWS_SECRET_ACCESS_KEY=k", "LC_ALL=C.UTF-8", "LANG=C", "TERM=xterm", "EXTRA=1", "USERNAME=u",
		"SHELL=() { :; }; echo pwned"}
	got := strings.Join(childEnv(env, []string{"EXTRA"}, []string{"MEMORY_FILE_PATH=/m", "PATH=/opt/bin"}), " ")
	if want := "HOME=/h PATH=/bin LC_ALL=C.UTF-8 LANG=C TERM=xterm EXTRA=1 MEMORY_FILE_PATH=/m PATH=/opt/bin"; got != want {
		t.Errorf("child env %q, want %q", got, want)
	}
	if w := defaultEnv("windows"); !slices.Contains(w, "SYSTEMROOT") || slices.Contains(w, "HOME") {
		t.Errorf("the Windows set: %q", w)
	}
}

func TestCatalogReconnect(t *testing.T) {
	t.Parallel()
	u, _ := open(t)
	if _, err := call(t, u, "crash", `{}`); err == nil {
		t.Fatal("no error from a crash")
	}
	if err := u.Catalog().Reconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantOK(t, u)
}

func TestAutoRestart(t *testing.T) {
	t.Parallel()
	u, _ := open(t)
	u.SetAutoRestart(true)
	if _, err := call(t, u, "crash", `{}`); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("the crashing call: %v", err)
	}
	wantOK(t, u) // started again on the next call
}
