package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/planctl/planctl/mockserver"
	"github.com/planctl/planctl/plan/mcpserver"
)

var (
	load        = flag.Bool("load", false, "run the load measurement (TestLoad)")
	loadClients = flag.Int("load-clients", 200, "concurrent HTTP clients")
	loadPlans   = flag.Int("load-plans", 50, "plans per client")
	loadRounds  = flag.Int("load-rounds", 3, "rounds of clients, one after another (the heap after each shows a leak)")
	loadToken   = flag.String("load-token", "", "with -load-url: the bearer token the server printed (or its PLANCTL_AUTH_TOKEN)")
	loadURL     = flag.String("load-url", "", "measure the server at this URL (e.g. a planctl serve --http --stateless process) instead of one in this process")
	loadRaw     = flag.Bool("load-raw", false, "clients POST a prepared tools/call instead of using mcp-go's client: measures the server alone")
	loadWarmup  = flag.Int("load-warmup", 0, "before the rounds, a round of this many plans per client, in this process and mode, not counted: the client's own first second (its heap, stacks and connections growing) is not the server's")
	loadConn    = flag.Bool("load-conn", false, "as -load-raw, each client on one connection of its own written and read by its goroutine (no net/http client, whose two goroutines per connection and channel hand-offs cost the load generator CPU and fairness)")
)

const loadPlan = `{"steps":[
 {"id":"backup","tool":"create_backup","args":{"database":"prod"}},
 {"id":"validate","tool":"validate_backup","args":{"backup_id":{"output_by_reference":{"backup":["backup_id"]}}}},
 {"id":"stats","tool":"db_stats","args":{"database":{"output_by_reference":{"backup":["database"]}}}}]}`

// TestLoad measures the load target: N concurrent Streamable HTTP
// clients (mcp-go's client, each with its own session handshake) each
// sending M three-step plans on mock tools to a --stateless server over
// real sockets. It reports failures, latency percentiles, plans per second,
// and memory and goroutines before and after the clients leave. It asserts
// correctness only (zero failed calls, nothing left behind), never timing.
//
//	go test ./plan/mcpserver -run TestLoad -load -v
func TestLoad(t *testing.T) {
	if !*load {
		t.Skip("a measurement, not a test: run with -load (see docs/serve.md and docs/performance.md)")
	}
	s := mcpserver.New(mcpserver.Options{Catalog: mockserver.Demo()})
	hs := &http.Server{}
	s.NewHTTP(hs, mcpserver.HTTPOptions{Stateless: true})
	ts := httptest.NewServer(hs.Handler)
	defer ts.Close()
	url := ts.URL + mcpserver.Endpoint
	if *loadURL != "" {
		url = *loadURL // the memory figures are then this process's: the clients'
	}

	tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024}
	hc := &http.Client{Transport: tr}
	baseGoroutines, baseHeap := settle()

	var firstHeap uint64
	first := 1
	if *loadWarmup > 0 {
		first = 0 // round 0: the warm-up
	}
	for round := first; round <= *loadRounds; round++ {
		n, m := *loadClients, *loadPlans
		if round == 0 {
			m = *loadWarmup
		}
		lat := make([][]time.Duration, n)
		var failures sync.Map
		var wg sync.WaitGroup
		start := time.Now()
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if *loadConn {
					lat[i] = connClient(t, url, m, i, &failures)
					return
				}
				if *loadRaw {
					lat[i] = rawClient(t, hc, url, m, i, &failures)
					return
				}
				copts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc)}
				if *loadToken != "" {
					copts = append(copts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + *loadToken}))
				}
				c, err := client.NewStreamableHttpClient(url, copts...)
				if err != nil {
					failures.Store(fmt.Sprintf("client %d: %v", i, err), true)
					return
				}
				defer c.Close()
				ctx := context.Background()
				req := mcp.InitializeRequest{}
				req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
				req.Params.ClientInfo = mcp.Implementation{Name: "load", Version: "1"}
				if err := c.Start(ctx); err != nil {
					failures.Store(fmt.Sprintf("client %d start: %v", i, err), true)
					return
				}
				if _, err := c.Initialize(ctx, req); err != nil {
					failures.Store(fmt.Sprintf("client %d initialize: %v", i, err), true)
					return
				}
				lat[i] = make([]time.Duration, 0, m)
				for j := range m {
					t0 := time.Now()
					res, err := callPlan(ctx, c, loadPlan, nil)
					d := time.Since(t0)
					if err != nil {
						failures.Store(fmt.Sprintf("client %d plan %d: %v", i, j, err), true)
						continue
					}
					if res.IsError || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].(mcp.TextContent).Text, "{\n  \"status\": \"completed\"") {
						failures.Store(fmt.Sprintf("client %d plan %d: %+v", i, j, res), true)
						continue
					}
					lat[i] = append(lat[i], d)
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)

		var all []time.Duration
		for _, l := range lat {
			all = append(all, l...)
		}
		slices.Sort(all)
		nFail := 0
		failures.Range(func(k, _ any) bool {
			if nFail < 5 {
				t.Errorf("failed: %v", k)
			}
			nFail++
			return true
		})
		pct := func(p float64) time.Duration {
			if len(all) == 0 {
				return 0
			}
			return all[min(len(all)-1, int(float64(len(all))*p))]
		}
		peakGoroutines := runtime.NumGoroutine()
		tr.CloseIdleConnections()
		if round == 0 {
			if len(all) != n*m {
				t.Errorf("warm-up: %d of %d plans answered", len(all), n*m)
			}
			continue
		}
		afterGoroutines, afterHeap := settle()
		t.Logf("round %d: %d clients x %d three-step plans: %d ok, %d failed, in %s", round, n, m, len(all), nFail, elapsed.Round(time.Millisecond))
		t.Logf("throughput: %.0f plans/s (%.0f tool calls/s)", float64(len(all))/elapsed.Seconds(), 3*float64(len(all))/elapsed.Seconds())
		t.Logf("latency: p50 %s, p90 %s, p99 %s, max %s", pct(0.50), pct(0.90), pct(0.99), pct(1))
		t.Logf("heap in use: %.1f MiB before, %.1f MiB after the clients left; goroutines: %d before, %d at the end of the run, %d after",
			float64(baseHeap)/(1<<20), float64(afterHeap)/(1<<20), baseGoroutines, peakGoroutines, afterGoroutines)
		if nFail > 0 {
			t.Errorf("%d failed calls", nFail)
		}
		if *loadURL != "" {
			continue
		}
		if afterGoroutines > baseGoroutines {
			t.Errorf("%d goroutines left behind", afterGoroutines-baseGoroutines)
		}
		// After the first round the heap holds what the runtime and net/http
		// keep in pools; a leak per session or per plan would grow it by
		// (clients x plans) times something in every later round.
		if round == 1 {
			firstHeap = afterHeap
		} else if afterHeap > firstHeap+1<<20 {
			t.Errorf("heap grew from %d bytes after round 1 to %d after round %d: something per session or plan is kept", firstHeap, afterHeap, round)
		}
	}
}

