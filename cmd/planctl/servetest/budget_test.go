package servetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/planctl/planctl/cmd/planctl/internal/clitest"
)

// budgetPeak is the most memory a server at the default bounds may hold
// under the amplification floods below (docs/security.md, "`serve` defaults"):
// a small multiple of --max-answers (512 MiB).
const budgetPeak = 1536 << 20

// floodPlans posts n copies of call at once to s and counts the answers
// that ran the plan and those refused at a bound (no room in --max-answers,
// or a result over --max-result); meanwhile a
// normal plan (one step) must still be answered.
func floodPlans(t *testing.T, s *server, n int, call, normal string) (ran, refused int) {
	t.Helper()
	var wg sync.WaitGroup
	var okN, busyN, otherN atomic.Int64
	var other atomic.Value
	first := make(chan struct{}) // closed at the flood's first answer
	var once sync.Once
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body, _ := post(t, s, http.MethodPost, call, "MCP-Protocol-Version", "2025-11-25")
			once.Do(func() { close(first) })
			switch {
			case code == http.StatusServiceUnavailable && strings.Contains(body, "(--max-answers)"):
				busyN.Add(1)
			case code == http.StatusOK && (strings.Contains(body, "(--max-answers)") || strings.Contains(body, "(--max-result)")):
				busyN.Add(1) // a step stopped at a bound
			case code == http.StatusOK && strings.Contains(body, `\"completed\"`):
				okN.Add(1)
			default:
				otherN.Add(1)
				other.Store(fmt.Sprintf("%d %.300s", code, body))
			}
		}()
	}
	// A normal client is answered while the flood is being served: it
	// sends once the server has begun answering the flood.
	<-first
	done := make(chan string, 1)
	start := time.Now()
	go func() {
		_, body, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[`+normal+`]}}}`, "MCP-Protocol-Version", "2025-11-25")
		done <- body
	}()
	select {
	case body := <-done:
		t.Logf("the normal plan was answered in %s", time.Since(start).Round(time.Millisecond))
		if !strings.Contains(body, "completed") {
			t.Errorf("the normal plan during the flood: %.300s", body)
		}
	case <-time.After(floodGuard):
		t.Errorf("the normal plan was not answered within %s during the flood", floodGuard)
	}
	wg.Wait()
	if otherN.Load() > 0 {
		t.Errorf("%d answers neither ran nor were refused for room, e.g. %s\n%s", otherN.Load(), other.Load(), tail(s.stderr.String()))
	}
	return int(okN.Load()), int(busyN.Load())
}

// Many plans at once, each sending a 3.9 MB argument that the demo
// catalog's run_migration writes twice into its result, take the server
// past neither its address-space cap nor budgetPeak: the bodies are
// admitted by their size before they are read, the arguments and the
// rendered result are reserved before they are allocated (attack round
// three: 250 of them peaked at 4.0 GB).
func TestTemplateFloodBounded(t *testing.T) {
	t.Parallel()
	n := 60
	if os.Getenv(clitest.LongEnv) != "" {
		n = 250 // the attack round's
	}
	s := startCapped(t, "--stateless")
	db := strings.Repeat("d", 3_900_000)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"m","tool":"run_migration","args":{"database":"` + db + `","backup_id":"b1","target_version":"042"}}]}}}`
	ran, refused := floodPlans(t, s, n, call, `{"id":"a","tool":"echo","args":{"value":1}}`)
	peak := peakRSS(t, s)
	t.Logf("%d plans: %d ran, %d refused for room; the server's peak memory %d MiB", n, ran, refused, peak>>20)
	if ran == 0 || refused == 0 {
		t.Errorf("%d ran, %d refused: want both (the budget admits some of %d at once)", ran, refused, n)
	}
	if peak > budgetPeak {
		t.Errorf("the server's peak memory is %d MiB, over %d MiB", peak>>20, budgetPeak>>20)
	}
}

// Plans whose upstream tool answers 200 MB each (under the 256 MiB bound
// on one message) are counted as their answers stream, across all calls
// at once: the server stays up and under budgetPeak (attack round three:
// 12 of them crashed it; one alone peaked at 1.0 GB).
func TestUpstreamFloodBounded(t *testing.T) {
	t.Parallel()
	clitest.Long(t, "200 MB upstream answers")
	hs := httptest.NewServer(bigUpstream(200 << 20))
	defer hs.Close()
	s := startCapped(t, "--stateless", "--step-timeout", "5m", "--url", hs.URL+"/mcp")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"b","tool":"big","args":{}}]}}}`
	ran, refused := floodPlans(t, s, 12, call, `{"id":"a","tool":"small","args":{}}`)
	if ran != 0 || refused != 12 {
		t.Errorf("%d ran, %d refused: want every 200 MB answer stopped at a bound", ran, refused)
	}
	peak := peakRSS(t, s)
	t.Logf("12 plans: %d ran, %d refused for room; the server's peak memory %d MiB", ran, refused, peak>>20)
	if peak > budgetPeak {
		t.Errorf("the server's peak memory is %d MiB, over %d MiB", peak>>20, budgetPeak>>20)
	}
}

// bigUpstream is an MCP server over Streamable HTTP (stateless, JSON
// answers) with two tools: big answers a text of n bytes, written from
// one buffer so that the test's own memory and time stay small; small
// answers "ok".
func bigUpstream(n int) http.Handler {
	head := []byte(`,"result":{"content":[{"type":"text","text":"`)
	text := bytes.Repeat([]byte("u"), n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage
			Method string
			Params struct{ Name string }
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "POST a JSON-RPC message", http.StatusMethodNotAllowed)
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		w.Header().Set("Content-Type", "application/json")
		reply := func(result string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
		}
		switch {
		case req.Method == "initialize":
			reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}`)
		case req.Method == "tools/list":
			reply(`{"tools":[{"name":"big","inputSchema":{"type":"object"}},{"name":"small","inputSchema":{"type":"object"}}]}`)
		case req.Method == "tools/call" && req.Params.Name == "big":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s`, req.ID)
			w.Write(head)
			w.Write(text)
			io.WriteString(w, `"}]}}`)
		case req.Method == "tools/call":
			reply(`{"content":[{"type":"text","text":"ok"}]}`)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no method %s"}}`, req.ID, req.Method)
		}
	})
}
