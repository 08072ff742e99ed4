package upstream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/planctl/planctl/plan/runner"
)

// A stdio answer is taken from the call's lease as it is read: a 50 MB
// answer under a 4 MB budget fails the call with the lease's message
// before it is read whole, the budget holds no more than it allows, and
// the server, which broke no rule, answers the next call.
func TestStdioAnswerReserved(t *testing.T) {
	t.Parallel()
	u, err := Open(context.Background(), Config{Command: []string{broken(t)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	b := &budget{max: 4 << 20}
	_, err = u.Call(runner.WithLease(ctx, b, "s1"), "big", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), `planctl stopped reading the upstream server's answer: step "s1": no room for`) {
		t.Fatalf("a 50 MB answer under a 4 MB lease: %v", err)
	}
	if b.held > b.max || b.held == 0 {
		t.Errorf("the lease holds %d bytes of %d", b.held, b.max)
	}
	wantOK(t, u)
	// With room, the same call is answered, its bytes counted twice.
	b = &budget{max: 128 << 20}
	if res, err := u.Call(runner.WithLease(ctx, b, "s2"), "big", json.RawMessage(`{}`)); err != nil || len(res.Value) < 50<<20 {
		t.Fatalf("with room: %v", err)
	}
	if b.held < 100<<20 {
		t.Errorf("a 50 MB answer took %d bytes of the lease", b.held)
	}
}

// An answer is read no further than --max-result allows it (twice the
// bound and a MiB of framing), over stdio and HTTP alike: the call fails
// with --max-result's words and the next call is answered.
func TestAnswerStopsAtMaxResult(t *testing.T) {
	t.Parallel()
	url := bigHTTPServer(t, "ok")
	for _, cfg := range []Config{{URL: url}, {Command: []string{broken(t)}}} {
		u, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		_, err = u.Call(runner.WithResultBound(ctx, 1<<20), "big", json.RawMessage(`{}`))
		want := `tool "big" returned an answer of more than 3145728 bytes (3.0 MiB), more than the limit of 1048576 bytes (1.0 MiB) on one result (--max-result)`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: a big answer under a 1 MiB --max-result: %v", cfg.Label, err)
		}
		wantOK(t, u)
		// Under a bound it fits, the answer is whole.
		if res, err := u.Call(runner.WithResultBound(ctx, 64<<20), "big", json.RawMessage(`{}`)); err != nil || len(res.Value) < 5<<20 {
			t.Errorf("%s: under a 64 MiB --max-result: %v", cfg.Label, err)
		}
		cancel()
		u.Close()
	}
}

func TestJSONRPCID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":"planctl-3","result":{"content":[{"text":"xxx`: `"planctl-3"`,
		`{ "jsonrpc" : "2.0" , "id" : 12 , "result"`:                          `12`,
		`{"result":{"a":["id",{"id":1}],"b":"\"id\""},"id":7}`:                `7`,
		`{"id":4}`:                          `4`,
		`{"result":{"content":[{"text":"xx`: ``,
		`{"jsonrpc":"2.0","id":"planc`:      ``,
		`[{"id":1}]`:                        ``,
	} {
		if got := string(jsonrpcID([]byte(in))); got != want {
			t.Errorf("jsonrpcID(%s) = %q, want %q", in, got, want)
		}
	}
}
