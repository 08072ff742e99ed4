package servetest

import (
	"bufio"
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
			code, body, _, err := tryPost(s, http.MethodPost, call, "MCP-Protocol-Version", "2025-11-25")
			once.Do(func() { close(first) })
			switch {
			case err != nil:
				otherN.Add(1)
				other.Store(err.Error())
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
		_, body, _, err := tryPost(s, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[`+normal+`]}}}`, "MCP-Protocol-Version", "2025-11-25")
		if err != nil {
			body = err.Error()
		}
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
	// --max-response as it was when the attack round ran (64 MiB): at
	// the 8 MiB default, every one of these 11 MiB answers stops at it
	// and nothing tests the shared budget.
	s := startCapped(t, "--stateless", "--max-response", "67108864")
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

// The same over stdio (--server): the answers are counted against their
// calls' leases as they are read and read no further than --max-result
// allows, so 12 of them at once keep the server under budgetPeak (attack
// round three: one alone peaked at 1.25 GB); each step fails at a bound.
func TestStdioUpstreamFloodBounded(t *testing.T) {
	t.Parallel()
	clitest.Long(t, "200 MB upstream answers over stdio")
	n := 12
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := startCapped(t, "--stateless", "--step-timeout", "5m", "--server", fmt.Sprintf("%s bigstdio %d", self, 200<<20))
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"b","tool":"big","args":{}}]}}}`
	ran, refused := floodPlans(t, s, n, call, `{"id":"a","tool":"small","args":{}}`)
	if ran != 0 || refused != n {
		t.Errorf("%d ran, %d refused: want every 200 MB answer stopped at a bound", ran, refused)
	}
	peak := peakRSS(t, s)
	t.Logf("%d plans: %d ran, %d refused; the server's peak memory %d MiB", n, ran, refused, peak>>20)
	if peak > stdioPeak {
		t.Errorf("the server's peak memory is %d MiB, over %d MiB", peak>>20, stdioPeak>>20)
	}
}

// One 200 MB answer, over --max-result (64 MiB) but under the 256 MiB
// bound on one message, is read no further than --max-result allows: the
// step fails with --max-result's words, the server stays well under what
// reading it whole took (attack round three: 1.0 GB over HTTP, 1.25 GB
// over stdio).
func TestBigAnswerStopsAtMaxResult(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(bigUpstream(200 << 20))
	defer hs.Close()
	for mode, up := range map[string][]string{"http": {"--url", hs.URL + "/mcp"}, "stdio": {"--server", fmt.Sprintf("%s bigstdio %d", self, 200<<20)}} {
		t.Run(mode, func(t *testing.T) {
			s := startCapped(t, append([]string{"--stateless", "--step-timeout", "5m"}, up...)...)
			code, body, _ := post(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_plan","arguments":{"steps":[{"id":"b","tool":"big","args":{}}]}}}`, "MCP-Protocol-Version", "2025-11-25")
			if code != http.StatusOK || !strings.Contains(body, `returned an answer of more than 135266304 bytes (129.0 MiB), more than the limit of 67108864 bytes (64.0 MiB) on one result (--max-result)`) {
				t.Errorf("a 200 MB answer: %d %.400s", code, body)
			}
			peak := peakRSS(t, s)
			t.Logf("%s: one 200 MB answer; the server's peak memory %d MiB", mode, peak>>20)
			if peak > onePeak {
				t.Errorf("the server's peak memory is %d MiB, over %d MiB", peak>>20, onePeak>>20)
			}
		})
	}
}

// onePeak bounds the server's memory for one answer stopped at the
// default --max-result: its bytes up to answerBound (129 MiB), and the
// garbage of reading them, not a decoded copy.
const onePeak = 640 << 20

// stdioPeak: over stdio one reader takes the answers one after the other,
// so n of them cost hardly more than one.
const stdioPeak = budgetPeak

// bigUpstream is an MCP server over Streamable HTTP (stateless, JSON
// answers) with bigAnswer's two tools.
func bigUpstream(n int) http.Handler {
	text := bytes.Repeat([]byte("u"), n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req bigRequest
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "POST a JSON-RPC message", http.StatusMethodNotAllowed)
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		w.Header().Set("Content-Type", "application/json")
		bigAnswer(w, req, text)
	})
}

// serveBigStdio is bigAnswer's MCP server over stdio, answering a text of
// n bytes: TestMain runs it when the test binary is started as
// "BINARY bigstdio N" (the upstream of TestStdioUpstreamFloodBounded).
func serveBigStdio(n int) {
	text := bytes.Repeat([]byte("u"), n)
	dec := json.NewDecoder(os.Stdin)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for {
		var req bigRequest
		if err := dec.Decode(&req); err != nil {
			return
		}
		if req.ID == nil {
			continue
		}
		bigAnswer(out, req, text)
		out.WriteString("\n")
		if out.Flush() != nil {
			return
		}
	}
}

type bigRequest struct {
	ID     json.RawMessage
	Method string
	Params struct{ Name string }
}

// bigAnswer answers req for an MCP server with two tools: big answers
// text, written from one buffer so that the test's own memory and time
// stay small; small answers "ok".
func bigAnswer(w io.Writer, req bigRequest, text []byte) {
	reply := func(result string) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}
	switch {
	case req.Method == "initialize":
		reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}`)
	case req.Method == "tools/list":
		reply(`{"tools":[{"name":"big","inputSchema":{"type":"object"}},{"name":"small","inputSchema":{"type":"object"}}]}`)
	case req.Method == "tools/call" && req.Params.Name == "big":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, req.ID)
		w.Write(text)
		io.WriteString(w, `"}]}}`)
	case req.Method == "tools/call":
		reply(`{"content":[{"type":"text","text":"ok"}]}`)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no method %s"}}`, req.ID, req.Method)
	}
}