// rawClient sends m plans as plain HTTP POSTs of one prepared tools/call
// request (built from mcp-go's types), so that the client's own JSON work
// does not compete with the server's for the CPU.
func rawClient(t *testing.T, hc *http.Client, url string, m, i int, failures *sync.Map) []time.Duration {
	params := mcp.CallToolParams{Name: mcpserver.ToolName, Arguments: json.RawMessage(loadPlan)}
	body, err := json.Marshal(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(i)),
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)}, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	lat := make([]time.Duration, 0, m)
	for j := range m {
		t0 := time.Now()
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", mcp.ProtocolVersion20251125)
		if *loadToken != "" {
			req.Header.Set("Authorization", "Bearer "+*loadToken)
		}
		resp, err := hc.Do(req)
		if err != nil {
			failures.Store(fmt.Sprintf("client %d plan %d: %v", i, j, err), true)
			continue
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil || resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"structuredContent":{"status":"completed"`)) {
			failures.Store(fmt.Sprintf("client %d plan %d: %d %.300s %v", i, j, resp.StatusCode, out, err), true)
			continue
		}
		lat = append(lat, d)
	}
	return lat
}

// connClient is rawClient on a keep-alive connection of its own that its
// goroutine writes and reads: one goroutine per client, nothing else.
func connClient(t *testing.T, url string, m, i int, failures *sync.Map) []time.Duration {
	params := mcp.CallToolParams{Name: mcpserver.ToolName, Arguments: json.RawMessage(loadPlan)}
	body, err := json.Marshal(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(i)),
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)}, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.ProtocolVersion20251125)
	if *loadToken != "" {
		req.Header.Set("Authorization", "Bearer "+*loadToken)
	}
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", req.URL.Host)
	if err != nil {
		failures.Store(fmt.Sprintf("client %d: %v", i, err), true)
		return nil
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	lat := make([]time.Duration, 0, m)
	for j := range m {
		t0 := time.Now()
		if _, err := conn.Write(wire.Bytes()); err != nil {
			failures.Store(fmt.Sprintf("client %d plan %d: %v", i, j, err), true)
			return lat
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			failures.Store(fmt.Sprintf("client %d plan %d: %v", i, j, err), true)
			return lat
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil || resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"structuredContent":{"status":"completed"`)) {
			failures.Store(fmt.Sprintf("client %d plan %d: %d %.300s %v", i, j, resp.StatusCode, out, err), true)
			if resp.Close {
				return lat
			}
			continue
		}
		lat = append(lat, d)
	}
	return lat
}

// settle lets connections wind down and returns the goroutine count and
// the heap in use once the count stops falling.
func settle() (int, uint64) {
	prev := -1
	for range 100 {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n == prev {
			break
		}
		prev = n
		time.Sleep(50 * time.Millisecond)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return prev, ms.HeapInuse
}
